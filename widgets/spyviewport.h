#pragma once
// The spy view's geometry, apart from any painting so that it can be tested exactly: which matrix
// point lies under which widget pixel. Cells are square (one scale for both axes), matrix
// coordinates are (x = column, y = row), 0-based, cell (r, c) covering [c, c+1) x [r, r+1).
#include "core/densitypicture.h"

#include <QPoint>
#include <QPointF>
#include <QRectF>
#include <QSize>
#include <QSizeF>

#include <optional>

namespace spyglass::widgets {

class SpyViewport {
public:
    static constexpr double fitMargin = 8.0;      // pixels kept free around a fitted matrix
    static constexpr double maxCellPixels = 64.0;  // deepest zoom: a cell this many pixels wide

    void setMatrixSize(int rows, int cols);
    // Keeps the matrix point at the view centre where it was; fits when nothing was shown yet.
    // The size is the widget's; the matrix is shown in the plot area, the widget less the margins.
    void setViewSize(const QSizeF& size);
    // Space kept free around the plot area for the axes and the legend (widget pixels).
    void setMargins(double left, double top, double right, double bottom);
    QSizeF viewSize() const { return m_view; }  // the plot area's size
    QRectF plotRect() const { return QRectF(m_offset, m_view); }  // the plot area in the widget
    int rows() const { return m_rows; }
    int cols() const { return m_cols; }

    double scale() const { return m_scale; }  // widget pixels per matrix cell
    QPointF origin() const { return m_origin; } // matrix point at the plot area's top left
    void setScaleAndOrigin(double scale, const QPointF& origin);

    QPointF widgetToMatrix(const QPointF& widget) const;
    QPointF matrixToWidget(const QPointF& matrix) const;
    QRectF matrixToWidget(const QRectF& cells) const;
    QRectF matrixRectInWidget() const { return matrixToWidget(QRectF(0, 0, m_cols, m_rows)); }
    // The cell under a widget point as (x = column, y = row), or nothing outside the matrix.
    std::optional<QPoint> cellAt(const QPointF& widget) const;

    void fit();
    double fitScale() const;
    bool isFitted() const;
    // Multiplies the scale (clamped), keeping the matrix point under `widget` where it is.
    void zoomAbout(const QPointF& widget, double factor);
    // Centres the cells and scales so that they fill `fraction` of the view (clamped to the zoom range).
    void showCells(const QRectF& cells, double fraction);
    // Moves the picture by a pixel delta; the view centre stays over the matrix so it cannot be lost.
    void panBy(const QPointF& pixels);

    // The visible part of the matrix (clipped to it); empty when nothing is visible.
    MatrixWindow visibleWindow() const;
    // What to render for the current view: the visible window widened to whole cells, and one bin
    // per device pixel, but never more bins than cells (zoomed in, a bin is exactly one cell).
    struct RenderRequest {
        MatrixWindow window;
        QSize pixels;
        bool valid = false;
    };
    RenderRequest renderRequest(double devicePixelRatio = 1.0) const;

private:
    double minScale() const { return fitScale() / 4.0; }
    double maxScale() const;

    QPointF toLocal(const QPointF& widget) const { return widget - m_offset; }

    int m_rows = 0, m_cols = 0;
    QSizeF m_widget;  // the whole widget
    QSizeF m_view;    // the plot area
    QPointF m_offset; // the plot area's top left in the widget
    double m_margins[4] = {0, 0, 0, 0};  // left, top, right, bottom
    double m_scale = 0;  // 0: not placed yet
    QPointF m_origin;
};

} // namespace spyglass::widgets
