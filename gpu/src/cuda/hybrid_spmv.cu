// Method D SpMV on the GPU: ONE kernel launch, a block per tile planned by stage(). Rows covered by
// regions: span sums from prefix sums of x that the block computes over the tile's columns (no pass
// over all of x, no second launch), minus x at the zeros (a warp per row, offsets staged with cp.async);
// residual-only rows in runs through shared memory (a thread per row), longer ones a warp or a block.
// Everything is accumulated in fp64 and rounded once, exactly like hybridSpmvReference.
#include "hybrid_reduce.cuh"
#include "hybrid_tiling.h"
#include "spyglass/cuda/hybrid_device_api.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <cuda_pipeline.h>

#include <climits>

#include <algorithm>

namespace spyglass::cuda {

namespace {

using namespace hybrid_tiling;  // the tile sizes the plan (hybrid_plan.cpp) cuts by
constexpr std::int32_t kWarpZeroBuffer = 1024;     // zero offsets a warp stages at a time (2 KiB)

// Mirrors DenseRegion::span (hybrid_region.cpp); the tests compare both paths on every shape.
__device__ inline void regionSpan(const DeviceRegion& r, std::int32_t row, std::int32_t& begin, std::int32_t& end) {
    const long long rr = row - r.rowBegin, h = r.rowEnd - r.rowBegin, w = r.colEnd - r.colBegin;
    long long b = 0, e = w;
    if (r.shape == 1) {
        switch (r.corner) {
        case 0: e = ((rr + 1) * w + h - 1) / h; break;
        case 1: b = (rr * w) / h; break;
        case 2: e = ((h - rr) * w + h - 1) / h; break;
        default: b = ((h - 1 - rr) * w) / h; break;
        }
    } else if (r.shape == 2) {
        b = rr + r.bandLow > 0 ? rr + r.bandLow : 0;
        e = rr + r.bandHigh + 1 < w ? rr + r.bandHigh + 1 : w;
    }
    if (e < b) e = b;
    begin = static_cast<std::int32_t>(r.colBegin + b);
    end = static_cast<std::int32_t>(r.colBegin + e);
}

using hybrid_reduce::storeBlockSum;
using hybrid_reduce::warpSum;

struct Arrays {
    const Count* residualRowPtr;
    const Index* residualCols;
    const DeviceRegion* regions;
    const std::uint32_t* zeroRowPtr;
    const std::uint16_t* zeroOffsets;
    const std::int32_t* stripRegionPtr;
    const std::int32_t* stripRegions;
    const HybridTile* tiles;
};

// Sum of x at the zeros [z0, z1) of the flat offset array (one row of one region; xs = x at the span
// start, in global or shared memory). The warp copies up to kWarpZeroBuffer offsets at a time into its
// shared buffer with cp.async (16 bytes a lane and copy, no registers held, the whole row's offsets in
// one memory round trip for typical rows), then lanes read consecutive offsets, so neighbouring gathers
// of x share cache lines (or banks). Copies start at a 16-byte boundary: the few offsets before z0 (and
// after z1, in the padding that stage() adds) are copied but not used.
template <typename T>
__device__ inline double zeroSum(const T* __restrict__ xs, const std::uint16_t* __restrict__ zeros, std::int64_t z0,
                                 std::int64_t z1, std::uint16_t* buffer, int lane) {
    double sum = 0.0;
    for (std::int64_t base = z0 & ~std::int64_t(7); base < z1; base += kWarpZeroBuffer) {
        const std::int32_t chunks = static_cast<std::int32_t>((z1 - base + 7 < kWarpZeroBuffer ? z1 - base + 7 : kWarpZeroBuffer) / 8);
        for (std::int32_t c = lane; c < chunks; c += 32) __pipeline_memcpy_async(buffer + 8 * c, zeros + base + 8 * c, 16);
        __pipeline_commit();
        __pipeline_wait_prior(0);
        __syncwarp();
        const std::int32_t lo = static_cast<std::int32_t>(z0 > base ? z0 - base : 0);
        const std::int32_t hi = static_cast<std::int32_t>(z1 - base < kWarpZeroBuffer ? z1 - base : kWarpZeroBuffer);
#pragma unroll 4
        for (std::int32_t k = lo + lane; k < hi; k += 32) sum += static_cast<double>(xs[buffer[k]]);
        __syncwarp();  // the buffer is refilled next round (or by the next row)
    }
    return sum;
}

// x at the residual entries [first, first + n) (n <= kRunCapacity) into buffer[0, n): coalesced column
// loads, kRunCapacity / kBlockThreads independent loads a thread. Ends with a barrier.
template <typename T>
__device__ inline void gatherRun(const T* __restrict__ x, const Index* __restrict__ cols, Count first, std::int32_t n,
                                 double* buffer) {
    constexpr int kPerThread = kRunCapacity / kBlockThreads;
    Index col[kPerThread];
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
        const std::int32_t k = threadIdx.x + u * kBlockThreads;
        col[u] = k < n ? cols[first + k] : 0;
    }
#pragma unroll
    for (int u = 0; u < kPerThread; ++u) {
        const std::int32_t k = threadIdx.x + u * kBlockThreads;
        if (k < n) buffer[k] = static_cast<double>(x[col[u]]);
    }
    __syncthreads();
}

// Shared memory of one block. The first part is either the residual buffer (kRunCapacity doubles) or
// the warps' zero-offset buffers; a covered tile uses it for both, one after the other.
struct SharedLayout {
    static constexpr int kBuffer = 0;
    static constexpr int kSpan = kRunCapacity * 8;                // x over a region's columns (staged)
    static constexpr int kSpanBytes = 16384;
    static constexpr int kSegment = kSpan + kSpanBytes;            // prefix before each thread's 8 columns
    static constexpr int kWarpTotal = kSegment + kBlockThreads * 8;
    static constexpr int kRowSum = kWarpTotal + kWarpsPerBlock * 8;  // per covered-tile row
    static constexpr int kBytes = kRowSum + kCoveredTileRows * 8;
};
static_assert(kWarpsPerBlock * kWarpZeroBuffer * 2 <= SharedLayout::kSpan, "zero buffers must fit the shared buffer");

// The prefix sum (from the chunk's first column) at column p, if p lies in (c0, last]: the owning
// thread's segment offset plus the few columns of its segment before p.
template <typename T>
__device__ inline double prefixAt(std::int32_t p, std::int32_t c0, std::int32_t last, const double* segment,
                                  const T* __restrict__ xs, std::int32_t xsOrigin) {
    if (p <= c0 || p > last) return 0.0;
    const std::int32_t t = (p - c0 - 1) >> 3, s = c0 + 8 * t;
    double sum = segment[t];
    for (std::int32_t j = s; j < p; ++j) sum += static_cast<double>(xs[j - xsOrigin]);
    return sum;
}

// Rows [rowBegin, rowEnd) (at most kCoveredTileRows) of one covered strip. Residual entries first (the
// block as one run, or a warp per row when the tile holds more than kRunCapacity of them). Then per
// region: the block scans x over the union of the rows' spans chunk by chunk (kChunk columns, 8 a
// thread) and takes each row's span sum from two prefix values, so no separate pass over x is needed;
// where that union fits kSpanBytes it stays in shared memory for the zero gathers. Then a warp per row
// subtracts x at the row's zeros. Every row's sum is accumulated in fp64 and rounded once.
template <typename T>
__device__ void coveredTile(const HybridTile& tile, const T* __restrict__ x, const Arrays& a, T* __restrict__ y,
                            unsigned char* shared) {
    constexpr std::int32_t kChunk = 8 * kBlockThreads;
    constexpr std::int32_t kSpanCapacity = SharedLayout::kSpanBytes / static_cast<std::int32_t>(sizeof(T));
    constexpr int kRowsPerWarp = kCoveredTileRows / kWarpsPerBlock;
    static_assert(kCoveredTileRows == 32, "lane k of every warp holds tile row k's span");
    const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    const std::int32_t rows = tile.rowEnd - tile.rowBegin;
    double* rowSum = reinterpret_cast<double*>(shared + SharedLayout::kRowSum);
    double* segment = reinterpret_cast<double*>(shared + SharedLayout::kSegment);
    double* warpTotal = reinterpret_cast<double*>(shared + SharedLayout::kWarpTotal);
    T* span = reinterpret_cast<T*>(shared + SharedLayout::kSpan);
    std::uint16_t* zeroBuffer = reinterpret_cast<std::uint16_t*>(shared + SharedLayout::kBuffer) + warp * kWarpZeroBuffer;

    const Count first = a.residualRowPtr[tile.rowBegin];
    const Count entries = a.residualRowPtr[tile.rowEnd] - first;
    if (entries <= kRunCapacity) {
        double* buffer = reinterpret_cast<double*>(shared + SharedLayout::kBuffer);
        gatherRun(x, a.residualCols, first, static_cast<std::int32_t>(entries), buffer);
        if (static_cast<std::int32_t>(threadIdx.x) < rows) {
            const std::int32_t row = tile.rowBegin + threadIdx.x;
            const std::int32_t b = static_cast<std::int32_t>(a.residualRowPtr[row] - first);
            const std::int32_t e = static_cast<std::int32_t>(a.residualRowPtr[row + 1] - first);
            double sum = 0.0;
            for (std::int32_t k = b; k < e; ++k) sum += buffer[k];
            rowSum[threadIdx.x] = sum;
        }
    } else {
        for (std::int32_t k = warp; k < rows; k += kWarpsPerBlock) {
            const std::int32_t row = tile.rowBegin + k;
            double sum = 0.0;
            const Count eEnd = a.residualRowPtr[row + 1];
            for (Count e = a.residualRowPtr[row] + lane; e < eEnd; e += 32) sum += static_cast<double>(x[a.residualCols[e]]);
            sum = warpSum(sum);
            if (lane == 0) rowSum[k] = sum;
        }
    }
    __syncthreads();  // rowSum complete; the buffer now holds zero offsets

    double zeroAcc[kRowsPerWarp];
#pragma unroll
    for (int j = 0; j < kRowsPerWarp; ++j) zeroAcc[j] = 0.0;
    const std::int32_t q0 = a.stripRegionPtr[tile.strip], q1 = a.stripRegionPtr[tile.strip + 1];
    for (std::int32_t q = q0; q < q1; ++q) {
        const DeviceRegion r = a.regions[a.stripRegions[q]];
        // Lane k of every warp holds tile row k's span; the union [u0, u1) of the non-empty ones.
        std::int32_t b = 0, e = 0;
        if (lane < rows) regionSpan(r, tile.rowBegin + lane, b, e);
        const bool nonEmpty = b < e;
        const std::int32_t u0 = __reduce_min_sync(0xffffffffu, nonEmpty ? b : INT_MAX);
        const std::int32_t u1 = __reduce_max_sync(0xffffffffu, nonEmpty ? e : INT_MIN);
        if (u0 >= u1) continue;  // the same in every warp
        const bool staged = u1 - u0 <= kSpanCapacity;
        // Zero pointers of this warp's rows (lanes 2j and 2j + 1: row warp + 8j), requested now.
        std::uint32_t zeroPtr = 0;
        {
            const std::int32_t k = warp + kWarpsPerBlock * (lane >> 1);
            if (lane < 2 * kRowsPerWarp && k < rows)
                zeroPtr = a.zeroRowPtr[r.zeroRowPtrBase + (tile.rowBegin + k - r.rowBegin) + (lane & 1)];
        }
        double spanSum = 0.0;  // warp 0, lane k: P(e_k) - P(b_k)
        double carry = 0.0;
        for (std::int32_t c0 = u0; c0 < u1; c0 += kChunk) {
            const std::int32_t start = c0 + 8 * static_cast<std::int32_t>(threadIdx.x);
            double own = 0.0;
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                if (start + i < u1) {
                    const T v = x[start + i];
                    own += static_cast<double>(v);
                    if (staged) span[start + i - u0] = v;
                }
            }
            double inclusive = own;
            for (int d = 1; d < 32; d <<= 1) {
                const double up = __shfl_up_sync(0xffffffffu, inclusive, d);
                if (lane >= d) inclusive += up;
            }
            if (lane == 31) warpTotal[warp] = inclusive;
            __syncthreads();
            double before = carry, total = carry;
            for (int w = 0; w < kWarpsPerBlock; ++w) {
                const double t = warpTotal[w];
                if (w < warp) before += t;
                total += t;
            }
            segment[threadIdx.x] = before + inclusive - own;
            __syncthreads();
            if (warp == 0 && nonEmpty) {
                const std::int32_t last = c0 + kChunk < u1 ? c0 + kChunk : u1;
                if (staged) spanSum += prefixAt(e, c0, last, segment, span, u0) - prefixAt(b, c0, last, segment, span, u0);
                else spanSum += prefixAt(e, c0, last, segment, x, 0) - prefixAt(b, c0, last, segment, x, 0);
            }
            carry = total;
            __syncthreads();  // segment and warpTotal are rewritten by the next chunk
        }
        if (warp == 0 && nonEmpty) rowSum[lane] += spanSum;  // P(u0) = 0: a row starting at u0 has no owner
#pragma unroll
        for (int j = 0; j < kRowsPerWarp; ++j) {
            const std::int32_t k = warp + kWarpsPerBlock * j;
            const std::int32_t bk = __shfl_sync(0xffffffffu, b, k & 31), ek = __shfl_sync(0xffffffffu, e, k & 31);
            const std::uint32_t z0 = __shfl_sync(0xffffffffu, zeroPtr, 2 * j), z1 = __shfl_sync(0xffffffffu, zeroPtr, 2 * j + 1);
            if (k >= rows || bk >= ek || z0 >= z1) continue;
            const std::int64_t from = r.zeroBase + z0, to = r.zeroBase + z1;
            if (staged) zeroAcc[j] += zeroSum(span + (bk - u0), a.zeroOffsets, from, to, zeroBuffer, lane);
            else zeroAcc[j] += zeroSum(x + bk, a.zeroOffsets, from, to, zeroBuffer, lane);
        }
        __syncthreads();  // span, rowSum: the next region rewrites them
    }
#pragma unroll
    for (int j = 0; j < kRowsPerWarp; ++j) {
        const std::int32_t k = warp + kWarpsPerBlock * j;
        const double zeros = warpSum(zeroAcc[j]);
        if (lane == 0 && k < rows) y[tile.rowBegin + k] = static_cast<T>(rowSum[k] - zeros);
    }
}

