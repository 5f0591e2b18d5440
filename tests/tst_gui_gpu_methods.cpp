// Every method tab's GPU path driven through the real main window on a CUDA device, each result
// checked against the CPU reference the tab computes beside it: A bit-flag add / multiply / LU
// (CUDA kernels and cuSPARSE/cuSOLVER), B segmented-DIA SpMV (CUDA and cuSPARSE), C batched SVD
// (CUDA and cuSOLVER), D dense regions (hybrid SpMV on CUDA and cuSPARSE CSR on a matrix with planted
// shapes), E batched inverse (CUDA and cuBLAS). Skips without a device. With
// SPYGLASS_SCREENSHOT_DIR set, each tab is saved as a PNG after its run (label gpu).
#include "cudatesting.h"
#include "guitesting.h"
#include "plantedbinary.h"
#include "testmatrices.h"

#include "batchedsvdpanel.h"
#include "batchedinversepanel.h"
#include "bitflagpanel.h"
#include "bitflagpaneltesting.h"
#include "core/batchedsvdjob.h"
#include "core/batchedinversejob.h"
#include "gui/mainwindow.h"
#include "hybridpanel.h"
#include "hybridspmvview.h"
#include "core/samples.h"
#include "measurementtablemodel.h"
#include "segdiapanel.h"

#include "spyglass/backend.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/convert.h"
#include "spyglass/segdia_generators.h"

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace spyglass;
using namespace guitesting;

namespace {
double epsOf(const QString& precision) {
    const bool single = precision == QLatin1String("f32") || precision == QLatin1String("c64");
    return single ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
}
} // namespace

class TestGuiGpuMethods : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::unique_ptr<QSettings> m_settings;
    std::unique_ptr<gui::MainWindow> m_window;

