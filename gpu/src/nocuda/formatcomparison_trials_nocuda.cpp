// Without CUDA the comparison's GPU trials report the missing backend; the comparison then runs every
// row on the CPU reference (it asks cudaDeviceInfo() first, so these are not reached in practice).
#include "../core/formatcomparison_trials.h"

#include "spyglass/error.h"

namespace spyglass::compare_detail {

namespace {
[[noreturn]] void unavailable() { throw BackendUnavailableError("format comparison on the GPU: this build has no CUDA backend"); }
} // namespace

void prepareGpu() { unavailable(); }
double gpuCopyBandwidth() { unavailable(); }
template <typename T> Trial<T> gpuCsrTrial(const CsrMatrix<T>&, const std::vector<T>&, const TrialRuns&) { unavailable(); }
template <typename T> Trial<T> gpuDiaTrial(const DiaMatrix<T>&, const std::vector<T>&, const TrialRuns&) { unavailable(); }
template <typename T> Trial<T> gpuSegmentedDiaTrial(const SegmentedDiaMatrix<T>&, const std::vector<T>&, const TrialRuns&) { unavailable(); }
template <typename T> Trial<T> gpuHybridTrial(const HybridBinaryMatrix&, const std::vector<T>&, const TrialRuns&) { unavailable(); }
template <typename T> Trial<T> gpuHybridValuedTrial(const HybridValuedMatrix<T>&, const std::vector<T>&, const TrialRuns&) { unavailable(); }
template <typename T> Trial<T> gpuBitFlagTrial(const BitFlagMatrix<T>&, const std::vector<T>&, const TrialRuns&) { unavailable(); }

SPYGLASS_FORMATCOMPARISON_TRIALS(float)
SPYGLASS_FORMATCOMPARISON_TRIALS(double)
SPYGLASS_FORMATCOMPARISON_COMPLEX_TRIALS(std::complex<float>)
SPYGLASS_FORMATCOMPARISON_COMPLEX_TRIALS(std::complex<double>)

} // namespace spyglass::compare_detail
