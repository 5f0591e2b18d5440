// The host half of the binary hybrid device matrix: stage() plans the tiles the kernel's blocks take
// (hybrid_tiling.h says how big) and lays out the region arrays; upload() copies them to the device,
// each block's zeros straight from the encoding (a host-side flattening cost a copy of every zero).
// The kernel and its launcher are in hybrid_spmv.cu.
#include "hybrid_tiling.h"
#include "spyglass/cuda/hybrid_device_api.h"

#include "spyglass/error.h"

#include <algorithm>
#include <vector>

namespace spyglass::cuda {

namespace {

using namespace hybrid_tiling;

// Tiles for the residual-only rows [begin, end): runs of short rows, warps for longer rows, the
// whole block for very long ones.
void planResidualRows(const BinaryPattern& residual, Index begin, Index end, std::vector<HybridTile>& runs,
                      std::vector<HybridTile>& longer) {
    Index row = begin;
    while (row < end) {
        const Count length = residual.rowPtr[row + 1] - residual.rowPtr[row];
        if (length >= kBlockRowMinLength) {
            longer.push_back({row, row + 1, HybridTile::kLongRow, 0});
            ++row;
        } else if (length > kRunMaxRowLength) {
            Index last = row + 1;
            while (last < end && last - row < kCoveredTileRows) {
                const Count next = residual.rowPtr[last + 1] - residual.rowPtr[last];
                if (next <= kRunMaxRowLength || next >= kBlockRowMinLength) break;
                ++last;
            }
            longer.push_back({row, last, HybridTile::kWarpRows, 0});
            row = last;
        } else {
            Index last = row;
            while (last < end && last - row < kBlockThreads) {
                const Count next = residual.rowPtr[last + 1] - residual.rowPtr[last];
                if (next > kRunMaxRowLength || residual.rowPtr[last + 1] - residual.rowPtr[row] > kRunCapacity) break;
                ++last;
            }
            runs.push_back({row, last, HybridTile::kResidualRun, 0});
            row = last;
        }
    }
}

} // namespace

void HybridDeviceMatrix::stage(const HybridBinaryMatrix& hybrid) {
    m_rows = hybrid.rows;
    m_cols = hybrid.cols;
    Staged staged;
    staged.hybrid = &hybrid;
    staged.residual = &hybrid.residual;
    std::vector<std::int32_t> boundaries;
    for (const HybridBlock& block : hybrid.blocks) {
        const DenseRegion& r = block.region;
        staged.regions.push_back({static_cast<std::int32_t>(r.shape), static_cast<std::int32_t>(r.corner), r.rowBegin,
                                  r.rowEnd, r.colBegin, r.colEnd, r.bandLow, r.bandHigh,
                                  static_cast<std::int64_t>(staged.zeroRowPtrCount), static_cast<std::int64_t>(staged.zeroCount)});
        staged.zeroRowPtrCount += block.zeroRowPtr.size();
        staged.zeroCount += block.zeroOffsets.size();
        boundaries.push_back(r.rowBegin);
        boundaries.push_back(r.rowEnd);
    }
    std::sort(boundaries.begin(), boundaries.end());
    boundaries.erase(std::unique(boundaries.begin(), boundaries.end()), boundaries.end());
    // cp.async copies whole 16-byte chunks (zeroSum): the offsets are padded (with zeros) to a multiple of 8.
    staged.paddedZeroCount = (staged.zeroCount + 7) / 8 * 8;
    std::vector<HybridTile> covered, runs, longer;
    staged.stripRegionPtr.push_back(0);
    Index uncoveredFrom = 0;
    for (std::size_t s = 0; s + 1 < boundaries.size(); ++s) {
        const std::size_t before = staged.stripRegions.size();
        for (std::size_t b = 0; b < hybrid.blocks.size(); ++b)
            if (hybrid.blocks[b].region.rowBegin <= boundaries[s] && boundaries[s] < hybrid.blocks[b].region.rowEnd)
                staged.stripRegions.push_back(static_cast<std::int32_t>(b));
        if (staged.stripRegions.size() == before) continue;  // a gap between regions
        const std::int32_t strip = static_cast<std::int32_t>(staged.stripRegionPtr.size()) - 1;
        staged.stripRegionPtr.push_back(static_cast<std::int32_t>(staged.stripRegions.size()));
        planResidualRows(hybrid.residual, uncoveredFrom, boundaries[s], runs, longer);
        for (Index row = boundaries[s]; row < boundaries[s + 1]; row += kCoveredTileRows)
            covered.push_back({row, std::min<Index>(row + kCoveredTileRows, boundaries[s + 1]), strip, 0});
        uncoveredFrom = boundaries[s + 1];
    }
    planResidualRows(hybrid.residual, uncoveredFrom, hybrid.rows, runs, longer);
    // Order: very long rows and warp-row tiles first (the longest single blocks), then covered tiles
    // and residual runs interleaved in proportion: zero streams are DRAM-bound, residual gathers
    // L2-bound, and the two overlap only when blocks of both kinds are resident together.
    staged.tiles = std::move(longer);
    std::size_t c = 0, r = 0;
    while (c < covered.size() || r < runs.size()) {
        if (r == runs.size() || (c < covered.size() && c * runs.size() <= r * covered.size())) staged.tiles.push_back(covered[c++]);
        else staged.tiles.push_back(runs[r++]);
    }
    m_regionCount = static_cast<std::int32_t>(staged.regions.size());
    m_tileCount = static_cast<std::int32_t>(staged.tiles.size());
    m_staged = std::move(staged);
}

void HybridDeviceMatrix::upload(cudaStream_t stream) {
    const Staged& staged = m_staged;
    if (!staged.residual || !staged.hybrid) throw Error("hybrid device matrix: upload before stage");
    m_regions.upload(staged.regions, stream);
    // Each block's arrays go straight to their place (no host-side flattening of the zeros).
    if (m_zeroRowPtr.size() != staged.zeroRowPtrCount) m_zeroRowPtr.resize(staged.zeroRowPtrCount);
    if (m_zeroOffsets.size() != staged.paddedZeroCount) m_zeroOffsets.resize(staged.paddedZeroCount);
    for (std::size_t b = 0; b < staged.hybrid->blocks.size(); ++b) {
        const HybridBlock& block = staged.hybrid->blocks[b];
        const DeviceRegion& r = staged.regions[b];
        if (!block.zeroRowPtr.empty())
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(m_zeroRowPtr.data() + r.zeroRowPtrBase, block.zeroRowPtr.data(),
                                                block.zeroRowPtr.size() * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream));
        if (!block.zeroOffsets.empty())
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(m_zeroOffsets.data() + r.zeroBase, block.zeroOffsets.data(),
                                                block.zeroOffsets.size() * sizeof(std::uint16_t), cudaMemcpyHostToDevice, stream));
    }
    if (staged.paddedZeroCount > staged.zeroCount)
        SPYGLASS_CUDA_CHECK(cudaMemsetAsync(m_zeroOffsets.data() + staged.zeroCount, 0,
                                            (staged.paddedZeroCount - staged.zeroCount) * sizeof(std::uint16_t), stream));
    m_residualRowPtr.upload(staged.residual->rowPtr, stream);
    m_residualCols.upload(staged.residual->colIndex, stream);
    m_stripRegionPtr.upload(staged.stripRegionPtr, stream);
    m_stripRegions.upload(staged.stripRegions, stream);
    m_tiles.upload(staged.tiles, stream);
    m_uploadedBytes = m_regions.bytes() + m_zeroRowPtr.bytes() + m_zeroOffsets.bytes() + m_residualRowPtr.bytes() +
                      m_residualCols.bytes() + m_stripRegionPtr.bytes() + m_stripRegions.bytes() + m_tiles.bytes();
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void PatternCsrDevice::upload(const BinaryPattern& pattern, cudaStream_t stream) {
    m_rows = pattern.rows;
    m_rowPtr.upload(pattern.rowPtr, stream);
    m_cols.upload(pattern.colIndex, stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

} // namespace spyglass::cuda
