#include "overlaygeometry.h"

#include <QPolygonF>

#include <algorithm>
#include <cmath>

namespace spyglass::widgets {

DenseRegion overlayRegion(const SpyOverlay& overlay) {
    DenseRegion region;
    region.rowBegin = static_cast<Index>(std::lround(overlay.cells.top()));
    region.rowEnd = static_cast<Index>(std::lround(overlay.cells.top() + overlay.cells.height()));
    region.colBegin = static_cast<Index>(std::lround(overlay.cells.left()));
    region.colEnd = static_cast<Index>(std::lround(overlay.cells.left() + overlay.cells.width()));
    switch (overlay.shape) {
    case SpyOverlay::Rectangle: region.shape = RegionShape::Rectangle; break;
    case SpyOverlay::Triangle:
        region.shape = RegionShape::Triangle;
        region.corner = static_cast<TriangleCorner>(overlay.corner);
        break;
    case SpyOverlay::Band:
        region.shape = RegionShape::Band;
        region.bandLow = overlay.bandLow;
        region.bandHigh = overlay.bandHigh;
        break;
    }
    return region;
}

bool overlayContains(const SpyOverlay& overlay, int row, int col) {
    const ColumnSpan span = overlayRegion(overlay).span(row);
    return col >= span.begin && col < span.end;
}

QPainterPath overlayOutline(const SpyOverlay& overlay, int firstRow, int lastRow, int rowStep) {
    const DenseRegion region = overlayRegion(overlay);
    const Index begin = std::max<Index>(region.rowBegin, firstRow), end = std::min<Index>(region.rowEnd, lastRow);
    const Index step = std::max(rowStep, 1);
    QPainterPath path;
    // Each run of non-empty row groups is one polygon: down the left edges, back up the right edges.
    QPolygonF left, right;
    auto flush = [&] {
        if (left.isEmpty()) return;
        QPolygonF polygon = left;
        for (auto it = right.crbegin(); it != right.crend(); ++it) polygon << *it;
        path.addPolygon(polygon);
        path.closeSubpath();
        left.clear();
        right.clear();
    };
    for (Index top = begin; top < end; top += step) {
        const Index bottom = std::min<Index>(top + step, end);
        Index spanBegin = region.colEnd, spanEnd = region.colBegin;
        for (Index row = top; row < bottom; ++row) {
            const ColumnSpan span = region.span(row);
            if (!span.size()) continue;
            spanBegin = std::min(spanBegin, span.begin);
            spanEnd = std::max(spanEnd, span.end);
        }
        if (spanEnd <= spanBegin) {
            flush();
            continue;
        }
        left << QPointF(spanBegin, top) << QPointF(spanBegin, bottom);
        right << QPointF(spanEnd, top) << QPointF(spanEnd, bottom);
    }
    flush();
    return path;
}

} // namespace spyglass::widgets
