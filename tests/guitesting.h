#pragma once
// Steps the GUI suites share: a shown main window, open a file in the main window and wait for it, bring a method tab to
// the front, set a panel's spin boxes, run a panel and wait for its result, and save a screenshot when
// SPYGLASS_SCREENSHOT_DIR names a folder (for looking at the window by eye; the assertions never depend on it).
#include "gui/mainwindow.h"
#include "core/deviceinfocache.h"
#include "core/matrixloader.h"

#include <QAbstractItemModelTester>
#include <QSettings>
#include <QSignalSpy>
#include <QSize>
#include <QSpinBox>
#include <QTabWidget>
#include <QtTest>

#include <initializer_list>
#include <type_traits>
#include <utility>

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
        if (auto* panel = qobject_cast<Panel*>(window.panelAt(i))) {
            window.tabs()->setCurrentIndex(i);
            return panel;
        }
    return nullptr;
}

// Opens path in the window, waits for it to load and brings the first Panel tab to the front: the
// start of most panel tests. Null when the file did not load within 30 s or no tab holds a Panel
// (a warning says which).
template <typename Panel> Panel* openInPanel(spyglass::gui::MainWindow& window, const QString& path) {
    if (!openAndWait(window, path)) {
        qWarning() << "not loaded within 30 s:" << path;
        return nullptr;
    }
    Panel* panel = findPanel<Panel>(window);
    if (!panel) qWarning() << "no tab holds a" << Panel::staticMetaObject.className();
    return panel;
}

// Sets each spin box under parent, named by objectName, to its value; false when parent lacks one.
inline bool setSpinBoxes(QObject& parent, std::initializer_list<std::pair<const char*, int>> values) {
    for (const auto& [name, value] : values) {
        auto* box = parent.findChild<QSpinBox*>(QLatin1String(name));
        if (!box) return false;
        box->setValue(value);
    }
    return true;
}

// Calls start and waits up to timeoutMs for sender's done signal: a panel run and its result. A
// start that returns bool (a run that may refuse) counts too: false when it refused.
template <typename Sender, typename Signal, typename Start>
bool runAndWait(Sender* sender, Signal done, Start start, int timeoutMs) {
    QSignalSpy finished(sender, done);
    if constexpr (std::is_same_v<decltype(start()), bool>) {
        if (!start()) return false;
    } else {
        start();
    }
    return finished.wait(timeoutMs);
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
