#pragma once
// Method D, step 6: y = A x on the hybrid form, binary or valued, behind one call,
// hybridSpmv(hybrid, x, options), on every backend:
//   Reference: plain C++ (the CPU path and the test oracle).
//   Cuda:      Spyglass's kernels, with the reference's arithmetic (fp64 prefix sums and
//              accumulation, rounded once to T).
// The Cuda backend uploads, multiplies once on options.stream and downloads; it throws
// BackendUnavailableError in a build or on a machine without CUDA. x's size is validated before
// dispatch (InputError).
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"

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

// T: float or double.
template <typename T>
std::vector<T> hybridSpmv(const HybridBinaryMatrix& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options = {});
template <typename T>
std::vector<T> hybridSpmv(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options = {});

} // namespace spyglass
