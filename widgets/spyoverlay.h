#pragma once
// Shapes other parts of the application draw over the spy picture (detected dense regions,
// segment boundaries ...). Coordinates are matrix cells, so overlays follow zoom and pan.
#include <QColor>
#include <QList>
#include <QRectF>
#include <QString>

namespace spyglass::widgets {

struct SpyOverlay {
    enum Shape { Rectangle, LowerTriangle, UpperTriangle, Band };
    Shape shape = Rectangle;
    QRectF cells;  // x = first col, y = first row, width = cols, height = rows, in matrix cells (0-based)
    double bandWidth = 0;  // Band: cells with |(col - x) - (row - y)| <= bandWidth
    QColor color = QColor(220, 60, 40);
    QString label;
};

// A horizontal stripe of rows [rowBegin, rowEnd) (0-based, half-open), e.g. one row segment.
struct RowBand {
    int rowBegin = 0, rowEnd = 0;
    QColor color = QColor(255, 160, 0);
    QString label;
};

} // namespace spyglass::widgets
