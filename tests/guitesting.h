#pragma once
// Steps the GUI suites share: a shown main window, open a file in the main window and wait for it, bring a method tab to
// the front, and save a screenshot when SPYGLASS_SCREENSHOT_DIR names a folder (for looking at the
// window by eye; the assertions never depend on it).
#include "gui/mainwindow.h"
#include "core/deviceinfocache.h"
#include "core/matrixloader.h"

#include <QAbstractItemModelTester>
#include <QSettings>
#include <QSignalSpy>
#include <QSize>
#include <QTabWidget>
#include <QtTest>

namespace guitesting {

// A main window on its own settings file, resized to `size` when one is given, and shown: what a
// GUI test starts from. The settings come first: the window reads them as it is built.
struct ShownWindow {
    QSettings settings;
    spyglass::gui::MainWindow window;
    explicit ShownWindow(const QString& iniPath, QSize size = QSize()) : settings(iniPath, QSettings::IniFormat), window(settings) {
        if (size.isValid()) window.resize(size);
        window.show();
    }
};

inline bool openAndWait(spyglass::gui::MainWindow& window, const QString& path) {
    QSignalSpy loaded(&window.loader(), &spyglass::app::MatrixLoader::loadFinished);
    window.openFile(path);
    return loaded.wait(30000);
}

// The first tab holding a Panel, made current; null when there is none.
template <typename Panel> Panel* findPanel(spyglass::gui::MainWindow& window) {
    for (int i = 0; i < window.tabs()->count(); ++i)
        if (auto* panel = qobject_cast<Panel*>(window.tabs()->widget(i))) {
            window.tabs()->setCurrentIndex(i);
            return panel;
        }
    return nullptr;
}

// SPYGLASS_SCREENSHOT_DIR (or the older SPYGLASS_SCREENSHOTS) names the folder.
inline void maybeScreenshot(QWidget& window, const char* name) {
    QByteArray dir = qgetenv("SPYGLASS_SCREENSHOT_DIR");
    if (dir.isEmpty()) dir = qgetenv("SPYGLASS_SCREENSHOTS");
    if (dir.isEmpty()) return;
    QTest::qWait(300);
    window.grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + QLatin1String(name));
}

// Panels set their GPU backends when the cached device query answers (they asked first, so they
// are served first): wait for that before changing or reading them.
inline bool waitForDeviceInfo() {
    bool answered = false;
    QObject waiter;
    spyglass::app::DeviceInfoCache::shared().whenReady(&waiter, [&answered](const spyglass::DeviceInfo&) { answered = true; });
    return QTest::qWaitFor([&answered] { return answered; }, 60000);
}

// Checks a panel's table model with QAbstractItemModelTester for as long as the model lives; a
// broken invariant fails the running test.
inline void testModel(const QAbstractItemModel& model) {
    auto* checked = const_cast<QAbstractItemModel*>(&model);
    new QAbstractItemModelTester(checked, QAbstractItemModelTester::FailureReportingMode::QtTest, checked);
}

} // namespace guitesting
