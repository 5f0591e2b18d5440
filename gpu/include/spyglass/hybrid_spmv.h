#pragma once
// Method D, step 6: y = A x on the hybrid form, binary or valued, behind one call,
// hybridSpmv(hybrid, x, options), on every backend:
//   Reference: plain C++ (the CPU path and the test oracle).
//   Cuda:      Spyglass's kernels, with the reference's arithmetic (fp64 prefix sums and
//              accumulation, complex<double> for complex values, rounded once to T).
// The Cuda backend uploads, multiplies once on options.stream and downloads; it throws
// BackendUnavailableError in a build or on a machine without CUDA. x's size is validated before
// dispatch (InputError).
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"

#include <string>
#include <vector>

namespace spyglass {

enum class HybridSpmvBackend {
    Reference,  // plain C++ on the CPU
    Cuda        // Spyglass's kernels
};

// The hybrid form has one kernel per form (binary, valued), so there is no variant to choose.
struct HybridSpmvOptions {
    HybridSpmvBackend backend = HybridSpmvBackend::Reference;
    // Cuda: the cudaStream_t to run on (nullptr: the default stream). void* keeps this header free of
    // CUDA; the call returns once the stream has delivered y.
    void* stream = nullptr;
};

const char* toString(HybridSpmvBackend backend);

// T: float or double; the valued form also std::complex<float> and std::complex<double>, on both
// backends: the Cuda kernel accumulates complex values in complex<double> (both parts in fp64, each
// warp reduction shuffling both) and rounds once, as the reference does.
template <typename T>
std::vector<T> hybridSpmv(const HybridBinaryMatrix& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options = {});
template <typename T>
std::vector<T> hybridSpmv(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options = {});

// After how many SpMVs the hybrid encoding has paid for its preparation against CSR (the baseline
// needs none: a user holds CSR): n = (prepare - csr upload) / (csr SpMV - hybrid SpMV), where
// prepare = detection + encoding + staging + upload of the hybrid. "never" when the hybrid SpMV is
// not faster; from the first SpMV when n <= 1.
struct HybridBreakEven {
    bool never = true;
    double exact = 0;      // n as a real number (meaningless when never)
    long long spmvs = 0;   // whole SpMVs: ceil(n), at least 1
    double prepareMs = 0, hybridSpmvMs = 0, csrUploadMs = 0, csrSpmvMs = 0;
    std::string text() const;     // "after 312 SpMVs", "from the first SpMV", "never (...)"
    std::string formula() const;  // the numbers that gave it
};
HybridBreakEven hybridBreakEven(double prepareMs, double hybridSpmvMs, double csrUploadMs, double csrSpmvMs);

} // namespace spyglass
