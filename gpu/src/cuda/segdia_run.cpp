// spmv on the GPU for method B: upload the matrix and x on the caller's stream, multiply once with the
// device operator (spyglass/cuda/segdia_device_api.h), download y. Arguments are validated by
// core/segdia_dispatch.cpp.
#include "core/instantiate.h"
#include "core/segdia_device.h"
#include "spyglass/backend.h"
#include "spyglass/cuda/segdia_device_api.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::segdia_detail {

namespace {
cudaStream_t streamOf(const SpmvOptions& options) { return static_cast<cudaStream_t>(options.stream); }

void requireDevice(const char* what) {
    const DeviceInfo device = cudaDeviceInfo();
    if (!device.present) throw BackendUnavailableError(std::string(what) + ": " + device.reason);
}

// x up, the operator's multiply, y down; both vectors get at least one element so that an empty x
// or y still has a valid device pointer.
template <typename T, typename Multiply>
std::vector<T> runOnce(Index rows, const std::vector<T>& x, cudaStream_t stream, Multiply&& multiply) {
    cuda::DeviceBuffer<T> dx(x.empty() ? 1 : x.size()), dy(rows == 0 ? 1 : std::size_t(rows));
    dx.upload(x, stream);
    multiply(dx.data(), dy.data());
    std::vector<T> y(static_cast<std::size_t>(rows));
    dy.download(y.data(), y.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return y;
}
} // namespace

template <typename T>
std::vector<T> spmvOnDevice(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options) {
    requireDevice("segmented DIA SpMV on CUDA");
    const cudaStream_t stream = streamOf(options);
    cuda::DeviceSegmentedDia<T> device(a, stream);
    return runOnce<T>(a.rows, x, stream, [&](const T* dx, T* dy) { device.multiply(dx, dy, stream, options.variant); });
}

template <typename T>
std::vector<T> spmvOnDevice(const DiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options) {
    requireDevice("DIA SpMV on CUDA");
    const cudaStream_t stream = streamOf(options);
    cuda::DeviceDia<T> device(a, stream);
    return runOnce<T>(a.rows, x, stream, [&](const T* dx, T* dy) { device.multiply(dx, dy, stream); });
}

template <typename T>
std::vector<T> spmvOnDevice(const CsrMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options) {
    requireDevice("cuSPARSE CSR SpMV");
    const cudaStream_t stream = streamOf(options);
    return runOnce<T>(a.rows, x, stream, [&](const T* dx, T* dy) {
        cuda::CusparseCsrSpmv<T> op(a, dx, dy, stream);
        op.multiply(stream);
    });
}

SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_SPMV_DEVICE)

} // namespace spyglass::segdia_detail
