// "Compare formats" inside the real main window, offscreen, on small matrices: the run goes off the
// GUI thread with progress, every format gets a table row (checked through QAbstractItemModelTester),
// each row names its backend (the GPU's where there is one, else the CPU reference), the
// recommendation names the fastest agreeing row, a double-click opens that format's own tab, Cancel
// stops a run, and the window does not grow wider with long texts.
#include "bitflagpanel.h"
#include "formatcomparisonmodel.h"
#include "formatcomparisonpanel.h"
#include "guitesting.h"
#include "hybridpanel.h"
#include "segdiapanel.h"
#include "testmatrices.h"
#include "windowsuite.h"

#include "spyglass/backend.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace guitesting;

class TestGuiFormatComparison : public guitesting::WindowSuite {
    Q_OBJECT

public:
    TestGuiFormatComparison() : WindowSuite(QSize(1200, 800)) {}

private slots:
    void compareFillsTheTableAndOpensAFormatsTab() {
        auto* panel = openInPanel<widgets::FormatComparisonPanel>(window(), sharedMatrix("karate.mtx"));
        QVERIFY(panel);
        QAbstractItemModelTester tester(const_cast<widgets::FormatComparisonModel*>(&panel->model()),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        const int widthBefore = window().width();
        QSignalSpy shown(panel, &widgets::FormatComparisonPanel::comparisonShown);
        QVERIFY(panel->compare());
        QVERIFY(panel->isRunning());
        QVERIFY(!panel->compare());  // one run at a time
        QVERIFY(shown.wait(60000));
        const widgets::FormatComparisonModel& model = panel->model();
        QCOMPARE(model.rowCount(), int(allSpmvFormats().size()));
        QCOMPARE(model.columnCount(), int(widgets::FormatComparisonModel::ColumnCount));
        const bool gpu = cudaDeviceInfo().present;
        const FormatComparison& c = model.comparison();
        QCOMPARE(c.onGpu, gpu);
        int fastest = -1;
        for (int r = 0; r < model.rowCount(); ++r) {
            const QString backend = model.data(model.index(r, widgets::FormatComparisonModel::Backend)).toString();
            if (gpu) QVERIFY2(backend == QLatin1String("CUDA") || backend == QLatin1String("cuSPARSE"), qPrintable(backend));
            else QCOMPARE(backend, QStringLiteral("CPU reference"));
            const FormatRow& row = c.results[std::size_t(r)];
            if (row.format == SpmvFormat::HybridValued) {  // karate is binary: its hybrid row is the binary one
                QVERIFY(!row.applicable);
                QVERIFY(model.data(model.index(r, widgets::FormatComparisonModel::Note)).toString().startsWith(QStringLiteral("not run: binary")));
                continue;
            }
            QVERIFY2(row.applicable, row.reason.c_str());  // karate is binary and small: every other format runs
            QVERIFY(model.data(model.index(r, widgets::FormatComparisonModel::Result)).toString().startsWith(QStringLiteral("ok")));
            if (fastest < 0 || row.spmv.medianMs < c.results[std::size_t(fastest)].spmv.medianMs) fastest = r;
        }
        QCOMPARE(c.pick, fastest);
        QVERIFY2(panel->recommendationText().contains(QString::fromStdString(c.results[std::size_t(fastest)].name) + QLatin1Char(':')),
                 qPrintable(panel->recommendationText()));
        QVERIFY(model.data(model.index(fastest, 0), Qt::FontRole).value<QFont>().bold());
        QVERIFY(window().width() <= widthBefore);
        maybeScreenshot(window(), "compare-formats.png");

        // Double-clicking a row opens that format's tab.
        const auto openRow = [&](SpmvFormat format) {
            for (int r = 0; r < model.rowCount(); ++r)
                if (model.formatAt(r) == format) {
                    const QModelIndex index = model.index(r, 0);
                    panel->table()->scrollTo(index);
                    const QRect rect = panel->table()->visualRect(index);
                    // A press first, as a user's double-click starts with one (the view pairs them).
                    QTest::mouseClick(panel->table()->viewport(), Qt::LeftButton, {}, rect.center());
                    QTest::mouseDClick(panel->table()->viewport(), Qt::LeftButton, {}, rect.center());
                    return;
                }
        };
        openRow(SpmvFormat::BitFlag);
        QVERIFY(qobject_cast<widgets::BitFlagPanel*>(window().panelAt(window().tabs()->currentIndex())));
        findPanel<widgets::FormatComparisonPanel>(window());
        openRow(SpmvFormat::SegmentedDia);
        QVERIFY(qobject_cast<widgets::SegmentedDiaPanel*>(window().panelAt(window().tabs()->currentIndex())));
        findPanel<widgets::FormatComparisonPanel>(window());
        openRow(SpmvFormat::HybridBinary);
        QVERIFY(qobject_cast<widgets::HybridPanel*>(window().panelAt(window().tabs()->currentIndex())));
        findPanel<widgets::FormatComparisonPanel>(window());
        openRow(SpmvFormat::HybridValued);
        QVERIFY(qobject_cast<widgets::HybridPanel*>(window().panelAt(window().tabs()->currentIndex())));
    }

    void cancelStopsARunAndANonBinaryMatrixGivesTheHybridReason() {
        auto* panel = openInPanel<widgets::FormatComparisonPanel>(window(), sharedMatrix("bcsstk13.mtx"));
        QVERIFY(panel);
        QSignalSpy shown(panel, &widgets::FormatComparisonPanel::comparisonShown);
        QVERIFY(panel->compare());
        panel->cancel();
        // A cancel before the outcome arrives wins (the job drops even a finished result), so the
        // run is cancelled however fast it was: the status says so and nothing is shown.
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isRunning(), 60000);
        QCOMPARE(panel->statusText(), QStringLiteral("Cancelled"));
        QCOMPARE(shown.count(), 0);
        QCOMPARE(panel->model().rowCount(), 0);
        QVERIFY(panel->compare());
        QVERIFY(shown.wait(120000));
        const FormatComparison& c = panel->model().comparison();
        QVERIFY(!c.results[5].applicable);
        QVERIFY(c.results[5].reason.rfind("not binary", 0) == 0);
        const QString note = panel->model().data(panel->model().index(5, widgets::FormatComparisonModel::Note)).toString();
        QVERIFY(note.startsWith(QStringLiteral("not run: not binary")));
        // The valued matrix gets method D with its values instead.
        QCOMPARE(c.results[6].format, SpmvFormat::HybridValued);
        QVERIFY2(c.results[6].applicable && c.results[6].agrees, c.results[6].reason.c_str());
    }

