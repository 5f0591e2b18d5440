// The real main window, offscreen, with a temporary settings file: opening a file fills the
// statistics and the spy picture and lands in the persisted recent list; a broken file leaves the
// open document in place, and so does each hostile file (a parser crash included); window state persists; the recent list is bounded and deduplicated.
#include "hostilefiles.h"
#include "testfiles.h"
#include "testmatrices.h"
#include "gui/helpwindows.h"
#include "gui/mainwindow.h"
#include "maincontext.h"
#include "spyview.h"
#include "statspanel.h"

#include "spyglass/backend.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/stats.h"

#include <QDragEnterEvent>
#include <QDropEvent>
#include <QLabel>
#include <QMimeData>
#include <QSignalSpy>
#include <QTextBrowser>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;

namespace {

// A shown window with west0479 open, its loader watched: the tests then open what must fail and check
// that the good matrix stays open everywhere it shows.
struct WindowWithGoodMatrix {
    explicit WindowWithGoodMatrix(QSettings& settings)
        : window(settings), loaded(&window.loader(), &app::MatrixLoader::loadFinished),
          failed(&window.loader(), &app::MatrixLoader::loadFailed) {
        window.show();
    }
    bool open() {
        window.openFile(good);
        if (!loaded.wait(20000)) return false;
        rowsBefore = window.statsPanel()->valueText(QStringLiteral("rows"));
        return true;
    }
    void verifyGoodStillOpen() {
        QCOMPARE(window.context().document().path(), good);
        QCOMPARE(window.spyView()->document().path(), good);
        QCOMPARE(window.statsPanel()->valueText(QStringLiteral("rows")), rowsBefore);
    }

    gui::MainWindow window;
    QSignalSpy loaded, failed;
    const QString good = sharedMatrix("west0479.mtx");
    QString rowsBefore;
};

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void openingAFileShowsItsStatsPictureAndPersistsRecentFiles() {
        QTemporaryDir dir;
        const QString ini = dir.filePath(QStringLiteral("spyglass.ini"));
        const QString path = sharedMatrix("bcsstk13.mtx");
        const MatrixStats expected = computeStats(readMatrixMarket(path.toStdString()));
        {
            QSettings settings(ini, QSettings::IniFormat);
            gui::MainWindow window(settings);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QSignalSpy loaded(&window.loader(), &app::MatrixLoader::loadFinished);
            QSignalSpy pictures(window.spyView(), &widgets::SpyView::pictureShown);
            window.openFile(path);
            QVERIFY(loaded.wait(20000));

            widgets::StatsPanel* stats = window.statsPanel();
            const QLocale locale = QLocale::system();
            QCOMPARE(stats->valueText(QStringLiteral("rows")), locale.toString(expected.rows));
            QCOMPARE(stats->valueText(QStringLiteral("cols")), locale.toString(expected.cols));
            QCOMPARE(stats->valueText(QStringLiteral("stored")), locale.toString(expected.stored));
            QCOMPARE(stats->valueText(QStringLiteral("nnz")), locale.toString(expected.nnz));
            QCOMPARE(stats->valueText(QStringLiteral("symmetry")), QString::fromLatin1(toString(expected.symmetry)));
            QCOMPARE(stats->valueText(QStringLiteral("file")), QStringLiteral("bcsstk13.mtx"));
            QCOMPARE(window.context().document().path(), path);
            QVERIFY(window.windowTitle().contains(QStringLiteral("bcsstk13.mtx")));
            QVERIFY(pictures.count() > 0 || pictures.wait(10000));
            window.close();  // saves geometry and state
        }
        QSettings reopened(ini, QSettings::IniFormat);
        app::AppSettings persisted(reopened);
        QCOMPARE(persisted.recentFiles(), QStringList{path});
        QVERIFY(!persisted.windowGeometry().isEmpty());
        QVERIFY(!persisted.windowState().isEmpty());
    }

