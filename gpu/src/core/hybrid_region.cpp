// Dense-region geometry: which columns a shape covers in each row, overlap, exact counting.
#include "core/hybrid_gallop.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"

#include <algorithm>
#include <cstdio>

namespace spyglass {

ColumnSpan DenseRegion::span(Index row) const {
    if (row < rowBegin || row >= rowEnd) return {};
    // 64-bit so that r * w cannot overflow for large boxes.
    const std::int64_t r = row - rowBegin, h = height(), w = width();
    std::int64_t begin = 0, end = w;
    switch (shape) {
    case RegionShape::Rectangle: break;
    case RegionShape::Triangle:
        // A non-square triangle's hypotenuse runs corner to corner; each row's run is rounded outward
        // so that the square case includes its diagonal.
        switch (corner) {
        case TriangleCorner::LowerLeft: end = ((r + 1) * w + h - 1) / h; break;
        case TriangleCorner::UpperRight: begin = (r * w) / h; break;
        case TriangleCorner::UpperLeft: end = ((h - r) * w + h - 1) / h; break;
        case TriangleCorner::LowerRight: begin = ((h - 1 - r) * w) / h; break;
        }
        break;
    case RegionShape::Band:
        begin = std::max<std::int64_t>(0, r + bandLow);
        end = std::min<std::int64_t>(w, r + bandHigh + 1);
        break;
    }
    if (end <= begin) return {};
    return {static_cast<Index>(colBegin + begin), static_cast<Index>(colBegin + end)};
}

Count DenseRegion::cells() const {
    Count total = 0;
    for (Index row = rowBegin; row < rowEnd; ++row) total += span(row).size();
    return total;
}

std::string DenseRegion::describe() const {
    char text[256];
    const char* detail = shape == RegionShape::Triangle ? toString(corner) : "";
    std::snprintf(text, sizeof text, "%s%s%s rows [%d,%d) cols [%d,%d)", toString(shape), *detail ? " " : "", detail,
                  rowBegin, rowEnd, colBegin, colEnd);
    std::string out = text;
    if (shape == RegionShape::Band) {
        std::snprintf(text, sizeof text, " offsets [%d,%d] width %d", bandLow, bandHigh, bandWidth());
        out += text;
    }
    std::snprintf(text, sizeof text, " fill %.3f", fill());
    return out + text;
}

bool regionsOverlap(const DenseRegion& a, const DenseRegion& b) {
    const Index rowBegin = std::max(a.rowBegin, b.rowBegin), rowEnd = std::min(a.rowEnd, b.rowEnd);
    if (rowBegin >= rowEnd || std::max(a.colBegin, b.colBegin) >= std::min(a.colEnd, b.colEnd)) return false;
    for (Index row = rowBegin; row < rowEnd; ++row) {
        const ColumnSpan sa = a.span(row), sb = b.span(row);
        if (sa.size() && sb.size() && std::max(sa.begin, sb.begin) < std::min(sa.end, sb.end)) return true;
    }
    return false;
}

Count countRegionOnes(const BinaryPattern& pattern, const DenseRegion& region) {
    Count ones = 0;
    for (Index row = region.rowBegin; row < region.rowEnd; ++row) {
        const ColumnSpan s = region.span(row);
        if (!s.size()) continue;
        const Index* first = pattern.colIndex.data() + pattern.rowPtr[row];
        const Index* last = pattern.colIndex.data() + pattern.rowPtr[row + 1];
        const Index* begin = hybrid_detail::lowerBoundFromFront(first, last, s.begin);
        ones += hybrid_detail::lowerBoundFromBack(begin, last, s.end) - begin;
    }
    return ones;
}

void validateRegion(const DenseRegion& region, Index rows, Index cols) {
    // Raw fields only: describe() counts the cells, which for an unchecked box read from a file costs
    // up to 2^31 rows and overflows int (width of a box with a negative start) before the checks below.
    char box[160];
    std::snprintf(box, sizeof box, "%s rows [%d,%d) cols [%d,%d)", toString(region.shape), region.rowBegin,
                  region.rowEnd, region.colBegin, region.colEnd);
    const std::string what = std::string("dense region ") + box + ": ";
    if (region.rowBegin < 0 || region.colBegin < 0 || region.rowEnd > rows || region.colEnd > cols)
        throw InputError(what + "lies outside the " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
    if (region.rowBegin >= region.rowEnd || region.colBegin >= region.colEnd) throw InputError(what + "empty box");
    if (static_cast<int>(region.shape) > 2) throw InputError(what + "unknown shape");
    if (region.shape == RegionShape::Triangle && static_cast<int>(region.corner) > 3)
        throw InputError(what + "unknown triangle corner");
    if (region.shape == RegionShape::Band) {
        if (region.bandLow > region.bandHigh) throw InputError(what + "band offsets out of order");
        if (region.bandHigh < -(region.height() - 1) || region.bandLow > region.width() - 1)
            throw InputError(what + "band misses its box");
    }
}

} // namespace spyglass
