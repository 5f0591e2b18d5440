#pragma once
// SpMV measured the way the benchmarks measure it, for callers that show times (the GUI's method D
// tab): the upload (and, for cuSPARSE, its handle, descriptors and workspace) timed once apart, then
// the multiply alone timed with CUDA events as the median of warm runs (bench::measure). The result
// of the last run is returned for checking against the reference.
// Without a CUDA device (or in a build without CUDA) both throw BackendUnavailableError.
#include "spyglass/benchmark.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/matrix.h"

#include <cstddef>
#include <vector>

namespace spyglass {

struct TimedSpmv {
    std::vector<double> y;
    double uploadMs = 0;          // host -> device copies of the matrix and x (setup included where stated)
    bench::TimingSummary multiply; // CUDA events around the multiply only
    std::size_t deviceBytes = 0;  // bytes of the matrix on the device
};

// Spyglass's hybrid kernel (fp64 prefix sums and accumulation).
TimedSpmv hybridSpmvCudaTimed(const HybridBinaryMatrix& hybrid, const std::vector<double>& x, int warmup, int repeats);
// The valued form's kernel (fp64 values and accumulation).
TimedSpmv hybridValuedSpmvCudaTimed(const HybridValuedMatrix<double>& hybrid, const std::vector<double>& x, int warmup,
                                    int repeats);
// cuSPARSE's generic CSR SpMV (CUSPARSE_SPMV_CSR_ALG1, 32-bit indices, fp64 values): uploadMs
// includes creating the handle, the descriptors and the workspace, which a caller does once.
TimedSpmv cusparseCsrSpmvTimed(const CsrMatrix<double>& a, const std::vector<double>& x, int warmup, int repeats);

} // namespace spyglass
