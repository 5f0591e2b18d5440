// Step 4 of the seed: one thread block per merged block, one thread per row of its segments.
// Values are diagonal-major inside a segment, so consecutive threads read consecutive addresses for
// each diagonal (coalesced). Values are streamed past the cache (__ldcs) so that L2 keeps x, which
// neighbouring rows and diagonals reuse. Each thread keeps ROWS rows in flight for memory-level
// parallelism; the block loops when a merged block has more rows than threads. The vector variant
// (the default) does the same with one 16-byte load per thread and diagonal.
// Past the seed: a segment's CSR remainder (the nonzeros of diagonals too sparse to store as DIA) is
// summed per pass by sub-warps into shared memory and added by the thread that owns the row.
#include "segdia_device.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/spmv.h"

#include <string>

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 256;

// One segment's CSR remainder as the kernel sees it (pointers already offset to the segment).
template <typename T>
struct Remainder {
    const Index* rowStart = nullptr;  // rows + 1, relative to columns / values
    const Index* columns = nullptr;
    const T* values = nullptr;
    int width = 1;                    // lanes per row
    bool present = false;             // uniform across the block: guards every __syncthreads below
};

// Lanes per remainder row: the power of two (1 .. 32) at or above the segment's mean remainder row
// length, so one sweep of a sub-warp covers a typical row. A fixed width (the benchmark's sweep)
// overrides it.
__device__ __forceinline__ int remainderWidth(Count entries, Index rows, int fixed) {
    if (fixed > 0) return fixed;
    const Count mean = (entries + rows - 1) / rows;
    int width = 1;
    while (width < 32 && width < mean) width *= 2;
    return width;
}

// The remainder sums of rows [first, first + count) of a segment into partial[0 .. count): a
// sub-warp of `width` lanes per row, so the lanes of a sub-warp read consecutive entries of their
// row and neighbouring sub-warps the neighbouring rows' entries, which follow in memory: coalesced
// whether rows are short (watt_2: ~3) or long (n1024-l1: ~10-20). The loop bound is uniform over the
// block, so every lane of a warp reaches the shuffles; rows past the chunk add nothing.
template <typename T>
__device__ __forceinline__ void remainderChunk(const Remainder<T>& rem, Index first, Index count, const T* __restrict__ x,
                                               T* partial) {
    const int width = rem.width;
    const int lane = static_cast<int>(threadIdx.x) & (width - 1);
    const Index rowsPerPass = kThreads / width;
    for (Index r0 = 0; r0 < count; r0 += rowsPerPass) {
        const Index r = r0 + static_cast<Index>(threadIdx.x) / width;
        T sum = T(0);
        if (r < count) {
            const Index end = __ldg(rem.rowStart + first + r + 1);
            for (Index k = __ldg(rem.rowStart + first + r) + lane; k < end; k += width)
                sum += __ldcs(rem.values + k) * __ldg(x + __ldcs(rem.columns + k));
        }
        for (int o = width / 2; o > 0; o /= 2) sum += __shfl_down_sync(0xffffffffu, sum, o, width);
        if (lane == 0 && r < count) partial[r] = sum;
    }
}

// One segment's rows, ROWS rows in flight per thread, scalar loads: any alignment. With a remainder,
// each pass first sums the remainder of its kThreads x ROWS rows into `partial`.
template <typename T, int ROWS>
__device__ __forceinline__ void scalarSegmentSpmv(Index firstRow, Index rows, Index diagonals,
                                                  const Index* __restrict__ segmentOffsets,
                                                  const T* __restrict__ segmentValues, const T* __restrict__ x,
                                                  T* __restrict__ y, Index cols, const Remainder<T>& rem, T* partial) {
    for (Index base = 0; base < rows; base += kThreads * ROWS) {
        if (rem.present) {
            remainderChunk(rem, base, min(rows - base, Index(kThreads * ROWS)), x, partial);
            __syncthreads();
        }
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
            if (i < rows) y[firstRow + i] = rem.present ? sum[r] + partial[r * kThreads + threadIdx.x] : sum[r];
        }
        if (rem.present) __syncthreads();  // partial is rewritten by the next pass
    }
}

