// The segmented-DIA remainder's own pass (RemainderKernel::RowBlocks, the default): one thread block
// per row block of about kRemainderBlockEntries entries (core/segdia_remainder_blocks.cpp cuts them),
// as CSR-Stream does. The block first multiplies all its entries by x in coalesced sweeps, eight loads
// in flight per thread whatever the row lengths, into shared memory; then sub-warps of equal width,
// as wide as the block's rows allow (256 threads / rows, 1 .. 32 lanes), add each row's products and
// store y. A row longer than a block's entries has a block of its own that reduces it across all
// threads. Being a pass of its own, its load balance does not hang on the DIA segments' merge (the
// fused owner kernel ran at 0.04x cuSPARSE where a few heavy segments held the remainder).
#include "core/instantiate.h"
#include "device_scalar_access.cuh"
#include "segdia_remainder_spmv.h"
#include "spyglass/cuda/cudacheck.h"

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kLoadsPerThread = kRemainderBlockEntries / kThreads;
static_assert(kLoadsPerThread * kThreads == kRemainderBlockEntries, "a block's entries are whole sweeps");

template <typename T> __device__ __forceinline__ void store(T* y, Index row, T sum, bool assigns) {
    y[row] = assigns ? sum : y[row] + sum;
}

// A row of its own: every thread strides over it, four products in flight, then a block reduction.
template <typename T>
__device__ void longRow(Index row, bool assigns, const Index* __restrict__ rowStart, const Index* __restrict__ columns,
                        const T* __restrict__ values, const T* __restrict__ x, T* __restrict__ y) {
    __shared__ T warpSums[kThreads / 32];
    const Index begin = __ldg(rowStart + row), end = __ldg(rowStart + row + 1);
    T sum{};
#pragma unroll 4
    for (Index k = begin + static_cast<Index>(threadIdx.x); k < end; k += kThreads)
        sum += streamedLoad(values + k) * cachedLoad(x + __ldcs(columns + k));
    for (int o = 16; o > 0; o /= 2) sum += shuffleDown(sum, o);
    if ((threadIdx.x & 31) == 0) warpSums[threadIdx.x / 32] = sum;
    __syncthreads();
    if (threadIdx.x == 0) {
        T total{};
        for (int w = 0; w < kThreads / 32; ++w) total += warpSums[w];
        store(y, row, total, assigns);
    }
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    remainderRowBlocksKernel(const RemainderRowBlock* __restrict__ blocks, const Index* __restrict__ rowStart,
                             const Index* __restrict__ columns, const T* __restrict__ values, const T* __restrict__ x,
                             T* __restrict__ y) {
    __shared__ T products[kRemainderBlockEntries];
    const RemainderRowBlock block = blocks[blockIdx.x];
    const bool assigns = (block.flags & kRemainderAssigns) != 0;
    if (block.flags & kRemainderLongRow) {
        longRow(block.firstRow, assigns, rowStart, columns, values, x, y);
        return;
    }
    // Sweep 1: the block's entries times x, all loads of a thread issued before the first product.
    const Index begin = __ldg(rowStart + block.firstRow);
    const Index count = __ldg(rowStart + block.firstRow + block.rows) - begin;
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
    // Sweep 2: sub-warps of `width` lanes per row. The pass loop's bound is uniform over the block, so
    // every lane reaches the shuffles.
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
        T sum{};
        for (Index k = from + lane; k < to; k += width) sum += products[k];
        for (int o = width / 2; o > 0; o /= 2) sum += shuffleDown(sum, o, width);
        // A row with nothing to add keeps the DIA pass's y; one that assigns gets its sum, 0 if empty.
        if (lane == 0 && r < block.rows && (assigns || to > from)) store(y, block.firstRow + r, sum, assigns);
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
