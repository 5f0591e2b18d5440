#include "spyview.h"

#include "overlaygeometry.h"
#include "spypicturewriter.h"

#include <QContextMenuEvent>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>

#include <QHelpEvent>
#include <QKeyEvent>
#include <QLinearGradient>
#include <QLocale>
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
const QColor axisText(60, 64, 70);

// "178461" as "178,461": the count the file's reader would print.
QString grouped(qint64 n) { return QLocale(QLocale::English).toString(n); }
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
    updateMargins();
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
    m_viewport.zoomAbout(m_viewport.plotRect().center(), keyStep);
    viewChanged();
}

void SpyView::zoomOut() {
    m_viewport.zoomAbout(m_viewport.plotRect().center(), 1.0 / keyStep);
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
    paintContent(painter);
    paintOverlayLabels(painter);
    paintHoveredCell(painter);
    paintAxes(painter);
}

void SpyView::paintContent(QPainter& painter) const {
    // Everything inside the plot area: the matrix (or a panel's backdrop), row bands, overlays and
    // the frame. Clipped to the plot area so that a zoomed picture never covers the axes.
    const QRectF plot = m_viewport.plotRect();
    const QRectF matrixRect = m_viewport.matrixRectInWidget().intersected(plot);
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
    painter.save();
    painter.setClipRect(plot.adjusted(-1, -1, 1, 1));
    painter.drawRect(m_viewport.matrixRectInWidget().adjusted(-0.5, -0.5, 0.5, 0.5));
    painter.restore();
}

QImage SpyView::renderWidget() const {
    // QWidget::grab is not const, though it changes nothing that a caller can see.
    return const_cast<SpyView*>(this)->grab().toImage();
}

