// Without CUDA the timed SpMV reports the missing backend; the CPU reference stays available.
#include "core/spmvtiming_device.h"
#include "spyglass/error.h"

namespace spyglass::spmvtiming_detail {

TimedSpmv timeHybridSpmvOnDevice(const HybridBinaryMatrix&, const std::vector<double>&, const HybridSpmvOptions&,
                                 const SpmvTiming&) {
    throw BackendUnavailableError("hybrid SpMV on CUDA: built without CUDA");
}

template <typename T>
TimedSpmvOf<T> timeHybridSpmvOnDevice(const HybridValuedMatrix<T>&, const std::vector<T>&, const HybridSpmvOptions&,
                                      const SpmvTiming&) {
    throw BackendUnavailableError("valued hybrid SpMV on CUDA: built without CUDA");
}

template <typename T>
TimedSpmvOf<T> timeSpmvOnDevice(const SegmentedDiaMatrix<T>&, const std::vector<T>&, const SpmvOptions&, const SpmvTiming&) {
    throw BackendUnavailableError("segmented DIA SpMV on CUDA: built without CUDA");
}

template <typename T>
TimedSpmvOf<T> timeSpmvOnDevice(const CsrMatrix<T>&, const std::vector<T>&, const SpmvOptions&, const SpmvTiming&) {
    throw BackendUnavailableError("cuSPARSE CSR SpMV: built without CUDA");
}

SPYGLASS_FOR_EACH_TIMED_SPMV_SCALAR(SPYGLASS_INSTANTIATE_TIMED_SPMV_DEVICE)

} // namespace spyglass::spmvtiming_detail
