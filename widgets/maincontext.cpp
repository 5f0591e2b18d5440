#include "maincontext.h"

#include <QLabel>

#include "spyview.h"

#include <QAction>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QStatusBar>

namespace spyglass::widgets {

MainContext::MainContext(QMainWindow* window, SpyView* spyView, QMenu* toolsMenu, QSettings& settings,
                         QObject* parent)
    : QObject(parent), m_window(window), m_spyView(spyView), m_toolsMenu(toolsMenu), m_settings(settings) {}

QAction* MainContext::addToolsAction(const QString& text, QObject* owner) const {
    auto* action = new QAction(text, owner);
    action->setEnabled(false);
    if (m_toolsMenu) {
        m_toolsMenu->addAction(action);
        m_toolsMenu->menuAction()->setVisible(true);
    }
    return action;
}

std::shared_ptr<const Matrix> MainContext::matrixOrAsk(QLabel* status) const {
    if (m_document.isEmpty()) status->setText(tr("Open a matrix first."));
    return m_document.matrix();
}

void MainContext::showStatusMessage(const QString& message, int timeoutMs) const {
    m_window->statusBar()->showMessage(message, timeoutMs);
}

void MainContext::showExportFailure(const QString& text) const {
    showStatusMessage(text, 8000);
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Export failed"), text, QMessageBox::Ok, m_window);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::NonModal);
    box->show();
}

void MainContext::setOverlays(QObject* panel, const QList<SpyOverlay>& overlays) {
    Drawing& drawing = m_drawings[panel];
    drawing.overlays = overlays;
    drawing.overlay = -1;
    if (panel == m_active) show(drawing);
}

void MainContext::setRowBands(QObject* panel, const QList<RowBand>& bands) {
    Drawing& drawing = m_drawings[panel];
    drawing.bands = bands;
    drawing.band = -1;
    if (panel == m_active) show(drawing);
}

void MainContext::setBackdrop(QObject* panel, const QImage& image, const QRectF& cells) {
    Drawing& drawing = m_drawings[panel];
    drawing.backdrop = image;
    drawing.backdropCells = cells;
    if (panel == m_active && m_spyView) m_spyView->setBackdrop(image, cells);
}

void MainContext::highlightOverlay(QObject* panel, int index) {
    Drawing& drawing = m_drawings[panel];
    drawing.overlay = index >= 0 && index < drawing.overlays.size() ? index : -1;
    if (panel != m_active || !m_spyView) return;
    m_spyView->setHighlightedOverlay(drawing.overlay);
    if (drawing.overlay >= 0) m_spyView->bringIntoView(drawing.overlays[drawing.overlay].cells());
}

void MainContext::highlightRowBand(QObject* panel, int index) {
    Drawing& drawing = m_drawings[panel];
    drawing.band = index >= 0 && index < drawing.bands.size() ? index : -1;
    if (panel != m_active || !m_spyView) return;
    m_spyView->setHighlightedRowBand(drawing.band);
    if (drawing.band >= 0) {
        const RowBand& band = drawing.bands[drawing.band];
        m_spyView->bringIntoView(QRectF(0, band.rowBegin, m_document.cols(), band.rowEnd - band.rowBegin), 0.9);
    }
}

void MainContext::setActivePanel(QObject* panel) {
    m_active = panel;
    show(m_drawings.value(panel));
}

void MainContext::show(const Drawing& drawing) {
    if (!m_spyView) return;
    m_spyView->setOverlays(drawing.overlays);
    m_spyView->setRowBands(drawing.bands);
    m_spyView->setBackdrop(drawing.backdrop, drawing.backdropCells);
    m_spyView->setHighlightedOverlay(drawing.overlay);
    m_spyView->setHighlightedRowBand(drawing.band);
}

void MainContext::setDocument(const app::MatrixDocument& document) {
    m_document = document;
    m_drawings.clear();  // the spy view dropped its drawings with the old document
    emit documentChanged(m_document);
}

} // namespace spyglass::widgets
