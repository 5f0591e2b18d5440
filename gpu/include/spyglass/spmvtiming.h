#pragma once
// SpMV measured by the one measurement engine (measurement.h), for callers that show times (the GUI's
// method B and D tabs, the CLI): set-up (for cuSPARSE its handle, descriptors and workspace) and the
// upload timed once apart; then the multiply alone by CUDA events: a cold first call apart, warm-up,
// the median of the timed calls. The result of the last call is returned for checking against the
// reference. The same options as the untimed entries (hybridSpmv, spmv) pick the backend and the
// stream; only GPU backends are timed this way (InputError for Reference: the caller times the CPU
// with measureRepeated), and without a CUDA device (or in a build without CUDA) they throw
// BackendUnavailableError.
#include "spyglass/hybrid_spmv.h"
#include "spyglass/matrix.h"
#include "spyglass/measurement.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"

#include <complex>
#include <cstddef>
#include <vector>

namespace spyglass {

template <typename T>
struct TimedSpmvOf {
    std::vector<T> y;
    Measurement timing;           // the multiply; set-up and upload apart in its fields
    std::size_t deviceBytes = 0;  // bytes of the matrix on the device
    double bytesMoved = 0;        // bytes one SpMV must move at least (matrix, x, y): the bandwidth floor
};

using TimedSpmv = TimedSpmvOf<double>;

using SpmvTiming = TimingOptions;

// Method D's kernels (fp64 prefix sums, values and accumulation): options.backend Cuda.
TimedSpmv timeHybridSpmv(const HybridBinaryMatrix& hybrid, const std::vector<double>& x, const HybridSpmvOptions& options,
                         const SpmvTiming& timing);
TimedSpmv timeHybridSpmv(const HybridValuedMatrix<double>& hybrid, const std::vector<double>& x,
                         const HybridSpmvOptions& options, const SpmvTiming& timing);
// The valued form in complex values (c64, c128): the same kernel, summing in complex<double>.
TimedSpmvOf<std::complex<float>> timeHybridSpmv(const HybridValuedMatrix<std::complex<float>>& hybrid,
                                                const std::vector<std::complex<float>>& x, const HybridSpmvOptions& options,
                                                const SpmvTiming& timing);
TimedSpmvOf<std::complex<double>> timeHybridSpmv(const HybridValuedMatrix<std::complex<double>>& hybrid,
                                                 const std::vector<std::complex<double>>& x, const HybridSpmvOptions& options,
                                                 const SpmvTiming& timing);
// Method B's kernel on segmented DIA (or HDIA) with options.variant: options.backend Cuda.
// T: double, std::complex<float> or std::complex<double> (the complex ones for complex matrices).
template <typename T>
TimedSpmvOf<T> timeSpmv(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options,
                        const SpmvTiming& timing);
// cuSPARSE's generic CSR SpMV (CUSPARSE_SPMV_CSR_ALG1, 32-bit indices, values and compute in T):
// options.backend Cusparse. Set-up is the handle, the descriptors and the workspace, which a caller
// makes once. T as above.
template <typename T>
TimedSpmvOf<T> timeSpmv(const CsrMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options, const SpmvTiming& timing);

// The value types the timed method-B entries are built for.
#define SPYGLASS_FOR_EACH_TIMED_SPMV_SCALAR(X) X(double) X(std::complex<float>) X(std::complex<double>)

} // namespace spyglass
