// The batched-SVD compute service: a CPU run reports what the library computes for the same batch
// (singular values, sweeps, convergence history, accuracy), progress arrives in order, cancel stops a
// long run, stacked files are cut by m and their NaN matrices flagged, and every bad request (m < n,
// n > 64, a malformed file, a missing GPU) arrives as failed(message) naming the problem.
#include "batchedsvd_testing.h"
#include "core/deviceinfocache.h"
#include "core/batchedsvdjob.h"
#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace spyglass;
using namespace spyglass::app;

namespace {

QString writeFile(const QTemporaryDir& dir, const char* name, const QByteArray& text) {
    const QString path = dir.filePath(QLatin1String(name));
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly)) return {};
    file.write(text);
    return path;
}

// Waits for failed() and returns its message (empty when something else arrived).
QString failureOf(const BatchedSvdRequest& request) {
    BatchedSvdJob job;
    QSignalSpy finished(&job, &BatchedSvdJob::finished), failed(&job, &BatchedSvdJob::failed);
    if (!job.start(request) || !failed.wait(20000) || finished.count() != 0) return {};
    return failed.first().at(0).toString();
}

} // namespace

class TestBatchedSvdJob : public QObject {
    Q_OBJECT
private slots:
    void cpuRunReportsWhatTheLibraryComputes() {
        BatchedSvdRequest request;
        request.m = 12;
        request.n = 9;
        request.batch = 300;
        request.precision = SvdPrecision::C64;
        request.kind = SvdBatchKind::SonarSnapshots;
        request.seed = 5;
        request.detailMatrices = 100;
        request.accuracyMatrices = 200;
        BatchedSvdJob job;
        QSignalSpy finished(&job, &BatchedSvdJob::finished), failed(&job, &BatchedSvdJob::failed);
        QSignalSpy progress(&job, &BatchedSvdJob::progress);
        QVERIFY(job.start(request));
        QVERIFY(!job.start(request));  // one run at a time
        QVERIFY(finished.wait(30000));
        QCOMPARE(failed.count(), 0);
        const auto result = finished.takeFirst().at(0).value<BatchedSvdResult>();

        // The same batch through the library in one call.
        using T = std::complex<float>;
        const std::vector<T> a = generateSvdBatch<T>(SvdBatchKind::SonarSnapshots, 12, 9, 300, 5);
        std::vector<T> u(a.size()), v(300 * 81);
        std::vector<float> sigma(300 * 9);
        SvdOptions options;
        options.historyMatrices = 100;
        const SvdRunInfo run = svdBatched(a.data(), u.data(), sigma.data(), v.data(), 12, 9, 300, options);
        const SvdAccuracy acc = svdAccuracy(a.data(), u.data(), sigma.data(), v.data(), 12, 9, 200, &run.status);

        QCOMPARE(result.m, 12);
        QCOMPARE(result.n, 9);
        QCOMPARE(result.batch, qint64(300));
        QCOMPARE(result.backend, QStringLiteral("cpu"));
        QCOMPARE(result.tolerance, run.tolerance);
        QCOMPARE(result.detailCount, qint64(100));
        QCOMPARE(result.sigma.size(), 900);
        for (int k = 0; k < 900; ++k) QCOMPARE(result.sigma[k], double(sigma[k]));  // bit for bit: slicing changes nothing
        QCOMPARE(result.singularValues(7), result.sigma.mid(63, 9));
        QVERIFY(result.singularValues(100).isEmpty());
        QCOMPARE(result.sweepHistory.size(), 100);
        int maxSweeps = 0;
        for (int b = 0; b < 300; ++b) maxSweeps = std::max(maxSweeps, run.sweeps[b]);
        for (int b = 0; b < 100; ++b) {
            QCOMPARE(result.sweeps[b], run.sweeps[b]);
            QCOMPARE(result.offOrthogonality[b], run.offOrthogonality[b]);
            QCOMPARE(result.sweepHistory[b], QVector<double>(run.sweepHistory[b].begin(), run.sweepHistory[b].end()));
        }
        QCOMPARE(result.maxSweepsUsed, maxSweeps);
        QCOMPARE(result.accuracySampled, qint64(200));
        QCOMPARE(result.reconstruction, acc.reconstruction);
        QCOMPARE(result.uOrthogonality, acc.uOrthogonality);
        QCOMPARE(result.vOrthogonality, acc.vOrthogonality);
        QVERIFY(result.reconstruction > 0);
        QVERIFY(result.reconstruction <= svdtest::factorisationBound<T>(9, maxSweeps));
        QCOMPARE(result.notConvergedCount, qint64(0));
        QCOMPARE(result.nonFiniteCount, qint64(0));
        QVERIFY(result.computeMs > 0);
        QVERIFY(result.summary().contains(QStringLiteral("300 x 12x9 c64 on cpu")));
        QVERIFY(result.summary().contains(QStringLiteral("(first 200)")));

        // Progress: percents never go back, and the last report is the end.
        QVERIFY(progress.count() >= 3);
        int last = -1;
        for (const auto& p : progress) {
            const int percent = p.at(0).toInt();
            QVERIFY(percent >= last);
            last = percent;
        }
        QCOMPARE(progress.last().at(0).toInt(), 100);
        QCOMPARE(progress.last().at(1).toString(), QStringLiteral("done"));
    }

