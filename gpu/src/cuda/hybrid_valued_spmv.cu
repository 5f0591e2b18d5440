// Valued hybrid SpMV on the GPU (method D on any matrix, real or complex): ONE kernel launch, a block
// per tile planned by stage(). Covered rows: a warp per row; each region covering the row is a dense
// dot product over the row's span, the warp reading the region's values (contiguous, row-major) with
// consecutive lanes on consecutive values, so every load instruction is one coalesced 128-byte line
// (streamed past L1/L2 with __ldcs: they are read once, x is what should stay cached), and x over the
// same columns, which the block's other rows of the region read too (L1/L2 hits). Residual-only rows:
// a group of 1-32 lanes per row sized by the rows' lengths; very long rows a whole block.
// Everything is accumulated in fp64 (complex values in DeviceComplex<double>, hybrid_reduce.cuh) and
// rounded once, exactly like hybridValuedSpmvReference. The kernel body is written once for the
// device scalars D (device_scalar.cuh): for float and double it is the real kernel it always was.
#include "core/instantiate.h"
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

using hybrid_reduce::AccumulatorOf;
using hybrid_reduce::storeBlockSum;
using hybrid_reduce::storeRounded;
using hybrid_reduce::warpSum;
using hybrid_reduce::widen;

// Sum over k in [0, n) of values[k] * xs[k], lane `lane` of a warp taking k = lane, lane + 32, ...;
// kUnroll loads of values issued before the first is used.
// (streamedLoad/cachedLoad: __ldcs/__ldg, one 8- or 16-byte load per complex value.)
template <typename D>
__device__ inline AccumulatorOf<D> spanDot(const D* __restrict__ values, const D* __restrict__ xs, std::int32_t n, int lane) {
    AccumulatorOf<D> acc{};
    std::int32_t k = lane;
    for (; k + (kUnroll - 1) * 32 < n; k += kUnroll * 32) {
        D v[kUnroll], xv[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) v[u] = streamedLoad(values + k + 32 * u);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) xv[u] = cachedLoad(xs + k + 32 * u);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) acc += widen(v[u]) * widen(xv[u]);
    }
    for (; k < n; k += 32) acc += widen(streamedLoad(values + k)) * widen(cachedLoad(xs + k));
    return acc;
}

template <typename D>
__device__ void coveredTile(const ValuedTile& tile, const D* __restrict__ x, const D* __restrict__ values,
                            const D* __restrict__ residualValues, const Arrays& a, D* __restrict__ y) {
    const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
    const std::int32_t q0 = a.stripRegionPtr[tile.strip], q1 = a.stripRegionPtr[tile.strip + 1];
    for (std::int32_t row = tile.rowBegin + warp; row < tile.rowEnd; row += kWarpsPerBlock) {
        AccumulatorOf<D> acc{};
        const Count eEnd = a.residualRowPtr[row + 1];
        for (Count e = a.residualRowPtr[row] + lane; e < eEnd; e += 32) acc += widen(residualValues[e]) * widen(x[a.residualCols[e]]);
        for (std::int32_t q = q0; q < q1; ++q) {
            const ValuedDeviceRegion r = a.regions[a.stripRegions[q]];
            const ValuedRegionRow span = a.regionRows[r.rowInfoBase + (row - r.rowBegin)];
            if (span.length > 0) acc += spanDot(values + span.valueStart, x + span.colBegin, span.length, lane);
        }
        acc = warpSum(acc);
        if (lane == 0) storeRounded(y, row, acc);
    }
}

// Residual-only rows, Lanes threads per row. The loop runs the same number of rounds in every thread
// of the block (rows past the tile just add nothing), so the width-Lanes shuffles see whole warps.
template <typename D, int Lanes>
__device__ void residualRowsTile(const ValuedTile& tile, const D* __restrict__ x, const D* __restrict__ residualValues,
                                 const Arrays& a, D* __restrict__ y) {
    constexpr int kRowsPerRound = kBlockThreads / Lanes;
    const int group = threadIdx.x / Lanes, lane = threadIdx.x % Lanes;
    for (std::int32_t base = tile.rowBegin; base < tile.rowEnd; base += kRowsPerRound) {
        const std::int32_t row = base + group;
        AccumulatorOf<D> acc{};
        if (row < tile.rowEnd) {
            const Count eEnd = a.residualRowPtr[row + 1];
            for (Count e = a.residualRowPtr[row] + lane; e < eEnd; e += Lanes) acc += widen(residualValues[e]) * widen(x[a.residualCols[e]]);
        }
#pragma unroll
        for (int offset = Lanes / 2; offset > 0; offset >>= 1) acc += shuffleDown(acc, offset, Lanes);
        if (lane == 0 && row < tile.rowEnd) storeRounded(y, row, acc);
    }
}

// Apart from hybrid_spmv.cu's blockRowTile, which sums ones (no value stream); both end in storeBlockSum.
template <typename D>
__device__ void longRowTile(const ValuedTile& tile, const D* __restrict__ x, const D* __restrict__ residualValues,
                            const Arrays& a, D* __restrict__ y) {
    __shared__ AccumulatorOf<D> partial[kWarpsPerBlock];
    const std::int32_t row = tile.rowBegin;
    AccumulatorOf<D> acc{};
    const Count eEnd = a.residualRowPtr[row + 1];
    for (Count e = a.residualRowPtr[row] + threadIdx.x; e < eEnd; e += kBlockThreads)
        acc += widen(residualValues[e]) * widen(x[a.residualCols[e]]);
    storeBlockSum<kWarpsPerBlock>(acc, partial, y, row);
}

// Branches are uniform per block (one tile per block).
template <typename D>
__global__ void __launch_bounds__(kBlockThreads) hybridValuedSpmvKernel(const D* __restrict__ x, const D* __restrict__ values,
                                                                        const D* __restrict__ residualValues, Arrays a,
                                                                        D* __restrict__ y) {
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
    case 1: residualRowsTile<D, 1>(tile, x, residualValues, a, y); break;
    case 2: residualRowsTile<D, 2>(tile, x, residualValues, a, y); break;
    case 4: residualRowsTile<D, 4>(tile, x, residualValues, a, y); break;
    case 8: residualRowsTile<D, 8>(tile, x, residualValues, a, y); break;
    case 16: residualRowsTile<D, 16>(tile, x, residualValues, a, y); break;
    default: residualRowsTile<D, 32>(tile, x, residualValues, a, y); break;
    }
}

} // namespace

// stage() and upload() are host code: hybrid_valued_plan.cpp.
template <typename T>
void HybridValuedDeviceMatrix<T>::multiply(const T* x, T* y, cudaStream_t stream) {
    if (m_rows == 0 || m_tileCount == 0) return;
    const Arrays arrays{m_regions.data(),      m_regionRows.data(),     m_residualRowPtr.data(), m_residualCols.data(),
                        m_stripRegionPtr.data(), m_stripRegions.data(), m_tiles.data()};
    // The kernel sees the device form of T (std::complex<R> as DeviceComplex<R>, same layout).
    hybridValuedSpmvKernel<<<static_cast<unsigned>(m_tileCount), kBlockThreads, 0, stream>>>(
        asDeviceScalars(x), asDeviceScalars(m_values.data()), asDeviceScalars(m_residualValues.data()), arrays, asDeviceScalars(y));
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

#define SPYGLASS_INSTANTIATE_VALUED_MULTIPLY(T) template void HybridValuedDeviceMatrix<T>::multiply(const T*, T*, cudaStream_t);
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_VALUED_MULTIPLY)

} // namespace spyglass::cuda
