#include "spyview.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>

#include <cmath>

namespace spyglass::widgets {

namespace {
constexpr double wheelStep = 1.25;  // zoom factor per wheel notch (120 eighths of a degree)
constexpr double keyStep = 1.5;
const QColor background(236, 238, 241);
const QColor frame(120, 126, 134);
} // namespace

SpyView::SpyView(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setAttribute(Qt::WA_OpaquePaintEvent);
    setMinimumSize(160, 120);
    m_renderDelay.setSingleShot(true);
    m_renderDelay.setInterval(40);
    connect(&m_renderDelay, &QTimer::timeout, this, &SpyView::emitRenderRequest);
}

void SpyView::setDocument(const spyglass::app::MatrixDocument& document) {
    m_document = document;
    m_hasPicture = false;
    m_picture = {};
    m_overlays.clear();
    m_rowBands.clear();
    m_hoverCell.reset();
    m_hoverText.clear();
    m_viewport.setViewSize(size());
    m_viewport.setMatrixSize(document.rows(), document.cols());
    m_viewport.fit();
    emit hoveredCellChanged(QString());
    viewChanged();
}

void SpyView::setOverlays(const QList<SpyOverlay>& overlays) {
    m_overlays = overlays;
    update();
}

void SpyView::setRowBands(const QList<RowBand>& bands) {
    m_rowBands = bands;
    update();
}

QString SpyView::hoverText(int row, int col) const { return m_document.describeCell(row, col); }

void SpyView::setPicture(const spyglass::app::DensityPicture& picture) {
    m_picture = picture;
    m_hasPicture = !picture.image.isNull();
    update();
    emit pictureShown();
}

void SpyView::fitToView() {
    m_viewport.fit();
    viewChanged();
}

void SpyView::zoomIn() {
    m_viewport.zoomAbout(QPointF(width() / 2.0, height() / 2.0), keyStep);
    viewChanged();
}

void SpyView::zoomOut() {
    m_viewport.zoomAbout(QPointF(width() / 2.0, height() / 2.0), 1.0 / keyStep);
    viewChanged();
}

void SpyView::viewChanged() {
    update();
    if (!m_document.isEmpty()) m_renderDelay.start();
}

void SpyView::emitRenderRequest() {
    const SpyViewport::RenderRequest request = m_viewport.renderRequest(devicePixelRatioF());
    if (request.valid) emit renderRequested(request.window, request.pixels);
}

void SpyView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), background);
    if (m_document.isEmpty()) {
        painter.setPen(palette().color(QPalette::PlaceholderText));
        painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                         tr("Open a Matrix Market file (.mtx, .mtx.gz):\nFile \u2192 Open, or drop it here."));
        return;
    }
    const QRectF matrixRect = m_viewport.matrixRectInWidget();
    painter.fillRect(matrixRect, Qt::white);
    if (m_hasPicture) {
        const MatrixWindow& w = m_picture.window;
        const QRectF target =
            m_viewport.matrixToWidget(QRectF(w.colBegin, w.rowBegin, w.colEnd - w.colBegin, w.rowEnd - w.rowBegin));
        // Zoomed in, a bin is a cell: nearest-neighbour keeps cell edges sharp; zoomed out (or while
        // an old picture is stretched) smoothing would smear single entries into invisibility.
        painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
        painter.save();
        painter.setClipRect(matrixRect);
        painter.drawImage(target, m_picture.image);
        painter.restore();
    }
    paintRowBands(painter);
    paintOverlays(painter);
    painter.setPen(QPen(frame, 1));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(matrixRect.adjusted(-0.5, -0.5, 0.5, 0.5));
    paintHoveredCell(painter);
}

void SpyView::paintRowBands(QPainter& painter) const {
    if (m_rowBands.isEmpty()) return;
    painter.save();
    painter.setClipRect(m_viewport.matrixRectInWidget());
    for (const RowBand& band : m_rowBands) {
        const QRectF r = m_viewport.matrixToWidget(
            QRectF(0, band.rowBegin, m_viewport.cols(), std::max(band.rowEnd - band.rowBegin, 0)));
        QColor fill = band.color;
        fill.setAlpha(50);
        painter.fillRect(r, fill);
        painter.setPen(QPen(band.color, 1));
        painter.drawLine(r.topLeft(), r.topRight());
        // Labels stay on screen when the band's start has been panned away.
        const QRectF labelBox = r.intersected(QRectF(rect()));
        if (!band.label.isEmpty() && labelBox.height() >= painter.fontMetrics().height())
            painter.drawText(labelBox.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignTop, band.label);
    }
    painter.restore();
}

