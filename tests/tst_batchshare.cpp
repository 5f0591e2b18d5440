// The shares of a batch that the ranks of one process per GPU take (app/core/batchshare.h): they cover
// the batch exactly, in order, for awkward sizes; the generators give a share the whole batch's
// matrices without generating the rest; and the batched jobs run on the shares give, once
// combined as the ranks combine them (maxima, sums), the whole batch's figures. The jobs run on the CPU
// reference here, so the share logic (the cut, the accuracy and residual samples, the indices) is
// checked without a GPU; the GPU runs are tst_cuda_multigpu's.
#include "core/batchedinversejob.h"
#include "core/batchedsvdjob.h"
#include "core/batchshare.h"

#include "spyglass/batchedinverse_generators.h"
#include "spyglass/batchedsvd.h"

#include <QtTest>

#include <algorithm>

using namespace spyglass;
using namespace spyglass::app;

class TestBatchShare : public QObject {
    Q_OBJECT

private slots:
    // The shares of ranks 0..W-1 follow each other from 0 to B, each [B r / W, B (r + 1) / W), so
    // they differ in size by at most one; also where B r would overflow 64 bits.
    void batchSharesCoverTheBatch_data() {
        QTest::addColumn<qint64>("batch");
        QTest::addColumn<int>("worldSize");
        QTest::newRow("empty batch") << qint64(0) << 3;
        QTest::newRow("one rank") << qint64(1201) << 1;
        QTest::newRow("fewer matrices than ranks") << qint64(5) << 8;
        QTest::newRow("one matrix, two ranks") << qint64(1) << 2;
        QTest::newRow("7 over 3") << qint64(7) << 3;
        QTest::newRow("prime over 7") << qint64(1201) << 7;
        QTest::newRow("large batch, many ranks") << ((qint64(1) << 40) + 12345) << 65536;
        QTest::newRow("near the 64-bit edge") << (qint64(1) << 62) + 977 << 60013;
    }
    void batchSharesCoverTheBatch() {
        QFETCH(qint64, batch);
        QFETCH(int, worldSize);
        qint64 next = 0, smallest = batch, largest = 0;
        for (int r = 0; r < worldSize; ++r) {
            const spyglass::app::BatchShare share = spyglass::app::batchShare(batch, r, worldSize);
            QCOMPARE(share.begin, next);
            QVERIFY(share.end >= share.begin);
            QVERIFY(!share.whole());
            if (batch < (qint64(1) << 31)) QCOMPARE(share.end, batch * (r + 1) / worldSize);
            smallest = std::min(smallest, share.count());
            largest = std::max(largest, share.count());
            next = share.end;
        }
        QCOMPARE(next, batch);
        QVERIFY(largest - smallest <= 1);
    }

    // A share generated alone (the matrices before it drawn and dropped) is the whole batch's slice,
    // bit for bit, for every kind of both generators.
    void generatedSharesAreTheWholeBatchs() {
        const std::int64_t batch = 23, first = 9, count = 8;
        for (SvdBatchKind kind : {SvdBatchKind::Random, SvdBatchKind::RankDeficient, SvdBatchKind::Graded, SvdBatchKind::SonarSnapshots}) {
            const auto whole = generateSvdBatch<std::complex<float>>(kind, 6, 5, batch, 17);
            const auto share = generateSvdBatch<std::complex<float>>(kind, 6, 5, count, 17, first);
            QVERIFY2(std::equal(share.begin(), share.end(), whole.begin() + first * 30) && share.size() == std::size_t(count * 30), toString(kind));
            const auto real = generateSvdBatch<double>(kind, 6, 5, count, 17, first);
            const auto realWhole = generateSvdBatch<double>(kind, 6, 5, batch, 17);
            QVERIFY2(std::equal(real.begin(), real.end(), realWhole.begin() + first * 30), toString(kind));
        }
        for (BatchKind kind : {BatchKind::Random, BatchKind::LteChannel, BatchKind::IllConditioned}) {
            BatchSpec spec;
            spec.kind = kind;
            spec.n = 4;
            spec.count = batch;
            spec.seed = 5;
            const auto whole = generateBatch<std::complex<double>>(spec);
            spec.first = first;
            spec.count = count;
            const auto share = generateBatch<std::complex<double>>(spec);
            QVERIFY2(std::equal(share.begin(), share.end(), whole.begin() + first * 16) && share.size() == std::size_t(count * 16), toString(kind));
        }
    }

