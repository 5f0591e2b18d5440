// Step 4 of the seed: one thread block per merged block, one thread per row of its segments.
// Values are diagonal-major inside a segment, so consecutive threads read consecutive addresses for
// each diagonal (coalesced). Values are streamed past the cache (__ldcs) so that L2 keeps x, which
// neighbouring rows and diagonals reuse. Each thread keeps ROWS rows in flight for memory-level
// parallelism; the block loops when a merged block has more rows than threads. The vector variant
// (the default) does the same with one 16-byte load per thread and diagonal.
// Past the seed: a segment's CSR remainder (the nonzeros of diagonals too sparse to store as DIA).
// Summed one of three ways (SegmentedDiaRemainderKernel; Automatic picks Owners for a light
// remainder, RowBlocks otherwise). RowBlocks: a pass of its own after this one
// (segdia_remainder_spmv.cu); this pass then runs without remainder code over the segments with
// diagonals, merged by their DIA work. RemainderMode::Owner: the thread that owns a row also sums the
// row's remainder entries, in registers, no shared memory and no barrier; rows longer than kLongRow
// entries are left to a whole warp each after the segment. RemainderMode::SubWarp (the first version):
// per pass, sub-warps of a fixed or per-segment width sum every remainder row into shared memory
// first. Both fused ways tie the remainder's load balance to the merge of the DIA segments, which lost
// 25x to cuSPARSE where a few segments held it.
#include "core/instantiate.h"
#include "device_scalar_access.cuh"
#include "segdia_remainder_spmv.h"
#include "segdia_vector16.cuh"
#include "spyglass/cuda/segdia_device_api.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 256;

enum class RemainderMode { None, Owner, SubWarp };

// One segment's CSR remainder as the kernel sees it (pointers already offset to the segment).
template <typename T>
struct Remainder {
    const Index* rowStart = nullptr;  // rows + 1, relative to columns / values
    const Index* columns = nullptr;
    const T* values = nullptr;
    const Index* longRows = nullptr;  // Owner mode: local rows with more than kLongRow entries
    Index longCount = 0;
    int width = 1;                    // SubWarp mode: lanes per row
    bool present = false;             // uniform across the block: guards every __syncthreads below
};

// Lanes per remainder row in SubWarp mode: the power of two (1 .. 32) at or above the segment's mean
// remainder row length (the first version's rule), unless the caller fixes one.
__device__ __forceinline__ int remainderWidth(Count entries, Index rows, int fixed) {
    if (fixed > 0) return fixed;
    const Count mean = (entries + rows - 1) / rows;
    int width = 1;
    while (width < 32 && width < mean) width *= 2;
    return width;
}

// Owner mode: the remainder sum of local row i, summed from 0 in column order (as the reference
// does). Rows longer than kLongRow add nothing here: a warp takes them (longRowsPass). The entries of
// neighbouring threads' rows are neighbours in memory, so cached loads serve a warp's consecutive
// iterations from the same lines.
template <typename T>
__device__ __forceinline__ T ownerRowSum(const Remainder<T>& rem, Index i, const T* __restrict__ x) {
    const Index begin = __ldg(rem.rowStart + i), end = __ldg(rem.rowStart + i + 1);
    T sum{};
    if (end - begin > kLongRow) return sum;
#pragma unroll 4
    for (Index k = begin; k < end; ++k) sum += cachedLoad(rem.values + k) * cachedLoad(x + __ldg(rem.columns + k));
    return sum;
}

// Owner mode, after the segment's rows are stored: each warp adds the remainder of one long row at a
// time, its lanes reading consecutive entries. The barrier makes the owners' stores of y visible.
template <typename T>
__device__ __forceinline__ void longRowsPass(const Remainder<T>& rem, Index firstRow, const T* __restrict__ x, T* y) {
    if (rem.longCount == 0) return;
    __syncthreads();
    const int lane = static_cast<int>(threadIdx.x) & 31;
    for (Index l = static_cast<Index>(threadIdx.x) / 32; l < rem.longCount; l += kThreads / 32) {
        const Index i = __ldg(rem.longRows + l);
        const Index end = __ldg(rem.rowStart + i + 1);
        T sum{};
        for (Index k = __ldg(rem.rowStart + i) + lane; k < end; k += 32)
            sum += cachedLoad(rem.values + k) * cachedLoad(x + __ldg(rem.columns + k));
        for (int o = 16; o > 0; o /= 2) sum += shuffleDown(sum, o);
        if (lane == 0) y[firstRow + i] += sum;
    }
}

