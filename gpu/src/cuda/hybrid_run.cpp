// hybridSpmv on the GPU for method D: upload the encoding and x on the caller's stream, multiply once
// with the device matrix (spyglass/cuda/hybrid_device_api.h, hybrid_valued_device_api.h), download y.
// Arguments are validated by core/hybrid_dispatch.cpp.
#include "core/hybrid_device.h"
#include "spyglass/backend.h"
#include "spyglass/cuda/hybrid_device_api.h"
#include "spyglass/cuda/hybrid_valued_device_api.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::hybrid_detail {

namespace {
// Both forms have the same device life: upload, multiply, download.
template <typename DeviceMatrix, typename T, typename Hybrid>
std::vector<T> runOnce(const char* what, const Hybrid& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options) {
    const DeviceInfo device = cudaDeviceInfo();
    if (!device.present) throw BackendUnavailableError(std::string(what) + " needs a CUDA device: " + device.reason);
    std::vector<T> y(static_cast<std::size_t>(hybrid.rows));
    if (hybrid.rows == 0) return y;
    const cudaStream_t stream = static_cast<cudaStream_t>(options.stream);
    DeviceMatrix matrix;
    matrix.upload(hybrid, stream);
    cuda::DeviceBuffer<T> dx, dy(y.size());
    dx.upload(x, stream);
    if (x.empty()) dx.resize(1);
    // Every row lies in a covered strip or a residual tile, so the kernel writes all of y.
    matrix.multiply(dx.data(), dy.data(), stream);
    dy.download(y.data(), y.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return y;
}
} // namespace

template <typename T>
std::vector<T> hybridSpmvOnDevice(const HybridBinaryMatrix& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options) {
    return runOnce<cuda::HybridDeviceMatrix>("hybrid SpMV", hybrid, x, options);
}

template <typename T>
std::vector<T> hybridSpmvOnDevice(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x,
                                  const HybridSpmvOptions& options) {
    return runOnce<cuda::HybridValuedDeviceMatrix<T>>("valued hybrid SpMV", hybrid, x, options);
}

SPYGLASS_INSTANTIATE_EVERY_HYBRID_DEVICE()

} // namespace spyglass::hybrid_detail
