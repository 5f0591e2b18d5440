// Valued hybrid SpMV on the GPU (method D on any real matrix): ONE kernel launch, a block per tile
// planned by stage(). Covered rows: a warp per row; each region covering the row is a dense dot
// product over the row's span, the warp reading the region's values (contiguous, row-major) with
// consecutive lanes on consecutive values, so every load instruction is one coalesced 128-byte line
// (streamed past L1/L2 with __ldcs: they are read once, x is what should stay cached), and x over the
// same columns, which the block's other rows of the region read too (L1/L2 hits). Residual-only rows:
// a group of 1-32 lanes per row sized by the rows' lengths; very long rows a whole block.
// Everything is accumulated in fp64 and rounded once, exactly like hybridValuedSpmvReference.
#include "hybrid_reduce.cuh"
#include "hybrid_tiling.h"
#include "spyglass/cuda/hybrid_valued_device_api.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <algorithm>

namespace spyglass::cuda {

namespace {

using namespace hybrid_tiling;  // the tile sizes the plan (hybrid_valued_plan.cpp) cuts by
constexpr int kUnroll = 8;      // independent value loads in flight per lane

struct Arrays {
    const ValuedDeviceRegion* regions;
    const ValuedRegionRow* regionRows;
    const Count* residualRowPtr;
    const Index* residualCols;
    const std::int32_t* stripRegionPtr;
    const std::int32_t* stripRegions;
    const ValuedTile* tiles;
};

using hybrid_reduce::storeBlockSum;
using hybrid_reduce::warpSum;

// Sum over k in [0, n) of values[k] * xs[k], lane `lane` of a warp taking k = lane, lane + 32, ...;
// kUnroll loads of values issued before the first is used.
template <typename T>
__device__ inline double spanDot(const T* __restrict__ values, const T* __restrict__ xs, std::int32_t n, int lane) {
    double acc = 0.0;
    std::int32_t k = lane;
    for (; k + (kUnroll - 1) * 32 < n; k += kUnroll * 32) {
        T v[kUnroll], xv[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) v[u] = __ldcs(values + k + 32 * u);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) xv[u] = __ldg(xs + k + 32 * u);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) acc += static_cast<double>(v[u]) * static_cast<double>(xv[u]);
    }
    for (; k < n; k += 32) acc += static_cast<double>(__ldcs(values + k)) * static_cast<double>(__ldg(xs + k));
    return acc;
}

template <typename T>
__device__ void coveredTile(const ValuedTile& tile, const T* __restrict__ x, const T* __restrict__ values,
                            const T* __restrict__ residualValues, const Arrays& a, T* __restrict__ y) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    const std::int32_t q0 = a.stripRegionPtr[tile.strip], q1 = a.stripRegionPtr[tile.strip + 1];
    for (std::int32_t row = tile.rowBegin + warp; row < tile.rowEnd; row += kWarpsPerBlock) {
        double acc = 0.0;
        const Count eEnd = a.residualRowPtr[row + 1];
        for (Count e = a.residualRowPtr[row] + lane; e < eEnd; e += 32)
            acc += static_cast<double>(residualValues[e]) * static_cast<double>(x[a.residualCols[e]]);
        for (std::int32_t q = q0; q < q1; ++q) {
            const ValuedDeviceRegion r = a.regions[a.stripRegions[q]];
            const ValuedRegionRow span = a.regionRows[r.rowInfoBase + (row - r.rowBegin)];
            if (span.length > 0) acc += spanDot(values + span.valueStart, x + span.colBegin, span.length, lane);
        }
        acc = warpSum(acc);
        if (lane == 0) y[row] = static_cast<T>(acc);
    }
}

