// The Segmented DIA and Dense regions tabs on complex matrices, driven as a user does in the real
// main window: the layout is built and drawn (one band per segment), SpMV runs in c128 on the CPU
// reference and its y agrees with y = A x computed straight from the file's entries (complexoracle.h);
// the GPU backends, where ticked, say why they did not run; the exports, whose containers hold real
// values, are disabled and, asked anyway, fail naming why and write nothing.
// Set SPYGLASS_SCREENSHOT_DIR=DIR to save pictures of each tab.
#include "complexoracle.h"
#include "guitesting.h"
#include "testmatrices.h"
#include "gui/mainwindow.h"
#include "hybridpanel.h"
#include "hybridspmvview.h"
#include "segdiapanel.h"
#include "spyview.h"

#include "spyglass/matrixmarket.h"

#include <QAction>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace guitesting;
using complexoracle::directProduct;
using complexoracle::worstRelativeError;

class TestComplexPanels : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void segmentedDiaTabRunsComplexOnTheCpuAndRefusesTheExport() {
        const QString path = sharedMatrix("young1c.mtx");
        REQUIRE_TEST_DATA(path);
        ShownWindow fixture(m_dir.filePath(QStringLiteral("a.ini")), QSize(1500, 950));
        gui::MainWindow& window = fixture.window;
        auto* panel = openInPanel<widgets::SegmentedDiaPanel>(window, path);
        QVERIFY(panel);
        QVERIFY(runAndWait(panel, &widgets::SegmentedDiaPanel::layoutShown, [panel] { panel->runSpmv(); }, 30000));
        const app::SegmentedDiaLayout& layout = panel->layout();
        QVERIFY(layout.isComplex());
        QCOMPARE(window.spyView()->rowBands().size(), int(layout.format->segments()));
        QVERIFY(!layout.spmv.isEmpty());
        const app::SpmvRun& cpu = layout.spmv.first();
        QVERIFY2(cpu.error.isEmpty(), qPrintable(cpu.error));
        const Matrix m = readMatrixMarket(path.toStdString());
        const double worst = worstRelativeError(cpu.complexY, directProduct(m, layout.complexX));
        qInfo("Segmented DIA tab, young1c c128: worst relative error vs the file's own product %.3g (vs complex CSR %.3g)", worst,
              cpu.maxRelativeError);
        QVERIFY2(worst <= 1e-12, qPrintable(QString::number(worst)));
        QVERIFY(worstRelativeError(cpu.complexY, directProduct(m, layout.complexX, true)) > 1e-3);
        for (const app::SpmvRun& gpu : layout.spmv.mid(1)) QVERIFY2(gpu.error.contains(QStringLiteral("complex values")), qPrintable(gpu.error));
        QVERIFY2(panel->statusText().contains(QStringLiteral("c128")), qPrintable(panel->statusText()));
        QVERIFY(!panel->exportAction()->isEnabled());
        maybeScreenshot(window, "complex_segdia.png");

        QSignalSpy failed(panel, &widgets::SegmentedDiaPanel::exportFailed);
        const QString out = m_dir.filePath(QStringLiteral("young1c-segdia.spy"));
        QVERIFY(panel->exportContainer(out));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
        const QString message = failed.first().first().toString();
        QVERIFY2(message.contains(QStringLiteral("complex")) && message.contains(QStringLiteral("holds real")), qPrintable(message));
        QVERIFY(!QFileInfo::exists(out));
    }

    void denseRegionsTabRunsComplexOnTheCpuAndRefusesTheExport() {
        const QString path = sharedMatrix("young1c.mtx");
        REQUIRE_TEST_DATA(path);
        ShownWindow fixture(m_dir.filePath(QStringLiteral("b.ini")), QSize(1500, 950));
        gui::MainWindow& window = fixture.window;
        auto* panel = openInPanel<widgets::HybridPanel>(window, path);
        QVERIFY(panel);
        QVERIFY(runAndWait(panel, &widgets::HybridPanel::resultShown, [panel] { panel->detect(); }, 30000));
        const app::HybridDetectionResult& result = panel->result();
        QVERIFY(result.complexValued);
        QVERIFY(!panel->exportAction()->isEnabled());
        widgets::HybridSpmvView* spmv = panel->spmvView();
        QVERIFY(runAndWait(spmv, &widgets::HybridSpmvView::resultShown, [spmv] { return spmv->run(); }, 60000));
        const app::HybridSpmvResult& runs = spmv->result();
        QVERIFY(!runs.runs.isEmpty());
        const app::HybridSpmvRun& cpu = runs.runs.first();
        QVERIFY2(cpu.error.isEmpty() && cpu.matches, qPrintable(cpu.error));
        const Matrix m = readMatrixMarket(path.toStdString());
        const double worst = worstRelativeError(cpu.complexY, directProduct(m, runs.complexX));
        qInfo("Dense regions tab, young1c c128: worst relative error vs the file's own product %.3g (error / rounding bound %.3g)", worst,
              cpu.errorOverBound);
        QVERIFY2(worst <= 1e-12, qPrintable(QString::number(worst)));
        QVERIFY(worstRelativeError(cpu.complexY, directProduct(m, runs.complexX, true)) > 1e-3);
        maybeScreenshot(window, "complex_hybrid.png");

        QSignalSpy failed(panel, &widgets::HybridPanel::exportFailed);
        const QString out = m_dir.filePath(QStringLiteral("young1c.spy"));
        QVERIFY(panel->exportContainer(out));
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 30000);
        const QString message = failed.first().at(1).toString();
        QVERIFY2(message.contains(QStringLiteral("complex values")) && message.contains(QStringLiteral("real values")), qPrintable(message));
        QVERIFY(!QFileInfo::exists(out));
    }
};

QTEST_MAIN(TestComplexPanels)
#include "tst_gui_complexpanels.moc"
