#pragma once
// Which dense regions cover each row: shared by the binary and the valued hybrid encodings, which
// both walk a row's regions when they split entries between regions and the CSR rest.
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrix.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace spyglass::hybrid_detail {

// For each row, the indices of the regions covering it, as CSR (rows + 1 pointers).
struct RowCover {
    std::vector<Count> ptr;
    std::vector<std::int32_t> region;
};

inline RowCover coverRows(Index rows, const std::vector<DenseRegion>& regions) {
    RowCover cover;
    cover.ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
    for (const DenseRegion& r : regions)
        for (Index row = r.rowBegin; row < r.rowEnd; ++row) ++cover.ptr[row + 1];
    for (Index row = 0; row < rows; ++row) cover.ptr[row + 1] += cover.ptr[row];
    cover.region.resize(static_cast<std::size_t>(cover.ptr[rows]));
    std::vector<Count> next(cover.ptr.begin(), cover.ptr.end() - 1);
    for (std::size_t b = 0; b < regions.size(); ++b)
        for (Index row = regions[b].rowBegin; row < regions[b].rowEnd; ++row)
            cover.region[next[row]++] = static_cast<std::int32_t>(b);
    return cover;
}

// The non-empty spans of `row` in the regions covering it, with each region's index, by first column
// (`spans` is reused from row to row).
inline void rowSpans(const RowCover& cover, const std::vector<DenseRegion>& regions, Index row,
                     std::vector<std::pair<ColumnSpan, std::int32_t>>& spans) {
    spans.clear();
    for (Count c = cover.ptr[row]; c < cover.ptr[row + 1]; ++c) {
        const ColumnSpan s = regions[cover.region[c]].span(row);
        if (s.size()) spans.push_back({s, cover.region[c]});
    }
    std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.first.begin < b.first.begin; });
}

// The first region covering entry (row, col), or -1 when the entry lies in none.
inline std::int32_t regionHolding(const RowCover& cover, const std::vector<DenseRegion>& regions, Index row, Index col) {
    for (Count c = cover.ptr[row]; c < cover.ptr[row + 1]; ++c) {
        const ColumnSpan s = regions[cover.region[c]].span(row);
        if (col >= s.begin && col < s.end) return cover.region[c];
    }
    return -1;
}

} // namespace spyglass::hybrid_detail
