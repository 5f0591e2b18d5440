// Hybrid encoding (method D, steps 4-5): regions reverse-encoded by their zeros, the rest as CSR.
// Encoding runs in two passes over row chunks on every thread: a count (binary searches only: each
// row's residual length, each region row's zeros), prefix sums, then a fill at the counted offsets.
// No pass over the entries is serial, and the arrays come out the same whatever the thread count.
#include "core/hybrid_gallop.h"
#include "core/parallel_ranges.h"
#include "core/hybrid_residualcount.h"
#include "core/hybrid_rowcover.h"
#include "core/hybrid_threads.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"

#include <algorithm>
#include <numeric>

namespace spyglass {

namespace {

// Fixed bytes of the encoding itself (dimensions, counts) and of one region record; the container
// stores exactly these widths (docs/container-format.md).
constexpr std::size_t kHeaderBytes = 16;
constexpr std::size_t kRegionRecordBytes = 32;

std::size_t blockBytes(const DenseRegion& region, Count zeros) {
    return kRegionRecordBytes + 4 * (static_cast<std::size_t>(region.height()) + 1) + 2 * static_cast<std::size_t>(zeros);
}

using hybrid_detail::coverRows;
using hybrid_detail::RowCover;

} // namespace

std::size_t patternCsrBytes(Index rows, Count nnz) {
    return 8 * (static_cast<std::size_t>(rows) + 1) + 4 * static_cast<std::size_t>(nnz);
}

std::size_t vendorCsrBytes(Index rows, Count nnz) {
    return 4 * (static_cast<std::size_t>(rows) + 1) + 8 * static_cast<std::size_t>(nnz);
}

Count HybridBinaryMatrix::nnz() const {
    Count total = residual.nnz();
    for (const HybridBlock& block : blocks) total += block.region.cells() - block.zeros();
    return total;
}

Count HybridBinaryMatrix::zeros() const {
    Count total = 0;
    for (const HybridBlock& block : blocks) total += block.zeros();
    return total;
}

std::size_t HybridBinaryMatrix::encodedBytes() const {
    std::size_t bytes = kHeaderBytes + patternCsrBytes(residual.rows, residual.nnz());
    for (const HybridBlock& block : blocks) bytes += blockBytes(block.region, block.zeros());
    return bytes;
}

HybridBinaryMatrix encodeHybrid(const BinaryPattern& pattern, const std::vector<DenseRegion>& regions,
                                const HybridEncodeOptions& options) {
    for (std::size_t a = 0; a < regions.size(); ++a) {
        validateRegion(regions[a], pattern.rows, pattern.cols);
        for (std::size_t b = 0; b < a; ++b)
            if (regionsOverlap(regions[a], regions[b]))
                throw InputError("hybrid encoding: regions " + std::to_string(b) + " (" + regions[b].describe() + ") and " +
                                 std::to_string(a) + " (" + regions[a].describe() + ") overlap");
    }
    const std::size_t threads = hybrid_detail::threadCount(options.threads);
    HybridBinaryMatrix hybrid;
    hybrid.rows = pattern.rows;
    hybrid.cols = pattern.cols;

    // Keep a region only where storing its zeros is cheaper than storing its ones.
    std::vector<DenseRegion> counted(regions);
    std::vector<char> usable(regions.size(), 0);
    hybrid_detail::forEachItem(regions.size(), threads, [&](std::size_t b) {
        DenseRegion& region = counted[b];
        Index widest = 0;
        for (Index row = region.rowBegin; row < region.rowEnd; ++row) widest = std::max(widest, region.span(row).size());
        if (widest > options.maxSpan) return;
        region.ones = countRegionOnes(pattern, region);
        const Count zeros = region.cells() - region.ones;
        usable[b] = options.forceRegions || blockBytes(region, zeros) < 4 * static_cast<std::size_t>(region.ones);
    });
    std::vector<DenseRegion> kept;
    for (std::size_t b = 0; b < counted.size(); ++b)
        if (usable[b]) kept.push_back(counted[b]);

    const RowCover cover = coverRows(pattern.rows, kept);
    hybrid.blocks.resize(kept.size());
    for (std::size_t b = 0; b < kept.size(); ++b) {
        hybrid.blocks[b].region = kept[b];
        hybrid.blocks[b].zeroRowPtr.assign(static_cast<std::size_t>(kept[b].height()) + 1, 0);
    }
    // Count: each row's residual entries and each region row's zeros (a span's cells less its ones).
    const hybrid_detail::ResidualCount rest = hybrid_detail::countResidualRows(
        hybrid.residual, pattern, cover, kept, threads, options.cancel, [&](Index row, std::int32_t b, const ColumnSpan& s, Count ones) {
            HybridBlock& block = hybrid.blocks[b];
            block.zeroRowPtr[row - block.region.rowBegin + 1] = static_cast<std::uint32_t>(s.size() - ones);
        });
    BinaryPattern& residual = hybrid.residual;
    const std::vector<std::size_t>& chunks = rest.chunks;
    const std::size_t chunkCount = rest.chunkCount();
    const Index* columns = pattern.colIndex.data();
    // Prefix sums of each region's rows, on its own.
    std::vector<Count> zeros(kept.size(), 0);
    hybrid_detail::forEachItem(kept.size(), threads, [&](std::size_t b) {
        std::vector<std::uint32_t>& ptr = hybrid.blocks[b].zeroRowPtr;
        std::uint64_t running = 0;
        for (std::size_t i = 1; i < ptr.size(); ++i) ptr[i] = static_cast<std::uint32_t>(running += ptr[i]);
        zeros[b] = static_cast<Count>(running);
    });
    const Count residualNnz = rest.entries();

    // The size is known before any entry is copied: fall back without filling when it does not pay.
    std::size_t bytes = kHeaderBytes + patternCsrBytes(pattern.rows, residualNnz);
    for (std::size_t b = 0; b < kept.size(); ++b) bytes += blockBytes(kept[b], zeros[b]);
    if (hybrid.blocks.empty() || (!options.forceRegions && bytes >= patternCsrBytes(pattern.rows, pattern.nnz()))) {
        hybrid.blocks.clear();
        hybrid.residual = pattern;
        hybrid.csrFallback = true;
        hybrid.fallbackReason =
            kept.empty() ? (regions.empty() ? "no dense region found" : "no dense region is cheaper to store by its zeros than by its ones")
                         : "hybrid encoding (" + std::to_string(bytes) + " bytes) is not smaller than CSR (" +
                               std::to_string(patternCsrBytes(pattern.rows, pattern.nnz())) + " bytes)";
        return hybrid;
    }

    // Allocate (the zero-filling of each array on its own thread), then fill every row chunk at the
    // offsets counted above.
    hybrid_detail::forEachItem(kept.size() + 1, threads, [&](std::size_t item) {
        if (item == 0) residual.colIndex.resize(static_cast<std::size_t>(residualNnz));
        else hybrid.blocks[item - 1].zeroOffsets.resize(static_cast<std::size_t>(zeros[item - 1]));
    });
    hybrid_detail::forEachItem(chunkCount, threads, [&](std::size_t chunk) {
        hybrid_detail::pollCancel(options.cancel);
        std::vector<std::pair<ColumnSpan, std::int32_t>> spans;
        for (Index row = static_cast<Index>(chunks[chunk]); row < static_cast<Index>(chunks[chunk + 1]); ++row) {
            const Index* col = columns + pattern.rowPtr[row];
            const Index* const last = columns + pattern.rowPtr[row + 1];
            Index* out = residual.colIndex.data() + residual.rowPtr[row];
            if (cover.ptr[row] != cover.ptr[row + 1]) {
                hybrid_detail::rowSpans(cover, kept, row, spans);
                for (const auto& [s, b] : spans) {
                    const Index* inside = hybrid_detail::lowerBoundFromFront(col, last, s.begin);
                    out = std::copy(col, inside, out);
                    // The zeros are the span's cells without a one, 64 cells at a time: the ones of a
                    // word are gathered in a register, its clear bits listed (no branch per cell or per
                    // one to mispredict, no read-modify-write of memory per one).
                    HybridBlock& block = hybrid.blocks[b];
                    std::uint16_t* zero = block.zeroOffsets.data() + block.zeroRowPtr[row - block.region.rowBegin];
                    const std::size_t width = static_cast<std::size_t>(s.size());
                    col = inside;
                    for (std::size_t w = 0; w * 64 < width; ++w) {
                        const std::size_t cells = std::min<std::size_t>(64, width - w * 64);
                        const Index wordEnd = s.begin + static_cast<Index>(w * 64 + cells);
                        std::uint64_t ones = 0;
                        for (; col != last && *col < wordEnd; ++col) ones |= std::uint64_t(1) << ((*col - s.begin) & 63);
                        std::uint64_t clear = ~ones;
                        if (cells < 64) clear &= (std::uint64_t(1) << cells) - 1;
                        while (clear) {
                            *zero++ = static_cast<std::uint16_t>(w * 64 + static_cast<std::size_t>(__builtin_ctzll(clear)));
                            clear &= clear - 1;
                        }
                    }
                }
            }
            std::copy(col, last, out);
        }
    });
    return hybrid;
}

BinaryPattern decodeHybrid(const HybridBinaryMatrix& hybrid) {
    std::vector<DenseRegion> regions;
    for (const HybridBlock& block : hybrid.blocks) regions.push_back(block.region);
    const RowCover cover = coverRows(hybrid.rows, regions);
    BinaryPattern pattern;
    pattern.rows = hybrid.rows;
    pattern.cols = hybrid.cols;
    pattern.rowPtr.assign(static_cast<std::size_t>(hybrid.rows) + 1, 0);
    pattern.colIndex.reserve(static_cast<std::size_t>(std::max<Count>(0, hybrid.nnz())));
    for (Index row = 0; row < hybrid.rows; ++row) {
        const std::size_t rowStart = pattern.colIndex.size();
        for (Count k = hybrid.residual.rowPtr[row]; k < hybrid.residual.rowPtr[row + 1]; ++k)
            pattern.colIndex.push_back(hybrid.residual.colIndex[k]);
        for (Count c = cover.ptr[row]; c < cover.ptr[row + 1]; ++c) {
            const HybridBlock& block = hybrid.blocks[cover.region[c]];
            const ColumnSpan s = block.region.span(row);
            const Index local = row - block.region.rowBegin;
            std::uint32_t z = block.zeroRowPtr[local];
            const std::uint32_t zEnd = block.zeroRowPtr[local + 1];
            for (Index j = s.begin; j < s.end; ++j) {
                if (z < zEnd && s.begin + block.zeroOffsets[z] == j) ++z;
                else pattern.colIndex.push_back(j);
            }
        }
        std::sort(pattern.colIndex.begin() + static_cast<std::ptrdiff_t>(rowStart), pattern.colIndex.end());
        pattern.rowPtr[row + 1] = pattern.nnz();
    }
    return pattern;
}

void validateHybrid(const HybridBinaryMatrix& hybrid) {
    if (hybrid.rows < 0 || hybrid.cols < 0) throw InputError("hybrid matrix: negative dimensions");
    const BinaryPattern& residual = hybrid.residual;
    if (residual.rows != hybrid.rows || residual.cols != hybrid.cols)
        throw InputError("hybrid matrix: residual is " + std::to_string(residual.rows) + " x " +
                         std::to_string(residual.cols) + ", matrix is " + std::to_string(hybrid.rows) + " x " +
                         std::to_string(hybrid.cols));
    if (residual.rowPtr.size() != static_cast<std::size_t>(hybrid.rows) + 1 || residual.rowPtr.front() != 0 ||
        residual.rowPtr.back() != residual.nnz())
        throw InputError("hybrid matrix: residual row pointers do not span the residual entries");
    std::vector<DenseRegion> regions;
    for (std::size_t b = 0; b < hybrid.blocks.size(); ++b) {
        const HybridBlock& block = hybrid.blocks[b];
        const std::string where = "hybrid matrix: block " + std::to_string(b) + ": ";
        validateRegion(block.region, hybrid.rows, hybrid.cols);
        for (std::size_t a = 0; a < regions.size(); ++a)
            if (regionsOverlap(regions[a], block.region))
                throw InputError(where + "overlaps block " + std::to_string(a));
        regions.push_back(block.region);
        if (block.zeroRowPtr.size() != static_cast<std::size_t>(block.region.height()) + 1 || block.zeroRowPtr.front() != 0 ||
            block.zeroRowPtr.back() != block.zeroOffsets.size())
            throw InputError(where + "zero row pointers do not span its zeros");
        for (Index local = 0; local < block.region.height(); ++local) {
            const std::uint32_t begin = block.zeroRowPtr[local], end = block.zeroRowPtr[local + 1];
            if (begin > end || end > block.zeroOffsets.size())
                throw InputError(where + "zero row pointers out of order at row " + std::to_string(local));
            const Index spanSize = block.region.span(block.region.rowBegin + local).size();
            for (std::uint32_t z = begin; z < end; ++z) {
                if (block.zeroOffsets[z] >= spanSize)
                    throw InputError(where + "zero " + std::to_string(z) + " lies past its row's span");
                if (z > begin && block.zeroOffsets[z] <= block.zeroOffsets[z - 1])
                    throw InputError(where + "zeros of row " + std::to_string(local) + " are not strictly increasing");
            }
        }
    }
    const RowCover cover = coverRows(hybrid.rows, regions);
    // The rows before the first bad row pointer are checked on row chunks on every thread (a binary
    // CSR fallback's reopen checks its whole residual here: 80-100 ms of 12 M entries on one thread);
    // the first chunk's error is rethrown, and a bad pointer only after every row before it, so the
    // error named is the one a one-thread pass meets first.
    Index goodRows = 0;
    while (goodRows < hybrid.rows && residual.rowPtr[goodRows] <= residual.rowPtr[goodRows + 1] &&
           residual.rowPtr[goodRows + 1] <= residual.nnz())
        ++goodRows;
    const std::size_t threads = parallel::threadCount();
    const std::vector<std::size_t> chunks = hybrid_detail::rowChunks(residual.rowPtr, static_cast<std::size_t>(goodRows), threads);
    hybrid_detail::forEachItem(chunks.size() - 1, threads, [&](std::size_t chunk) {
        for (Index row = static_cast<Index>(chunks[chunk]); row < static_cast<Index>(chunks[chunk + 1]); ++row) {
            const Count begin = residual.rowPtr[row], end = residual.rowPtr[row + 1];
            for (Count k = begin; k < end; ++k) {
                const Index j = residual.colIndex[k];
                if (j < 0 || j >= hybrid.cols || (k > begin && j <= residual.colIndex[k - 1]))
                    throw InputError("hybrid matrix: residual column " + std::to_string(j) + " in row " + std::to_string(row) +
                                     " is out of range or out of order");
                if (const std::int32_t b = hybrid_detail::regionHolding(cover, regions, row, j); b >= 0)
                    throw InputError("hybrid matrix: residual entry (" + std::to_string(row) + ", " + std::to_string(j) +
                                     ") lies inside block " + std::to_string(b));
            }
        }
    });
    if (goodRows < hybrid.rows)
        throw InputError("hybrid matrix: residual row pointers out of order at row " + std::to_string(goodRows));
}

} // namespace spyglass
