// Valued hybrid SpMV on the GPU (method D on any real matrix): ONE kernel launch, a block per tile
// planned by stage(). Covered rows: a warp per row; each region covering the row is a dense dot
// product over the row's span, the warp reading the region's values (contiguous, row-major) with
// consecutive lanes on consecutive values, so every load instruction is one coalesced 128-byte line
// (streamed past L1/L2 with __ldcs: they are read once, x is what should stay cached), and x over the
// same columns, which the block's other rows of the region read too (L1/L2 hits). Residual-only rows:
// a group of 1-32 lanes per row sized by the rows' lengths; very long rows a whole block.
// Everything is accumulated in fp64 and rounded once, exactly like hybridValuedSpmvReference.
#include "hybrid_reduce.cuh"
#include "spyglass/cuda/hybrid_valued_device_api.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <algorithm>

namespace spyglass::cuda {

namespace {

constexpr int kWarpsPerBlock = 8;
constexpr int kBlockThreads = kWarpsPerBlock * 32;
constexpr std::int32_t kCoveredTileRows = 32;   // a warp takes every 8th row of the tile
constexpr Count kLongRowLength = 8192;          // from here: the whole block on one residual row
constexpr int kUnroll = 8;                      // independent value loads in flight per lane
// Each block's values start on a 128-byte line, so rectangle rows of a multiple of 32 values do too.
constexpr std::int64_t kValueAlignBytes = 128;

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

// Lanes for rows averaging `mean` entries: about two entries a lane, a power of two in [1, 32].
std::int32_t lanesFor(double mean) {
    std::int32_t lanes = 1;
    while (lanes < 32 && 2.0 * lanes < mean) lanes *= 2;
    return lanes;
}

// Tiles for the residual-only rows [begin, end): very long rows a block each; the others in tiles of
// kBlockThreads / lanes rows, lanes chosen from the mean length of the tile's first rows.
template <typename T>
void planResidualRows(const CsrMatrix<T>& residual, Index begin, Index end, std::vector<ValuedTile>& tiles) {
    const auto length = [&](Index row) { return residual.rowPtr[row + 1] - residual.rowPtr[row]; };
    Index row = begin;
    while (row < end) {
        if (length(row) >= kLongRowLength) {
            tiles.push_back({row, row + 1, ValuedTile::kLongRow, kBlockThreads});
            ++row;
            continue;
        }
        const Index window = std::min<Index>(end, row + 32);
        Count total = 0;
        Index counted = 0;
        for (Index r = row; r < window && length(r) < kLongRowLength; ++r, ++counted) total += length(r);
        const std::int32_t lanes = lanesFor(static_cast<double>(total) / std::max<Index>(1, counted));
        Index last = row;
        while (last < end && last - row < kBlockThreads / lanes && length(last) < kLongRowLength) ++last;
        tiles.push_back({row, last, ValuedTile::kResidualRows, lanes});
        row = last;
    }
}

} // namespace

template <typename T>
void HybridValuedDeviceMatrix<T>::stage(const HybridValuedMatrix<T>& hybrid) {
    m_source = &hybrid;
    m_rows = hybrid.rows;
    m_cols = hybrid.cols;
    m_hostRegions.clear();
    m_hostRegionRows.clear();
    m_valueStarts.clear();
    constexpr std::int64_t align = kValueAlignBytes / static_cast<std::int64_t>(sizeof(T));
    std::int64_t valueCount = 0;
    std::vector<std::int32_t> boundaries;
    for (const HybridValuedBlock<T>& block : hybrid.blocks) {
        const DenseRegion& r = block.region;
        valueCount = (valueCount + align - 1) / align * align;
        m_valueStarts.push_back(valueCount);
        m_hostRegions.push_back({r.rowBegin, r.rowEnd, static_cast<std::int64_t>(m_hostRegionRows.size())});
        std::int64_t at = valueCount;
        for (Index row = r.rowBegin; row < r.rowEnd; ++row) {
            const ColumnSpan s = r.span(row);
            m_hostRegionRows.push_back({s.begin, s.size(), at});
            at += s.size();
        }
        valueCount = at;
        boundaries.push_back(r.rowBegin);
        boundaries.push_back(r.rowEnd);
    }
    m_valueStarts.push_back(valueCount);
    std::sort(boundaries.begin(), boundaries.end());
    boundaries.erase(std::unique(boundaries.begin(), boundaries.end()), boundaries.end());

    // Covered strips: maximal row ranges covered by the same regions; residual-only rows between them.
    std::vector<ValuedTile> covered, residual;
    m_hostStripRegionPtr.assign(1, 0);
    m_hostStripRegions.clear();
    Index uncoveredFrom = 0;
    for (std::size_t s = 0; s + 1 < boundaries.size(); ++s) {
        const std::size_t before = m_hostStripRegions.size();
        for (std::size_t b = 0; b < hybrid.blocks.size(); ++b)
            if (hybrid.blocks[b].region.rowBegin <= boundaries[s] && boundaries[s] < hybrid.blocks[b].region.rowEnd)
                m_hostStripRegions.push_back(static_cast<std::int32_t>(b));
        if (m_hostStripRegions.size() == before) continue;  // a gap between regions
        const std::int32_t strip = static_cast<std::int32_t>(m_hostStripRegionPtr.size()) - 1;
        m_hostStripRegionPtr.push_back(static_cast<std::int32_t>(m_hostStripRegions.size()));
        planResidualRows(hybrid.residual, uncoveredFrom, boundaries[s], residual);
        for (Index row = boundaries[s]; row < boundaries[s + 1]; row += kCoveredTileRows)
            covered.push_back({row, std::min<Index>(row + kCoveredTileRows, boundaries[s + 1]), strip, 32});
        uncoveredFrom = boundaries[s + 1];
    }
    planResidualRows(hybrid.residual, uncoveredFrom, hybrid.rows, residual);
    // Long rows first (the longest single blocks), then covered and residual tiles interleaved in
    // proportion, so that value streams (DRAM) and residual gathers (L2) run side by side.
    m_hostTiles.clear();
    for (const ValuedTile& t : residual)
        if (t.strip == ValuedTile::kLongRow) m_hostTiles.push_back(t);
    residual.erase(std::remove_if(residual.begin(), residual.end(),
                                  [](const ValuedTile& t) { return t.strip == ValuedTile::kLongRow; }),
                   residual.end());
    std::size_t c = 0, r = 0;
    while (c < covered.size() || r < residual.size()) {
        if (r == residual.size() || (c < covered.size() && c * residual.size() <= r * covered.size()))
            m_hostTiles.push_back(covered[c++]);
        else
            m_hostTiles.push_back(residual[r++]);
    }
    m_tileCount = static_cast<std::int32_t>(m_hostTiles.size());
}

template <typename T>
void HybridValuedDeviceMatrix<T>::upload(cudaStream_t stream) {
    if (!m_source) throw Error("valued hybrid device matrix: upload before stage");
    const HybridValuedMatrix<T>& hybrid = *m_source;
    m_regions.upload(m_hostRegions, stream);
    m_regionRows.upload(m_hostRegionRows, stream);
    m_values.resize(static_cast<std::size_t>(std::max<std::int64_t>(1, m_valueStarts.back())));
    for (std::size_t b = 0; b < hybrid.blocks.size(); ++b) {
        const std::vector<T>& v = hybrid.blocks[b].values;
        if (!v.empty())
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(m_values.data() + m_valueStarts[b], v.data(), v.size() * sizeof(T),
                                                cudaMemcpyHostToDevice, stream));
    }
    m_residualRowPtr.upload(hybrid.residual.rowPtr, stream);
    m_residualCols.upload(hybrid.residual.colIndex, stream);
    m_residualValues.upload(hybrid.residual.values, stream);
    if (m_residualCols.size() == 0) m_residualCols.resize(1);
    if (m_residualValues.size() == 0) m_residualValues.resize(1);
    m_stripRegionPtr.upload(m_hostStripRegionPtr, stream);
    m_stripRegions.upload(m_hostStripRegions, stream);
    m_tiles.upload(m_hostTiles, stream);
    m_uploadedBytes = m_regions.bytes() + m_regionRows.bytes() + m_values.bytes() + m_residualRowPtr.bytes() +
                      m_residualCols.bytes() + m_residualValues.bytes() + m_stripRegionPtr.bytes() + m_stripRegions.bytes() +
                      m_tiles.bytes();
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename T>
void HybridValuedDeviceMatrix<T>::multiply(const T* x, T* y, cudaStream_t stream) {
    if (m_rows == 0 || m_tileCount == 0) return;
    const Arrays arrays{m_regions.data(),      m_regionRows.data(),     m_residualRowPtr.data(), m_residualCols.data(),
                        m_stripRegionPtr.data(), m_stripRegions.data(), m_tiles.data()};
    hybridValuedSpmvKernel<T><<<static_cast<unsigned>(m_tileCount), kBlockThreads, 0, stream>>>(
        x, m_values.data(), m_residualValues.data(), arrays, y);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template class HybridValuedDeviceMatrix<float>;
template class HybridValuedDeviceMatrix<double>;

} // namespace spyglass::cuda
