// Built without CUDA: the GPU backends of the batched inverse report that they are missing.
#include "core/batchedinverse_device.h"
#include "nocuda/backend_unavailable.h"
#include "spyglass/error.h"

#include <complex>

namespace spyglass::inverse_detail {

template <typename T>
InverseRunInfo invertBatchedOnDevice(const T*, T*, int, std::int64_t, const InverseOptions& options) {
    nocuda::backendUnavailable("batched inverse", toString(options.backend));
}

template InverseRunInfo invertBatchedOnDevice<float>(const float*, float*, int, std::int64_t, const InverseOptions&);
template InverseRunInfo invertBatchedOnDevice<double>(const double*, double*, int, std::int64_t, const InverseOptions&);
template InverseRunInfo invertBatchedOnDevice<std::complex<float>>(const std::complex<float>*, std::complex<float>*, int,
                                                                   std::int64_t, const InverseOptions&);
template InverseRunInfo invertBatchedOnDevice<std::complex<double>>(const std::complex<double>*, std::complex<double>*,
                                                                    int, std::int64_t, const InverseOptions&);

} // namespace spyglass::inverse_detail
