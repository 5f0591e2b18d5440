// Spyglass desktop application: `spyglass [FILE] [--screenshot PNG] [--tab TITLE] [--gpu-memory-cap BYTES] [--threads N]`.
// Without FILE the bundled sample opens. --screenshot loads, waits for the first picture, saves
// the window as PNG and exits (for docs and visual checks; deterministic, no window manager needed).
#include "core/appinfo.h"
#include "core/deviceinfocache.h"
#include "core/gpumemorycap.h"
#include "mainwindow.h"
#include "spyview.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <optional>

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("Spyglass"));
    QApplication::setApplicationName(QStringLiteral("Spyglass"));
    QApplication::setApplicationVersion(spyglass::app::applicationVersion());
    // Ask the driver now, on a worker thread, so that the panels find the answer ready.
    spyglass::app::DeviceInfoCache::shared().start();

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("GPU matrix explorer"));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Save a picture of the window to <png> once the matrix is drawn, then exit."),
                                  QStringLiteral("png"));
    parser.addOption(screenshot);
    QCommandLineOption tab(QStringLiteral("tab"),
                           QStringLiteral("Bring the tab whose title starts with <title> to the front (e.g. \"Compare\"), "
                                          "for a screenshot of that tab."),
                           QStringLiteral("title"));
    parser.addOption(tab);
    QCommandLineOption memoryCap(QStringLiteral("gpu-memory-cap"),
                                 QStringLiteral("Cap Spyglass's GPU memory at <bytes> (e.g. 64M) to simulate a smaller GPU; "
                                                "also read from SPYGLASS_GPU_MEMORY_CAP. 0 = no cap."),
                                 QStringLiteral("bytes"));
    parser.addOption(memoryCap);
    QCommandLineOption readerThreads(QStringLiteral("threads"),
                                     QStringLiteral("Read Matrix Market files on <n> threads (default: every core)."),
                                     QStringLiteral("n"));
    parser.addOption(readerThreads);
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Matrix file to open (.mtx, .mtx.gz or a .spy export)."));
    parser.process(app);
    const QString capProblem = spyglass::app::applyGpuMemoryCap(
        parser.isSet(memoryCap) ? std::optional<QString>(parser.value(memoryCap)) : std::nullopt);
    if (!capProblem.isEmpty()) {
        // Like any other bad option: refuse to start rather than run without the cap that was asked for.
        std::fprintf(stderr, "spyglass: %s\n", qPrintable(capProblem));
        return 2;
    }

    // A screenshot must not depend on, nor change, the user's saved window layout and recent files.
    QTemporaryDir scratch;
    std::unique_ptr<QSettings> settingsOwner =
        parser.isSet(screenshot) ? std::make_unique<QSettings>(scratch.filePath(QStringLiteral("s.ini")), QSettings::IniFormat)
                                 : std::make_unique<QSettings>(QStringLiteral("Spyglass"), QStringLiteral("Spyglass"));
    QSettings& settings = *settingsOwner;
    spyglass::gui::MainWindow window(settings);
    if (parser.isSet(readerThreads)) {
        bool ok = false;
        const uint threads = parser.value(readerThreads).toUInt(&ok);
        if (!ok || threads == 0 || threads > 1024) {
            std::fprintf(stderr, "spyglass: --threads: '%s' is not a thread count (1..1024)\n", qPrintable(parser.value(readerThreads)));
            return 2;
        }
        window.loader().setReaderThreads(threads);
    }
    window.show();
    if (parser.isSet(tab)) {
        QTabWidget* tabs = window.tabs();
        int found = -1;
        for (int i = 0; i < tabs->count() && found < 0; ++i)
            if (tabs->tabText(i).remove(QLatin1Char('&')).startsWith(parser.value(tab), Qt::CaseInsensitive)) found = i;
        if (found < 0) {
            std::fprintf(stderr, "spyglass: --tab: no tab's title starts with '%s'\n", qPrintable(parser.value(tab)));
            return 2;
        }
        tabs->setCurrentIndex(found);
    }

    QString path = parser.positionalArguments().value(0);
    if (path.isEmpty()) path = spyglass::app::sampleMatrixPath();
    if (!path.isEmpty()) window.openFile(path);

    if (parser.isSet(screenshot)) {
        const QString target = parser.value(screenshot);
        auto save = [&window, target] {
            const bool ok = window.grab().save(target);
            std::fprintf(stderr, ok ? "saved %s\n" : "could not save %s\n", qPrintable(target));
            QApplication::exit(ok ? 0 : 1);
        };
        // Give the first picture one more event-loop turn to be painted before grabbing.
        QObject::connect(window.spyView(), &spyglass::widgets::SpyView::pictureShown, &window,
                         [save] { QTimer::singleShot(300, save); }, Qt::SingleShotConnection);
        QObject::connect(&window.loader(), &spyglass::app::MatrixLoader::loadFailed, &window, save);
        QTimer::singleShot(60000, &window, save);  // never hang a script
    }
    return app.exec();
}