// SubWarp mode: the remainder sums of rows [first, first + count) of a segment into
// partial[0 .. count): a sub-warp of `width` lanes per row, so the lanes of a sub-warp read
// consecutive entries of their row and neighbouring sub-warps the neighbouring rows' entries. Each
// sub-warp keeps kInFlight rows in flight (row starts, first sweep of entries, x gathers issued
// together). The loop bound is uniform over the block, so every lane of a warp reaches the shuffles.
template <typename T>
__device__ __forceinline__ void remainderChunk(const Remainder<T>& rem, Index first, Index count, const T* __restrict__ x,
                                               T* partial) {
    constexpr int kInFlight = 4;
    const int width = rem.width;
    const int lane = static_cast<int>(threadIdx.x) & (width - 1);
    const Index rowsPerPass = kThreads / width;
    const Index mine = static_cast<Index>(threadIdx.x) / width;
    for (Index r0 = 0; r0 < count; r0 += rowsPerPass * kInFlight) {
        Index begin[kInFlight], end[kInFlight];
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) {
            const Index r = r0 + j * rowsPerPass + mine;
            begin[j] = 0;
            end[j] = 0;
            if (r < count) {
                begin[j] = __ldg(rem.rowStart + first + r) + lane;
                end[j] = __ldg(rem.rowStart + first + r + 1);
            }
        }
        T sum[kInFlight], value[kInFlight];
        Index column[kInFlight];
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) {
            if (begin[j] < end[j]) {
                column[j] = __ldcs(rem.columns + begin[j]);
                value[j] = streamedLoad(rem.values + begin[j]);
            }
        }
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) sum[j] = begin[j] < end[j] ? value[j] * cachedLoad(x + column[j]) : T{};
#pragma unroll
        for (int j = 0; j < kInFlight; ++j)
            for (Index k = begin[j] + width; k < end[j]; k += width) sum[j] += streamedLoad(rem.values + k) * cachedLoad(x + __ldcs(rem.columns + k));
#pragma unroll
        for (int j = 0; j < kInFlight; ++j) {
            for (int o = width / 2; o > 0; o /= 2) sum[j] += shuffleDown(sum[j], o, width);
            const Index r = r0 + j * rowsPerPass + mine;
            if (lane == 0 && r < count) partial[r] = sum[j];
        }
    }
}

// One segment's rows, ROWS rows in flight per thread, scalar loads: any alignment.
template <typename T, int ROWS, RemainderMode MODE>
__device__ __forceinline__ void scalarSegmentSpmv(Index firstRow, Index rows, Index diagonals,
                                                  const Index* __restrict__ segmentOffsets,
                                                  const T* __restrict__ segmentValues, const T* __restrict__ x,
                                                  T* __restrict__ y, Index cols, const Remainder<T>& rem, T* partial) {
    for (Index base = 0; base < rows; base += kThreads * ROWS) {
        if (MODE == RemainderMode::SubWarp && rem.present) {
            remainderChunk(rem, base, min(rows - base, Index(kThreads * ROWS)), x, partial);
            __syncthreads();
        }
        T sum[ROWS];
#pragma unroll
        for (int r = 0; r < ROWS; ++r) sum[r] = T{};
#pragma unroll 2
        for (Index d = 0; d < diagonals; ++d) {
            const Index offset = __ldg(segmentOffsets + d);
            const T* diagonal = segmentValues + Count(d) * rows;
#pragma unroll
            for (int r = 0; r < ROWS; ++r) {
                const Index i = base + r * kThreads + static_cast<Index>(threadIdx.x);
                const Index col = firstRow + i + offset;
                if (i < rows && col >= 0 && col < cols) sum[r] += streamedLoad(diagonal + i) * cachedLoad(x + col);
            }
        }
#pragma unroll
        for (int r = 0; r < ROWS; ++r) {
            const Index i = base + r * kThreads + static_cast<Index>(threadIdx.x);
            if (i >= rows) continue;
            if (MODE == RemainderMode::SubWarp && rem.present) sum[r] += partial[r * kThreads + threadIdx.x];
            if (MODE == RemainderMode::Owner && rem.present) sum[r] += ownerRowSum(rem, i, x);
            y[firstRow + i] = sum[r];
        }
        if (MODE == RemainderMode::SubWarp && rem.present) __syncthreads();  // partial is rewritten by the next pass
    }
    if (MODE == RemainderMode::Owner && rem.present) longRowsPass(rem, firstRow, x, y);
}