// Residual-only rows longer than a run allows: a warp per row.
template <typename T>
__device__ void warpRowsTile(const HybridTile& tile, const T* __restrict__ x, const Arrays& a, T* __restrict__ y) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    for (std::int32_t row = tile.rowBegin + warp; row < tile.rowEnd; row += kWarpsPerBlock) {
        double acc = 0.0;
        const Count eEnd = a.residualRowPtr[row + 1];
        for (Count e = a.residualRowPtr[row] + lane; e < eEnd; e += 32) acc += static_cast<double>(x[a.residualCols[e]]);
        acc = warpSum(acc);
        if (lane == 0) y[row] = static_cast<T>(acc);
    }
}

// Consecutive short residual rows (at most kRunCapacity entries, kBlockThreads rows): the block
// gathers x for all entries into shared memory with coalesced column loads, then a thread per row
// adds its entries up. Short rows no longer leave most lanes of a warp or sub-warp idle.
template <typename T>
__device__ void residualRunTile(const HybridTile& tile, const T* __restrict__ x, const Arrays& a, T* __restrict__ y,
                                double* buffer) {
    const Count first = a.residualRowPtr[tile.rowBegin];
    gatherRun(x, a.residualCols, first, static_cast<std::int32_t>(a.residualRowPtr[tile.rowEnd] - first), buffer);
    const std::int32_t row = tile.rowBegin + static_cast<std::int32_t>(threadIdx.x);
    if (row < tile.rowEnd) {
        const std::int32_t b = static_cast<std::int32_t>(a.residualRowPtr[row] - first);
        const std::int32_t e = static_cast<std::int32_t>(a.residualRowPtr[row + 1] - first);
        double acc = 0.0;
        for (std::int32_t k = b; k < e; ++k) acc += buffer[k];
        y[row] = static_cast<T>(acc);
    }
}

