#pragma once
// The counting pass both hybrid encodings open with: how many of each row's entries fall outside the
// regions covering it (the CSR rest), from two binary searches per span (no entry is read), row chunks
// handed out to threads, each writing only its own rows. It leaves the rest's row pointers in place.
#include "core/hybrid_gallop.h"
#include "core/hybrid_rowcover.h"
#include "core/hybrid_threads.h"

#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

namespace spyglass::hybrid_detail {

// residualRowPtr (rows + 1, zeroed) ends as the rest's row pointers; returned: each chunk's first rest
// entry (chunks + 1, the last the rest's size). onSpan(row, region, span, inside) is told, on the
// chunk's thread, that `inside` entries of `row` lie in `span` of region `region`.
template <typename OnSpan>
std::vector<Count> countResidualRows(const std::vector<Count>& rowPtr, const Index* columns, const RowCover& cover,
                                     const std::vector<DenseRegion>& regions, const std::vector<std::size_t>& chunks,
                                     std::size_t threads, const std::atomic<bool>* cancel, std::vector<Count>& residualRowPtr,
                                     const OnSpan& onSpan) {
    const std::size_t chunkCount = chunks.size() - 1;
    std::vector<Count> chunkStart(chunkCount + 1, 0);
    forEachItem(chunkCount, threads, [&](std::size_t chunk) {
        pollCancel(cancel);
        std::vector<std::pair<ColumnSpan, std::int32_t>> spans;
        Count total = 0;
        for (Index row = static_cast<Index>(chunks[chunk]); row < static_cast<Index>(chunks[chunk + 1]); ++row) {
            const Index* first = columns + rowPtr[row];
            const Index* last = columns + rowPtr[row + 1];
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
            residualRowPtr[row + 1] = left;
            total += left;
        }
        chunkStart[chunk + 1] = total;
    });
    for (std::size_t chunk = 0; chunk < chunkCount; ++chunk) chunkStart[chunk + 1] += chunkStart[chunk];
    forEachItem(chunkCount, threads, [&](std::size_t chunk) {
        Count running = chunkStart[chunk];
        for (std::size_t row = chunks[chunk]; row < chunks[chunk + 1]; ++row) residualRowPtr[row + 1] = running += residualRowPtr[row + 1];
    });
    return chunkStart;
}

} // namespace spyglass::hybrid_detail