// The segment's remainder view; `present` stays false in the pure-DIA kernels (MODE None), which
// then compile to the seed's code.
template <typename T, RemainderMode MODE>
__device__ __forceinline__ Remainder<T> segmentRemainder(Index s, Index rows, const Count* __restrict__ segmentRemainderStart,
                                                         const Count* __restrict__ segmentRemainderRowStart,
                                                         const Index* __restrict__ remainderRowStart,
                                                         const Index* __restrict__ remainderColumns,
                                                         const T* __restrict__ remainderValues,
                                                         const Index* __restrict__ longRowStart,
                                                         const Index* __restrict__ longRows, int fixedWidth) {
    Remainder<T> rem;
    if constexpr (MODE != RemainderMode::None) {
        const Count start = segmentRemainderStart[s];
        const Count entries = segmentRemainderStart[s + 1] - start;
        rem.present = entries > 0;
        rem.rowStart = remainderRowStart + segmentRemainderRowStart[s];
        rem.columns = remainderColumns + start;
        rem.values = remainderValues + start;
        if constexpr (MODE == RemainderMode::Owner) {
            rem.longRows = longRows + longRowStart[s];
            rem.longCount = longRowStart[s + 1] - longRowStart[s];
        } else {
            rem.width = remainderWidth(entries, rows, fixedWidth);
        }
    }
    return rem;
}

#define SPYGLASS_SEGDIA_KERNEL_PARAMS                                                                              \
    const Index *__restrict__ blockStart, const Index *__restrict__ blockSegments,                                 \
        const Index *__restrict__ segmentFirstRow, const Count *__restrict__ segmentOffsetStart,                   \
        const Index *__restrict__ offsets, const Count *__restrict__ segmentValueStart, const T *__restrict__ values, \
        const Count *__restrict__ segmentRemainderStart, const Count *__restrict__ segmentRemainderRowStart,       \
        const Index *__restrict__ remainderRowStart, const Index *__restrict__ remainderColumns,                   \
        const T *__restrict__ remainderValues, const Index *__restrict__ longRowStart,                             \
        const Index *__restrict__ longRows, int remainderFixedWidth, const T *__restrict__ x, T *__restrict__ y,   \
        Index cols

#define SPYGLASS_SEGDIA_REMAINDER_ARGS                                                                             \
    segmentRemainderStart, segmentRemainderRowStart, remainderRowStart, remainderColumns, remainderValues,         \
        longRowStart, longRows, remainderFixedWidth

// Segment s as both kernels walk it: its rows, its diagonals' offsets, where its values start, and
// its remainder view.
template <typename T> struct Segment {
    Index firstRow, rows, diagonals;
    const Index* offsets;
    Count valueStart;
    Remainder<T> rem;
};