private slots:
    void initTestCase() {
        CUDATESTING_REQUIRE_DEVICE();
        m_settings = std::make_unique<QSettings>(m_dir.filePath(QStringLiteral("s.ini")), QSettings::IniFormat);
        m_window = std::make_unique<gui::MainWindow>(*m_settings);
        m_window->resize(1600, 1000);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(waitForDeviceInfo());  // the panels tick their GPU backends then
    }
    void cleanupTestCase() { m_window.reset(); }

    void bitFlagOperationsOnCudaAndVendorAgreeWithTheReference() {
        QVERIFY(openAndWait(*m_window, sharedMatrix("bcsstk02.mtx")));
        // Operations wait for the encoding the tab makes when shown.
        auto* panel = bitflagpaneltesting::showEncoded(*m_window, 60000);
        QVERIFY(panel);
        for (app::BitFlagOp op : {app::BitFlagOp::Add, app::BitFlagOp::Multiply, app::BitFlagOp::Lu}) {
            QVERIFY(bitflagpaneltesting::runOperation(*panel, op, 120000));
            const app::BitFlagOpResult& result = panel->operationResult();
            QVERIFY(result.runs.size() >= 3);  // CPU reference, CUDA, vendor
            for (const app::BitFlagOpRun& run : result.runs) {
                QVERIFY2(run.error.isEmpty(), qPrintable(run.name + QStringLiteral(": ") + run.error));
                QVERIFY2(run.agrees, qPrintable(run.name + QStringLiteral(": ") + run.problem));
                qInfo("bit-flag %s: %s %.3f ms, checked against %s", qPrintable(result.description), qPrintable(run.name),
                      run.timing.medianMs, qPrintable(run.checkedAgainst));
            }
            if (op == app::BitFlagOp::Multiply) {
                // The tab says which multiply was faster and why, under the operation's summary.
                const auto* summary = panel->findChild<QLabel*>(QStringLiteral("operationSummary"));
                QVERIFY(summary);
                QVERIFY2(!result.verdict.isEmpty() && summary->text().contains(result.verdict), qPrintable(summary->text()));
                maybeScreenshot(*m_window, "gpu-bitflag-multiply.png");
            }
        }
        maybeScreenshot(*m_window, "gpu-bitflag.png");
    }

    void segmentedDiaSpmvOnCudaAndCusparseMatchesTheReference() {
        auto* panel = openInPanel<widgets::SegmentedDiaPanel>(*m_window, sharedMatrix("watt_2.mtx"));
        QVERIFY(panel);
        QVERIFY(runAndWait(panel, &widgets::SegmentedDiaPanel::layoutShown, [panel] { panel->runSpmv(); }, 120000));
        const app::SegmentedDiaLayout& layout = panel->layout();
        QVERIFY(layout.spmv.size() >= 3);
        for (const app::SpmvRun& run : layout.spmv) {
            QVERIFY2(run.error.isEmpty(), qPrintable(run.name + QStringLiteral(": ") + run.error));
            QVERIFY2(run.maxRelativeError < 1e-12, qPrintable(run.name));  // fp64 sums of one row's few terms
            qInfo("segmented DIA: %s %s, max rel. error %.2e", qPrintable(run.name), run.timing.howMeasured().c_str(), run.maxRelativeError);
        }
        maybeScreenshot(*m_window, "gpu-segdia.png");
    }

    void batchedSvdOnCudaAndCusolverMatchesTheReference() {
        auto* panel = findPanel<widgets::BatchedSvdPanel>(*m_window);
        QVERIFY(panel);
        QVERIFY(setSpinBoxes(*panel, {{"rows", 16}, {"columns", 16}, {"batch", 2000}}));
        QVERIFY(panel->findChild<QCheckBox*>(QStringLiteral("useCuda"))->isChecked());
        QVERIFY(panel->findChild<QCheckBox*>(QStringLiteral("useCusolver"))->isChecked());
        QVERIFY(runAndWait(panel, &widgets::BatchedSvdPanel::allRunsFinished, [panel] { panel->run(); }, 120000));
        const QVector<app::BatchedSvdResult> results = panel->results();
        // CPU, CUDA, cuSOLVER gesvdjBatched and cuSOLVER gesvdaStridedBatched (checked by default).
        QCOMPARE(results.size(), 4);
        const app::BatchedSvdResult* cpu = nullptr;
        for (const auto& r : results)
            if (r.backend == QLatin1String("cpu")) cpu = &r;
        QVERIFY2(cpu, qPrintable(panel->resultText()));
        for (const auto& r : results) {
            // 4 * sweeps * n * eps: the factorisation bound of one-sided Jacobi (tests/batchedsvd_testing.h).
            // gesvda works on A^H A: squared singular values within delta = 8 (m+n) eps sigma_max^2 and a
            // reconstruction within sqrt(n delta) (the bounds of tst_cuda_batchedsvd).
            const bool gram = r.backend == QLatin1String("cusolver-gesvda");
            const double delta = 8.0 * (r.m + r.n) * epsOf(r.precision);
            const double bound = gram ? std::sqrt(r.n * delta)
                                      : 4.0 * std::max(r.sweepsReported ? r.maxSweepsUsed : 30, 1) * r.n * epsOf(r.precision);
            QVERIFY2(r.reconstruction <= bound, qPrintable(r.summary()));
            QCOMPARE(r.notConvergedCount, qint64(0));
            QCOMPARE(r.nonFiniteCount, qint64(0));
            const qint64 shared = std::min(r.detailCount, cpu->detailCount);
            QVERIFY(shared > 0);
            for (qint64 i = 0; i < shared; ++i) {
                const QVector<double> a = r.singularValues(i), b = cpu->singularValues(i);
                QCOMPARE(a.size(), b.size());
                for (int k = 0; k < a.size(); ++k)
                    QVERIFY2(gram ? std::abs(a[k] * a[k] - b[k] * b[k]) <= delta * b[0] * b[0] : std::abs(a[k] - b[k]) <= bound * b[0],
                             qPrintable(r.summary()));
            }
            qInfo("batched SVD: %s", qPrintable(r.summary()));
        }
        maybeScreenshot(*m_window, "gpu-svd.png");
    }

    void denseRegionsAreFoundAndHybridSpmvOnCudaAndCusparseMatchesTheReference() {
        const plantedtesting::Planted planted = plantedtesting::plantedBinary();
        const QString path = m_dir.filePath(QStringLiteral("planted-shapes.mtx"));
        writeMatrixMarket(path.toStdString(), planted.matrix);
        auto* panel = openInPanel<widgets::HybridPanel>(*m_window, path);
        QVERIFY(panel);
        QVERIFY(runAndWait(panel, &widgets::HybridPanel::resultShown, [panel] { panel->detect(); }, 60000));
        QVERIFY(panel->result().hybrid && !panel->result().csrFallback);
        widgets::HybridSpmvView* spmv = panel->spmvView();
        QVERIFY(spmv->isBackendEnabled(app::HybridSpmvKernel::CudaHybrid));
        QVERIFY(spmv->isBackendEnabled(app::HybridSpmvKernel::CusparseCsr));
        for (auto backend : {app::HybridSpmvKernel::CpuHybrid, app::HybridSpmvKernel::CudaHybrid, app::HybridSpmvKernel::CusparseCsr})
            spmv->setBackendChecked(backend, true);
        QVERIFY(runAndWait(spmv, &widgets::HybridSpmvView::resultShown, [spmv] { return spmv->run(); }, 120000));
        const app::HybridSpmvResult& result = spmv->result();
        QCOMPARE(result.runs.size(), 3);
        for (const app::HybridSpmvRun& run : result.runs) {
            QVERIFY2(run.error.isEmpty(), qPrintable(run.name + QStringLiteral(": ") + run.error));
            QVERIFY2(run.matches, qPrintable(run.name));  // integer x: exactly the reference
            QCOMPARE(run.timing.repeats, result.repeats);
            QVERIFY(run.timing.medianMs > 0);
            qInfo("hybrid SpMV %s: upload %.4f ms, median %.4f ms (min %.4f, max %.4f, %d runs)", qPrintable(run.name),
                  run.timing.uploadMs, run.timing.medianMs, run.timing.minMs, run.timing.maxMs, run.timing.repeats);
        }
        QVERIFY(result.runs[1].timing.uploadMs >= 0 && result.runs[2].timing.uploadMs >= 0);
        qInfo("bytes: CSR %lld, COO %lld, hybrid %lld (headers %lld, zero row pointers %lld, zeros %lld, residual %lld)",
              result.bytes.csr, result.bytes.coo, result.bytes.hybrid, result.bytes.regionHeaders, result.bytes.zeroRowPointers,
              result.bytes.zeroOffsets, result.bytes.residual);
        maybeScreenshot(*m_window, "gpu-dense-regions.png");
    }

    // The default sample carries values: the tab encodes its regions with their values and times the
    // valued kernel on the GPU beside cuSPARSE, each within rounding of the reference.
    void valuedSampleHybridSpmvOnCudaAndCusparseAgrees() {
        // Found through SPYGLASS_DATA like the other test data: a bundle has no source tree, and the
        // application's own search (beside the binary, the source's resources/) finds nothing there.
        // Bundle the samples with --data resources/matrices (they land in data/matrices).
        const QString sample = qEnvironmentVariableIsSet("SPYGLASS_DATA")
                                   ? sharedMatrix(qPrintable(app::sampleMatrix(QStringLiteral("valued")).fileName))
                                   : app::samplePath(QStringLiteral("valued"));
        REQUIRE_TEST_DATA(sample);
        auto* panel = openInPanel<widgets::HybridPanel>(*m_window, sample);
        QVERIFY(panel);
        QVERIFY(runAndWait(panel, &widgets::HybridPanel::resultShown, [panel] { panel->detect(); }, 60000));
        QVERIFY(panel->result().valued && !panel->result().regions.isEmpty());
        widgets::HybridSpmvView* spmv = panel->spmvView();
        for (auto backend : {app::HybridSpmvKernel::CpuHybrid, app::HybridSpmvKernel::CudaHybrid, app::HybridSpmvKernel::CusparseCsr})
            spmv->setBackendChecked(backend, true);
        QVERIFY(runAndWait(spmv, &widgets::HybridSpmvView::resultShown, [spmv] { return spmv->run(); }, 120000));
        const app::HybridSpmvResult& result = spmv->result();
        QVERIFY(result.bytes.valued);
        QCOMPARE(result.runs.size(), 3);
        for (const app::HybridSpmvRun& run : result.runs) {
            QVERIFY2(run.error.isEmpty(), qPrintable(run.name + QStringLiteral(": ") + run.error));
            QVERIFY2(run.matches, qPrintable(QStringLiteral("%1: %2 of the bound").arg(run.name).arg(run.errorOverBound)));
            qInfo("valued hybrid SpMV %s: upload %.4f ms, median %.4f ms, %.3g of the rounding bound", qPrintable(run.name),
                  run.timing.uploadMs, run.timing.medianMs, run.errorOverBound);
        }
        qInfo("bytes: CSR %lld, hybrid %lld (headers %lld, dense values %lld, residual %lld)", result.bytes.csr,
              result.bytes.hybrid, result.bytes.regionHeaders, result.bytes.denseValues, result.bytes.residual);
        maybeScreenshot(*m_window, "gpu-dense-regions-valued.png");
    }

    // The timings issue's done-when: each tab on a case where the GPU's work dominates launch
    // overhead, read from its timing table. Spyglass beats the vendor in each; the ratios go to
    // SPYGLASS_RATIO_FILE (one "name ratio" line each) for scripts/gpu-timing-agreement to hold
    // against the benchmarks of the same machine run.
    void tabsShowBenchmarkLikeRatiosOnTheMethodsCases() {
        QStringList lines;
        auto record = [&](const char* name, const widgets::MeasurementTableModel* model, const QString& oursPrefix) {
            double ratio = 0;
            for (int r = 0; r < model->rowCount(); ++r) {
                const widgets::MeasuredRow& row = model->rowAt(r);
                qInfo("%s: %s: %s", name, qPrintable(row.name), row.timing.howMeasured().c_str());
                if (row.name.startsWith(oursPrefix)) ratio = model->speedupOfRow(r);
            }
            qInfo("%s: Spyglass %.3fx the fastest vendor path", name, ratio);
            lines << QStringLiteral("%1 %2").arg(QLatin1String(name)).arg(ratio, 0, 'g', 6);
            return ratio;
        };
        {
            auto* panel = findPanel<widgets::BatchedInversePanel>(*m_window);
            QVERIFY(panel);
            QVERIFY(setSpinBoxes(*panel, {{"order", 8}, {"batch", 100000}}));
            panel->findChild<QComboBox*>(QStringLiteral("input"))->setCurrentIndex(0);
            QVERIFY(runAndWait(panel, &widgets::BatchedInversePanel::allRunsFinished, [panel] { panel->run(); }, 300000));
            QVERIFY2(record("inverse-1e5-8x8-f32", panel->measurements(), QStringLiteral("cuda")) > 1.0, qPrintable(panel->resultText()));
            maybeScreenshot(*m_window, "gpu-timing-inverse.png");
        }
        {
            auto* panel = findPanel<widgets::BatchedSvdPanel>(*m_window);
            QVERIFY(panel);
            QVERIFY(setSpinBoxes(*panel, {{"rows", 16}, {"columns", 16}, {"batch", 10000}}));
            panel->findChild<QCheckBox*>(QStringLiteral("useCpu"))->setChecked(false);
            QVERIFY(runAndWait(panel, &widgets::BatchedSvdPanel::allRunsFinished, [panel] { panel->run(); }, 300000));
            QVERIFY2(record("svd-1e4-16x16-f32", panel->measurements(), QStringLiteral("Spyglass")) > 1.0, qPrintable(panel->resultText()));
            maybeScreenshot(*m_window, "gpu-timing-svd.png");
        }
        {
            // A 2-D Laplacian of 2048^2 = 4.19 M rows, written as the user would have it on disk.
            const QString path = m_dir.filePath(QStringLiteral("laplacian2048.mtx"));
            writeMatrixMarket(path.toStdString(), fromCsr(cooToCsr(generators::laplacian2d(2048, 2048))));
            auto* panel = openInPanel<widgets::SegmentedDiaPanel>(*m_window, path);
            QVERIFY(panel);
            QVERIFY(runAndWait(panel, &widgets::SegmentedDiaPanel::layoutShown, [panel] { panel->runSpmv(); }, 300000));
            for (const app::SpmvRun& run : panel->layout().spmv) QVERIFY2(run.error.isEmpty() && run.maxRelativeError < 1e-12, qPrintable(run.name));
            QVERIFY(record("segdia-laplacian2048-f64", panel->measurements(), QStringLiteral("CUDA")) > 1.0);
            maybeScreenshot(*m_window, "gpu-timing-segdia.png");
        }
        const QByteArray file = qgetenv("SPYGLASS_RATIO_FILE");
        if (!file.isEmpty()) {
            QFile out(QString::fromLocal8Bit(file));
            QVERIFY(out.open(QIODevice::WriteOnly | QIODevice::Text));
            out.write((lines.join(QLatin1Char('\n')) + QLatin1Char('\n')).toUtf8());
        }
    }

    void batchedInverseOnCudaAndCublasHasReferenceResiduals() {
        auto* panel = findPanel<widgets::BatchedInversePanel>(*m_window);
        QVERIFY(panel);
        QVERIFY(setSpinBoxes(*panel, {{"order", 8}, {"batch", 20000}}));
        panel->findChild<QComboBox*>(QStringLiteral("input"))->setCurrentIndex(1);  // LTE channel: well conditioned
        // The panel owns one job that runs every checked backend in turn (ComputeJob has no Q_OBJECT of
        // its own, so findChild looks for the base); its one result lists a run per backend.
        auto* job = dynamic_cast<app::BatchedInverseSweepJob*>(panel->findChild<app::JobBase*>());
        QVERIFY(job);
        QSignalSpy finished(job, &app::JobBase::finished);
        QVERIFY(runAndWait(panel, &widgets::BatchedInversePanel::allRunsFinished, [panel] { panel->run(); }, 120000));
        QCOMPARE(finished.count(), 1);
        const auto sweep = finished.first().at(0).value<app::BatchedInverseSweep>();
        QCOMPARE(sweep.runs.size(), 3);  // CPU reference, CUDA kernel, cuBLAS
        for (const app::BatchedInverseSweep::Run& run : sweep.runs) {
            QVERIFY2(run.result.has_value(), qPrintable(run.name + QStringLiteral(": ") + run.error));
            const app::BatchedInverseResult& r = *run.result;
            QCOMPARE(r.singularCount, qint64(0));
            QVERIFY(r.residualSampled > 0);
            // ||A X - I|| / (||A|| ||X|| eps) within 4 n, as the CPU job test requires of the reference.
            QVERIFY2(r.maxResidual <= 4.0 * r.n, qPrintable(r.summary()));
            qInfo("batched inverse: %s", qPrintable(r.summary()));
        }
        maybeScreenshot(*m_window, "gpu-inverse.png");
    }
};

QTEST_MAIN(TestGuiGpuMethods)
#include "tst_gui_gpu_methods.moc"
