// Container exports from the real main window: the Segmented DIA panel's Export (button and Tools
// menu) writes the built layout, File > Export as Bit-Flag Container writes the open matrix, and the
// dense-region panel writes the hybrid encoding; all run off the GUI thread, read back to the
// matrix's entries, and report failures by path. A file damaged between writing and reading back
// (the checked writer's test hook) is refused and the file already there stays as it was.
#include "guitesting.h"
#include "windowsuite.h"
#include "matrixentries.h"
#include "testmatrices.h"
#include "bitflagexportaction.h"
#include "core/checkedwrite.h"
#include "gui/mainwindow.h"
#include "hybridpanel.h"
#include "maincontext.h"
#include "segdiapanel.h"

#include "spyglass/container.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/matrixmarket.h"

#include <fstream>

#include <QMenuBar>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <cstring>

using namespace spyglass;
using namespace guitesting;

namespace {
widgets::SegmentedDiaPanel* segdiaPanel(gui::MainWindow& window) {
    for (int i = 0; i < window.tabs()->count(); ++i)
        if (auto* panel = qobject_cast<widgets::SegmentedDiaPanel*>(window.panelAt(i))) return panel;
    return nullptr;
}

QAction* menuAction(gui::MainWindow& window, const QString& menuTitle, const QString& text) {
    for (QAction* top : window.menuBar()->actions())
        if (top->text() == menuTitle && top->menu())
            for (QAction* a : top->menu()->actions())
                if (a->text() == text) return a;
    return nullptr;
}

bool sameEntries(const Matrix& a, const Matrix& b) {
    return matrixentries::sameCsrBits(toCsr<double>(a), toCsr<double>(b));
}

// Flips one bit in the middle of a file, as a faulty serialiser or disk would.
void flipMiddleBit(const std::string& path) {
    std::string bytes = readFileBytes(path);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x10);
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

// Clears the checked writer's test hook however the test ends.
struct TamperGuard {
    explicit TamperGuard(std::function<void(const std::string&)> tamper) { app::testing::setCheckedWriteTamper(std::move(tamper)); }
    ~TamperGuard() { app::testing::setCheckedWriteTamper({}); }
};
} // namespace

