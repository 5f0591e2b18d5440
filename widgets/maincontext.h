#pragma once
// What a method panel may reach of the main window: the open document (and when it changes), the
// spy view for overlays and row bands, the Tools menu for panel actions, the settings, and a way to
// ask for a file to be opened (a sample matrix a tab offers).
// Panels (in widgets/, like this class) get it in addMethodPanels() and never reach into MainWindow.
#include "core/matrixdocument.h"

#include <QObject>

class QMainWindow;
class QMenu;
class QSettings;

namespace spyglass::widgets {

class SpyView;

class MainContext : public QObject {
    Q_OBJECT
public:
    MainContext(QMainWindow* window, SpyView* spyView, QMenu* toolsMenu, QSettings& settings,
                QObject* parent = nullptr);

    const app::MatrixDocument& document() const { return m_document; }
    SpyView* spyView() const { return m_spyView; }
    QMainWindow* mainWindow() const { return m_window; }
    QMenu* toolsMenu() const { return m_toolsMenu; }
    QSettings& settings() const { return m_settings; }

    // Shows a short message in the status bar (e.g. "Exported blocks.spy").
    void showStatusMessage(const QString& message, int timeoutMs = 5000) const;
    // Asks the main window to open a file (a panel offering a sample matrix); see openRequested.
    void requestOpen(const QString& path) { emit openRequested(path); }

public slots:
    void setDocument(const spyglass::app::MatrixDocument& document);

signals:
    void documentChanged(const spyglass::app::MatrixDocument& document);
    void openRequested(const QString& path);

private:
    QMainWindow* m_window;
    SpyView* m_spyView;
    QMenu* m_toolsMenu;
    QSettings& m_settings;
    app::MatrixDocument m_document;
};

} // namespace spyglass::widgets
