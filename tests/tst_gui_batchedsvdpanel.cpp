// The batched-SVD panel driven as a user would (offscreen): set the inputs, run on the CPU, and the
// table, the singular-value and convergence plots and the timing chart show what the library
// computes for the same batch; bad shapes and files show a clear error and the panel keeps working;
// Cancel stops a long run; without a GPU the panel says that only the CPU reference runs.
#include "batchedsvdaccuracymodel.h"
#include "guitesting.h"
#include "testfiles.h"
#include "batchedsvdpanel.h"
#include "linechart.h"
#include "timingchart.h"

#include "spyglass/backend.h"
#include "spyglass/batchedsvd.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using spyglass::widgets::BatchedSvdAccuracyModel;
using spyglass::widgets::BatchedSvdPanel;
using spyglass::widgets::LineChart;

namespace {

void onlyCpu(BatchedSvdPanel& panel) {
    // The test must not depend on a GPU being present (nor the device query tick the GPU boxes later).
    if (!guitesting::waitForDeviceInfo()) qFatal("the device query did not answer");
    for (QCheckBox* box : panel.findChildren<QCheckBox*>())
        if (box->objectName().startsWith(QLatin1String("use"))) box->setChecked(box->objectName() == QLatin1String("useCpu"));
}

template <typename W> W* child(BatchedSvdPanel& panel, const char* name) {
    W* w = panel.findChild<W*>(QLatin1String(name));
    if (!w) qFatal("no child %s", name);
    return w;
}

// The batch to factorise: batch matrices of rows x columns.
void setShape(BatchedSvdPanel& panel, int rows, int columns, int batch) {
    child<QSpinBox>(panel, "rows")->setValue(rows);
    child<QSpinBox>(panel, "columns")->setValue(columns);
    child<QSpinBox>(panel, "batch")->setValue(batch);
}

bool runAndWait(BatchedSvdPanel& panel) {
    QSignalSpy done(&panel, &BatchedSvdPanel::allRunsFinished);
    QTest::mouseClick(child<QPushButton>(panel, "run"), Qt::LeftButton);
    return done.count() > 0 || done.wait(60000);
}

} // namespace

class TestGuiBatchedSvdPanel : public QObject {
    Q_OBJECT
private slots:
    void cpuRunShowsTheLibrarysResultInTableAndPlots() {
        BatchedSvdPanel panel;
        guitesting::testModel(panel.accuracyModel());
        panel.resize(1400, 900);
        setShape(panel, 10, 7, 150);
        child<QComboBox>(panel, "precision")->setCurrentIndex(1);  // f64
        child<QComboBox>(panel, "input")->setCurrentIndex(2);      // graded
        child<QSpinBox>(panel, "seed")->setValue(3);
        onlyCpu(panel);
        QVERIFY(runAndWait(panel));
        QVERIFY(!panel.isRunning());
        QVERIFY2(panel.resultText().contains(QStringLiteral("150 x 10x7 f64 on cpu")), qPrintable(panel.resultText()));

        // The library on the same batch.
        const int m = 10, n = 7, count = 150;
        const std::vector<double> a = generateSvdBatch<double>(SvdBatchKind::Graded, m, n, count, 3);
        std::vector<double> u(a.size()), v(count * n * n), sigma(count * n);
        SvdOptions options;
        options.historyMatrices = count;
        const SvdRunInfo run = svdBatched(a.data(), u.data(), sigma.data(), v.data(), m, n, count, options);
        const SvdAccuracy acc = svdAccuracy(a.data(), u.data(), sigma.data(), v.data(), m, n, count, &run.status);
        const int maxSweeps = *std::max_element(run.sweeps.begin(), run.sweeps.end());

        auto* table = child<QTableView>(panel, "accuracy");
        QCOMPARE(table->model(), &panel.accuracyModel());
        QCOMPARE(table->model()->rowCount(), 1);
        auto cell = [table](int column) { return table->model()->index(0, column).data().toString(); };
        QCOMPARE(cell(BatchedSvdAccuracyModel::BackendColumn), QStringLiteral("CPU reference"));
        QCOMPARE(cell(BatchedSvdAccuracyModel::ReconstructionColumn), QString::number(acc.reconstruction, 'g', 3));
        QCOMPARE(cell(BatchedSvdAccuracyModel::UOrthogonalityColumn), QString::number(acc.uOrthogonality, 'g', 3));
        QCOMPARE(cell(BatchedSvdAccuracyModel::VOrthogonalityColumn), QString::number(acc.vOrthogonality, 'g', 3));
        QCOMPARE(cell(BatchedSvdAccuracyModel::SweepsColumn), QString::number(maxSweeps));
        QCOMPARE(cell(BatchedSvdAccuracyModel::NotConvergedColumn), QString::number(run.notConvergedCount()));
        QCOMPARE(cell(BatchedSvdAccuracyModel::NonFiniteColumn), QStringLiteral("0"));
        QVERIFY(cell(BatchedSvdAccuracyModel::ComputeColumn).toDouble() > 0);
        QCOMPARE(cell(BatchedSvdAccuracyModel::SetupColumn), QStringLiteral("0.000"));  // the CPU sets nothing up

        // Pick matrix 42: its singular values and its sweep history, as the library has them.
        child<QSpinBox>(panel, "matrixIndex")->setValue(42);
        QCOMPARE(child<QSpinBox>(panel, "matrixIndex")->maximum(), count - 1);
        auto* spectrum = child<LineChart>(panel, "singularValues");
        QCOMPARE(spectrum->series().size(), 1);
        const auto sv = spectrum->series().first();
        QCOMPARE(sv.y.size(), n);
        for (int k = 0; k < n; ++k) {
            QCOMPARE(sv.x[k], double(k + 1));
            QCOMPARE(sv.y[k], sigma[42 * n + k]);
        }
        QCOMPARE(spectrum->drawnPoints(), n);  // graded: all positive, all on the log axis
        auto* convergence = child<LineChart>(panel, "convergence");
        QCOMPARE(convergence->series().size(), 1);
        QCOMPARE(convergence->series().first().y,
                 QVector<double>(run.sweepHistory[42].begin(), run.sweepHistory[42].end()));
        QVERIFY(convergence->drawnPoints() >= 2);
        QVERIFY(child<QLabel>(panel, "matrixInfo")->text().contains(
            QStringLiteral("converged after %1 sweeps").arg(run.sweeps[42])));
        const auto times = child<widgets::TimingChart>(panel, "timing")->timings();
        QCOMPARE(times.size(), 1);
        QVERIFY(times.first().second > 0);
        QCOMPARE(child<QProgressBar>(panel, "progress")->value(), 100);
        QVERIFY(!panel.grab().isNull());
    }