    void sweepLimitFlagsEveryMatrixAsNotConverged() {
        BatchedSvdRequest request;
        request.m = request.n = 16;
        request.batch = 1500;
        request.maxSweeps = 1;
        const BatchedSvdResult result = runBatchedSvd(request);
        QCOMPARE(result.notConvergedCount, qint64(1500));
        QCOMPARE(result.flaggedIndices.size(), 1000);  // listed up to 1000, counted all
        QCOMPARE(result.flaggedIndices[999], qint64(999));
        QCOMPARE(result.flaggedStatus[0], int(SvdStatus::NotConverged));
        QCOMPARE(result.maxSweepsUsed, 1);
        QVERIFY(result.maxOffOrthogonality > result.tolerance);
        for (const auto& h : result.sweepHistory) QCOMPARE(h.size(), 1);
    }

    void stackedFileIsCutByMAndItsNaNMatrixFlagged() {
        // Three 4 x 3 matrices stacked (12 x 3): matrix b is diag((b+1), 2(b+1), 3(b+1)) over a zero
        // row, so its singular values are 3(b+1), 2(b+1), (b+1) exactly; matrix 1 carries a NaN.
        QTemporaryDir dir;
        QByteArray text = "%%MatrixMarket matrix array real general\n12 3\n";
        for (int c = 0; c < 3; ++c)
            for (int r = 0; r < 12; ++r) {
                const int b = r / 4, i = r % 4;
                if (b == 1 && i == 3 && c == 0) text += "nan\n";
                else text += QByteArray::number(i == c ? (c + 1) * (b + 1) : 0) + '\n';
            }
        BatchedSvdRequest request;
        request.m = 4;
        request.n = 99;        // ignored: the file says 3
        request.batch = 12345;  // ignored: the file says 3
        request.precision = SvdPrecision::F64;
        request.inputFile = writeFile(dir, "stacked.mtx", text);
        const BatchedSvdResult result = runBatchedSvd(request);
        QCOMPARE(result.n, 3);
        QCOMPARE(result.batch, qint64(3));
        QCOMPARE(result.source, QStringLiteral("stacked.mtx"));
        QCOMPARE(result.nonFiniteCount, qint64(1));
        QCOMPARE(result.flaggedIndices, QVector<qint64>{1});
        QCOMPARE(result.flaggedStatus, QVector<int>{int(SvdStatus::NonFiniteInput)});
        for (int b : {0, 2})
            QCOMPARE(result.singularValues(b), (QVector<double>{3.0 * (b + 1), 2.0 * (b + 1), 1.0 * (b + 1)}));
        QVERIFY(std::isnan(result.singularValues(1)[0]));

        // The same file cut into 5-row matrices does not fit, and says so.
        request.m = 5;
        try {
            runBatchedSvd(request);
            QFAIL("a 12-row file cut into 5-row matrices was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains(QStringLiteral("multiple of 5")), e.what());
        }
        // Complex values into a real type are refused by name.
        request.m = 4;
        request.inputFile = writeFile(dir, "complex.mtx", "%%MatrixMarket matrix array complex general\n4 1\n1 0\n2 0\n3 0\n4 1\n");
        QVERIFY_THROWS_EXCEPTION(InputError, runBatchedSvd(request));
    }

    void badRequestsArriveAsFailedWithTheReason() {
        BatchedSvdRequest request;
        request.m = 3;
        request.n = 5;
        QString message = failureOf(request);
        QVERIFY2(message.contains(QStringLiteral("m = 3 rows is smaller than n = 5")), qPrintable(message));

        QTemporaryDir dir;
        // 70 columns: more than the batched SVD takes; the message names the file.
        QByteArray wide = "%%MatrixMarket matrix coordinate real general\n80 70 1\n1 1 1\n";
        request = {};
        request.m = 80;
        request.inputFile = writeFile(dir, "wide.mtx", wide);
        message = failureOf(request);
        QVERIFY2(message.contains(QStringLiteral("wide.mtx")) && message.contains(QStringLiteral("64")), qPrintable(message));

        // A malformed file: the reader's message with file and line.
        request.inputFile = writeFile(dir, "broken.mtx", "%%MatrixMarket matrix array real general\n4 2\n1\n2\nthree\n");
        request.m = 2;
        message = failureOf(request);
        QVERIFY2(message.contains(QStringLiteral("broken.mtx:5")), qPrintable(message));

        request.inputFile = dir.filePath(QStringLiteral("missing.mtx"));
        message = failureOf(request);
        QVERIFY2(message.contains(QStringLiteral("missing.mtx")), qPrintable(message));

        request = {};
        request.tolerance = 2;
        message = failureOf(request);
        QVERIFY2(message.contains(QStringLiteral("tolerance")), qPrintable(message));
    }

    void cudaMappingChoiceDoesNotReachTheCpuReference() {
        // The panel keeps one mapping choice for all backends; the library refuses a variant with a
        // non-CUDA backend, so the job must pass it to the CUDA backend only.
        BatchedSvdRequest request;
        request.m = request.n = 6;
        request.batch = 20;
        request.variant = SvdVariant::BlockPerPair;
        BatchedSvdJob job;
        QSignalSpy finished(&job, &BatchedSvdJob::finished), failed(&job, &BatchedSvdJob::failed);
        QVERIFY(job.start(request));
        QVERIFY(finished.wait(20000));
        QCOMPARE(failed.count(), 0);
        QCOMPARE(finished.first().at(0).value<BatchedSvdResult>().batch, qint64(20));
    }

    void gpuBackendWithoutDeviceFailsWithTheReason() {
        if (cudaDeviceInfo().present) QSKIP("a GPU is present");
        QString reason;
        QVERIFY(!gpuAvailable(&reason));
        QVERIFY(!reason.isEmpty());
        for (SvdBackend backend : {SvdBackend::Cuda, SvdBackend::Cusolver, SvdBackend::CusolverGesvda}) {
            BatchedSvdRequest request;
            request.backend = backend;
            const QString message = failureOf(request);
            QVERIFY2(message.contains(QStringLiteral("GPU")), qPrintable(message));
        }
    }

    void cancelStopsALongRunMidway() {
        BatchedSvdJob job;
        QSignalSpy cancelled(&job, &BatchedSvdJob::cancelled), finished(&job, &BatchedSvdJob::finished);
        QSignalSpy progress(&job, &BatchedSvdJob::progress);
        BatchedSvdRequest request;
        request.m = request.n = 20;
        request.batch = 30000;  // seconds on the CPU if not cancelled
        QVERIFY(job.start(request));
        // Cancel once the decomposition is under way, not before it starts.
        QTRY_VERIFY_WITH_TIMEOUT(!progress.isEmpty() && progress.last().at(0).toInt() >= 7, 60000);
        QVERIFY(progress.last().at(1).toString().startsWith(QStringLiteral("decomposing")));
        job.cancel();
        QVERIFY(cancelled.wait(20000));
        QCOMPARE(finished.count(), 0);
        QVERIFY(!job.isRunning());
        QVERIFY(progress.last().at(0).toInt() < 90);  // stopped well before the end
    }
};

QTEST_GUILESS_MAIN(TestBatchedSvdJob)
#include "tst_batchedsvdjob.moc"