    void aComplexMatrixIsComparedInComplexValues() {
        // young1c (complex acoustics stencil): the precision choice names c64/c128, every format that
        // holds complex values agrees, bit flags say why not; a real matrix afterwards is fp32/fp64 again.
        auto* panel = openInPanel<widgets::FormatComparisonPanel>(window(), sharedMatrix("young1c.mtx"));
        QVERIFY(panel);
        auto* precision = panel->findChild<QComboBox*>(QStringLiteral("precision"));
        QVERIFY(precision);
        QCOMPARE(precision->currentText(), QStringLiteral("c128"));
        QSignalSpy shown(panel, &widgets::FormatComparisonPanel::comparisonShown);
        QVERIFY(panel->compare());
        QVERIFY(shown.wait(60000));
        const FormatComparison& c = panel->model().comparison();
        QCOMPARE(c.precision, std::string("c128"));
        for (const FormatRow& row : c.results) {
            if (row.format == SpmvFormat::BitFlag || row.format == SpmvFormat::HybridBinary) {
                QVERIFY(!row.applicable);
                continue;
            }
            QVERIFY2(row.applicable && row.agrees, (row.name + ": " + row.reason).c_str());
        }
        const QString median = panel->model().data(panel->model().index(0, widgets::FormatComparisonModel::Median)).toString();
        QVERIFY2(median.contains(QStringLiteral("ms")), qPrintable(median));
        maybeScreenshot(window(), "compare_complex_young1c.png");
        QVERIFY(openInPanel<widgets::FormatComparisonPanel>(window(), sharedMatrix("olm1000.mtx")));
        QCOMPARE(precision->currentText(), QStringLiteral("fp64"));
    }
};

QTEST_MAIN(TestGuiFormatComparison)
#include "tst_gui_formatcomparison.moc"
#include "moc_windowsuite.cpp"