    void aBrokenFileKeepsTheOpenDocument() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("spyglass.ini")), QSettings::IniFormat);
        const QString bad = dir.filePath(QStringLiteral("broken.mtx"));
        QVERIFY(testfiles::writeFile(bad, "%%MatrixMarket matrix coordinate real general\n4 4 2\n1 1 1\n9 1 1\n"));

        WindowWithGoodMatrix fixture(settings);
        QVERIFY(fixture.open());
        fixture.window.openFile(bad);
        QVERIFY(fixture.failed.wait(20000));
        QVERIFY2(fixture.window.lastError().contains(QStringLiteral("broken.mtx:4")), qPrintable(fixture.window.lastError()));
        fixture.verifyGoodStillOpen();
        if (QTest::currentTestFailed()) return;
        QCOMPARE(app::AppSettings(settings).recentFiles(), QStringList{fixture.good});  // failures are not recent
    }

    // Each hostile file (tests/hostilefiles.h) in turn: refused with its reason, the first matrix stays
    // open and the process lives on (the known HDF5 crash input runs in the MATLAB reader's child).
    void hostileFilesKeepTheOpenDocument() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("spyglass.ini")), QSettings::IniFormat);
        const std::vector<hostilefiles::HostileFile> files = hostilefiles::writeAll(QDir(dir.path()));
        QVERIFY(!files.empty());
        WindowWithGoodMatrix fixture(settings);
        QVERIFY(fixture.open());
        gui::MainWindow& window = fixture.window;
        QSignalSpy& loaded = fixture.loaded;
        QSignalSpy& failed = fixture.failed;
        const QString& good = fixture.good;
        for (const hostilefiles::HostileFile& f : files) {
            const int failures = failed.count();
            window.openFile(f.path);
            QVERIFY2(failed.count() > failures || failed.wait(20000), qPrintable(f.name));
            QCOMPARE(loaded.count(), 1);
            QVERIFY2(window.lastError().contains(f.message), qPrintable(f.name + QStringLiteral(": ") + window.lastError()));
            fixture.verifyGoodStillOpen();
            if (QTest::currentTestFailed()) return;
        }
        // A crash in the MATLAB reader's child (made on purpose: without a sanitizer the known HDF5
        // over-read goes unseen) is a reader error too.
        qputenv("SPYGLASS_MAT_READER_FAULT", "crash");
        window.openFile(QStringLiteral(SPYGLASS_SOURCE_DIR "/tests/data/mat/west0479_sparse.mat"));
        const bool stopped = failed.wait(20000);
        qunsetenv("SPYGLASS_MAT_READER_FAULT");
        QVERIFY(stopped);
        QVERIFY2(window.lastError().contains(QStringLiteral("the MATLAB reader stopped: it was killed by signal 11")), qPrintable(window.lastError()));
        QCOMPARE(window.context().document().path(), good);
        // The known HDF5 over-read itself: read (its garbage) or refused, and the window lives on.
        const int before = loaded.count() + failed.count();
        window.openFile(hostilefiles::knownHdf5CrashInput());
        QVERIFY(loaded.count() + failed.count() > before || QTest::qWaitFor([&] { return loaded.count() + failed.count() > before; }, 20000));
    }

    void documentChangedReachesMethodPanels() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("spyglass.ini")), QSettings::IniFormat);
        gui::MainWindow window(settings);
        QSignalSpy changed(&window.context(), &widgets::MainContext::documentChanged);
        window.openFile(sharedMatrix("olm1000.mtx"));
        QVERIFY(changed.wait(20000));
        QCOMPARE(changed.at(0).at(0).value<app::MatrixDocument>().rows(), 1000);
        QCOMPARE(window.tabs()->tabText(0), QStringLiteral("Statistics"));
    }

    // Files dragged onto the window: a drag holding no matrix file is refused; one holding a matrix
    // file among others is accepted, and its drop opens that file.
    void droppingAMatrixFileOpensIt() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("spyglass.ini")), QSettings::IniFormat);
        gui::MainWindow window(settings);
        QVERIFY(window.acceptDrops());
        QSignalSpy loaded(&window.loader(), &app::MatrixLoader::loadFinished);
        const QUrl notes = QUrl::fromLocalFile(dir.filePath(QStringLiteral("notes.txt")));
        const QString matrix = sharedMatrix("olm1000.mtx");
        QMimeData notesOnly;
        notesOnly.setUrls({notes});
        QDragEnterEvent refused(QPoint(5, 5), Qt::CopyAction, &notesOnly, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &refused);
        QVERIFY(!refused.isAccepted());
        QMimeData withMatrix;
        withMatrix.setUrls({notes, QUrl::fromLocalFile(matrix)});
        QDragEnterEvent enter(QPoint(5, 5), Qt::CopyAction, &withMatrix, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(5, 5), Qt::CopyAction, &withMatrix, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&window, &drop);
        QVERIFY(drop.isAccepted());
        QVERIFY(loaded.wait(20000));
        QCOMPARE(window.context().document().path(), matrix);
    }

    // Help > User Guide renders docs/gui.md (built in, screenshots left out); Help > Keyboard
    // Shortcuts lists the menus' shortcuts, Save Picture's among them, and the picture's keys.
    void helpShowsTheUserGuideAndTheShortcuts() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("spyglass.ini")), QSettings::IniFormat);
        gui::MainWindow window(settings);
        const QString guide = gui::userGuideMarkdown();
        QVERIFY(guide.contains(QStringLiteral("## Segmented DIA tab")));
        QVERIFY2(!guide.contains(QStringLiteral("![")), "screenshots are not built in");
        QWidget* shown = gui::showUserGuide(&window);
        QVERIFY(shown && shown->isVisible());
        QVERIFY(shown->findChild<QTextBrowser*>()->toPlainText().contains(QStringLiteral("Segmented DIA tab")));
        QCOMPARE(gui::showUserGuide(&window), shown);  // one guide window, raised again
        const QString keys = gui::keyboardShortcutsHtml(window);
        QVERIFY2(keys.contains(QKeySequence(QKeySequence::Open).toString(QKeySequence::NativeText)), qPrintable(keys));
        QVERIFY2(keys.contains(QStringLiteral("Save Picture As")), qPrintable(keys));
        QVERIFY(keys.contains(QStringLiteral("Fit the whole matrix")));
    }

    // A simulated small GPU (--gpu-memory-cap) is shown next to the backend, so that its "GPU out of
    // memory" is not taken for a real one.
    void aGpuMemoryCapIsShownInTheStatusBar() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("spyglass.ini")), QSettings::IniFormat);
        {
            gui::MainWindow window(settings);
            auto* label = window.findChild<QLabel*>(QStringLiteral("backendLabel"));
            QVERIFY(label);
            QVERIFY2(!label->text().contains(QLatin1String("capped")), qPrintable(label->text()));
        }
        setDeviceMemoryCap(std::size_t(1) << 20);
        gui::MainWindow window(settings);
        setDeviceMemoryCap(0);
        auto* label = window.findChild<QLabel*>(QStringLiteral("backendLabel"));
        QVERIFY(label);
        QVERIFY2(label->text().contains(QLatin1String("GPU memory capped at 1.00 MiB")), qPrintable(label->text()));
    }

    void recentFilesAreBoundedMostRecentFirstWithoutDuplicates() {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(QStringLiteral("spyglass.ini")), QSettings::IniFormat);
        app::AppSettings recent(settings);
        for (int i = 0; i < 13; ++i) recent.addRecentFile(dir.filePath(QStringLiteral("m%1.mtx").arg(i)));
        recent.addRecentFile(dir.filePath(QStringLiteral("sub/../m5.mtx")));  // same file, other spelling
        const QStringList files = recent.recentFiles();
        QCOMPARE(files.size(), app::AppSettings::maxRecentFiles);
        QCOMPARE(files.first(), QDir::cleanPath(dir.filePath(QStringLiteral("m5.mtx"))));
        QCOMPARE(files.at(1), QDir::cleanPath(dir.filePath(QStringLiteral("m12.mtx"))));
        QCOMPARE(files.count(files.first()), 1);
        QVERIFY(!files.contains(QDir::cleanPath(dir.filePath(QStringLiteral("m2.mtx")))));  // pushed out
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_gui_mainwindow.moc"
