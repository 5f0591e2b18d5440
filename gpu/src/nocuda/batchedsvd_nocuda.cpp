// Built without CUDA: the GPU backends of the batched SVD report that they are missing.
#include "core/batchedsvd_device.h"
#include "spyglass/error.h"

#include <complex>

namespace spyglass::svd_detail {

template <typename T>
SvdRunInfo svdBatchedOnDevice(const T*, T*, SvdReal<T>*, T*, int, int, std::int64_t, const SvdOptions& options) {
    throw BackendUnavailableError(std::string("batched SVD: the ") + toString(options.backend) +
                                  " backend needs a CUDA build and a GPU; this build has no CUDA (use --backend cpu)");
}

#define SPYGLASS_INSTANTIATE_SVD_STUB(T) \
    template SvdRunInfo svdBatchedOnDevice<T>(const T*, T*, SvdReal<T>*, T*, int, int, std::int64_t, const SvdOptions&);
SPYGLASS_INSTANTIATE_SVD_STUB(float)
SPYGLASS_INSTANTIATE_SVD_STUB(double)
SPYGLASS_INSTANTIATE_SVD_STUB(std::complex<float>)
SPYGLASS_INSTANTIATE_SVD_STUB(std::complex<double>)

} // namespace spyglass::svd_detail
