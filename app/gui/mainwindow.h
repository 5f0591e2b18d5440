#pragma once
// The desktop window: wires the models of app/core (loader, renderer, settings) to the widgets.
// It computes nothing itself; it has no signals or slots of its own (only functor connections).
// It lives in the spyglass_gui library so that the window tests run the same code.
#include "core/appsettings.h"
#include "core/densityrenderer.h"
#include "core/matrixloader.h"

#include <QMainWindow>

class QAction;
class QLabel;
class QMenu;
class QSettings;
class QSplitter;
class QTabWidget;

namespace spyglass::widgets {
class LoadProgressWidget;
class MainContext;
class RecentFilesMenu;
class SpyView;
class StatsPanel;
} // namespace spyglass::widgets

namespace spyglass::gui {

class MainWindow : public QMainWindow {
public:
    explicit MainWindow(QSettings& settings, QWidget* parent = nullptr);
    ~MainWindow() override;

    void openFile(const QString& path);

    widgets::MainContext& context() { return *m_context; }
    widgets::SpyView* spyView() const { return m_spyView; }
    widgets::StatsPanel* statsPanel() const { return m_statsPanel; }
    app::MatrixLoader& loader() { return m_loader; }
    QTabWidget* tabs() const { return m_tabs; }
    // The panel on tab `index` (its page is a scroll area holding it); null when there is none.
    QWidget* panelAt(int index) const;
    QString lastError() const { return m_lastError; }
    QString hoverStatusText() const;

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void createActions();
    void createStatusBar();
    void chooseFile();
    void documentLoaded(const app::MatrixDocument& document);
    void showError(const QString& message);
    void refreshRecentFiles();
    void showAbout();
    void saveWindowState();
    void placeSplitter();

    app::AppSettings m_settings;
    app::MatrixLoader m_loader;
    app::DensityRenderer m_renderer;
    widgets::SpyView* m_spyView = nullptr;
    widgets::StatsPanel* m_statsPanel = nullptr;
    widgets::MainContext* m_context = nullptr;
    widgets::RecentFilesMenu* m_recentMenu = nullptr;
    widgets::LoadProgressWidget* m_progress = nullptr;
    QTabWidget* m_tabs = nullptr;
    QSplitter* m_splitter = nullptr;
    QMenu* m_toolsMenu = nullptr;
    QLabel* m_hoverLabel = nullptr;
    QLabel* m_backendLabel = nullptr;
    QString m_lastError;
    bool m_splitterPlaced = false;
};

} // namespace spyglass::gui
