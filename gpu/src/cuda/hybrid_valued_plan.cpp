// The host half of the valued hybrid device matrix: stage() lays the regions' values out on 128-byte
// lines and plans the tiles the kernel's blocks take (hybrid_tiling.h says how big); upload() copies
// everything to the device. The kernel and its launcher are in hybrid_valued_spmv.cu.
#include "core/instantiate.h"
#include "hybrid_tiling.h"
#include "spyglass/cuda/hybrid_valued_device_api.h"

#include "spyglass/error.h"

#include <algorithm>
#include <vector>

namespace spyglass::cuda {

namespace {

using namespace hybrid_tiling;

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

// Real and complex values: the layout and the plan are the same, only sizeof(T) differs.
#define SPYGLASS_INSTANTIATE_VALUED_DEVICE_MATRIX(T) template class HybridValuedDeviceMatrix<T>;
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_VALUED_DEVICE_MATRIX)

} // namespace spyglass::cuda