// Residual-only rows, Lanes threads per row. The loop runs the same number of rounds in every thread
// of the block (rows past the tile just add nothing), so the width-Lanes shuffles see whole warps.
template <typename T, int Lanes>
__device__ void residualRowsTile(const ValuedTile& tile, const T* __restrict__ x, const T* __restrict__ residualValues,
                                 const Arrays& a, T* __restrict__ y) {
    constexpr int kRowsPerRound = kBlockThreads / Lanes;
    const int group = threadIdx.x / Lanes, lane = threadIdx.x % Lanes;
    for (std::int32_t base = tile.rowBegin; base < tile.rowEnd; base += kRowsPerRound) {
        const std::int32_t row = base + group;
        double acc = 0.0;
        if (row < tile.rowEnd) {
            const Count eEnd = a.residualRowPtr[row + 1];
            for (Count e = a.residualRowPtr[row] + lane; e < eEnd; e += Lanes)
                acc += static_cast<double>(residualValues[e]) * static_cast<double>(x[a.residualCols[e]]);
        }
#pragma unroll
        for (int offset = Lanes / 2; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset, Lanes);
        if (lane == 0 && row < tile.rowEnd) y[row] = static_cast<T>(acc);
    }
}

// Apart from hybrid_spmv.cu's blockRowTile, which sums ones (no value stream); both end in storeBlockSum.
template <typename T>
__device__ void longRowTile(const ValuedTile& tile, const T* __restrict__ x, const T* __restrict__ residualValues,
                            const Arrays& a, T* __restrict__ y) {
    __shared__ double partial[kWarpsPerBlock];
    const std::int32_t row = tile.rowBegin;
    double acc = 0.0;
    const Count eEnd = a.residualRowPtr[row + 1];
    for (Count e = a.residualRowPtr[row] + threadIdx.x; e < eEnd; e += kBlockThreads)
        acc += static_cast<double>(residualValues[e]) * static_cast<double>(x[a.residualCols[e]]);
    storeBlockSum<kWarpsPerBlock>(acc, partial, y, row);
}

// Branches are uniform per block (one tile per block).
template <typename T>
__global__ void __launch_bounds__(kBlockThreads) hybridValuedSpmvKernel(const T* __restrict__ x, const T* __restrict__ values,
                                                                        const T* __restrict__ residualValues, Arrays a,
                                                                        T* __restrict__ y) {
    const ValuedTile tile = a.tiles[blockIdx.x];
    if (tile.strip >= 0) {
        coveredTile(tile, x, values, residualValues, a, y);
        return;
    }
    if (tile.strip == ValuedTile::kLongRow) {
        longRowTile(tile, x, residualValues, a, y);
        return;
    }
    switch (tile.lanes) {
    case 1: residualRowsTile<T, 1>(tile, x, residualValues, a, y); break;
    case 2: residualRowsTile<T, 2>(tile, x, residualValues, a, y); break;
    case 4: residualRowsTile<T, 4>(tile, x, residualValues, a, y); break;
    case 8: residualRowsTile<T, 8>(tile, x, residualValues, a, y); break;
    case 16: residualRowsTile<T, 16>(tile, x, residualValues, a, y); break;
    default: residualRowsTile<T, 32>(tile, x, residualValues, a, y); break;
    }
}

} // namespace

// stage() and upload() are host code: hybrid_valued_plan.cpp.
template <typename T>
void HybridValuedDeviceMatrix<T>::multiply(const T* x, T* y, cudaStream_t stream) {
    if (m_rows == 0 || m_tileCount == 0) return;
    const Arrays arrays{m_regions.data(),      m_regionRows.data(),     m_residualRowPtr.data(), m_residualCols.data(),
                        m_stripRegionPtr.data(), m_stripRegions.data(), m_tiles.data()};
    hybridValuedSpmvKernel<T><<<static_cast<unsigned>(m_tileCount), kBlockThreads, 0, stream>>>(
        x, m_values.data(), m_residualValues.data(), arrays, y);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template void HybridValuedDeviceMatrix<float>::multiply(const float*, float*, cudaStream_t);
template void HybridValuedDeviceMatrix<double>::multiply(const double*, double*, cudaStream_t);

} // namespace spyglass::cuda
