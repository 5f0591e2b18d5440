#include "spyviewport.h"

#include <algorithm>
#include <cmath>

namespace spyglass::widgets {

void SpyViewport::setMatrixSize(int rows, int cols) {
    m_rows = std::max(rows, 0);
    m_cols = std::max(cols, 0);
    m_scale = 0;
    if (!m_view.isEmpty()) fit();
}

void SpyViewport::setMargins(double left, double top, double right, double bottom) {
    m_margins[0] = left, m_margins[1] = top, m_margins[2] = right, m_margins[3] = bottom;
    setViewSize(m_widget);
}

void SpyViewport::setViewSize(const QSizeF& widgetSize) {
    m_widget = widgetSize;
    m_offset = QPointF(m_margins[0], m_margins[1]);
    const QSizeF size(std::max(widgetSize.width() - m_margins[0] - m_margins[2], 0.0),
                      std::max(widgetSize.height() - m_margins[1] - m_margins[3], 0.0));
    if (m_scale <= 0 || m_view.isEmpty()) {
        m_view = size;
        fit();
        return;
    }
    const QPointF centre = m_origin + QPointF(m_view.width() / 2, m_view.height() / 2) / m_scale;
    const bool wasFitted = isFitted();
    m_view = size;
    if (wasFitted) {
        fit();  // a fitted view stays fitted when the window is resized
        return;
    }
    m_origin = centre - QPointF(m_view.width() / 2, m_view.height() / 2) / m_scale;
}

void SpyViewport::setScaleAndOrigin(double scale, const QPointF& origin) {
    m_scale = scale;
    m_origin = origin;
}

QPointF SpyViewport::widgetToMatrix(const QPointF& widget) const {
    if (m_scale <= 0) return {};
    return m_origin + toLocal(widget) / m_scale;
}

QPointF SpyViewport::matrixToWidget(const QPointF& matrix) const { return (matrix - m_origin) * m_scale + m_offset; }

QRectF SpyViewport::matrixToWidget(const QRectF& cells) const {
    return QRectF(matrixToWidget(cells.topLeft()), matrixToWidget(cells.bottomRight()));
}

std::optional<QPoint> SpyViewport::cellAt(const QPointF& widget) const {
    if (m_scale <= 0) return std::nullopt;
    const QPointF m = widgetToMatrix(widget);
    const double col = std::floor(m.x()), row = std::floor(m.y());
    if (col < 0 || row < 0 || col >= m_cols || row >= m_rows) return std::nullopt;
    return QPoint(static_cast<int>(col), static_cast<int>(row));
}

double SpyViewport::fitScale() const {
    // A 0 x n or n x 0 matrix still gets a visible frame: count its empty dimension as one cell.
    const double cols = std::max(m_cols, 1), rows = std::max(m_rows, 1);
    const double w = std::max(m_view.width() - 2 * fitMargin, 1.0);
    const double h = std::max(m_view.height() - 2 * fitMargin, 1.0);
    return std::min({w / cols, h / rows, maxCellPixels});
}

double SpyViewport::maxScale() const { return std::max(fitScale(), maxCellPixels); }

void SpyViewport::fit() {
    m_scale = fitScale();
    const QPointF matrixCentre(m_cols / 2.0, m_rows / 2.0);
    m_origin = matrixCentre - QPointF(m_view.width() / 2, m_view.height() / 2) / m_scale;
}

bool SpyViewport::isFitted() const {
    if (m_scale <= 0) return false;
    const double fs = fitScale();
    if (std::abs(m_scale - fs) > 1e-9 * fs) return false;
    const QPointF centre = m_origin + QPointF(m_view.width() / 2, m_view.height() / 2) / m_scale;
    return std::abs(centre.x() - m_cols / 2.0) < 1e-6 * std::max(m_cols, 1)
           && std::abs(centre.y() - m_rows / 2.0) < 1e-6 * std::max(m_rows, 1);
}

void SpyViewport::zoomAbout(const QPointF& widget, double factor) {
    if (m_scale <= 0 || !(factor > 0)) return;
    const QPointF anchor = widgetToMatrix(widget);
    m_scale = std::clamp(m_scale * factor, minScale(), maxScale());
    m_origin = anchor - toLocal(widget) / m_scale;
}

void SpyViewport::showCells(const QRectF& cells, double fraction) {
    if (m_scale <= 0 || cells.width() <= 0 || cells.height() <= 0 || !(fraction > 0)) return;
    const double scale = std::min(m_view.width() * fraction / cells.width(), m_view.height() * fraction / cells.height());
    m_scale = std::clamp(scale, minScale(), maxScale());
    m_origin = cells.center() - QPointF(m_view.width() / 2, m_view.height() / 2) / m_scale;
}

void SpyViewport::panBy(const QPointF& pixels) {
    if (m_scale <= 0) return;
    m_origin -= pixels / m_scale;
    const QPointF half = QPointF(m_view.width() / 2, m_view.height() / 2) / m_scale;
    const QPointF centre = m_origin + half;
    const QPointF clamped(std::clamp(centre.x(), 0.0, double(m_cols)), std::clamp(centre.y(), 0.0, double(m_rows)));
    m_origin = clamped - half;
}

MatrixWindow SpyViewport::visibleWindow() const {
    MatrixWindow window;
    if (m_scale <= 0) return window;
    const QPointF topLeft = m_origin;
    const QPointF bottomRight = m_origin + QPointF(m_view.width(), m_view.height()) / m_scale;
    window.colBegin = std::clamp(topLeft.x(), 0.0, double(m_cols));
    window.colEnd = std::clamp(bottomRight.x(), 0.0, double(m_cols));
    window.rowBegin = std::clamp(topLeft.y(), 0.0, double(m_rows));
    window.rowEnd = std::clamp(bottomRight.y(), 0.0, double(m_rows));
    return window;
}

SpyViewport::RenderRequest SpyViewport::renderRequest(double devicePixelRatio) const {
    RenderRequest request;
    const MatrixWindow visible = visibleWindow();
    request.window.colBegin = std::floor(visible.colBegin);
    request.window.colEnd = std::ceil(visible.colEnd);
    request.window.rowBegin = std::floor(visible.rowBegin);
    request.window.rowEnd = std::ceil(visible.rowEnd);
    const double cols = request.window.colEnd - request.window.colBegin;
    const double rows = request.window.rowEnd - request.window.rowBegin;
    if (cols <= 0 || rows <= 0) return request;
    const double ratio = std::max(devicePixelRatio, 1.0);
    const double pixelsAcross = std::ceil(cols * m_scale * ratio);
    const double pixelsDown = std::ceil(rows * m_scale * ratio);
    request.pixels = QSize(static_cast<int>(std::clamp(std::min(pixelsAcross, cols), 1.0, 16384.0)),
                           static_cast<int>(std::clamp(std::min(pixelsDown, rows), 1.0, 16384.0)));
    request.valid = true;
    return request;
}

} // namespace spyglass::widgets
