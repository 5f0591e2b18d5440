// The Segmented DIA and Dense regions tabs on complex matrices, driven as a user does in the real
// main window: the layout is built and drawn (one band per segment), SpMV runs in c128 on the CPU
// reference and its y agrees with y = A x computed straight from the file's entries (complexoracle.h);
// the segmented-DIA tab's GPU backends agree the same way where there is a device (else say why not),
// the Dense regions tab's hybrid GPU kernels say why they did not run; the exports, whose containers hold real
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

#include "spyglass/backend.h"
#include "spyglass/matrixmarket.h"

#include <QAction>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <optional>

using namespace spyglass;
using namespace guitesting;
using complexoracle::directProduct;
using complexoracle::worstRelativeError;

namespace {

// `path` opened in `window` and shown in `Panel`'s tab, after `start(panel)` ran it until `done`;
// null (with a warning saying which step failed) otherwise.
template <typename Panel, typename Done, typename Start>
Panel* openAndRun(gui::MainWindow& window, const QString& path, Done done, Start start) {
    Panel* panel = openInPanel<Panel>(window, path);
    if (!panel) return nullptr;
    if (runAndWait(panel, done, [panel, &start] { start(*panel); }, 30000)) return panel;
    qWarning() << Panel::staticMetaObject.className() << "did not finish within 30 s";
    return nullptr;
}

// Asks `panel` to export what it cannot hold to `out` and returns the refusal: the message of its one
// exportFailed signal (the argument at `messageArgument`), provided the export started and wrote no
// file; otherwise what went wrong instead, which names neither "complex" nor "real".
template <typename Panel, typename Signal>
QString exportRefusal(Panel* panel, Signal exportFailed, int messageArgument, const QString& out) {
    QSignalSpy failed(panel, exportFailed);
    if (!panel->exportContainer(out)) return QStringLiteral("the export did not start");
    if (!QTest::qWaitFor([&failed] { return failed.count() >= 1; }, 30000)) return QStringLiteral("no exportFailed came");
    if (failed.count() != 1) return QStringLiteral("exportFailed came %1 times").arg(failed.count());
    if (QFileInfo::exists(out)) return QStringLiteral("the file was written: ") + out;
    return failed.first().at(messageArgument).toString();
}

// The worst relative error of y against A x computed straight from the file's entries, and against
// the product with the values conjugated (far from y, so that a lost sign of the imaginary parts shows).
struct FileProductErrors {
    double worst = 0;
    double conjugated = 0;
};

FileProductErrors errorsAgainstTheFile(const QString& path, const std::vector<std::complex<double>>& y,
                                       const std::vector<std::complex<double>>& x) {
    const Matrix m = readMatrixMarket(path.toStdString());
    return {worstRelativeError(y, directProduct(m, x)), worstRelativeError(y, directProduct(m, x, true))};
}

} // namespace

class TestComplexPanels : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_young1c;                    // the complex matrix both tabs run on
    std::optional<ShownWindow> m_window;  // each test's own, with its own settings file

    gui::MainWindow& window() { return m_window->window; }

