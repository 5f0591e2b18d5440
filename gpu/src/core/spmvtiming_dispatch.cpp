// The timed SpMV entries: validate sizes, repeats and the backend, then hand over to the device.
#include "core/spmv_checks.h"
#include "core/spmvtiming_device.h"
#include "spyglass/error.h"
#include "spyglass/spmvtiming.h"

#include <string>

namespace spyglass {

namespace {
void checkTiming(const char* what, const SpmvTiming& timing) { requireValidTiming(what, timing); }

// Timing with CUDA events needs a GPU backend; the CPU reference is timed by its caller's clock.
void checkHybridBackend(const char* what, const HybridSpmvOptions& options) {
    if (options.backend != HybridSpmvBackend::Cuda)
        throw InputError(std::string(what) + ": timed runs take the cuda backend, not " + toString(options.backend));
}

template <typename Hybrid>
TimedSpmv timeHybrid(const char* what, const Hybrid& hybrid, const std::vector<double>& x, const HybridSpmvOptions& options,
                     const SpmvTiming& timing) {
    spmv_checks::requireXOfColumns(what, hybrid.cols, x.size());
    checkTiming(what, timing);
    checkHybridBackend(what, options);
    return spmvtiming_detail::timeHybridSpmvOnDevice(hybrid, x, options, timing);
}
} // namespace

TimedSpmv timeHybridSpmv(const HybridBinaryMatrix& hybrid, const std::vector<double>& x, const HybridSpmvOptions& options,
                         const SpmvTiming& timing) {
    return timeHybrid("hybrid SpMV (CUDA, timed)", hybrid, x, options, timing);
}

TimedSpmv timeHybridSpmv(const HybridValuedMatrix<double>& hybrid, const std::vector<double>& x,
                         const HybridSpmvOptions& options, const SpmvTiming& timing) {
    return timeHybrid("valued hybrid SpMV (CUDA, timed)", hybrid, x, options, timing);
}

TimedSpmv timeSpmv(const SegmentedDiaMatrix<double>& a, const std::vector<double>& x, const SpmvOptions& options,
                   const SpmvTiming& timing) {
    const char* what = "segmented DIA SpMV (CUDA, timed)";
    spmv_checks::requireXOfColumns(what, a.cols, x.size());
    checkTiming(what, timing);
    validateSegmentedDiaVariant(options.variant);
    if (options.backend != SpmvBackend::Cuda)
        throw InputError(std::string(what) + ": timed segmented-DIA runs take the cuda backend, not " + toString(options.backend));
    return spmvtiming_detail::timeSpmvOnDevice(a, x, options, timing);
}

TimedSpmv timeSpmv(const CsrMatrix<double>& a, const std::vector<double>& x, const SpmvOptions& options,
                   const SpmvTiming& timing) {
    const char* what = "cuSPARSE CSR SpMV (timed)";
    spmv_checks::requireXOfColumns(what, a.cols, x.size());
    spmv_checks::requireRowPointers(what, a);
    checkTiming(what, timing);
    if (options.backend != SpmvBackend::Cusparse)
        throw InputError(std::string(what) + ": timed CSR runs take the cusparse backend, not " + toString(options.backend));
    return spmvtiming_detail::timeSpmvOnDevice(a, x, options, timing);
}

} // namespace spyglass
