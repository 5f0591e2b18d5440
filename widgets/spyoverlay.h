#pragma once
// Shapes other parts of the application draw over the spy picture (detected dense regions,
// segment boundaries ...). Coordinates are matrix cells, so overlays follow zoom and pan.
// A shape is the library's DenseRegion itself, as detection and the encoding hold it: it covers
// exactly the cells DenseRegion::span() gives for each row (overlaygeometry.h), so what is drawn is
// what the encoding stores, at every zoom.
#include "core/denseregionname.h"

#include <QColor>
#include <QList>
#include <QRectF>
#include <QString>

namespace spyglass::widgets {

struct SpyOverlay {
    // Shape (RegionShape), triangle corner, half-open box of whole cells, band offsets.
    DenseRegion region;
    QColor color = QColor(220, 60, 40);
    QString label;    // drawn in the box's corner when there is room
    QString details;  // the hover tooltip (shape, cells, fill, zeros stored ...)

    // The bounding box: x = first col, y = first row, width = cols, height = rows (0-based).
    QRectF cells() const { return QRectF(region.colBegin, region.rowBegin, region.width(), region.height()); }
};

// A rectangle overlay over the box rows [rowBegin, rowEnd) x cols [colBegin, colEnd).
inline SpyOverlay rectangleOverlay(Index rowBegin, Index rowEnd, Index colBegin, Index colEnd) {
    SpyOverlay overlay;
    overlay.region.rowBegin = rowBegin, overlay.region.rowEnd = rowEnd;
    overlay.region.colBegin = colBegin, overlay.region.colEnd = colEnd;
    return overlay;
}

// A horizontal stripe of rows [rowBegin, rowEnd) (0-based, half-open), e.g. one row segment.
struct RowBand {
    int rowBegin = 0, rowEnd = 0;
    QColor color = QColor(255, 160, 0);
    QString label;
    QString details;  // the hover tooltip
};

} // namespace spyglass::widgets
