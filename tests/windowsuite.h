#pragma once
// The base of the GUI suites whose every test starts from a fresh main window: before each test
// (each data row) a window on its own settings file, named after the test, resized to the suite's
// size and shown; after it, the window is gone. A suite derives from WindowSuite, passes its size,
// and adds #include "moc_windowsuite.cpp" beside its own .moc include.
#include "guitesting.h"

#include <QObject>
#include <QSize>
#include <QTemporaryDir>

#include <memory>

namespace guitesting {

class WindowSuite : public QObject {
    Q_OBJECT

public:
    explicit WindowSuite(QSize size = QSize()) : m_size(size) {}

protected:
    QTemporaryDir m_dir;  // the settings files, and whatever else a test writes

    spyglass::gui::MainWindow& window() { return m_shown->window; }

private slots:
    void init() {
        QVERIFY(m_dir.isValid());
        m_shown = std::make_unique<ShownWindow>(m_dir.filePath(QLatin1String(QTest::currentTestFunction()) + QStringLiteral(".ini")),
                                                m_size);
    }
    void cleanup() { m_shown.reset(); }

private:
    QSize m_size;
    std::unique_ptr<ShownWindow> m_shown;
};

} // namespace guitesting
