#include "maincontext.h"

#include <QMainWindow>
#include <QStatusBar>

namespace spyglass::widgets {

MainContext::MainContext(QMainWindow* window, SpyView* spyView, QMenu* toolsMenu, QSettings& settings,
                         QObject* parent)
    : QObject(parent), m_window(window), m_spyView(spyView), m_toolsMenu(toolsMenu), m_settings(settings) {}

void MainContext::showStatusMessage(const QString& message, int timeoutMs) const {
    m_window->statusBar()->showMessage(message, timeoutMs);
}

void MainContext::setDocument(const app::MatrixDocument& document) {
    m_document = document;
    emit documentChanged(m_document);
}

} // namespace spyglass::widgets