// The segment's remainder view; `present` is false for the pure-DIA kernels (REMAINDER = false),
// which then compile to the seed's code.
template <typename T, bool REMAINDER>
__device__ __forceinline__ Remainder<T> segmentRemainder(Index s, Index rows, const Count* __restrict__ segmentRemainderStart,
                                                         const Count* __restrict__ segmentRemainderRowStart,
                                                         const Index* __restrict__ remainderRowStart,
                                                         const Index* __restrict__ remainderColumns,
                                                         const T* __restrict__ remainderValues, int fixedWidth) {
    Remainder<T> rem;
    if constexpr (REMAINDER) {
        const Count start = segmentRemainderStart[s];
        const Count entries = segmentRemainderStart[s + 1] - start;
        rem.present = entries > 0;
        rem.rowStart = remainderRowStart + segmentRemainderRowStart[s];
        rem.columns = remainderColumns + start;
        rem.values = remainderValues + start;
        rem.width = remainderWidth(entries, rows, fixedWidth);
    }
    return rem;
}

#define SPYGLASS_SEGDIA_KERNEL_PARAMS                                                                              \
    const Index *__restrict__ blockStart, const Index *__restrict__ blockSegments,                                 \
        const Index *__restrict__ segmentFirstRow, const Count *__restrict__ segmentOffsetStart,                   \
        const Index *__restrict__ offsets, const Count *__restrict__ segmentValueStart, const T *__restrict__ values, \
        const Count *__restrict__ segmentRemainderStart, const Count *__restrict__ segmentRemainderRowStart,       \
        const Index *__restrict__ remainderRowStart, const Index *__restrict__ remainderColumns,                   \
        const T *__restrict__ remainderValues, int remainderFixedWidth, const T *__restrict__ x, T *__restrict__ y, \
        Index cols