class TestGuiContainerExport : public guitesting::WindowSuite {
    Q_OBJECT

private slots:
    void segmentedDiaPanelExportsTheBuiltLayout() {
        const QString source = sharedMatrix("olm1000.mtx");
        QVERIFY(openAndWait(window(), source));
        widgets::SegmentedDiaPanel* panel = segdiaPanel(window());
        QVERIFY(panel);
        QVERIFY(!panel->exportAction()->isEnabled());  // nothing built yet
        QVERIFY(!panel->exportContainer(m_dir.filePath(QStringLiteral("early.spy"))));
        QVERIFY(menuAction(window(), QStringLiteral("&Tools"), QStringLiteral("Export segmented DIA container…")));

        QVERIFY(runAndWait(panel, &widgets::SegmentedDiaPanel::layoutShown, [panel] { panel->build(); }, 30000));
        QVERIFY(panel->exportAction()->isEnabled());

        const QString out = m_dir.filePath(QStringLiteral("olm.spy"));
        QSignalSpy finished(panel, &widgets::SegmentedDiaPanel::exportFinished);
        QSignalSpy failed(panel, &widgets::SegmentedDiaPanel::exportFailed);
        QVERIFY(panel->exportContainer(out));
        QVERIFY(finished.wait(30000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.first().at(0).toString(), out);
        QVERIFY2(panel->statusText().contains(QStringLiteral("segdia container")), qPrintable(panel->statusText()));
        // The file holds the layout as built (threshold and merge from the panel) and decodes to the matrix.
        const SegmentedDiaMatrix<double> read = parseSegmentedDiaContainer(readFileBytes(out.toStdString()));
        QCOMPARE(read.threshold, panel->layout().format->threshold);
        QVERIFY(read.offsets == panel->layout().format->offsets);
        QVERIFY(read.values == panel->layout().format->values);
        QVERIFY(sameEntries(readContainerMatrix(out.toStdString()), readMatrixMarket(source.toStdString())));

        // A failed export names the path, arrives as a signal, and leaves the panel usable.
        const QString bad = m_dir.filePath(QStringLiteral("missing-folder/x.spy"));
        QVERIFY(panel->exportContainer(bad));
        QVERIFY(failed.wait(30000));
        QVERIFY2(failed.first().at(0).toString().contains(QStringLiteral("missing-folder")), qPrintable(failed.first().at(0).toString()));
        QVERIFY(panel->statusText().contains(QStringLiteral("missing-folder")));
        QVERIFY(panel->exportAction()->isEnabled());
    }

    void fileMenuExportsTheOpenMatrixAsBitFlags() {
        auto* action = window().findChild<widgets::BitFlagExportAction*>(QStringLiteral("exportBitFlagAction"));
        QVERIFY(action);
        QVERIFY(menuAction(window(), QStringLiteral("&File"), action->text()));
        QVERIFY(!action->isEnabled());  // no matrix yet

        const QString source = sharedMatrix("lp_afiro.mtx");
        QVERIFY(openAndWait(window(), source));
        QVERIFY(action->isEnabled());
        const QString out = m_dir.filePath(QStringLiteral("afiro.spy"));
        QSignalSpy finished(action, &widgets::BitFlagExportAction::exportFinished);
        QVERIFY(action->exportTo(out, BitFlagOrder::ColumnMajor, true));
        QVERIFY(finished.wait(30000));
        Field field = Field::Complex;
        const BitFlagMatrix<double> read = parseBitFlagContainer(readFileBytes(out.toStdString()), "afiro", &field);
        QCOMPARE(read.order, BitFlagOrder::ColumnMajor);
        QVERIFY(read.withPrefixCounts);
        QCOMPARE(field, Field::Real);
        QVERIFY(sameEntries(readContainerMatrix(out.toStdString()), readMatrixMarket(source.toStdString())));

        QSignalSpy failed(action, &widgets::BitFlagExportAction::exportFailed);
        QVERIFY(action->exportTo(m_dir.filePath(QStringLiteral("nowhere/x.spy"))));
        QVERIFY(failed.wait(30000));
        QVERIFY(failed.first().at(0).toString().contains(QStringLiteral("nowhere")));

        // A complex matrix has no bit-flag container: the action says so instead of failing later.
        QVERIFY(openAndWait(window(), sharedMatrix("young1c.mtx")));
        QVERIFY(!action->isEnabled());
        QVERIFY(action->toolTip().contains(QStringLiteral("complex")));
    }

    void hybridExportIsReadBackAndADamagedFileIsRefused() {
        const QString source = sharedMatrix("pushpull.mtx");
        auto* panel = openInPanel<widgets::HybridPanel>(window(), source);
        QVERIFY(panel);
        QVERIFY(runAndWait(panel, &widgets::HybridPanel::resultShown, [panel] { panel->detect(); }, 30000));
        QVERIFY(panel->result().hybrid && !panel->result().hybrid->blocks.empty());
        const QString out = m_dir.filePath(QStringLiteral("pushpull.spy"));
        QSignalSpy finished(panel, &widgets::HybridPanel::exportFinished);
        QSignalSpy failed(panel, &widgets::HybridPanel::exportFailed);
        QVERIFY(panel->exportContainer(out));
        QVERIFY(finished.wait(30000));
        const std::string written = readFileBytes(out.toStdString());
        QVERIFY(decodeHybrid(parseHybridContainer(written)) == binaryPatternFromMatrix(readMatrixMarket(source.toStdString())));

        // The same export with one bit flipped after writing: refused, the earlier file untouched,
        // and no temporary file left beside it.
        int tampered = 0;
        {
            TamperGuard guard([&tampered](const std::string& path) {
                ++tampered;
                flipMiddleBit(path);
            });
            QVERIFY(panel->exportContainer(out));
            QVERIFY(failed.wait(30000));
        }
        QCOMPARE(tampered, 1);
        QCOMPARE(finished.count(), 1);
        QVERIFY2(failed.first().at(1).toString().contains(QStringLiteral("does not read back")), qPrintable(failed.first().at(1).toString()));
        QVERIFY(readFileBytes(out.toStdString()) == written);
        QCOMPARE(QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden).filter(QStringLiteral(".check-")).size(), 0);
    }
};

QTEST_MAIN(TestGuiContainerExport)
#include "tst_gui_containerexport.moc"
#include "moc_windowsuite.cpp"
