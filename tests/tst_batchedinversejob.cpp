// The batch-inverse compute service: results and failures arrive as signals from the worker,
// cancel stops a long run, and stacked Matrix Market files round-trip through --in/--out.
#include "batchedinverse_testing.h"
#include "core/deviceinfocache.h"
#include "core/batchedinversejob.h"
#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace spyglass;
using namespace spyglass::app;

class TestBatchedInverseJob : public QObject {
    Q_OBJECT
private slots:
    void cpuRunFinishesWithResidualsAndCounts() {
        BatchedInverseJob job;
        QSignalSpy finished(&job, &BatchedInverseJob::finished), failed(&job, &BatchedInverseJob::failed);
        BatchedInverseRequest request;
        request.n = 7;
        request.batch = 301;
        request.precision = InversePrecision::C64;
        request.kind = BatchKind::LteChannel;
        QVERIFY(job.start(request));
        QVERIFY(finished.wait(20000));
        QCOMPARE(failed.count(), 0);
        const auto result = finished.takeFirst().at(0).value<BatchedInverseResult>();
        QCOMPARE(result.n, 7);
        QCOMPARE(result.batch, qint64(301));
        QCOMPARE(result.residuals.size(), 301);
        QCOMPARE(result.singularCount, qint64(0));
        QVERIFY(result.maxResidual > 0 && result.maxResidual <= 4.0 * 7);
        QVERIFY(result.summary().contains(QStringLiteral("301 x 7x7 c64")));
    }

    void badRequestArrivesAsFailedWithTheReason() {
        BatchedInverseJob job;
        QSignalSpy finished(&job, &BatchedInverseJob::finished), failed(&job, &BatchedInverseJob::failed);
        BatchedInverseRequest request;
        request.kind = BatchKind::IllConditioned;
        request.condition = 0.5;
        QVERIFY(job.start(request));
        QVERIFY(failed.wait(20000));
        QCOMPARE(finished.count(), 0);
        QVERIFY2(failed.first().at(0).toString().contains(QStringLiteral("condition")), qPrintable(failed.first().at(0).toString()));
    }

    void gpuBackendWithoutDeviceFailsWithTheReason() {
        if (cudaDeviceInfo().present) QSKIP("a GPU is present");
        BatchedInverseJob job;
        QSignalSpy failed(&job, &BatchedInverseJob::failed);
        BatchedInverseRequest request;
        request.backend = InverseBackend::Cuda;
        QVERIFY(job.start(request));
        QVERIFY(failed.wait(20000));
        QVERIFY(failed.first().at(0).toString().contains(QStringLiteral("GPU")));
        QString reason;
        QVERIFY(!gpuAvailable(&reason));
        QVERIFY(!reason.isEmpty());
    }

    void cancelStopsALongRunAndASecondStartIsRefused() {
        BatchedInverseJob job;
        QSignalSpy cancelled(&job, &BatchedInverseJob::cancelled), finished(&job, &BatchedInverseJob::finished);
        BatchedInverseRequest request;
        request.n = 32;
        request.batch = 100000;  // seconds on the CPU if not cancelled
        QVERIFY(job.start(request));
        QVERIFY(!job.start(request));
        job.cancel();
        QVERIFY(cancelled.wait(60000));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!job.isRunning());
    }

    void stackedFileRoundTripsThroughInAndOut() {
        QTemporaryDir dir;
        const QString inverses = dir.filePath(QStringLiteral("inverses.mtx"));
        const QString again = dir.filePath(QStringLiteral("again.mtx"));
        BatchedInverseRequest request;
        request.n = 5;
        request.batch = 13;
        request.precision = InversePrecision::F64;
        request.seed = 4;
        request.outputFile = inverses;
        const BatchedInverseResult first = runBatchedInverse(request);
        QCOMPARE(first.singularCount, qint64(0));
        const Matrix file = readMatrixMarket(inverses.toStdString());
        QCOMPARE(file.rows, 65);
        QCOMPARE(file.cols, 5);
        // Inverting the inverses gives the original batch back (to rounding).
        BatchedInverseRequest back;
        back.precision = InversePrecision::F64;
        back.inputFile = inverses;
        back.outputFile = again;
        const BatchedInverseResult second = runBatchedInverse(back);
        QCOMPARE(second.n, 5);
        QCOMPARE(second.batch, qint64(13));
        const Matrix restored = readMatrixMarket(again.toStdString());
        const std::vector<double> original = inversetest::randomBatch<double>(5, 13, 4);
        for (Count e = 0; e < restored.stored(); ++e) {
            const int r = restored.rowIndex[e], c = restored.colIndex[e];
            const double expected = original[(r / 5) * 25 + c * 5 + r % 5];
            QVERIFY2(std::fabs(restored.real[e] - expected) < 1e-10, qPrintable(QString::number(e)));
        }
        // A file whose rows are not a multiple of its columns names the problem.
        BatchedInverseRequest bad;
        bad.inputFile = QStringLiteral(SPYGLASS_MATRICES_DIR "/lp_afiro.mtx");
        QVERIFY_THROWS_EXCEPTION(InputError, runBatchedInverse(bad));
    }
};

QTEST_GUILESS_MAIN(TestBatchedInverseJob)
#include "tst_batchedinversejob.moc"