template <typename T, RemainderMode MODE>
__device__ __forceinline__ Segment<T> segmentOf(Index s, const Index* __restrict__ segmentFirstRow,
                                                const Count* __restrict__ segmentOffsetStart, const Index* __restrict__ offsets,
                                                const Count* __restrict__ segmentValueStart,
                                                const Count* __restrict__ segmentRemainderStart,
                                                const Count* __restrict__ segmentRemainderRowStart,
                                                const Index* __restrict__ remainderRowStart,
                                                const Index* __restrict__ remainderColumns,
                                                const T* __restrict__ remainderValues, const Index* __restrict__ longRowStart,
                                                const Index* __restrict__ longRows, int fixedWidth) {
    Segment<T> g;
    g.firstRow = segmentFirstRow[s];
    g.rows = segmentFirstRow[s + 1] - g.firstRow;
    const Count offsetStart = segmentOffsetStart[s];
    g.diagonals = static_cast<Index>(segmentOffsetStart[s + 1] - offsetStart);
    g.offsets = offsets + offsetStart;
    g.valueStart = segmentValueStart[s];
    g.rem = segmentRemainder<T, MODE>(s, g.rows, segmentRemainderStart, segmentRemainderRowStart, remainderRowStart,
                                      remainderColumns, remainderValues, longRowStart, longRows, fixedWidth);
    return g;
}

#define SPYGLASS_SEGDIA_SEGMENT_ARGS \
    segmentFirstRow, segmentOffsetStart, offsets, segmentValueStart, SPYGLASS_SEGDIA_REMAINDER_ARGS

template <typename T, int ROWS, RemainderMode MODE>
__global__ void __launch_bounds__(kThreads) segmentedDiaSpmvKernel(SPYGLASS_SEGDIA_KERNEL_PARAMS) {
    __shared__ T partial[MODE == RemainderMode::SubWarp ? kThreads * ROWS : 1];
    const Index end = blockStart[blockIdx.x + 1];
    for (Index k = blockStart[blockIdx.x]; k < end; ++k) {
        const Segment<T> g = segmentOf<T, MODE>(blockSegments[k], SPYGLASS_SEGDIA_SEGMENT_ARGS);
        scalarSegmentSpmv<T, ROWS, MODE>(g.firstRow, g.rows, g.diagonals, g.offsets, values + g.valueStart, x, y, cols, g.rem,
                                         partial);
    }
}

// The same segment walk, but each thread takes LANES consecutive rows with one 16-byte load per
// diagonal and one 16-byte store of y. The value stream is most of the bytes (5 of 7 per row on a
// 5-point stencil); scalar 4-byte loads leave fp32 at ~87 % of copy bandwidth where fp64's 8-byte
// loads reach ~97 %, so the issue rate of load instructions, not DRAM, was the limit. Segments whose
// rows or starts are not multiples of LANES (a ragged last segment, odd thresholds) take the scalar
// path; the choice is per segment and uniform across the block.
// Kept apart from segmentedDiaSpmvKernel on purpose: a vector flag there would widen its shared array and branch its hot loop.
template <typename T, int GROUPS, RemainderMode MODE>
__global__ void __launch_bounds__(kThreads) segmentedDiaSpmvVectorKernel(SPYGLASS_SEGDIA_KERNEL_PARAMS) {
    using V = typename Vector16<T>::Type;
    constexpr int kLanes = Vector16<T>::lanes;
    using Lanes = Vector16<T>;
    __shared__ __align__(16) T partial[MODE == RemainderMode::SubWarp ? kThreads * GROUPS * kLanes : 1];
    // x is read as 16-byte vectors where it is so aligned (loadVectorOfX); a caller's offset x is read lane by lane.
    const bool xAligned = (reinterpret_cast<std::uintptr_t>(x) & 15) == 0;
    const Index end = blockStart[blockIdx.x + 1];
    for (Index k = blockStart[blockIdx.x]; k < end; ++k) {
        const Segment<T> g = segmentOf<T, MODE>(blockSegments[k], SPYGLASS_SEGDIA_SEGMENT_ARGS);
        const Index firstRow = g.firstRow, rows = g.rows, diagonals = g.diagonals;
        const Index* segmentOffsets = g.offsets;
        const Count valueStart = g.valueStart;
        const Remainder<T> rem = g.rem;
        if (rows % kLanes != 0 || firstRow % kLanes != 0 || valueStart % kLanes != 0) {
            scalarSegmentSpmv<T, 1, MODE>(firstRow, rows, diagonals, segmentOffsets, values + valueStart, x, y, cols, rem, partial);
            continue;
        }
        const Index groups = rows / kLanes;
        for (Index base = 0; base < groups; base += kThreads * GROUPS) {
            if (MODE == RemainderMode::SubWarp && rem.present) {
                remainderChunk(rem, base * kLanes, min(rows - base * kLanes, Index(kThreads * GROUPS * kLanes)), x, partial);
                __syncthreads();
            }
            T sum[GROUPS][kLanes];
#pragma unroll
            for (int g = 0; g < GROUPS; ++g)
#pragma unroll
                for (int e = 0; e < kLanes; ++e) sum[g][e] = T{};
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
                    T xs[kLanes];
                    if (xAligned && loadVectorOfX(x, col0, cols, xs)) {
#pragma unroll
                        for (int e = 0; e < kLanes; ++e) sum[g][e] += a[e] * xs[e];
                        continue;
                    }
#pragma unroll
                    for (int e = 0; e < kLanes; ++e)
                        if (col0 + e >= 0 && col0 + e < cols) sum[g][e] += a[e] * cachedLoad(x + col0 + e);
                }
            }
#pragma unroll
            for (int g = 0; g < GROUPS; ++g) {
                const Index group = base + g * kThreads + static_cast<Index>(threadIdx.x);
                if (group >= groups) continue;
                if (MODE == RemainderMode::SubWarp && rem.present) {
                    T p[kLanes];
                    Lanes::unpack(reinterpret_cast<const V*>(partial)[g * kThreads + threadIdx.x], p);
#pragma unroll
                    for (int e = 0; e < kLanes; ++e) sum[g][e] += p[e];
                }
                if (MODE == RemainderMode::Owner && rem.present) {
#pragma unroll
                    for (int e = 0; e < kLanes; ++e) sum[g][e] += ownerRowSum(rem, group * kLanes + e, x);
                }
                reinterpret_cast<V*>(y + firstRow)[group] = Lanes::pack(sum[g]);
            }
            if (MODE == RemainderMode::SubWarp && rem.present) __syncthreads();  // partial is rewritten by the next pass
        }
        if (MODE == RemainderMode::Owner && rem.present) longRowsPass(rem, firstRow, x, y);
    }
}

} // namespace