template <typename T, int ROWS, bool REMAINDER>
__global__ void __launch_bounds__(kThreads) segmentedDiaSpmvKernel(SPYGLASS_SEGDIA_KERNEL_PARAMS) {
    __shared__ T partial[REMAINDER ? kThreads * ROWS : 1];
    const Index end = blockStart[blockIdx.x + 1];
    for (Index k = blockStart[blockIdx.x]; k < end; ++k) {
        const Index s = blockSegments[k];
        const Index firstRow = segmentFirstRow[s];
        const Index rows = segmentFirstRow[s + 1] - firstRow;
        const Count offsetStart = segmentOffsetStart[s];
        const Remainder<T> rem = segmentRemainder<T, REMAINDER>(s, rows, segmentRemainderStart, segmentRemainderRowStart,
                                                                remainderRowStart, remainderColumns, remainderValues,
                                                                remainderFixedWidth);
        scalarSegmentSpmv<T, ROWS>(firstRow, rows, static_cast<Index>(segmentOffsetStart[s + 1] - offsetStart),
                                   offsets + offsetStart, values + segmentValueStart[s], x, y, cols, rem, partial);
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
// path; the choice is per segment and uniform across the block. A segment with a remainder sums it
// per pass into shared memory first (remainderChunk), and each thread adds its rows' partial sums
// with one 16-byte shared load before its store.
template <typename T, int GROUPS, bool REMAINDER>
__global__ void __launch_bounds__(kThreads) segmentedDiaSpmvVectorKernel(SPYGLASS_SEGDIA_KERNEL_PARAMS) {
    using V = typename Vector16<T>::Type;
    constexpr int kLanes = Vector16<T>::lanes;
    using Lanes = VectorLanes<T, kLanes>;
    __shared__ __align__(16) T partial[REMAINDER ? kThreads * GROUPS * kLanes : 1];
    const Index end = blockStart[blockIdx.x + 1];
    for (Index k = blockStart[blockIdx.x]; k < end; ++k) {
        const Index s = blockSegments[k];
        const Index firstRow = segmentFirstRow[s];
        const Index rows = segmentFirstRow[s + 1] - firstRow;
        const Count offsetStart = segmentOffsetStart[s];
        const Index diagonals = static_cast<Index>(segmentOffsetStart[s + 1] - offsetStart);
        const Index* segmentOffsets = offsets + offsetStart;
        const Count valueStart = segmentValueStart[s];
        const Remainder<T> rem = segmentRemainder<T, REMAINDER>(s, rows, segmentRemainderStart, segmentRemainderRowStart,
                                                                remainderRowStart, remainderColumns, remainderValues,
                                                                remainderFixedWidth);
        if (rows % kLanes != 0 || firstRow % kLanes != 0 || valueStart % kLanes != 0) {
            scalarSegmentSpmv<T, 1>(firstRow, rows, diagonals, segmentOffsets, values + valueStart, x, y, cols, rem, partial);
            continue;
        }
        const Index groups = rows / kLanes;
        for (Index base = 0; base < groups; base += kThreads * GROUPS) {
            if (rem.present) {
                remainderChunk(rem, base * kLanes, min(rows - base * kLanes, Index(kThreads * GROUPS * kLanes)), x, partial);
                __syncthreads();
            }
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
                if (group >= groups) continue;
                if (rem.present) {
                    T p[kLanes];
                    Lanes::unpack(reinterpret_cast<const V*>(partial)[g * kThreads + threadIdx.x], p);
#pragma unroll
                    for (int e = 0; e < kLanes; ++e) sum[g][e] += p[e];
                }
                reinterpret_cast<V*>(y + firstRow)[group] = Lanes::template pack<V>(sum[g]);
            }
            if (rem.present) __syncthreads();  // partial is rewritten by the next pass
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
    m_hasRemainder = !m.remainderValues.empty();
    if (m_hasRemainder) {
        m_segmentRemainderStart.upload(m.segmentRemainderStart, stream);
        m_segmentRemainderRowStart.upload(m.segmentRemainderRowStart, stream);
        m_remainderRowStart.upload(m.remainderRowStart, stream);
        m_remainderColumns.upload(m.remainderColumns, stream);
        m_remainderValues.upload(m.remainderValues, stream);
    }
    m_bytes = double(computeSegmentedDiaStats(m).bytes) + double(sizeof(T)) * (double(m.rows) + double(m.cols));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename T>
void DeviceSegmentedDia<T>::multiply(const T* x, T* y, cudaStream_t stream, int rowsPerThread, SegmentedDiaLoads loads,
                                     int remainderWidth) const {
    if (m_blocks == 0) return;
    if (remainderWidth != 0 && (remainderWidth < 1 || remainderWidth > 32 || (remainderWidth & (remainderWidth - 1)) != 0))
        throw InputError("segmented DIA SpMV: remainder width must be 0 (per segment) or a power of two from 1 to 32, got " +
                         std::to_string(remainderWidth));
    const auto launch = [&](auto kernel) {
        kernel<<<m_blocks, kThreads, 0, stream>>>(m_blockStart.data(), m_blockSegments.data(), m_segmentFirstRow.data(),
                                                  m_segmentOffsetStart.data(), m_offsets.data(),
                                                  m_segmentValueStart.data(), m_values.data(),
                                                  m_segmentRemainderStart.data(), m_segmentRemainderRowStart.data(),
                                                  m_remainderRowStart.data(), m_remainderColumns.data(),
                                                  m_remainderValues.data(), remainderWidth, x, y, m_cols);
    };
    // Matrices without a remainder run kernels compiled without it: the seed's code, no shared memory.
    const auto pick = [&](auto withRemainder, auto withoutRemainder) {
        if (m_hasRemainder) launch(withRemainder);
        else launch(withoutRemainder);
    };
    if (loads == SegmentedDiaLoads::Vector16) {
        // One pass of the block over a segment of the usual threshold (1024 rows) with fp32: 256
        // threads x 4 rows. Bigger segments loop; two groups in flight did not pay (see docs).
        if (rowsPerThread >= 2 * Vector16<T>::lanes)
            pick(segmentedDiaSpmvVectorKernel<T, 2, true>, segmentedDiaSpmvVectorKernel<T, 2, false>);
        else
            pick(segmentedDiaSpmvVectorKernel<T, 1, true>, segmentedDiaSpmvVectorKernel<T, 1, false>);
        SPYGLASS_CUDA_CHECK_LAUNCH();
        return;
    }
    if (rowsPerThread <= 0) rowsPerThread = m_threshold > 2 * kThreads ? 4 : m_threshold > kThreads ? 2 : 1;
    switch (rowsPerThread) {
    case 1: pick(segmentedDiaSpmvKernel<T, 1, true>, segmentedDiaSpmvKernel<T, 1, false>); break;
    case 4: pick(segmentedDiaSpmvKernel<T, 4, true>, segmentedDiaSpmvKernel<T, 4, false>); break;
    default: pick(segmentedDiaSpmvKernel<T, 2, true>, segmentedDiaSpmvKernel<T, 2, false>); break;
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
