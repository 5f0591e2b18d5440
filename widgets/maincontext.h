#pragma once
// What a method panel may reach of the main window: the open document (and when it changes), the
// spy view for overlays and row bands, the Tools menu for panel actions, the settings, and a way to
// ask for a file to be opened (a sample matrix a tab offers).
// Panels (in widgets/, like this class) get it in addMethodPanels() and never reach into MainWindow.
#include "core/matrixdocument.h"
#include "spyoverlay.h"

#include <QHash>
#include <QImage>
#include <QList>
#include <QObject>
#include <QPointer>

#include <memory>

class QAction;
class QLabel;
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
    // The open matrix for a panel's run, or null after saying "Open a matrix first." on `status`.
    std::shared_ptr<const Matrix> matrixOrAsk(QLabel* status) const;
    SpyView* spyView() const { return m_spyView; }
    QMainWindow* mainWindow() const { return m_window; }
    QMenu* toolsMenu() const { return m_toolsMenu; }
    // A panel's action in the Tools menu (shown once it holds one), owned by `owner` and disabled
    // until the panel has something to act on. Without a menu (a panel on its own) it is only made.
    QAction* addToolsAction(const QString& text, QObject* owner) const;
    QSettings& settings() const { return m_settings; }

    // Shows a short message in the status bar (e.g. "Exported blocks.spy").
    void showStatusMessage(const QString& message, int timeoutMs = 5000) const;
    // A failed export started from a menu: the text in the status bar and in a non-modal warning box
    // over the main window (the window stays usable behind it).
    void showExportFailure(const QString& text) const;
    // Asks the main window to open a file (a panel offering a sample matrix); see openRequested.
    void requestOpen(const QString& path) { emit openRequested(path); }

    // What a panel draws over the spy view. Each panel keeps its own drawing; the view shows the
    // drawing of the panel in front (setActivePanel), so the picture always matches the panel in use.
    void setOverlays(QObject* panel, const QList<SpyOverlay>& overlays);
    void setRowBands(QObject* panel, const QList<RowBand>& bands);
    // A picture shown instead of the matrix (SpyView::setBackdrop) while the panel is in front.
    void setBackdrop(QObject* panel, const QImage& image, const QRectF& cells);
    // Selecting an item in a panel's table: highlighted on the view and brought into view
    // (when `panel` is in front). -1 clears the highlight.
    void highlightOverlay(QObject* panel, int index);
    void highlightRowBand(QObject* panel, int index);
    void setActivePanel(QObject* panel);
    QObject* activePanel() const { return m_active; }

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
    struct Drawing {
        QList<SpyOverlay> overlays;
        QList<RowBand> bands;
        QImage backdrop;
        QRectF backdropCells;
        int overlay = -1, band = -1;  // highlighted
    };
    void show(const Drawing& drawing);
    QHash<QObject*, Drawing> m_drawings;
    QPointer<QObject> m_active;
};

} // namespace spyglass::widgets
