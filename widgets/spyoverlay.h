#pragma once
// Shapes other parts of the application draw over the spy picture (detected dense regions,
// segment boundaries ...). Coordinates are matrix cells, so overlays follow zoom and pan.
// A shape covers exactly the cells DenseRegion::span() gives for each row (overlaygeometry.h):
// what is drawn is what the encoding stores, at every zoom.
#include <QColor>
#include <QList>
#include <QRectF>
#include <QString>

namespace spyglass::widgets {

struct SpyOverlay {
    enum Shape { Rectangle, Triangle, Band };
    // The corner holding a triangle's right angle (as spyglass::TriangleCorner): LowerLeft is a
    // lower triangle, UpperRight an upper one, the other two are anti-triangles.
    enum Corner { LowerLeft, UpperRight, UpperLeft, LowerRight };
    Shape shape = Rectangle;
    QRectF cells;  // the bounding box: x = first col, y = first row, width = cols, height = rows (0-based, whole cells)
    Corner corner = LowerLeft;     // Triangle only
    int bandLow = 0, bandHigh = 0; // Band only: local offsets (col - x) - (row - y) in [bandLow, bandHigh]
    QColor color = QColor(220, 60, 40);
    QString label;    // drawn in the box's corner when there is room
    QString details;  // the hover tooltip (shape, cells, fill, zeros stored ...)
};

// A horizontal stripe of rows [rowBegin, rowEnd) (0-based, half-open), e.g. one row segment.
struct RowBand {
    int rowBegin = 0, rowEnd = 0;
    QColor color = QColor(255, 160, 0);
    QString label;
    QString details;  // the hover tooltip
};

} // namespace spyglass::widgets