    // Accuracy on the first 20 of 37 matrices, cut over 4 ranks: the maxima and the counts of the
    // shares are the whole run's, bit for bit (the same matrices, the same arithmetic).
    void svdSharesCombineToTheWholeBatch() {
        BatchedSvdRequest request;
        request.m = 7;
        request.n = 6;
        request.batch = 37;
        request.precision = BatchPrecision::F64;
        request.kind = SvdBatchKind::Graded;
        request.seed = 11;
        request.maxSweeps = 3;  // some matrices stop short of converging: the counts have something to add
        request.accuracyMatrices = 20;
        const BatchedSvdResult whole = runBatchedSvd(request);
        QVERIFY2(whole.notConvergedCount > 0 && whole.accuracySampled == 20, qPrintable(whole.summary()));
        double reconstruction = 0, u = 0, v = 0;
        qint64 batch = 0, sampled = 0, notConverged = 0, flagged = 0;
        int sweeps = 0;
        for (int r = 0; r < 4; ++r) {
            request.share = batchShare(request.batch, r, 4);
            const BatchedSvdResult part = runBatchedSvd(request);
            reconstruction = std::max(reconstruction, part.reconstruction);
            u = std::max(u, part.uOrthogonality);
            v = std::max(v, part.vOrthogonality);
            batch += part.batch;
            sampled += part.accuracySampled;
            notConverged += part.notConvergedCount;
            sweeps = std::max(sweeps, part.maxSweepsUsed);
            for (qint64 index : part.flaggedIndices) QCOMPARE(index, whole.flaggedIndices.value(int(flagged++), -1));
        }
        QCOMPARE(batch, whole.batch);
        QCOMPARE(sampled, whole.accuracySampled);
        QCOMPARE(notConverged, whole.notConvergedCount);
        QCOMPARE(flagged, qint64(whole.flaggedIndices.size()));
        QCOMPARE(sweeps, whole.maxSweepsUsed);
        QCOMPARE(reconstruction, whole.reconstruction);
        QCOMPARE(u, whole.uOrthogonality);
        QCOMPARE(v, whole.vOrthogonality);
    }

    // Residuals on an even sample of 17 of 53 matrices, cut over 3 ranks: each share measures the
    // sampled matrices that are its own, so the worst residual and the sample count are the whole run's.
    void inverseSharesCombineToTheWholeBatch() {
        BatchedInverseRequest request;
        request.n = 5;
        request.batch = 53;
        request.precision = BatchPrecision::F64;
        request.kind = BatchKind::IllConditioned;
        request.condition = 1e8;
        request.seed = 3;
        request.maxResidualSamples = 17;
        const BatchedInverseResult whole = runBatchedInverse(request);
        QVERIFY2(whole.residualSampled == 17 && whole.maxResidual > 0, qPrintable(whole.summary()));
        double worst = 0;
        qint64 batch = 0, sampled = 0, failed = 0;
        for (int r = 0; r < 3; ++r) {
            request.share = batchShare(request.batch, r, 3);
            const BatchedInverseResult part = runBatchedInverse(request);
            worst = std::max(worst, part.maxResidual);
            batch += part.batch;
            sampled += part.residualSampled;
            failed += part.singularCount + part.nonFiniteCount;
        }
        QCOMPARE(batch, whole.batch);
        QCOMPARE(sampled, whole.residualSampled);
        QCOMPARE(failed, whole.singularCount + whole.nonFiniteCount);
        QCOMPARE(worst, whole.maxResidual);
    }

    // A share outside the batch, or a share with a file, is refused by name.
    void badSharesAreRefused() {
        BatchedInverseRequest request;
        request.n = 3;
        request.batch = 10;
        request.share = {4, 11};
        QVERIFY_THROWS_EXCEPTION(InputError, runBatchedInverse(request));
        BatchedSvdRequest svd;
        svd.n = svd.m = 3;
        svd.batch = 10;
        svd.share = {0, 5};
        svd.outputFile = QStringLiteral("/tmp/spyglass-unused-sigma.mtx");
        QVERIFY_THROWS_EXCEPTION(InputError, runBatchedSvd(svd));
    }
};

QTEST_GUILESS_MAIN(TestBatchShare)
#include "tst_batchshare.moc"
