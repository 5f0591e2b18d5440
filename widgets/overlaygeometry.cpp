#include "overlaygeometry.h"

#include <QPolygonF>

#include <algorithm>

namespace spyglass::widgets {

bool overlayContains(const SpyOverlay& overlay, int row, int col) {
    const ColumnSpan span = overlay.region.span(row);
    return col >= span.begin && col < span.end;
}

QPainterPath overlayOutline(const SpyOverlay& overlay, int firstRow, int lastRow, int rowStep) {
    const DenseRegion& region = overlay.region;
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
