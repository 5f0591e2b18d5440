// The segmented-DIA remainder's own pass (SegmentedDiaRemainderKernel::RowBlocks, which Automatic, the
// default, runs unless the remainder is light), after the DIA pass: one
// thread block per row block of at most remainderBlockEntries<T>() entries and 1024 rows
// (segdia_remainder_blocks.cpp cuts them), as CSR-Stream does. Sweep 1 multiplies all the block's
// entries by x in coalesced sweeps, every load of a thread issued before the first product (eight
// entries per thread in fp32), into shared memory; in sweep 2 sub-warps as wide as the block's rows
// allow (256 threads / rows, 1 .. 32 lanes) sum each row, whole warps the few rows far longer than
// the others, and y is stored.
// A row longer than a block's entries has a block of its own that reduces it across all threads.
// Being a pass of its own, its load balance does not hang on the DIA segments' merge (the fused owner
// kernel ran at 0.04x cuSPARSE where a few heavy segments held the remainder). Loading the rows'
// starts and old y in sweep 1 as well (one round trip a block) was slower: 0.0407 -> 0.0520 ms on
// west0479 x5300 (H200), as it reads y for rows without entries and holds more registers and shared
// memory per block.
#include "core/instantiate.h"
#include "device_scalar_access.cuh"
#include "segdia_remainder_spmv.h"
#include "spyglass/cuda/cudacheck.h"

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 256;
// Sweep 2 leaves a row of more than kDeferFactor x (its sub-warp's width) entries to a whole warp.
constexpr Index kDeferFactor = 32;

template <typename T> __device__ __forceinline__ void store(T* y, Index row, T sum, bool assigns) {
    y[row] = assigns ? sum : y[row] + sum;
}

// A row of its own: every thread strides over it, eight products in flight, then a block reduction.
template <typename T>
__device__ void longRow(const RemainderRowBlock& block, bool assigns, const Index* __restrict__ columns,
                        const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y) {
    __shared__ T warpSums[kThreads / 32];
    T sum{};
#pragma unroll 8
    for (Index k = block.entryBegin + static_cast<Index>(threadIdx.x); k < block.entryEnd; k += kThreads)
        sum += streamedLoad(values + k) * cachedLoad(x + __ldcs(columns + k));
    for (int o = 16; o > 0; o /= 2) sum += shuffleDown(sum, o);
    if ((threadIdx.x & 31) == 0) warpSums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        T total{};
        for (int w = 0; w < kThreads / 32; ++w) total += warpSums[w];
        store(y, block.firstRow, total, assigns);
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    remainderRowBlocksKernel(const RemainderRowBlock* __restrict__ blocks, const Index* __restrict__ rowStart,
                             const Index* __restrict__ columns, const T* __restrict__ values, const T* __restrict__ x,
                             T* __restrict__ y) {
    constexpr Index kEntries = remainderBlockEntries<T>();
    constexpr int kLoadsPerThread = int(kEntries) / kThreads;
    static_assert(kLoadsPerThread * kThreads == kEntries, "a block's entries are whole sweeps");
    __shared__ T products[kEntries];
    const RemainderRowBlock block = blocks[blockIdx.x];
    const bool assigns = (block.flags & kRemainderAssigns) != 0;
    if (block.flags & kRemainderLongRow) {
        longRow(block, assigns, columns, values, x, y);
        return;
    }
    // Sweep 1: the block's entries times x, all loads of a thread issued before the first product.
    const Index begin = block.entryBegin, count = block.entryEnd - block.entryBegin;
    Index column[kLoadsPerThread];
    T value[kLoadsPerThread];
#pragma unroll
    for (int j = 0; j < kLoadsPerThread; ++j) {
        const Index k = static_cast<Index>(threadIdx.x) + j * kThreads;
        if (k < count) {
            column[j] = __ldcs(columns + begin + k);
            value[j] = streamedLoad(values + begin + k);
        }
    }
#pragma unroll
    for (int j = 0; j < kLoadsPerThread; ++j) {
        const Index k = static_cast<Index>(threadIdx.x) + j * kThreads;
        if (k < count) products[k] = value[j] * cachedLoad(x + column[j]);
    }
    __syncthreads();
    // Sweep 2: sub-warps of `width` lanes per row, as wide as the block's rows allow, one pass when
    // rows x width fit the block's threads; the loop bound is uniform, so every lane reaches the
    // shuffles. A row of more than kDeferFactor x width entries (a row of 500 beside rows of 3) would
    // keep its sub-warp walking while the block waits: it goes on a list that whole warps then take.
    __shared__ Index deferred[kEntries / kDeferFactor + 1][3];  // row, first and end product
    __shared__ int deferredCount;
    if (threadIdx.x == 0) deferredCount = 0;
    __syncthreads();
    int width = 1;
    while (width < 32 && width * 2 * block.rows <= kThreads) width *= 2;
    const int lane = static_cast<int>(threadIdx.x) & (width - 1);
    const Index rowsPerPass = kThreads / width;
    for (Index base = 0; base < block.rows; base += rowsPerPass) {
        const Index r = base + static_cast<Index>(threadIdx.x) / width;
        Index from = 0, to = 0;
        if (r < block.rows) {
            from = __ldg(rowStart + block.firstRow + r) - begin;
            to = __ldg(rowStart + block.firstRow + r + 1) - begin;
        }
        const bool defer = to - from > kDeferFactor * width;
        if (defer && lane == 0) {
            const int at = atomicAdd(&deferredCount, 1);
            deferred[at][0] = r, deferred[at][1] = from, deferred[at][2] = to;
        }
        T sum{};
        if (!defer)
            for (Index k = from + lane; k < to; k += width) sum += products[k];
        for (int o = width / 2; o > 0; o /= 2) sum += shuffleDown(sum, o, width);
        // A row with nothing to add keeps the DIA pass's y; one that assigns gets its sum, 0 if empty.
        if (lane == 0 && r < block.rows && !defer && (assigns || to > from)) store(y, block.firstRow + r, sum, assigns);
    }
    __syncthreads();
    const int warpLane = static_cast<int>(threadIdx.x) & 31;
    for (int l = static_cast<int>(threadIdx.x) / 32; l < deferredCount; l += kThreads / 32) {
        T sum{};
        for (Index k = deferred[l][1] + warpLane; k < deferred[l][2]; k += 32) sum += products[k];
        for (int o = 16; o > 0; o /= 2) sum += shuffleDown(sum, o);
        if (warpLane == 0) store(y, block.firstRow + deferred[l][0], sum, assigns);
    }
}

} // namespace

template <typename T>
void launchRemainderRowBlocks(const RemainderRowBlock* blocks, Index blockCount, const Index* rowStart, const Index* columns,
                              const T* values, const T* x, T* y, cudaStream_t stream) {
    if (blockCount == 0) return;
    using D = typename DeviceScalar<T>::type;
    remainderRowBlocksKernel<D><<<blockCount, kThreads, 0, stream>>>(blocks, rowStart, columns, asDeviceScalars(values),
                                                                     asDeviceScalars(x), asDeviceScalars(y));
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

#define SPYGLASS_INSTANTIATE_REMAINDER_ROW_BLOCKS(T)                                                                  \
    template void launchRemainderRowBlocks(const RemainderRowBlock*, Index, const Index*, const Index*, \
                                           const T*, const T*, T*, cudaStream_t);
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_REMAINDER_ROW_BLOCKS)

} // namespace spyglass::cuda