private slots:
    void initTestCase() {
        m_young1c = sharedMatrix("young1c.mtx");
        REQUIRE_TEST_DATA(m_young1c);
    }
    void init() {
        m_window.emplace(m_dir.filePath(QString::fromLatin1(QTest::currentTestFunction()) + QStringLiteral(".ini")), QSize(1500, 950));
    }
    void cleanup() { m_window.reset(); }

    void segmentedDiaTabRunsComplexAndRefusesTheExport() {
        auto* panel = openAndRun<widgets::SegmentedDiaPanel>(window(), m_young1c, &widgets::SegmentedDiaPanel::layoutShown,
                                                             [](widgets::SegmentedDiaPanel& p) { p.runSpmv(); });
        QVERIFY(panel);
        const app::SegmentedDiaLayout& layout = panel->layout();
        QVERIFY(layout.isComplex());
        QCOMPARE(window().spyView()->rowBands().size(), int(layout.format->segments()));
        QVERIFY(!layout.spmv.isEmpty());
        const app::SpmvRun& cpu = layout.spmv.first();
        QVERIFY2(cpu.error.isEmpty(), qPrintable(cpu.error));
        const FileProductErrors errors = errorsAgainstTheFile(m_young1c, cpu.complexY, layout.complexX);
        qInfo("Segmented DIA tab, young1c c128: worst relative error vs the file's own product %.3g (vs complex CSR %.3g)", errors.worst,
              cpu.maxRelativeError);
        QVERIFY2(errors.worst <= 1e-12, qPrintable(QString::number(errors.worst)));
        QVERIFY(errors.conjugated > 1e-3);
        // The GPU rows multiply c128 where there is a device, else say why not.
        for (const app::SpmvRun& gpu : layout.spmv.mid(1)) {
            if (!cudaDeviceInfo().present) {
                QVERIFY2(!gpu.error.isEmpty(), qPrintable(gpu.name));
                continue;
            }
            QVERIFY2(gpu.error.isEmpty(), qPrintable(gpu.error));
            QVERIFY2(errorsAgainstTheFile(m_young1c, gpu.complexY, layout.complexX).worst <= 1e-12, qPrintable(gpu.name));
        }
        QVERIFY2(panel->statusText().contains(QStringLiteral("c128")), qPrintable(panel->statusText()));
        QVERIFY(!panel->exportAction()->isEnabled());
        maybeScreenshot(window(), "complex_segdia.png");

        const QString refusal =
            exportRefusal(panel, &widgets::SegmentedDiaPanel::exportFailed, 0, m_dir.filePath(QStringLiteral("young1c-segdia.spy")));
        QVERIFY2(refusal.contains(QStringLiteral("complex")) && refusal.contains(QStringLiteral("holds real")), qPrintable(refusal));
    }

    void denseRegionsTabRunsComplexOnTheCpuAndRefusesTheExport() {
        auto* panel = openAndRun<widgets::HybridPanel>(window(), m_young1c, &widgets::HybridPanel::resultShown,
                                                       [](widgets::HybridPanel& p) { p.detect(); });
        QVERIFY(panel);
        const app::HybridDetectionResult& result = panel->result();
        QVERIFY(result.complexValued);
        QVERIFY(!panel->exportAction()->isEnabled());
        widgets::HybridSpmvView* spmv = panel->spmvView();
        QVERIFY(runAndWait(spmv, &widgets::HybridSpmvView::resultShown, [spmv] { return spmv->run(); }, 60000));
        const app::HybridSpmvResult& runs = spmv->result();
        QVERIFY(!runs.runs.isEmpty());
        const app::HybridSpmvRun& cpu = runs.runs.first();
        QVERIFY2(cpu.error.isEmpty() && cpu.matches, qPrintable(cpu.error));
        const FileProductErrors errors = errorsAgainstTheFile(m_young1c, cpu.complexY, runs.complexX);
        qInfo("Dense regions tab, young1c c128: worst relative error vs the file's own product %.3g (error / rounding bound %.3g)",
              errors.worst, cpu.errorOverBound);
        QVERIFY2(errors.worst <= 1e-12, qPrintable(QString::number(errors.worst)));
        QVERIFY(errors.conjugated > 1e-3);
        maybeScreenshot(window(), "complex_hybrid.png");

        const QString refusal = exportRefusal(panel, &widgets::HybridPanel::exportFailed, 1, m_dir.filePath(QStringLiteral("young1c.spy")));
        QVERIFY2(refusal.contains(QStringLiteral("complex values")) && refusal.contains(QStringLiteral("real values")), qPrintable(refusal));
    }
};

QTEST_MAIN(TestComplexPanels)
#include "tst_gui_complexpanels.moc"