template <typename T>
void DeviceSegmentedDia<T>::multiply(const T* x, T* y, cudaStream_t stream, const SegmentedDiaVariant& variant) const {
    if (m_blocks == 0) return;
    validateSegmentedDiaVariant(variant);
    const int remainderWidth = variant.remainderWidth;
    int rowsPerThread = variant.rowsPerThread;
    // Automatic: Owners where the remainder is light, else RowBlocks. RowBlocks: the DIA pass without
    // remainder code over its own blocks, then the remainder's own pass; Owners where the row blocks
    // do not apply (a remainder past 2^31 entries).
    const SegmentedDiaRemainderKernel remainderKernel =
        variant.remainder != SegmentedDiaRemainderKernel::Automatic ? variant.remainder
        : m_remainderLight                                          ? SegmentedDiaRemainderKernel::Owners
                                                                    : SegmentedDiaRemainderKernel::RowBlocks;
    const bool rowBlocks = m_hasRemainder && remainderKernel == SegmentedDiaRemainderKernel::RowBlocks && m_remainderBlockCount > 0;
    // The kernels see the device form of T (std::complex<R> as DeviceComplex<R>, same layout).
    using D = typename DeviceScalar<T>::type;
    // RowBlocks runs the DIA pass over its own blocks: segments with diagonals, merged by DIA work.
    const Index blocks = rowBlocks ? m_diaPassBlocks : m_blocks;
    const Index* blockStart = rowBlocks ? m_diaPassBlockStart.data() : m_blockStart.data();
    const Index* blockSegments = rowBlocks ? m_diaPassBlockSegments.data() : m_blockSegments.data();
    const auto launch = [&](auto kernel) {
        kernel<<<blocks, kThreads, 0, stream>>>(blockStart, blockSegments, m_segmentFirstRow.data(),
                                                m_segmentOffsetStart.data(), m_offsets.data(),
                                                m_segmentValueStart.data(), asDeviceScalars(m_values.data()),
                                                m_segmentRemainderStart.data(), m_segmentRemainderRowStart.data(),
                                                m_remainderRowStart.data(), m_remainderColumns.data(),
                                                asDeviceScalars(m_remainderValues.data()), m_longRowStart.data(), m_longRows.data(),
                                                remainderWidth > 0 ? remainderWidth : 0, asDeviceScalars(x), asDeviceScalars(y),
                                                m_cols);
    };
    // Matrices without a remainder, and the DIA pass of RowBlocks, run kernels compiled without it:
    // the seed's code, no shared memory.
    constexpr auto none = RemainderMode::None, owner = RemainderMode::Owner, subWarp = RemainderMode::SubWarp;
    const RemainderMode mode = !m_hasRemainder || rowBlocks ? none
                               : remainderKernel == SegmentedDiaRemainderKernel::SubWarps ? subWarp
                                                                                           : owner;
    const auto pick = [&](auto withoutRemainder, auto withOwner, auto withSubWarp) {
        if (mode == none) launch(withoutRemainder);
        else if (mode == owner) launch(withOwner);
        else launch(withSubWarp);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    };
    // Every segment bare (the whole matrix in the remainder): no DIA pass.
    const bool diaPass = blocks > 0;
    if (diaPass && variant.loads == SegmentedDiaLoads::Vector16) {
        // One pass of the block over a segment of the usual threshold (1024 rows) with fp32: 256
        // threads x 4 rows. Bigger segments loop; two groups in flight did not pay (see docs).
        if (rowsPerThread >= 2 * Vector16<D>::lanes)
            pick(segmentedDiaSpmvVectorKernel<D, 2, none>, segmentedDiaSpmvVectorKernel<D, 2, owner>,
                 segmentedDiaSpmvVectorKernel<D, 2, subWarp>);
        else
            pick(segmentedDiaSpmvVectorKernel<D, 1, none>, segmentedDiaSpmvVectorKernel<D, 1, owner>,
                 segmentedDiaSpmvVectorKernel<D, 1, subWarp>);
    } else if (diaPass) {
        if (rowsPerThread <= 0) rowsPerThread = m_threshold > 2 * kThreads ? 4 : m_threshold > kThreads ? 2 : 1;
        switch (rowsPerThread) {
        case 1: pick(segmentedDiaSpmvKernel<D, 1, none>, segmentedDiaSpmvKernel<D, 1, owner>, segmentedDiaSpmvKernel<D, 1, subWarp>); break;
        case 4: pick(segmentedDiaSpmvKernel<D, 4, none>, segmentedDiaSpmvKernel<D, 4, owner>, segmentedDiaSpmvKernel<D, 4, subWarp>); break;
        default: pick(segmentedDiaSpmvKernel<D, 2, none>, segmentedDiaSpmvKernel<D, 2, owner>, segmentedDiaSpmvKernel<D, 2, subWarp>); break;
        }
    }
    if (rowBlocks) multiplyRemainderRowBlocks(x, y, stream);
}

template <typename T>
bool DeviceSegmentedDia<T>::multiplyRemainderRowBlocks(const T* x, T* y, cudaStream_t stream) const {
    if (m_remainderBlockCount == 0) return false;
    launchRemainderRowBlocks(reinterpret_cast<const RemainderRowBlock*>(m_remainderBlocks.data()),
                             m_remainderBlockCount, m_remainderGlobalRowStart.data(), m_remainderColumns.data(),
                             m_remainderValues.data(), x, y, stream);
    return true;
}

// The constructor (the upload) is host code: segdia_device_matrix.cpp.
#define SPYGLASS_INSTANTIATE_SEGDIA_MULTIPLY(T)                                                                 \
    template void DeviceSegmentedDia<T>::multiply(const T*, T*, cudaStream_t, const SegmentedDiaVariant&) const; \
    template bool DeviceSegmentedDia<T>::multiplyRemainderRowBlocks(const T*, T*, cudaStream_t) const;
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_SEGDIA_MULTIPLY)

} // namespace spyglass::cuda