QImage SpyView::renderPlotArea() const {
    const QRectF plot = m_viewport.plotRect();
    const qreal ratio = devicePixelRatioF();
    QImage image((plot.size() * ratio).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(ratio);
    image.fill(background);
    QPainter painter(&image);
    painter.translate(-plot.topLeft());
    paintContent(painter);
    return image;
}

void SpyView::updateMargins() {
    // Room for the widest row number left of the plot, the column numbers above it, and a line
    // below it for "nz = ..." and the density legend.
    const QFontMetrics fm(font());
    const int rows = std::max(m_document.isEmpty() ? 1 : m_document.rows(), 1);
    const double left = fm.horizontalAdvance(grouped(rows)) + kTickLength + 6;
    const double top = fm.height() + kTickLength + 4;
    const double bottom = fm.height() + 10;
    m_viewport.setMargins(left, top, fm.horizontalAdvance(QStringLiteral("0,000")) / 2.0 + 4, bottom);
}

QList<AxisTick> SpyView::ticks(bool columns) const {
    const QFontMetrics fm(font());
    // Column numbers need their width apart; row numbers a line height and a little.
    const double spacing = columns ? fm.horizontalAdvance(grouped(std::max(m_viewport.cols(), 1))) + 16 : fm.height() * 2.2;
    return axisTicks(m_viewport, columns, spacing);
}

QString SpyView::nonzerosText() const {
    return m_document.isEmpty() ? QString() : QStringLiteral("nz = %1").arg(grouped(qint64(m_document.stats().nnz)));
}

QRectF SpyView::legendRect() const {
    // Under the matrix (not the whole plot area: a fitted square matrix leaves a band free below it).
    const QRectF plot = m_viewport.matrixRectInWidget().intersected(m_viewport.plotRect());
    const QFontMetrics fm(font());
    const double barWidth = std::min(120.0, plot.width() / 4);
    const QString sparse = tr("sparse"), dense = tr("dense");
    const double width = fm.horizontalAdvance(sparse) + barWidth + fm.horizontalAdvance(dense) + 12;
    return QRectF(plot.right() - width, plot.bottom() + 5, width, fm.height());
}

void SpyView::paintAxes(QPainter& painter) const {
    if (m_document.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setPen(axisText);
    const QFontMetrics fm(font());
    const QRectF plot = m_viewport.plotRect();
    const QRectF matrixRect = m_viewport.matrixRectInWidget().intersected(plot);
    // Column numbers above the plot, row numbers left of it, each at its cell's centre.
    for (const AxisTick& tick : ticks(true)) {
        painter.drawLine(QPointF(tick.pixel, matrixRect.top() - kTickLength), QPointF(tick.pixel, matrixRect.top()));
        const QString text = grouped(tick.value);
        const double w = fm.horizontalAdvance(text);
        painter.drawText(QRectF(tick.pixel - w / 2 - 1, matrixRect.top() - kTickLength - 2 - fm.height(), w + 2, fm.height()),
                         Qt::AlignCenter, text);
    }
    for (const AxisTick& tick : ticks(false)) {
        painter.drawLine(QPointF(matrixRect.left() - kTickLength, tick.pixel), QPointF(matrixRect.left(), tick.pixel));
        painter.drawText(QRectF(0, tick.pixel - fm.height() / 2.0, matrixRect.left() - kTickLength - 3, fm.height()),
                         Qt::AlignRight | Qt::AlignVCenter, grouped(tick.value));
    }
    // Below: the entry count (as MATLAB's spy prints it) and the density scale of the picture.
    const QRectF legend = legendRect();
    painter.drawText(QRectF(matrixRect.left(), legend.top(), legend.left() - matrixRect.left(), fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                     nonzerosText());
    const QString sparse = tr("sparse"), dense = tr("dense");
    const double sw = fm.horizontalAdvance(sparse), dw = fm.horizontalAdvance(dense);
    painter.drawText(QRectF(legend.left(), legend.top(), sw, legend.height()), Qt::AlignVCenter, sparse);
    painter.drawText(QRectF(legend.right() - dw, legend.top(), dw, legend.height()), Qt::AlignVCenter, dense);
    const QRectF bar(legend.left() + sw + 6, legend.top() + 2, legend.width() - sw - dw - 12, legend.height() - 4);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    gradient.setColorAt(0, QColor(158, 202, 225));  // the renderer's sparsest occupied pixel (densitypicture.cpp)
    gradient.setColorAt(1, QColor(8, 48, 107));     // its densest
    painter.fillRect(bar, gradient);
    painter.setPen(frame);
    painter.drawRect(bar);
    painter.restore();
}

QList<PlacedLabel> SpyView::labelPlacements() const {
    return placeOverlayLabels(m_overlays, m_viewport, m_viewport.plotRect(), QFontMetricsF(font()));
}

void SpyView::paintOverlayLabels(QPainter& painter) const {
    if (m_overlays.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    for (const PlacedLabel& label : labelPlacements()) {
        const SpyOverlay& overlay = m_overlays[label.overlay];
        // Dark text of the shape's hue on a near-opaque white box: readable over white, over the
        // dark blue of dense entries and over the shape's own fill.
        const QColor ink = overlay.color.darker(200);
        if (!label.inside) {
            painter.setPen(QPen(ink, 1));
            const QRectF r = label.rect;
            const QPointF from(std::clamp(label.anchor.x(), r.left(), r.right()), std::clamp(label.anchor.y(), r.top(), r.bottom()));
            painter.drawLine(from, label.anchor);
        }
        painter.setPen(QPen(overlay.color, 1));
        painter.setBrush(QColor(255, 255, 255, 225));
        painter.drawRoundedRect(label.rect, 2, 2);
        painter.setPen(ink);
        painter.drawText(label.rect, Qt::AlignCenter, overlay.label);
    }
    painter.restore();
}

bool SpyView::savePicture(const QString& path, QString* error) const {
    return writeSpyPicture(*this, path, error);
}

void SpyView::contextMenuEvent(QContextMenuEvent* event) {
    QMenu menu(this);
    menu.addAction(tr("&Fit"), this, &SpyView::fitToView);
    menu.addSeparator();
    QAction* save = menu.addAction(tr("Save Picture as PNG or SVG…"), this, &SpyView::chooseAndSavePicture);
    save->setEnabled(!m_document.isEmpty());
    menu.exec(event->globalPos());
}

void SpyView::chooseAndSavePicture() {
    if (m_document.isEmpty()) return;
    QString selected;
    const QString path = QFileDialog::getSaveFileName(this, tr("Save Picture"), QString(), tr("PNG image (*.png);;SVG image (*.svg)"),
                                                      &selected);
    if (path.isEmpty()) return;
    QString target = path;
    if (!target.endsWith(QLatin1String(".png"), Qt::CaseInsensitive) && !target.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive))
        target += selected.contains(QLatin1String("svg")) ? QStringLiteral(".svg") : QStringLiteral(".png");
    QString error;
    if (!savePicture(target, &error)) QMessageBox::warning(this, tr("Save Picture"), error);
}

void SpyView::paintRowBands(QPainter& painter) const {
    if (m_rowBands.isEmpty()) return;
    painter.save();
    painter.setClipRect(m_viewport.matrixRectInWidget().intersected(m_viewport.plotRect()));
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
        const QRectF labelBox = r.intersected(m_viewport.plotRect());
        if (!band.label.isEmpty() && labelBox.height() >= painter.fontMetrics().height())
            painter.drawText(labelBox.adjusted(4, 0, -4, 0), Qt::AlignLeft | Qt::AlignTop, band.label);
    }
    painter.restore();
}

bool SpyView::rowBandsAsOutlines() const {
    int onScreen = 0;
    for (const RowBand& band : m_rowBands) {
        const QRectF r = m_viewport.matrixToWidget(QRectF(0, band.rowBegin, 1, std::max(band.rowEnd - band.rowBegin, 0)));
        if (r.bottom() >= m_viewport.plotRect().top() && r.top() <= m_viewport.plotRect().bottom()) ++onScreen;
    }
    return onScreen * kMinBandPixels > m_viewport.plotRect().height();
}

void SpyView::paintOverlays(QPainter& painter) const {
    if (m_overlays.isEmpty()) return;
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, true);
    painter.setClipRect(m_viewport.plotRect());
    // Only the rows on screen (one more each side so the cut edges lie outside the widget), and
    // zoomed out as many rows per outline step as share a pixel.
    const QRectF plot = m_viewport.plotRect();
    const int firstRow = static_cast<int>(std::floor(m_viewport.widgetToMatrix(plot.topLeft()).y())) - 1;
    const int lastRow = static_cast<int>(std::ceil(m_viewport.widgetToMatrix(plot.bottomLeft()).y())) + 1;
    const int rowStep = m_viewport.scale() >= 1.0 ? 1 : static_cast<int>(std::floor(1.0 / m_viewport.scale()));
    const double s = m_viewport.scale();
    const QTransform toWidget(s, 0, 0, s, -m_viewport.origin().x() * s + plot.left(), -m_viewport.origin().y() * s + plot.top());
    for (int i = 0; i < m_overlays.size(); ++i) {
        const SpyOverlay& overlay = m_overlays[i];
        const QPainterPath path = toWidget.map(overlayOutline(overlay, firstRow, lastRow, rowStep));
        const bool highlighted = i == m_highlightedOverlay;
        QColor fill = overlay.color;
        fill.setAlpha(highlighted ? 110 : 45);
        painter.fillPath(path, fill);
        painter.strokePath(path, QPen(highlighted ? overlay.color.darker(140) : overlay.color, highlighted ? 3.0 : 1.5));
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

void SpyView::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) updateMargins();
    QWidget::changeEvent(event);
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