void SpyView::paintOverlays(QPainter& painter) const {
    if (m_overlays.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (const SpyOverlay& overlay : m_overlays) {
        const QRectF c = overlay.cells;
        QPolygonF cells;
        switch (overlay.shape) {
        case SpyOverlay::Rectangle:
            cells << c.topLeft() << c.topRight() << c.bottomRight() << c.bottomLeft();
            break;
        case SpyOverlay::LowerTriangle:
            cells << c.topLeft() << c.bottomRight() << c.bottomLeft();
            break;
        case SpyOverlay::UpperTriangle:
            cells << c.topLeft() << c.topRight() << c.bottomRight();
            break;
        case SpyOverlay::Band: {
            // Cell centres of the band satisfy |(col - row) - k| <= w; the strip half a cell wider on
            // each side covers them, cut to the overlay's rectangle below.
            const double k = c.x() - c.y(), lo = k - overlay.bandWidth - 0.5, hi = k + overlay.bandWidth + 0.5;
            cells << QPointF(c.top() + hi, c.top()) << QPointF(c.bottom() + hi, c.bottom())
                  << QPointF(c.bottom() + lo, c.bottom()) << QPointF(c.top() + lo, c.top());
            break;
        }
        }
        QPolygonF shape;
        for (const QPointF& p : cells) shape << m_viewport.matrixToWidget(p);
        QPainterPath path;
        path.addPolygon(shape);
        path.closeSubpath();
        QPainterPath clip;
        clip.addRect(m_viewport.matrixToWidget(c));
        path = path.intersected(clip);
        QColor fill = overlay.color;
        fill.setAlpha(45);
        painter.fillPath(path, fill);
        painter.strokePath(path, QPen(overlay.color, 1.5));
        const QRectF box = m_viewport.matrixToWidget(c).intersected(QRectF(rect()));
        if (!overlay.label.isEmpty() && box.width() > 30 && box.height() > painter.fontMetrics().height()) {
            painter.setPen(overlay.color.darker(130));
            painter.drawText(box.adjusted(3, 1, -3, -1), Qt::AlignLeft | Qt::AlignTop, overlay.label);
        }
    }
    painter.restore();
}

void SpyView::paintHoveredCell(QPainter& painter) const {
    if (!m_hoverCell) return;
    QRectF cell = m_viewport.matrixToWidget(QRectF(m_hoverCell->x(), m_hoverCell->y(), 1, 1));
    // Tiny cells get a marker of at least 7 pixels so the pointer's cell is always findable.
    const double grow = std::max(0.0, (7.0 - cell.width()) / 2);
    cell.adjust(-grow, -grow, grow, grow);
    painter.setPen(QPen(QColor(230, 80, 0), 1.5));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(cell);
}

void SpyView::resizeEvent(QResizeEvent*) {
    m_viewport.setViewSize(size());
    viewChanged();
}

void SpyView::wheelEvent(QWheelEvent* event) {
    const double notches = event->angleDelta().y() / 120.0;
    if (notches == 0) return;
    m_viewport.zoomAbout(event->position(), std::pow(wheelStep, notches));
    updateHover(event->position());
    viewChanged();
    event->accept();
}

void SpyView::mousePressEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        m_dragFrom = event->position();
        setCursor(Qt::ClosedHandCursor);
    }
}

void SpyView::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragFrom) {
        m_viewport.panBy(event->position() - *m_dragFrom);
        m_dragFrom = event->position();
        viewChanged();
    }
    updateHover(event->position());
}

void SpyView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) {
        m_dragFrom.reset();
        unsetCursor();
    }
}

void SpyView::mouseDoubleClickEvent(QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) fitToView();
}

void SpyView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_F: fitToView(); break;
    case Qt::Key_Plus:
    case Qt::Key_Equal: zoomIn(); break;
    case Qt::Key_Minus: zoomOut(); break;
    default: QWidget::keyPressEvent(event); return;
    }
    event->accept();
}

void SpyView::leaveEvent(QEvent*) {
    if (!m_hoverCell) return;
    m_hoverCell.reset();
    m_hoverText.clear();
    emit hoveredCellChanged(QString());
    update();
}

void SpyView::updateHover(const QPointF& position) {
    const std::optional<QPoint> cell = m_document.isEmpty() ? std::nullopt : m_viewport.cellAt(position);
    if (cell == m_hoverCell) return;
    m_hoverCell = cell;
    m_hoverText = cell ? hoverText(cell->y(), cell->x()) : QString();
    emit hoveredCellChanged(m_hoverText);
    update();
}

} // namespace spyglass::widgets
