// The segmented-DIA remainder's own pass (SegmentedDiaRemainderKernel::RowBlocks, the default): one
// thread block per row block of at most remainderBlockEntries<T>() entries and 1024 rows
// (segdia_remainder_blocks.cpp cuts them), as CSR-Stream does. Sweep 1 issues every global load of the
// block at once: its rows' starts, the old y of rows it adds to, its entries (eight per thread in
// fp32) and then their x, keeping the products, starts and y in shared memory. Sweep 2 is shared
// memory only: sub-warps of equal width, as wide as the block's rows allow (256 threads / rows, 1 ..
// 32 lanes), add each row's products, and y is stored. So a block costs one round trip to memory
// whatever its row lengths. A row longer than a block's entries has a block of its own that reduces it
// across all threads. Being a pass of its own, its load balance does not hang on the DIA segments'
// merge (the fused owner kernel ran at 0.04x cuSPARSE where a few heavy segments held the remainder).
#include "core/instantiate.h"
#include "device_scalar_access.cuh"
#include "segdia_remainder_spmv.h"
#include "spyglass/cuda/cudacheck.h"

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 256;

template <typename T> __device__ __forceinline__ void store(T* y, Index row, T sum, bool assigns) {
    y[row] = assigns ? sum : y[row] + sum;
}

// A row of its own: every thread strides over it, four products in flight, then a block reduction.
template <typename T>
__device__ void longRow(const RemainderRowBlock& block, bool assigns, const Index* __restrict__ columns,
                        const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y) {
    __shared__ T warpSums[kThreads / 32];
    T sum{};
#pragma unroll 4
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
    constexpr int kRowsPerThread = int(kRemainderBlockRows) / kThreads;
    static_assert(kRowsPerThread * kThreads == kRemainderBlockRows, "a block's rows are whole sweeps");
    __shared__ T products[kEntries];
    __shared__ Index starts[kRemainderBlockRows + 1];
    __shared__ T oldY[kRemainderBlockRows];
    const RemainderRowBlock block = blocks[blockIdx.x];
    const bool assigns = (block.flags & kRemainderAssigns) != 0;
    if (block.flags & kRemainderLongRow) {
        longRow(block, assigns, columns, values, x, y);
        return;
    }
    // Sweep 1: every load of the block issued before the first is used.
    const Index count = block.entryEnd - block.entryBegin;
    const int t = static_cast<int>(threadIdx.x);
    Index start[kRowsPerThread + 1];
    T before[kRowsPerThread];
#pragma unroll
    for (int j = 0; j <= kRowsPerThread; ++j) {
        const Index i = t + j * kThreads;
        if (i <= block.rows) start[j] = __ldg(rowStart + block.firstRow + i);
    }
#pragma unroll
    for (int j = 0; j < kRowsPerThread; ++j) {
        const Index i = t + j * kThreads;
        if (!assigns && i < block.rows) before[j] = y[block.firstRow + i];
    }
    Index column[kLoadsPerThread];
    T value[kLoadsPerThread];
#pragma unroll
    for (int j = 0; j < kLoadsPerThread; ++j) {
        const Index k = t + j * kThreads;
        if (k < count) {
            column[j] = __ldcs(columns + block.entryBegin + k);
            value[j] = streamedLoad(values + block.entryBegin + k);
        }
    }
#pragma unroll
    for (int j = 0; j < kLoadsPerThread; ++j) {
        const Index k = t + j * kThreads;
        if (k < count) products[k] = value[j] * cachedLoad(x + column[j]);
    }
#pragma unroll
    for (int j = 0; j <= kRowsPerThread; ++j) {
        const Index i = t + j * kThreads;
        if (i <= block.rows) starts[i] = start[j] - block.entryBegin;
        if (j < kRowsPerThread && !assigns && i < block.rows) oldY[i] = before[j];
    }
    __syncthreads();
    // Sweep 2: sub-warps of `width` lanes per row. The pass loop's bound is uniform over the block, so
    // every lane reaches the shuffles.
    int width = 1;
    while (width < 32 && width * 2 * block.rows <= kThreads) width *= 2;
    const int lane = t & (width - 1);
    const Index rowsPerPass = kThreads / width;
    for (Index base = 0; base < block.rows; base += rowsPerPass) {
        const Index r = base + t / width;
        Index from = 0, to = 0;
        if (r < block.rows) from = starts[r], to = starts[r + 1];
        T sum{};
        for (Index k = from + lane; k < to; k += width) sum += products[k];
        for (int o = width / 2; o > 0; o /= 2) sum += shuffleDown(sum, o, width);
        // A row with nothing to add keeps the DIA pass's y; one that assigns gets its sum, 0 if empty.
        if (lane == 0 && r < block.rows && (assigns || to > from)) y[block.firstRow + r] = assigns ? sum : oldY[r] + sum;
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
