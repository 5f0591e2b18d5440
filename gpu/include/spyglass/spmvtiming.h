#pragma once
// SpMV measured the way the benchmarks measure it, for callers that show times (the GUI's method D
// tab): the upload (and, for cuSPARSE, its handle, descriptors and workspace) timed once apart, then
// the multiply alone timed with CUDA events as the median of warm runs (bench::measure). The result
// of the last run is returned for checking against the reference. The same options as the untimed
// entries (hybridSpmv, spmv) pick the backend and the stream; only GPU backends are timed this way
// (InputError for Reference), and without a CUDA device (or in a build without CUDA) they throw
// BackendUnavailableError.
#include "spyglass/benchmark.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/matrix.h"
#include "spyglass/segdia_spmv.h"

#include <cstddef>
#include <vector>

namespace spyglass {

struct TimedSpmv {
    std::vector<double> y;
    double uploadMs = 0;          // host -> device copies of the matrix and x (setup included where stated)
    bench::TimingSummary multiply; // CUDA events around the multiply only
    std::size_t deviceBytes = 0;  // bytes of the matrix on the device
};

struct SpmvTiming {
    int warmup = 3;   // untimed runs first, >= 0
    int repeats = 20; // timed runs, >= 1
};

// Method D's kernels (fp64 prefix sums, values and accumulation): options.backend Cuda.
TimedSpmv timeHybridSpmv(const HybridBinaryMatrix& hybrid, const std::vector<double>& x, const HybridSpmvOptions& options,
                         const SpmvTiming& timing);
TimedSpmv timeHybridSpmv(const HybridValuedMatrix<double>& hybrid, const std::vector<double>& x,
                         const HybridSpmvOptions& options, const SpmvTiming& timing);
// cuSPARSE's generic CSR SpMV (CUSPARSE_SPMV_CSR_ALG1, 32-bit indices, fp64 values): options.backend
// Cusparse. uploadMs includes creating the handle, the descriptors and the workspace, which a caller
// does once.
TimedSpmv timeSpmv(const CsrMatrix<double>& a, const std::vector<double>& x, const SpmvOptions& options,
                   const SpmvTiming& timing);

} // namespace spyglass
