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

template <typename Hybrid, typename T>
TimedSpmvOf<T> timeHybrid(const char* what, const Hybrid& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options,
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

TimedSpmvOf<std::complex<float>> timeHybridSpmv(const HybridValuedMatrix<std::complex<float>>& hybrid,
                                                const std::vector<std::complex<float>>& x, const HybridSpmvOptions& options,
                                                const SpmvTiming& timing) {
    return timeHybrid("valued hybrid SpMV (CUDA, c64, timed)", hybrid, x, options, timing);
}

TimedSpmvOf<std::complex<double>> timeHybridSpmv(const HybridValuedMatrix<std::complex<double>>& hybrid,
                                                 const std::vector<std::complex<double>>& x, const HybridSpmvOptions& options,
                                                 const SpmvTiming& timing) {
    return timeHybrid("valued hybrid SpMV (CUDA, c128, timed)", hybrid, x, options, timing);
}

template <typename T>
TimedSpmvOf<T> timeSpmv(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options,
                        const SpmvTiming& timing) {
    const char* what = "segmented DIA SpMV (CUDA, timed)";
    spmv_checks::requireXOfColumns(what, a.cols, x.size());
    checkTiming(what, timing);
    validateSegmentedDiaVariant(options.variant);
    if (options.backend != SpmvBackend::Cuda)
        throw InputError(std::string(what) + ": timed segmented-DIA runs take the cuda backend, not " + toString(options.backend));
    return spmvtiming_detail::timeSpmvOnDevice(a, x, options, timing);
}

template <typename T>
TimedSpmvOf<T> timeSpmv(const CsrMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options, const SpmvTiming& timing) {
    const char* what = "cuSPARSE CSR SpMV (timed)";
    spmv_checks::requireXOfColumns(what, a.cols, x.size());
    spmv_checks::requireRowPointers(what, a);
    checkTiming(what, timing);
    if (options.backend != SpmvBackend::Cusparse)
        throw InputError(std::string(what) + ": timed CSR runs take the cusparse backend, not " + toString(options.backend));
    return spmvtiming_detail::timeSpmvOnDevice(a, x, options, timing);
}

#define SPYGLASS_INSTANTIATE_TIMED_SPMV(T)                                                                                         \
    template TimedSpmvOf<T> timeSpmv(const SegmentedDiaMatrix<T>&, const std::vector<T>&, const SpmvOptions&, const SpmvTiming&); \
    template TimedSpmvOf<T> timeSpmv(const CsrMatrix<T>&, const std::vector<T>&, const SpmvOptions&, const SpmvTiming&);
SPYGLASS_FOR_EACH_TIMED_SPMV_SCALAR(SPYGLASS_INSTANTIATE_TIMED_SPMV)

} // namespace spyglass
