// Built without CUDA: the GPU backends of the batched SVD report that they are missing.
#include "core/batchedsvd_device.h"
#include "core/instantiate.h"
#include "nocuda/backend_unavailable.h"
#include "spyglass/error.h"

#include <complex>

namespace spyglass::svd_detail {

template <typename T>
SvdRunInfo svdBatchedOnDevice(const T*, T*, SvdReal<T>*, T*, int, int, std::int64_t, const SvdOptions& options) {
    nocuda::backendUnavailable("batched SVD", toString(options.backend));
}

#define SPYGLASS_INSTANTIATE_SVD_STUB(T) \
    template SvdRunInfo svdBatchedOnDevice<T>(const T*, T*, SvdReal<T>*, T*, int, int, std::int64_t, const SvdOptions&);
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_SVD_STUB)

} // namespace spyglass::svd_detail