// One residual row too long for a warp: the whole block, combined through shared memory.
template <typename T>
__device__ void blockRowTile(const HybridTile& tile, const T* __restrict__ x, const Arrays& a, T* __restrict__ y,
                             double* buffer) {
    const std::int32_t row = tile.rowBegin;
    double acc = 0.0;
    const Count eEnd = a.residualRowPtr[row + 1];
    for (Count e = a.residualRowPtr[row] + threadIdx.x; e < eEnd; e += kBlockThreads) acc += static_cast<double>(x[a.residualCols[e]]);
    storeBlockSum<kWarpsPerBlock>(acc, buffer, y, row);
}

// The whole SpMV in one launch: a block per tile, the tiles ordered by stage() so that zero streaming
// (DRAM) and residual gathers (L2) run side by side. Branches are uniform per block. Five blocks an SM
// (48 registers, 35 KiB of shared memory each): without the bound ptxas spills at 48 registers.
template <typename T>
__global__ void __launch_bounds__(kBlockThreads, 5) hybridSpmvKernel(const T* __restrict__ x, Arrays a, T* __restrict__ y) {
    __shared__ alignas(16) unsigned char shared[SharedLayout::kBytes];
    const HybridTile tile = a.tiles[blockIdx.x];
    if (tile.strip >= 0) coveredTile(tile, x, a, y, shared);
    else if (tile.strip == HybridTile::kResidualRun) residualRunTile(tile, x, a, y, reinterpret_cast<double*>(shared));
    else if (tile.strip == HybridTile::kLongRow) blockRowTile(tile, x, a, y, reinterpret_cast<double*>(shared));
    else warpRowsTile(tile, x, a, y);
}

