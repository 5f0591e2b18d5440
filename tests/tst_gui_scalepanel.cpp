// The Scale tab inside the real main window, offscreen: the open matrix is cut into the partitions
// the CLI would cut (checked through QAbstractItemModelTester), drawn as one row band each; a format
// that allows fewer cuts says so; a report written by spyglass-cli power is read back (its numbers,
// its partitions on the picture) and a file that is not one is refused with the reason.
#include "guitesting.h"
#include "windowsuite.h"
#include "partitionmodel.h"
#include "scalepanel.h"
#include "spyview.h"
#include "testmatrices.h"

#include "spyglass/multigpu.h"

#include <QAbstractItemModelTester>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace guitesting;

class TestGuiScalePanel : public guitesting::WindowSuite {
    Q_OBJECT

public:
    TestGuiScalePanel() : WindowSuite(QSize(1200, 800)) {}

private:
    static bool waitForPlan(widgets::ScalePanel* panel) {
        QSignalSpy shown(panel, &widgets::ScalePanel::planShown);
        return shown.wait(30000) || !panel->isPlanning();
    }

private slots:
    void partitionsAreListedAndDrawn() {
        QVERIFY(openAndWait(window(), sharedMatrix("watt_2.mtx")));
        auto* panel = window().tabs()->findChild<widgets::ScalePanel*>();
        QVERIFY(panel);
        QAbstractItemModelTester tester(const_cast<widgets::PartitionModel*>(&panel->model()),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Behind another tab nothing is planned (planning builds a copy of the matrix in CSR) ...
        QVERIFY(!panel->isVisible());
        QVERIFY(!panel->isPlanning());
        QCOMPARE(panel->model().rowCount(), 0);
        QVERIFY(panel->status().contains(QStringLiteral("when this tab is shown")));
        // ... and bringing the tab to the front plans.
        QCOMPARE(findPanel<widgets::ScalePanel>(window()), panel);
        QTRY_VERIFY_WITH_TIMEOUT(panel->model().rowCount() > 0, 30000);
        const int widthBefore = window().width();
        panel->setFormat(PartitionFormat::Csr);
        panel->setPartitions(3);
        QTRY_COMPARE_WITH_TIMEOUT(panel->model().rowCount(), 3, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isPlanning(), 30000);
        const PartitionPlan& plan = panel->model().plan();
        QCOMPARE(plan.parts.front().rowBegin, 0);
        QCOMPARE(plan.parts.back().rowEnd, 1856);
        QVERIFY(plan.imbalance() < 1.05);
        const QList<widgets::RowBand> bands = window().spyView()->rowBands();
        QCOMPARE(bands.size(), 3);
        for (int p = 0; p < 3; ++p) {
            QCOMPARE(bands[p].rowBegin, plan.parts[std::size_t(p)].rowBegin);
            QCOMPARE(bands[p].rowEnd, plan.parts[std::size_t(p)].rowEnd);
        }
        QVERIFY2(panel->status().contains(QStringLiteral("send/recv")), qPrintable(panel->status()));
        maybeScreenshot(window(), "scale-watt2-3parts.png");
        // Segmented DIA cuts between 1024-row segments only: 1856 rows hold two.
        panel->setFormat(PartitionFormat::SegmentedDia);
        QTRY_COMPARE_WITH_TIMEOUT(panel->model().rowCount(), 2, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(panel->status().contains(QStringLiteral("no more cuts")), 30000);
        QCOMPARE(window().width(), widthBefore);
        // A complex matrix has no real SpMV: no partitions, no bands, the reason in the status line.
        QVERIFY(openAndWait(window(), sharedMatrix("young1c.mtx")));
        QTRY_VERIFY_WITH_TIMEOUT(panel->status().contains(QStringLiteral("complex")), 30000);
        QCOMPARE(panel->model().rowCount(), 0);
        QVERIFY(window().spyView()->rowBands().isEmpty());
    }

    void reportFromTheCliIsShown() {
        const QString cli = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/spyglass-cli");
        if (!QFileInfo(cli).isExecutable()) QSKIP("spyglass-cli is not built next to the tests");
        const QString report = m_dir.filePath(QStringLiteral("report.json"));
        QProcess process;
        process.start(cli, {QStringLiteral("power"), sharedMatrix("watt_2.mtx"), QStringLiteral("--cpu"), QStringLiteral("--partitions"),
                            QStringLiteral("4"), QStringLiteral("--iterations"), QStringLiteral("20"), QStringLiteral("--out"), report});
        QVERIFY(process.waitForFinished(120000));
        QCOMPARE(process.exitCode(), 0);

        QVERIFY(openAndWait(window(), sharedMatrix("watt_2.mtx")));
        auto* panel = findPanel<widgets::ScalePanel>(window());
        QVERIFY(panel);
        QVERIFY(panel->openReport(report));
        QVERIFY(panel->report().has_value());
        QCOMPARE(panel->report()->partitions.size(), 4);
        const QString summary = panel->reportSummary();
        QVERIFY2(summary.contains(QStringLiteral("agrees")) && summary.contains(QStringLiteral("Rayleigh")), qPrintable(summary));
        // The picture shows the report's partitions: the same cut, planned again for the open matrix.
        QTRY_COMPARE_WITH_TIMEOUT(panel->model().rowCount(), 4, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isPlanning(), 30000);
        for (int p = 0; p < 4; ++p)
            QCOMPARE(panel->model().plan().parts[std::size_t(p)].rowBegin, panel->report()->partitions[p].rowBegin);
        maybeScreenshot(window(), "scale-watt2-report.png");

        QFile bad(m_dir.filePath(QStringLiteral("bad.json")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("{\"matrix\": \"x\"}");
        bad.close();
        QVERIFY(!panel->openReport(bad.fileName()));
        QVERIFY2(panel->reportSummary().contains(QStringLiteral("not a spyglass-cli power report")), qPrintable(panel->reportSummary()));
        QVERIFY(panel->report().has_value());  // the report shown before is kept

        // A GPU run's report says how its steps ran and how much of the exchange hid behind the
        // multiply (the CPU run above has no exchange time: the lines are absent there).
        QVERIFY2(!panel->reportSummary().contains(QStringLiteral("hidden")), qPrintable(panel->reportSummary()));
        QFile source(report);
        QVERIFY(source.open(QIODevice::ReadOnly));
        QJsonObject gpu = QJsonDocument::fromJson(source.readAll()).object();
        gpu.insert(QStringLiteral("fusedStep"), true);
        gpu.insert(QStringLiteral("overlappedExchange"), true);
        gpu.insert(QStringLiteral("exchangeMs"), 0.3898);
        gpu.insert(QStringLiteral("hiddenExchangeMs"), 0.387);
        QFile gpuFile(m_dir.filePath(QStringLiteral("gpu.json")));
        QVERIFY(gpuFile.open(QIODevice::WriteOnly));
        gpuFile.write(QJsonDocument(gpu).toJson());
        gpuFile.close();
        QVERIFY(panel->openReport(gpuFile.fileName()));
        const QString gpuSummary = panel->reportSummary();
        QVERIFY2(gpuSummary.contains(QStringLiteral("one fused pass")) &&
                     gpuSummary.contains(QStringLiteral("exchange 0.3898 ms, 0.3870 ms of it hidden")),
                 qPrintable(gpuSummary));
        maybeScreenshot(window(), "scale-watt2-gpu-report.png");
    }
};

QTEST_MAIN(TestGuiScalePanel)
#include "tst_gui_scalepanel.moc"
#include "moc_windowsuite.cpp"
