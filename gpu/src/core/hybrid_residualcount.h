#pragma once
// The counting pass both hybrid encodings open with: how many of each row's entries fall outside the
// regions covering it (the CSR rest), from two binary searches per span (no entry is read), row chunks
// handed out to threads, each writing only its own rows.
#include "core/hybrid_gallop.h"
#include "core/hybrid_rowcover.h"
#include "core/hybrid_threads.h"

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

namespace spyglass::hybrid_detail {

// What the pass leaves besides the row pointers: the row chunks and each chunk's first rest entry
// (chunks + 1, the last the rest's size), which the filling pass uses as its offsets.
struct ResidualCount {
    std::vector<std::size_t> chunks;
    std::vector<Count> chunkStart;
    std::size_t chunkCount() const { return chunks.size() - 1; }
    Count entries() const { return chunkStart.back(); }
};

// `residual` (BinaryPattern or CsrMatrix, as `matrix`) takes matrix's shape and the rest's row pointers.
// onSpan(row, region, span, inside) is told, on the chunk's thread, that `inside` entries of `row` lie
// in `span` of region `region`.
template <typename Residual, typename Source, typename OnSpan>
ResidualCount countResidualRows(Residual& residual, const Source& matrix, const RowCover& cover, const std::vector<DenseRegion>& regions,
                                std::size_t threads, const std::atomic<bool>* cancel, const OnSpan& onSpan) {
    residual.rows = matrix.rows;
    residual.cols = matrix.cols;
    residual.rowPtr.assign(static_cast<std::size_t>(matrix.rows) + 1, 0);
    ResidualCount counted;
    counted.chunks = rowChunks(matrix.rowPtr, static_cast<std::size_t>(matrix.rows), threads);
    const std::vector<std::size_t>& chunks = counted.chunks;
    const std::size_t chunkCount = counted.chunkCount();
    std::vector<Count>& chunkStart = counted.chunkStart;
    chunkStart.assign(chunkCount + 1, 0);
    const Index* columns = matrix.colIndex.data();
    forEachItem(chunkCount, threads, [&](std::size_t chunk) {
        pollCancel(cancel);
        std::vector<std::pair<ColumnSpan, std::int32_t>> spans;
        Count total = 0;
        for (Index row = static_cast<Index>(chunks[chunk]); row < static_cast<Index>(chunks[chunk + 1]); ++row) {
            const Index* first = columns + matrix.rowPtr[row];
            const Index* last = columns + matrix.rowPtr[row + 1];
            Count left = last - first;
            if (cover.ptr[row] != cover.ptr[row + 1]) {
                rowSpans(cover, regions, row, spans);
                for (const auto& [s, b] : spans) {
                    const Index* begin = lowerBoundFromFront(first, last, s.begin);
                    const Index* end = lowerBoundFromBack(begin, last, s.end);
                    left -= end - begin;
                    onSpan(row, b, s, static_cast<Count>(end - begin));
                    first = end;
                }
            }
            residual.rowPtr[row + 1] = left;
            total += left;
        }
        chunkStart[chunk + 1] = total;
    });
    for (std::size_t chunk = 0; chunk < chunkCount; ++chunk) chunkStart[chunk + 1] += chunkStart[chunk];
    forEachItem(chunkCount, threads, [&](std::size_t chunk) {
        Count running = chunkStart[chunk];
        for (std::size_t row = chunks[chunk]; row < chunks[chunk + 1]; ++row) residual.rowPtr[row + 1] = running += residual.rowPtr[row + 1];
    });
    return counted;
}

} // namespace spyglass::hybrid_detail