template <typename T>
__global__ void patternCsrKernel(std::int32_t rows, const T* __restrict__ x, const Count* __restrict__ rowPtr,
                                 const Index* __restrict__ cols, T* __restrict__ y) {
    const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (warp >= rows) return;
    double acc = 0.0;
    for (Count k = rowPtr[warp] + lane; k < rowPtr[warp + 1]; k += 32) acc += static_cast<double>(x[cols[k]]);
    acc = warpSum(acc);
    if (lane == 0) y[warp] = static_cast<T>(acc);
}

unsigned gridForRows(Index rows) {
    return static_cast<unsigned>((static_cast<std::int64_t>(rows) + kWarpsPerBlock - 1) / kWarpsPerBlock);
}

} // namespace

// stage() and upload() are host code: hybrid_plan.cpp.
template <typename T>
void HybridDeviceMatrix::multiply(const T* x, T* y, cudaStream_t stream) {
    if (m_rows == 0 || m_tileCount == 0) return;
    const Arrays arrays{m_residualRowPtr.data(), m_residualCols.data(),   m_regions.data(),
                        m_zeroRowPtr.data(),     m_zeroOffsets.data(),    m_stripRegionPtr.data(),
                        m_stripRegions.data(),   m_tiles.data()};
    hybridSpmvKernel<T><<<static_cast<unsigned>(m_tileCount), kBlockThreads, 0, stream>>>(x, arrays, y);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template <typename T>
void PatternCsrDevice::multiply(const T* x, T* y, cudaStream_t stream) {
    if (m_rows == 0) return;
    patternCsrKernel<T><<<gridForRows(m_rows), kWarpsPerBlock * 32, 0, stream>>>(m_rows, x, m_rowPtr.data(), m_cols.data(), y);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template void HybridDeviceMatrix::multiply<float>(const float*, float*, cudaStream_t);
template void HybridDeviceMatrix::multiply<double>(const double*, double*, cudaStream_t);
template void PatternCsrDevice::multiply<float>(const float*, float*, cudaStream_t);
template void PatternCsrDevice::multiply<double>(const double*, double*, cudaStream_t);

} // namespace spyglass::cuda
