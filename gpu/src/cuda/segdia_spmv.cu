// Step 4 of the seed: one thread block per merged block, one thread per row of its segments.
// Values are diagonal-major inside a segment, so consecutive threads read consecutive addresses for
// each diagonal (coalesced). Values are streamed past the cache (__ldcs) so that L2 keeps x, which
// neighbouring rows and diagonals reuse. Each thread keeps ROWS rows in flight for memory-level
// parallelism; the block loops when a merged block has more rows than threads.
#include "segdia_device.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/spmv.h"

#include <string>

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 256;

template <typename T, int ROWS>
__global__ void __launch_bounds__(kThreads)
segmentedDiaSpmvKernel(const Index* __restrict__ blockStart, const Index* __restrict__ blockSegments,
                       const Index* __restrict__ segmentFirstRow, const Count* __restrict__ segmentOffsetStart,
                       const Index* __restrict__ offsets, const Count* __restrict__ segmentValueStart,
                       const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y, Index cols) {
    const Index end = blockStart[blockIdx.x + 1];
    for (Index k = blockStart[blockIdx.x]; k < end; ++k) {
        const Index s = blockSegments[k];
        const Index firstRow = segmentFirstRow[s];
        const Index rows = segmentFirstRow[s + 1] - firstRow;
        const Count offsetStart = segmentOffsetStart[s];
        const Index diagonals = static_cast<Index>(segmentOffsetStart[s + 1] - offsetStart);
        const Index* segmentOffsets = offsets + offsetStart;
        const T* segmentValues = values + segmentValueStart[s];
        for (Index base = 0; base < rows; base += kThreads * ROWS) {
            T sum[ROWS];
#pragma unroll
            for (int r = 0; r < ROWS; ++r) sum[r] = T(0);
#pragma unroll 2
            for (Index d = 0; d < diagonals; ++d) {
                const Index offset = __ldg(segmentOffsets + d);
                const T* diagonal = segmentValues + Count(d) * rows;
#pragma unroll
                for (int r = 0; r < ROWS; ++r) {
                    const Index i = base + r * kThreads + static_cast<Index>(threadIdx.x);
                    const Index col = firstRow + i + offset;
                    if (i < rows && col >= 0 && col < cols) sum[r] += __ldcs(diagonal + i) * __ldg(x + col);
                }
            }
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                const Index i = base + r * kThreads + static_cast<Index>(threadIdx.x);
                if (i < rows) y[firstRow + i] = sum[r];
            }
        }
    }
}

} // namespace

template <typename T>
DeviceSegmentedDia<T>::DeviceSegmentedDia(const SegmentedDiaMatrix<T>& m, cudaStream_t stream)
    : m_rows(m.rows), m_cols(m.cols), m_blocks(m.blocks()), m_threshold(m.threshold) {
    m_blockStart.upload(m.blockStart, stream);
    m_blockSegments.upload(m.blockSegments, stream);
    m_segmentFirstRow.upload(m.segmentFirstRow, stream);
    m_offsets.upload(m.offsets, stream);
    m_segmentOffsetStart.upload(m.segmentOffsetStart, stream);
    m_segmentValueStart.upload(m.segmentValueStart, stream);
    m_values.upload(m.values, stream);
    m_bytes = double(computeSegmentedDiaStats(m).bytes) + double(sizeof(T)) * (double(m.rows) + double(m.cols));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename T>
void DeviceSegmentedDia<T>::multiply(const T* x, T* y, cudaStream_t stream, int rowsPerThread) const {
    if (m_blocks == 0) return;
    const auto launch = [&](auto kernel) {
        kernel<<<m_blocks, kThreads, 0, stream>>>(m_blockStart.data(), m_blockSegments.data(), m_segmentFirstRow.data(),
                                                  m_segmentOffsetStart.data(), m_offsets.data(),
                                                  m_segmentValueStart.data(), m_values.data(), x, y, m_cols);
    };
    if (rowsPerThread <= 0) rowsPerThread = m_threshold > 2 * kThreads ? 4 : m_threshold > kThreads ? 2 : 1;
    switch (rowsPerThread) {
    case 1: launch(segmentedDiaSpmvKernel<T, 1>); break;
    case 4: launch(segmentedDiaSpmvKernel<T, 4>); break;
    default: launch(segmentedDiaSpmvKernel<T, 2>); break;
    }
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template class DeviceSegmentedDia<float>;
template class DeviceSegmentedDia<double>;

} // namespace spyglass::cuda

namespace spyglass {

template <typename T>
std::vector<T> spmvCuda(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x) {
    if (x.size() != static_cast<std::size_t>(a.cols))
        throw InputError("segmented DIA SpMV on CUDA: x has " + std::to_string(x.size()) +
                         " entries but the matrix has " + std::to_string(a.cols) + " columns");
    if (!cudaDeviceInfo().present) throw BackendUnavailableError("segmented DIA SpMV on CUDA: " + cudaDeviceInfo().reason);
    cuda::DeviceSegmentedDia<T> device(a);
    cuda::DeviceBuffer<T> dx, dy(static_cast<std::size_t>(a.rows));
    dx.upload(x);
    device.multiply(dx.data(), dy.data());
    std::vector<T> y(static_cast<std::size_t>(a.rows));
    dy.download(y.data(), y.size());
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    return y;
}

template std::vector<float> spmvCuda(const SegmentedDiaMatrix<float>&, const std::vector<float>&);
template std::vector<double> spmvCuda(const SegmentedDiaMatrix<double>&, const std::vector<double>&);

} // namespace spyglass
