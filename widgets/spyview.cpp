#include "spyview.h"

#include "overlaygeometry.h"

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>
#include <QTransform>
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
    m_highlightedOverlay = m_highlightedRowBand = -1;
    m_backdrop = {};
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
    m_highlightedOverlay = -1;
    update();
}

void SpyView::setRowBands(const QList<RowBand>& bands) {
    m_rowBands = bands;
    m_highlightedRowBand = -1;
    update();
}

void SpyView::setHighlightedOverlay(int index) {
    m_highlightedOverlay = index >= 0 && index < m_overlays.size() ? index : -1;
    update();
}

void SpyView::setHighlightedRowBand(int index) {
    m_highlightedRowBand = index >= 0 && index < m_rowBands.size() ? index : -1;
    update();
}

void SpyView::setBackdrop(const QImage& image, const QRectF& cells) {
    m_backdrop = image;
    m_backdropCells = cells;
    update();
}

void SpyView::bringIntoView(const QRectF& cells, double fraction) {
    if (m_document.isEmpty() || cells.isEmpty()) return;
    m_viewport.showCells(cells, fraction);
    viewChanged();
}

QString SpyView::toolTipAt(const QPointF& widget) const {
    const std::optional<QPoint> cell = m_document.isEmpty() ? std::nullopt : m_viewport.cellAt(widget);
    if (!cell) return {};
    for (auto it = m_overlays.crbegin(); it != m_overlays.crend(); ++it)  // the last drawn is on top
        if (overlayContains(*it, cell->y(), cell->x())) return it->details.isEmpty() ? it->label : it->details;
    for (const RowBand& band : m_rowBands)
        if (cell->y() >= band.rowBegin && cell->y() < band.rowEnd) return band.details.isEmpty() ? band.label : band.details;
    return {};
}

bool SpyView::event(QEvent* event) {
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = toolTipAt(help->pos());
        if (text.isEmpty()) {
            QToolTip::hideText();
            event->ignore();
        } else {
            QToolTip::showText(help->globalPos(), text, this);
        }
        return true;
    }
    return QWidget::event(event);
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
                         tr("Open a matrix: Matrix Market (.mtx, .mtx.gz), MATLAB (.mat), SciPy (.npz, .npy),\n"
                            "Harwell-Boeing (.rb, .rua, ...) or a Spyglass export (.spy).\nFile \u2192 Open, or drop it here."));
        return;
    }
    const QRectF matrixRect = m_viewport.matrixRectInWidget();
    painter.fillRect(matrixRect, Qt::white);
    if (!m_backdrop.isNull()) {
        painter.setRenderHint(QPainter::SmoothPixmapTransform, false);  // one sharp square per pixel
        painter.save();
        painter.setClipRect(matrixRect);
        painter.drawImage(m_viewport.matrixToWidget(m_backdropCells), m_backdrop);
        painter.restore();
    } else if (m_hasPicture) {
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
    // More bands on screen than a few pixels each (a 10^7-row stencil has thousands of segments):
    // filled, they paint the picture in stripes that hide the matrix, so only their boundaries are
    // drawn, and of those only the ones at least 3 pixels apart.
    const bool outlineOnly = rowBandsAsOutlines();
    double lastLine = -1e9;
    for (int i = 0; i < m_rowBands.size(); ++i) {
        const RowBand& band = m_rowBands[i];
        const bool highlighted = i == m_highlightedRowBand;
        const QRectF r = m_viewport.matrixToWidget(
            QRectF(0, band.rowBegin, m_viewport.cols(), std::max(band.rowEnd - band.rowBegin, 0)));
        if (outlineOnly && !highlighted) {
            if (r.top() - lastLine < 3) continue;
            lastLine = r.top();
            QColor line = band.color;
            line.setAlpha(140);
            painter.setPen(QPen(line, 1));
            painter.drawLine(r.topLeft(), r.topRight());
            continue;
        }
        QColor fill = band.color;
        fill.setAlpha(highlighted ? 110 : 50);
        painter.fillRect(r, fill);
        painter.setPen(QPen(highlighted ? band.color.darker(140) : band.color, highlighted ? 3 : 1));
        painter.drawLine(r.topLeft(), r.topRight());
        if (highlighted) painter.drawLine(r.bottomLeft(), r.bottomRight());
        // Labels stay on screen when the band's start has been panned away.
        const QRectF labelBox = r.intersected(QRectF(rect()));
        if (!band.label.isEmpty() && labelBox.height() >= painter.fontMetrics().height())
            painter.drawText(labelBox.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignTop, band.label);
    }
    painter.restore();
}

bool SpyView::rowBandsAsOutlines() const {
    int onScreen = 0;
    for (const RowBand& band : m_rowBands) {
        const QRectF r = m_viewport.matrixToWidget(QRectF(0, band.rowBegin, 1, std::max(band.rowEnd - band.rowBegin, 0)));
        if (r.bottom() >= 0 && r.top() <= height()) ++onScreen;
    }
    return onScreen * kMinBandPixels > height();
}

void SpyView::paintOverlays(QPainter& painter) const {
    if (m_overlays.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setClipRect(rect());
    // Only the rows on screen (one more each side so the cut edges lie outside the widget), and
    // zoomed out as many rows per outline step as share a pixel.
    const int firstRow = static_cast<int>(std::floor(m_viewport.widgetToMatrix(QPointF(0, 0)).y())) - 1;
    const int lastRow = static_cast<int>(std::ceil(m_viewport.widgetToMatrix(QPointF(0, height())).y())) + 1;
    const int rowStep = m_viewport.scale() >= 1.0 ? 1 : static_cast<int>(std::floor(1.0 / m_viewport.scale()));
    const double s = m_viewport.scale();
    const QTransform toWidget(s, 0, 0, s, -m_viewport.origin().x() * s, -m_viewport.origin().y() * s);
    for (int i = 0; i < m_overlays.size(); ++i) {
        const SpyOverlay& overlay = m_overlays[i];
        const QPainterPath path = toWidget.map(overlayOutline(overlay, firstRow, lastRow, rowStep));
        const bool highlighted = i == m_highlightedOverlay;
        QColor fill = overlay.color;
        fill.setAlpha(highlighted ? 110 : 45);
        painter.fillPath(path, fill);
        painter.strokePath(path, QPen(highlighted ? overlay.color.darker(140) : overlay.color, highlighted ? 3.0 : 1.5));
        const QRectF box = m_viewport.matrixToWidget(overlay.cells).intersected(QRectF(rect()));
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
