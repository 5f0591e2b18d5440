// Plain DIA SpMV after Bell & Garland (2009): one thread per row of the whole matrix, the offsets in
// shared memory, values diagonal-major with a stride of rows. Padding of broken diagonals and
// scattered points is read and multiplied like real entries: the weakness the seed addresses.
#include "core/instantiate.h"
#include "device_scalar_access.cuh"
#include "spyglass/cuda/segdia_device_api.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kSharedOffsets = 2048;  // 8 KiB; more diagonals are read from global memory

template <typename T>
__global__ void __launch_bounds__(kThreads)
diaSpmvKernel(Index rows, Index cols, Index diagonals, const Index* __restrict__ offsets,
              const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y) {
    __shared__ Index sharedOffsets[kSharedOffsets];
    const Index cached = diagonals < kSharedOffsets ? diagonals : kSharedOffsets;
    for (Index d = threadIdx.x; d < cached; d += blockDim.x) sharedOffsets[d] = offsets[d];
    __syncthreads();
    const Index stride = gridDim.x * blockDim.x;
    for (Index row = blockIdx.x * blockDim.x + threadIdx.x; row < rows; row += stride) {
        T sum{};
        for (Index d = 0; d < diagonals; ++d) {
            const Index col = row + (d < cached ? sharedOffsets[d] : __ldg(offsets + d));
            if (col >= 0 && col < cols) sum += streamedLoad(values + Count(d) * rows + row) * cachedLoad(x + col);
        }
        y[row] = sum;
    }
}

} // namespace

template <typename T>
DeviceDia<T>::DeviceDia(const DiaMatrix<T>& m, cudaStream_t stream)
    : m_rows(m.rows), m_cols(m.cols), m_diagonals(static_cast<Index>(m.offsets.size())) {
    m_offsets.upload(m.offsets, stream);
    m_values.upload(m.values, stream);
    m_bytes = double(m.values.size() * sizeof(T) + m.offsets.size() * sizeof(Index)) +
              double(sizeof(T)) * (double(m.rows) + double(m.cols));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename T>
void DeviceDia<T>::multiply(const T* x, T* y, cudaStream_t stream) const {
    if (m_rows == 0) return;
    const Index blocks = (m_rows + kThreads - 1) / kThreads;
    // The kernel sees the device form of T (std::complex<R> as DeviceComplex<R>, same layout).
    diaSpmvKernel<<<blocks, kThreads, 0, stream>>>(m_rows, m_cols, m_diagonals, m_offsets.data(), asDeviceScalars(m_values.data()),
                                                   asDeviceScalars(x), asDeviceScalars(y));
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

#define SPYGLASS_INSTANTIATE_DEVICE_DIA(T) template class DeviceDia<T>;
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_DEVICE_DIA)

} // namespace spyglass::cuda
