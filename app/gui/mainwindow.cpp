#include "mainwindow.h"

#include "bitflagexportaction.h"
#include "matrixexportaction.h"
#include "core/appinfo.h"
#include "core/gpumemorycap.h"
#include "core/samples.h"
#include "loadprogresswidget.h"
#include "helpwindows.h"
#include "maincontext.h"
#include "matrixfiledrops.h"
#include "matvariabledialog.h"
#include "methodpanels.h"
#include "recentfilesmenu.h"
#include "spyview.h"
#include "statspanel.h"


#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>

#include <algorithm>

namespace spyglass::gui {

namespace {

// The SVG icons need Qt's SVG image plugin; where it is missing the style's icons stand in.
QIcon icon(const QString& name, QStyle::StandardPixmap fallback) {
    const QIcon svg(QStringLiteral(":/icons/%1.svg").arg(name));
    if (!svg.pixmap(16, 16).isNull()) return svg;
    return QApplication::style()->standardIcon(fallback);
}

} // namespace

MainWindow::MainWindow(QSettings& settings, QWidget* parent)
    : QMainWindow(parent), m_settings(settings), m_loader(this), m_renderer(this) {
    setWindowTitle(QStringLiteral("Spyglass"));
    setWindowIcon(QIcon(QStringLiteral(":/icons/spyglass.svg")));
    new MatrixFileDrops(this, [this](const QString& path) { openFile(path); });

    // The picture beside the work: the spy view on the left, the statistics and the method panels
    // as tabs on the right, so that a wide screen's width holds both and the picture stays square
    // and large (above the tabs it took half the height and left most of its strip grey). Each
    // panel's drawing is shown on the picture while its tab is in front; a tab that does not use the
    // open matrix (the batched tabs make their own) hides the picture and gets the whole width.
    m_spyView = new widgets::SpyView;
    m_tabs = new QTabWidget;
    m_tabs->setObjectName(QStringLiteral("methodTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->setUsesScrollButtons(true);  // the tab bar never sets the window's width
    m_statsPanel = new widgets::StatsPanel;
    addPanelTab(m_tabs, m_statsPanel, tr("Statistics"));
    // Values such as "2,964 (lower 2,100, upper 2,964)" must fit without a horizontal scroll bar.
    static_cast<QScrollArea*>(m_tabs->widget(0))->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_splitter = new QSplitter(Qt::Horizontal, this);
    m_splitter->setObjectName(QStringLiteral("pictureSplitter"));
    m_splitter->setChildrenCollapsible(false);
    m_splitter->addWidget(m_spyView);
    m_splitter->addWidget(m_tabs);
    m_splitter->setStretchFactor(0, 2);
    m_splitter->setStretchFactor(1, 3);
    setCentralWidget(m_splitter);

    createActions();
    createStatusBar();
    m_context = new widgets::MainContext(this, m_spyView, m_toolsMenu, settings, this);
    addMethodPanels(m_tabs, *m_context);
    connect(m_tabs, &QTabWidget::currentChanged, m_context, [this](int index) {
        QWidget* panel = panelAt(index);
        m_context->setActivePanel(panel);
        m_spyView->setVisible(!panel || !panel->property(kMakesItsOwnMatrices).toBool());
    });
    connect(m_context, &widgets::MainContext::openRequested, this, &MainWindow::openFile);
    // File > Export Matrix As… and Export as Bit-Flag Container… (act on the open matrix), above Quit.
    QMenu* fileMenu = menuBar()->actions().at(0)->menu();
    QAction* quitAction = fileMenu->actions().last();
    fileMenu->insertAction(quitAction, new widgets::MatrixExportAction(*m_context, this));
    fileMenu->insertAction(quitAction, new widgets::BitFlagExportAction(*m_context, this));
    // The picture as shown (axes, legend, the tab's drawing), as PNG or SVG; also in its context menu.
    auto* savePicture = new QAction(tr("Save &Picture As…"), this);
    savePicture->setObjectName(QStringLiteral("savePictureAction"));
    savePicture->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    savePicture->setEnabled(false);
    connect(savePicture, &QAction::triggered, m_spyView, &widgets::SpyView::chooseAndSavePicture);
    connect(m_context, &widgets::MainContext::documentChanged, savePicture,
            [savePicture](const app::MatrixDocument& document) { savePicture->setEnabled(!document.isEmpty()); });
    fileMenu->insertAction(quitAction, savePicture);
    fileMenu->insertSeparator(quitAction);
    m_toolsMenu->menuAction()->setVisible(!m_toolsMenu->actions().isEmpty());
    menuBar()->actions().at(1)->menu()->addAction(tr("&Statistics"), this, [this] { m_tabs->setCurrentIndex(0); });

    connect(&m_loader, &app::MatrixLoader::loadStarted, m_progress, &widgets::LoadProgressWidget::start);
    connect(&m_loader, &app::MatrixLoader::loadProgress, m_progress, &widgets::LoadProgressWidget::setProgress);
    connect(&m_loader, &app::MatrixLoader::loadFinished, this, [this](const app::MatrixDocument& document) {
        m_progress->stop();
        documentLoaded(document);
    });
    connect(&m_loader, &app::MatrixLoader::loadFailed, this, [this](const QString& message) {
        m_progress->stop();
        showError(message);
    });
    connect(&m_loader, &app::MatrixLoader::loadCancelled, this, [this] {
        m_progress->stop();
        statusBar()->showMessage(tr("Loading cancelled"), 4000);
    });
    connect(m_progress, &widgets::LoadProgressWidget::cancelRequested, &m_loader, &app::MatrixLoader::cancel);
    connect(&m_loader, &app::MatrixLoader::variableChoiceNeeded, this,
            [this](const QString& path, const QStringList& names, const QStringList& descriptions) {
                m_progress->stop();
                widgets::MatVariableDialog dialog(path, names, descriptions, this);
                if (dialog.exec() == QDialog::Accepted && !dialog.chosenName().isEmpty())
                    openFile(path + QLatin1Char(':') + dialog.chosenName());
                else
                    statusBar()->showMessage(tr("Loading cancelled"), 4000);
            });

    connect(m_spyView, &widgets::SpyView::renderRequested, &m_renderer, &app::DensityRenderer::requestRender);
    connect(&m_renderer, &app::DensityRenderer::renderFinished, m_spyView, &widgets::SpyView::setPicture);
    connect(&m_renderer, &app::DensityRenderer::renderFailed, this, &MainWindow::showError);
    connect(m_spyView, &widgets::SpyView::hoveredCellChanged, m_hoverLabel, &QLabel::setText);

    // Within the screen's available area (a 1366 x 768 laptop included); a saved geometry is
    // restored after this, and Qt moves a restored window back onto the screen if needed.
    const QSize available = screen() ? screen()->availableGeometry().size() : QSize(1366, 768);
    const QSize initial = QSize(1600, 1000).boundedTo(QSize(available.width() * 96 / 100, available.height() * 92 / 100));
    resize(initial);
    restoreGeometry(m_settings.windowGeometry());
    restoreState(m_settings.windowState());
    m_splitterPlaced = m_splitter->restoreState(m_settings.splitterState());
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (!m_splitterPlaced) placeSplitter();
}

void MainWindow::placeSplitter() {
    // At the first show, at the window's real size: the tabs get at least what their widest panel
    // needs not to scroll sideways (and at least 45 % of the width), the picture the rest, up to a
    // square as tall as the splitter.
    m_splitterPlaced = true;
    const int width = m_splitter->width(), height = m_splitter->height();
    int widestPanel = 0;
    for (int i = 0; i < m_tabs->count(); ++i)
        if (!panelAt(i)->property(kMakesItsOwnMatrices).toBool()) widestPanel = std::max(widestPanel, panelAt(i)->minimumSizeHint().width());
    const int tabs = std::max(widestPanel + 24, width * 45 / 100);
    const int picture = std::max(m_spyView->minimumWidth(), std::min(height, width - tabs));
    m_splitter->setSizes({picture, width - picture});
}

MainWindow::~MainWindow() = default;

void MainWindow::createActions() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(icon(QStringLiteral("open"), QStyle::SP_DialogOpenButton), tr("&Open..."),
                                    this, &MainWindow::chooseFile);
    open->setShortcut(QKeySequence::Open);
    m_recentMenu = new widgets::RecentFilesMenu(this);
    file->addMenu(m_recentMenu);
    connect(m_recentMenu, &widgets::RecentFilesMenu::fileChosen, this, &MainWindow::openFile);
    connect(m_recentMenu, &widgets::RecentFilesMenu::clearRequested, this, [this] {
        m_settings.clearRecentFiles();
        refreshRecentFiles();
    });
    refreshRecentFiles();
    // File > Open Sample: each shipped sample with what it shows (tooltip and status tip).
    QMenu* samples = file->addMenu(tr("Open &Sample"));
    samples->setObjectName(QStringLiteral("openSampleMenu"));
    samples->setToolTipsVisible(true);
    for (const app::SampleMatrix& sample : app::sampleMatrices()) {
        QAction* action = samples->addAction(sample.title);
        action->setData(sample.id);
        action->setToolTip(sample.description);
        action->setStatusTip(sample.description);
        connect(action, &QAction::triggered, this, [this, id = sample.id] {
            const QString path = app::samplePath(id);
            if (path.isEmpty()) showError(tr("The sample matrix %1 is not installed").arg(app::sampleMatrix(id).fileName));
            else openFile(path);
        });
    }
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    QAction* fit = view->addAction(icon(QStringLiteral("fit"), QStyle::SP_TitleBarMaxButton), tr("&Fit"),
                                   m_spyView, &widgets::SpyView::fitToView);
    fit->setShortcut(Qt::Key_F);
    fit->setShortcutContext(Qt::WidgetWithChildrenShortcut);  // SpyView handles F itself when focused
    QAction* zoomIn = view->addAction(icon(QStringLiteral("zoom-in"), QStyle::SP_ArrowUp), tr("Zoom &In"),
                                      m_spyView, &widgets::SpyView::zoomIn);
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    QAction* zoomOut = view->addAction(icon(QStringLiteral("zoom-out"), QStyle::SP_ArrowDown), tr("Zoom &Out"),
                                       m_spyView, &widgets::SpyView::zoomOut);
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    view->addSeparator();

    m_toolsMenu = menuBar()->addMenu(tr("&Tools"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* guide = help->addAction(tr("&User Guide"), this, [this] { showUserGuide(this); });
    guide->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] { showKeyboardShortcuts(this); });
    help->addSeparator();
    help->addAction(tr("&About Spyglass"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    QToolBar* toolbar = addToolBar(tr("Main"));
    toolbar->setObjectName(QStringLiteral("mainToolBar"));
    toolbar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    toolbar->addAction(open);
    toolbar->addSeparator();
    toolbar->addAction(fit);
    toolbar->addAction(zoomIn);
    toolbar->addAction(zoomOut);
}

void MainWindow::createStatusBar() {
    m_hoverLabel = new QLabel(this);
    m_hoverLabel->setObjectName(QStringLiteral("hoverLabel"));
    m_hoverLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    statusBar()->addWidget(m_hoverLabel, 1);
    m_progress = new widgets::LoadProgressWidget(this);
    statusBar()->addPermanentWidget(m_progress);
    // A simulated small GPU must be visible, or its "GPU out of memory" looks like a real one.
    m_backendLabel = new QLabel(app::backendStatusText(), this);
    m_backendLabel->setObjectName(QStringLiteral("backendLabel"));
    statusBar()->addPermanentWidget(m_backendLabel);
}

QWidget* MainWindow::panelAt(int index) const { return panelOfPage(m_tabs->widget(index)); }

QString MainWindow::hoverStatusText() const { return m_hoverLabel->text(); }

void MainWindow::openFile(const QString& path) {
    m_lastError.clear();
    m_loader.load(path);
}

void MainWindow::chooseFile() {
    QString directory = m_settings.lastDirectory();
    if (directory.isEmpty() && !m_context->document().isEmpty())
        directory = QFileInfo(m_context->document().path()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Matrix"), directory,
                                                      tr("Matrix files (*.mtx *.mtx.gz *.spy *.npz *.npy *.mat *.rb *.rua *.rsa *.psa *.pua *.cua *.csa *.hb);;"
                                                         "Matrix Market (*.mtx *.mtx.gz);;Spyglass export (*.spy);;SciPy sparse / NumPy (*.npz *.npy);;"
                                                         "MATLAB (*.mat);;"
                                                         "Harwell-Boeing (*.rb *.rua *.rsa *.psa *.pua *.cua *.csa *.hb);;All files (*)"));
    if (path.isEmpty()) return;
    m_settings.setLastDirectory(QFileInfo(path).absolutePath());
    openFile(path);
}

void MainWindow::documentLoaded(const app::MatrixDocument& document) {
    m_renderer.setDocument(document);
    m_spyView->setDocument(document);
    m_statsPanel->setStats(document.stats(), document.fileName());
    m_context->setDocument(document);
    m_settings.addRecentFile(document.path());
    refreshRecentFiles();
    setWindowTitle(QStringLiteral("%1 \u2014 Spyglass").arg(document.fileName()));
    setWindowFilePath(document.path());
    statusBar()->showMessage(tr("Opened %1").arg(document.path()), 4000);
}

void MainWindow::showError(const QString& message) {
    m_lastError = message;
    // Non-modal: the window and the open document stay usable behind the message.
    auto* box = new QMessageBox(QMessageBox::Warning, tr("Spyglass"), message, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::NonModal);
    box->show();
}

void MainWindow::refreshRecentFiles() { m_recentMenu->setFiles(m_settings.recentFiles()); }

void MainWindow::showAbout() {
    QString backends;
    for (const app::BackendDescription& backend : app::backendDescriptions())
        backends += QStringLiteral("<li>%1: %2</li>").arg(backend.name, backend.description.toHtmlEscaped());
    QMessageBox::about(this, tr("About Spyglass"),
                       tr("<h3>Spyglass %1</h3><p>GPU matrix explorer: sparsity, storage formats and GPU kernels "
                          "compared with vendor libraries.</p><p><b>Backend:</b> %2</p><ul>%3</ul>"
                          "<p>Built with Qt %4%5.</p>")
                           .arg(app::applicationVersion(), app::backendSummaryText().toHtmlEscaped(),
                                backends, QString::fromLatin1(qVersion()),
                                app::hasCudaBuild() ? tr(" and CUDA") : tr(" (without CUDA)")));
}

void MainWindow::saveWindowState() {
    m_settings.setWindowGeometry(saveGeometry());
    m_settings.setWindowState(saveState());
    m_settings.setSplitterState(m_splitter->saveState());
    m_settings.sync();
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveWindowState();
    event->accept();
}

} // namespace spyglass::gui
