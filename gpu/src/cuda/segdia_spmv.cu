// Step 4 of the seed: one thread block per merged block, one thread per row of its segments.
// Values are diagonal-major inside a segment, so consecutive threads read consecutive addresses for
// each diagonal (coalesced). Values are streamed past the cache (__ldcs) so that L2 keeps x, which
// neighbouring rows and diagonals reuse. Each thread keeps ROWS rows in flight for memory-level
// parallelism; the block loops when a merged block has more rows than threads. The vector variant
// (the default) does the same with one 16-byte load per thread and diagonal.
#include "segdia_device.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/spmv.h"

#include <string>

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 256;

// One segment's rows, ROWS rows in flight per thread, scalar loads: any alignment.
template <typename T, int ROWS>
__device__ __forceinline__ void scalarSegmentSpmv(Index firstRow, Index rows, Index diagonals,
                                                  const Index* __restrict__ segmentOffsets,
                                                  const T* __restrict__ segmentValues, const T* __restrict__ x,
                                                  T* __restrict__ y, Index cols) {
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
        const Count offsetStart = segmentOffsetStart[s];
        scalarSegmentSpmv<T, ROWS>(firstRow, segmentFirstRow[s + 1] - firstRow,
                                   static_cast<Index>(segmentOffsetStart[s + 1] - offsetStart), offsets + offsetStart,
                                   values + segmentValueStart[s], x, y, cols);
    }
}

// 16-byte vectors: the widest load one thread can issue. float4 carries four rows, double2 two.
template <typename T> struct Vector16;
template <> struct Vector16<float> { using Type = float4; static constexpr int lanes = 4; };
template <> struct Vector16<double> { using Type = double2; static constexpr int lanes = 2; };

template <typename T, int LANES> struct VectorLanes;
template <typename T> struct VectorLanes<T, 4> {
    template <typename V> __device__ static void unpack(const V& v, T (&a)[4]) { a[0] = v.x; a[1] = v.y; a[2] = v.z; a[3] = v.w; }
    template <typename V> __device__ static V pack(const T (&a)[4]) { return V{a[0], a[1], a[2], a[3]}; }
};
template <typename T> struct VectorLanes<T, 2> {
    template <typename V> __device__ static void unpack(const V& v, T (&a)[2]) { a[0] = v.x; a[1] = v.y; }
    template <typename V> __device__ static V pack(const T (&a)[2]) { return V{a[0], a[1]}; }
};

// The same segment walk, but each thread takes LANES consecutive rows with one 16-byte load per
// diagonal and one 16-byte store of y. The value stream is most of the bytes (5 of 7 per row on a
// 5-point stencil); scalar 4-byte loads leave fp32 at ~87 % of copy bandwidth where fp64's 8-byte
// loads reach ~97 %, so the issue rate of load instructions, not DRAM, was the limit. Segments whose
// rows or starts are not multiples of LANES (a ragged last segment, odd thresholds) take the scalar
// path; the choice is per segment and uniform across the block.
template <typename T, int GROUPS>
__global__ void __launch_bounds__(kThreads)
segmentedDiaSpmvVectorKernel(const Index* __restrict__ blockStart, const Index* __restrict__ blockSegments,
                             const Index* __restrict__ segmentFirstRow, const Count* __restrict__ segmentOffsetStart,
                             const Index* __restrict__ offsets, const Count* __restrict__ segmentValueStart,
                             const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y, Index cols) {
    using V = typename Vector16<T>::Type;
    constexpr int kLanes = Vector16<T>::lanes;
    using Lanes = VectorLanes<T, kLanes>;
    const Index end = blockStart[blockIdx.x + 1];
    for (Index k = blockStart[blockIdx.x]; k < end; ++k) {
        const Index s = blockSegments[k];
        const Index firstRow = segmentFirstRow[s];
        const Index rows = segmentFirstRow[s + 1] - firstRow;
        const Count offsetStart = segmentOffsetStart[s];
        const Index diagonals = static_cast<Index>(segmentOffsetStart[s + 1] - offsetStart);
        const Index* segmentOffsets = offsets + offsetStart;
        const Count valueStart = segmentValueStart[s];
        if (rows % kLanes != 0 || firstRow % kLanes != 0 || valueStart % kLanes != 0) {
            scalarSegmentSpmv<T, 1>(firstRow, rows, diagonals, segmentOffsets, values + valueStart, x, y, cols);
            continue;
        }
        const Index groups = rows / kLanes;
        for (Index base = 0; base < groups; base += kThreads * GROUPS) {
            T sum[GROUPS][kLanes];
#pragma unroll
            for (int g = 0; g < GROUPS; ++g)
#pragma unroll
                for (int e = 0; e < kLanes; ++e) sum[g][e] = T(0);
#pragma unroll 2
            for (Index d = 0; d < diagonals; ++d) {
                const Index offset = __ldg(segmentOffsets + d);
                const V* diagonal = reinterpret_cast<const V*>(values + valueStart + Count(d) * rows);
#pragma unroll
                for (int g = 0; g < GROUPS; ++g) {
                    const Index group = base + g * kThreads + static_cast<Index>(threadIdx.x);
                    if (group >= groups) continue;
                    T a[kLanes];
                    Lanes::unpack(__ldcs(diagonal + group), a);
                    const Index col0 = firstRow + group * kLanes + offset;
#pragma unroll
                    for (int e = 0; e < kLanes; ++e)
                        if (col0 + e >= 0 && col0 + e < cols) sum[g][e] += a[e] * __ldg(x + col0 + e);
                }
            }
#pragma unroll
            for (int g = 0; g < GROUPS; ++g) {
                const Index group = base + g * kThreads + static_cast<Index>(threadIdx.x);
                if (group < groups) reinterpret_cast<V*>(y + firstRow)[group] = Lanes::template pack<V>(sum[g]);
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
void DeviceSegmentedDia<T>::multiply(const T* x, T* y, cudaStream_t stream, int rowsPerThread, SegmentedDiaLoads loads) const {
    if (m_blocks == 0) return;
    const auto launch = [&](auto kernel) {
        kernel<<<m_blocks, kThreads, 0, stream>>>(m_blockStart.data(), m_blockSegments.data(), m_segmentFirstRow.data(),
                                                  m_segmentOffsetStart.data(), m_offsets.data(),
                                                  m_segmentValueStart.data(), m_values.data(), x, y, m_cols);
    };
    if (loads == SegmentedDiaLoads::Vector16) {
        // One pass of the block over a segment of the usual threshold (1024 rows) with fp32: 256
        // threads x 4 rows. Bigger segments loop; two groups in flight did not pay (see docs).
        if (rowsPerThread >= 2 * Vector16<T>::lanes) launch(segmentedDiaSpmvVectorKernel<T, 2>);
        else launch(segmentedDiaSpmvVectorKernel<T, 1>);
        SPYGLASS_CUDA_CHECK_LAUNCH();
        return;
    }
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