    void badShapeAndBadFileShowAnErrorAndThePanelKeepsWorking() {
        BatchedSvdPanel panel;
        guitesting::testModel(panel.accuracyModel());
        onlyCpu(panel);
        setShape(panel, 3, 5, 10);
        QVERIFY(runAndWait(panel));
        QVERIFY2(panel.resultText().contains(QStringLiteral("CPU reference failed")) &&
                     panel.resultText().contains(QStringLiteral("m = 3 rows is smaller than n = 5")),
                 qPrintable(panel.resultText()));
        QVERIFY(child<QLabel>(panel, "result")->text().contains(QStringLiteral("smaller than n")));
        QCOMPARE(child<QTableView>(panel, "accuracy")->model()->rowCount(), 0);

        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("garbage.mtx"));
        QVERIFY(testfiles::writeFile(path, "this is not a matrix\n"));
        child<QComboBox>(panel, "input")->setCurrentIndex(4);  // file
        child<QLineEdit>(panel, "file")->setText(path);
        QVERIFY(runAndWait(panel));
        QVERIFY2(panel.resultText().contains(QStringLiteral("garbage.mtx")) && panel.resultText().contains(QStringLiteral("failed")),
                 qPrintable(panel.resultText()));

        // Still usable: a valid batch now runs.
        child<QComboBox>(panel, "input")->setCurrentIndex(0);
        child<QSpinBox>(panel, "rows")->setValue(6);
        QVERIFY(runAndWait(panel));
        QVERIFY2(panel.resultText().contains(QStringLiteral("10 x 6x5 f32 on cpu")), qPrintable(panel.resultText()));
        QCOMPARE(child<QTableView>(panel, "accuracy")->model()->rowCount(), 1);
    }

    void cancelStopsALongRun() {
        BatchedSvdPanel panel;
        guitesting::testModel(panel.accuracyModel());
        onlyCpu(panel);
        setShape(panel, 20, 20, 30000);
        QSignalSpy done(&panel, &BatchedSvdPanel::allRunsFinished);
        QTest::mouseClick(child<QPushButton>(panel, "run"), Qt::LeftButton);
        auto* bar = child<QProgressBar>(panel, "progress");
        QTRY_VERIFY_WITH_TIMEOUT(bar->value() >= 7, 60000);
        QVERIFY(child<QPushButton>(panel, "cancel")->isEnabled());
        QTest::mouseClick(child<QPushButton>(panel, "cancel"), Qt::LeftButton);
        QVERIFY(done.wait(20000));
        QVERIFY2(panel.resultText().contains(QStringLiteral("Cancelled")), qPrintable(panel.resultText()));
        QVERIFY(child<QPushButton>(panel, "run")->isEnabled());
        QCOMPARE(child<QTableView>(panel, "accuracy")->model()->rowCount(), 0);
    }

    void withoutGpuOnlyTheCpuReferenceRunsAndThePanelSaysSo() {
        if (cudaDeviceInfo().present) QSKIP("a GPU is present");
        BatchedSvdPanel panel;
        guitesting::testModel(panel.accuracyModel());
        QVERIFY(guitesting::waitForDeviceInfo());
        QVERIFY(!child<QCheckBox>(panel, "useCuda")->isEnabled());
        QVERIFY(!child<QCheckBox>(panel, "useCusolver")->isEnabled());
        QVERIFY(!child<QCheckBox>(panel, "useGesvda")->isEnabled());
        QVERIFY(child<QCheckBox>(panel, "useCpu")->isChecked());
        QVERIFY(child<QLabel>(panel, "gpuNote")->text().contains(QStringLiteral("only the CPU reference runs")));
        child<QSpinBox>(panel, "batch")->setValue(20);
        QVERIFY(runAndWait(panel));
        QCOMPARE(child<QTableView>(panel, "accuracy")->model()->rowCount(), 1);  // the CPU alone, no GPU failures
        QVERIFY(!panel.resultText().contains(QStringLiteral("failed")));
    }
};

QTEST_MAIN(TestGuiBatchedSvdPanel)
#include "tst_gui_batchedsvdpanel.moc"
