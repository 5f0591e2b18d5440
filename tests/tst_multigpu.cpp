// Row partitions and the partitioned algorithms on the CPU reference (spyglass/multigpu.h): the plan
// balances the format's bytes and cuts only where the format allows, the halo spans are exactly what
// the rows read, and every partitioning gives the unpartitioned SpMV and power iteration.
#include "binarymatrixrows.h"
#include "testmatrices.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/segdia_generators.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/multigpu.h"
#include "spyglass/multiprocess.h"
#include "spyglass/segdia_spmv.h"

#include <QtTest>

#include <cmath>
#include <random>

using namespace spyglass;
using namespace spyglass::generators;

namespace {

void checkCovers(const PartitionPlan& plan) {
    QVERIFY(!plan.parts.empty());
    QCOMPARE(plan.parts.front().rowBegin, 0);
    QCOMPARE(plan.parts.back().rowEnd, plan.rows);
    for (std::size_t p = 1; p < plan.parts.size(); ++p) QCOMPARE(plan.parts[p].rowBegin, plan.parts[p - 1].rowEnd);
    for (const RowPartition& p : plan.parts) QVERIFY(p.rows() > 0);
}

std::vector<double> randomX(Index n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<double> x(static_cast<std::size_t>(n));
    for (double& v : x) v = dist(rng);
    return x;
}

double maxDifference(const std::vector<double>& a, const std::vector<double>& b) {
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
    return d;
}

Matrix readTestMatrix(const char* name) { return readMatrixMarket(sharedMatrix(name).toStdString()); }

} // namespace

class TestMultiGpu : public QObject {
    Q_OBJECT

private slots:
    void planBalancesBytesNotRows() {
        // Rows 0..999 hold one entry, rows 1000..1999 eleven: equal rows would give one part 6x the bytes.
        CooMatrix<double> coo;
        coo.rows = coo.cols = 2000;
        for (Index r = 0; r < 2000; ++r)
            for (Index k = 0; k < (r < 1000 ? 1 : 11); ++k) {
                coo.rowIndex.push_back(r);
                coo.colIndex.push_back((r + k) % 2000);
                coo.values.push_back(1.0);
            }
        const PartitionPlan plan = partitionMatrix(cooToCsr(coo), 2).plan;
        checkCovers(plan);
        QCOMPARE(plan.parts.size(), std::size_t(2));
        QVERIFY2(plan.parts[0].rowEnd > 1300, qPrintable(QString::number(plan.parts[0].rowEnd)));
        QVERIFY2(plan.imbalance() < 1.01, qPrintable(QString::number(plan.imbalance())));
    }

    void haloOfAStencilIsItsNeighbourRows() {
        // 5-point Laplacian on 32 x 32: rows [a, b) read x[a - 32, b + 32); 4 parts exchange one grid
        // row across each of the 3 cuts in each direction.
        const PartitionedMatrix<double> m = partitionMatrix(cooToCsr(laplacian2d(32, 32)), 4);
        checkCovers(m.plan);
        QCOMPARE(m.plan.parts.size(), std::size_t(4));
        QCOMPARE(m.plan.halo.size(), std::size_t(6));
        for (const HaloTransfer& t : m.plan.halo) {
            QCOMPARE(std::abs(t.from - t.to), 1);
            QCOMPARE(t.end - t.begin, 32);
        }
        QCOMPARE(m.plan.sendRecvBytes(), std::uint64_t(6 * 32 * 8));
        QCOMPARE(m.plan.allGatherBytes(), std::uint64_t(3 * 1024 * 8));
        QCOMPARE(m.plan.exchange, HaloExchange::SendRecv);
        // A dense row everywhere makes the spans the whole vector: the all-gather moves less.
        const Matrix full = readTestMatrix("bcsstk02.mtx");
        const PartitionedMatrix<double> dense = partitionMatrix(toCsr<double>(full), 3);
        QCOMPARE(dense.plan.exchange, HaloExchange::AllGather);
        QVERIFY(dense.plan.sendRecvBytes() >= dense.plan.allGatherBytes());
    }

    void segmentedDiaCutsAtSegments() {
        const SegmentedDiaMatrix<double> seg = buildSegmentedDia(laplacian2d(40, 50), {64, true, SegmentedDiaRemainder::Auto});
        for (int parts : {2, 3, 5}) {
            const PartitionedMatrix<double> m = partitionMatrix(seg, parts);
            checkCovers(m.plan);
            QCOMPARE(int(m.plan.parts.size()), parts);
            for (const RowPartition& p : m.plan.parts) QCOMPARE(p.rowBegin % 64, 0);
            for (const SegmentedDiaMatrix<double>& slice : m.segmentedDia) QVERIFY(slice.blocks() >= 1);
        }
    }

    void hybridCutsOutsideRegions() {
        const BlockyMatrixSpec spec = binarymatrixrows::squareBlockySpec(2048, 6, 4, 3, 128, 3000);
        const GeneratedBinary generated = generateBlockyBinary(spec);
        const HybridBinaryMatrix hybrid = encodeHybrid(generated.pattern, generated.planted);
        QVERIFY(!hybrid.blocks.empty());
        for (int parts : {2, 4, 7}) {
            const PartitionedMatrix<double> m = partitionMatrix<double>(hybrid, parts);
            checkCovers(m.plan);
            for (const RowPartition& p : m.plan.parts)
                for (const HybridBlock& b : hybrid.blocks)
                    QVERIFY2(!(b.region.rowBegin < p.rowBegin && p.rowBegin < b.region.rowEnd), qPrintable(QString::fromStdString(b.region.describe())));
            std::size_t blocks = 0;
            for (const HybridBinaryMatrix& slice : m.hybrid) {
                validateHybrid(slice);
                blocks += slice.blocks.size();
            }
            QCOMPARE(blocks, hybrid.blocks.size());
            const std::vector<double> x = randomX(hybrid.cols, 5);
            QCOMPARE(partitionedSpmv(m, x, {}), hybridSpmvReference(hybrid, x));
        }
        // A slice through a region is refused, naming it.
        const DenseRegion& r = hybrid.blocks.front().region;
        QVERIFY_THROWS_EXCEPTION(InputError, sliceHybridRows(hybrid, r.rowBegin + 1, hybrid.rows));
    }

    void partitionedSpmvEqualsUnpartitioned_data() {
        QTest::addColumn<QString>("file");
        for (const char* name : {"watt_2.mtx", "olm1000.mtx", "bcsstk13.mtx", "west0479.mtx", "hangGlider_2.mtx", "Franz6_id1959_aug.mtx"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void partitionedSpmvEqualsUnpartitioned() {
        QFETCH(QString, file);
        const Matrix matrix = readMatrixMarket(sharedMatrix(file.toLatin1().constData()).toStdString());
        const CsrMatrix<double> csr = toCsr<double>(matrix);
        const std::vector<double> x = randomX(matrix.cols, 7);
        const std::vector<double> expected = spmvReference(csr, x);
        const SegmentedDiaMatrix<double> seg = buildSegmentedDia(toCoo<double>(expandSymmetry(matrix)), {128, true, SegmentedDiaRemainder::Auto});
        const std::vector<double> expectedSeg = spmvReference(seg, x);
        for (int parts : {1, 2, 3, 8}) {
            // Each row is summed exactly as before: the same order, so the same bits.
            QCOMPARE(partitionedSpmv(partitionMatrix(csr, parts), x, {}), expected);
            QCOMPARE(partitionedSpmv(partitionMatrix(seg, parts), x, {}), expectedSeg);
        }
    }

    void powerIterationEqualsUnpartitioned_data() {
        QTest::addColumn<QString>("format");
        QTest::addColumn<int>("exchange");
        for (const char* f : {"csr", "segdia"})
            for (int e : {int(HaloExchange::AllGather), int(HaloExchange::SendRecv)})
                QTest::newRow(qPrintable(QStringLiteral("%1 %2").arg(f).arg(toString(HaloExchange(e))))) << QString::fromLatin1(f) << e;
    }
    void powerIterationEqualsUnpartitioned() {
        QFETCH(QString, format);
        QFETCH(int, exchange);
        const CooMatrix<double> coo = laplacian2d(24, 30);
        PartitionRunOptions options;
        options.iterations = 60;
        auto run = [&](int parts) {
            if (format == QLatin1String("csr")) return powerIteration(partitionMatrix(cooToCsr(coo), parts, HaloExchange(exchange)), options);
            return powerIteration(partitionMatrix(buildSegmentedDia(coo, {32, true, SegmentedDiaRemainder::Auto}), parts, HaloExchange(exchange)),
                                  options);
        };
        const PowerIterationResult one = run(1);
        QCOMPARE(one.rayleigh.size(), std::size_t(60));
        for (int parts : {2, 3, 7}) {
            const PowerIterationResult many = run(parts);
            // Only the order of the partial dot products differs.
            QVERIFY2(std::abs(many.rayleigh.back() - one.rayleigh.back()) <= 1e-13 * one.rayleigh.back(),
                     qPrintable(QString::number(many.rayleigh.back() - one.rayleigh.back())));
            QVERIFY2(maxDifference(many.x, one.x) <= 1e-13, qPrintable(QString::number(maxDifference(many.x, one.x))));
        }
    }

    void powerIterationFindsTheLargestEigenvalue() {
        // 5-point Dirichlet Laplacian on 10 x 10: lambda_max = 4 + 4 cos(pi / 11); the next one is
        // 4 + 2 cos(pi / 11) + 2 cos(2 pi / 11), a ratio of 0.97, so 600 iterations leave ~1e-13.
        const PartitionedMatrix<double> m = partitionMatrix(cooToCsr(laplacian2d(10, 10)), 3);
        PartitionRunOptions options;
        options.iterations = 600;
        const PowerIterationResult r = powerIteration(m, options);
        const double expected = 4 + 4 * std::cos(M_PI / 11);
        QVERIFY2(std::abs(r.rayleigh.back() - expected) < 1e-9, qPrintable(QString::number(r.rayleigh.back() - expected, 'g', 3)));
        double norm = 0;
        for (double v : r.x) norm += v * v;
        QVERIFY(std::abs(norm - 1) < 1e-12);
    }

    void haloTooShortIsCaught() {
        // Dropping one halo span must change the result: the test above would notice a planner that
        // forgot a span.
        PartitionedMatrix<double> m = partitionMatrix(cooToCsr(laplacian2d(16, 16)), 2, HaloExchange::SendRecv);
        PartitionRunOptions options;
        options.iterations = 10;
        const PowerIterationResult good = powerIteration(m, options);
        m.plan.halo.pop_back();
        const PowerIterationResult bad = powerIteration(m, options);
        QVERIFY(maxDifference(good.x, bad.x) > 1e-6);
    }

    void badRequestsAreNamed() {
        const CsrMatrix<double> wide = toCsr<double>(readTestMatrix("lp_afiro.mtx"));
        QVERIFY_THROWS_EXCEPTION(InputError, partitionMatrix(wide, 0));
        try {
            powerIteration(partitionMatrix(wide, 2), {});
            QFAIL("a 27 x 51 matrix was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("square")), e.what());
        }
        // A nilpotent matrix: A x = 0 after one step.
        CooMatrix<double> shift;
        shift.rows = shift.cols = 4;
        shift.rowIndex = {0};
        shift.colIndex = {1};
        shift.values = {1.0};
        try {
            PartitionRunOptions options;
            options.iterations = 5;
            powerIteration(partitionMatrix(cooToCsr(shift), 2), options);
            QFAIL("a nilpotent matrix gave a result");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("iteration")), e.what());
        }
        PartitionRunOptions zero;
        zero.iterations = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, powerIteration(partitionMatrix(cooToCsr(laplacian2d(4, 4)), 2), zero));
        // More partitions than rows: as many as there are rows, none empty.
        const PartitionPlan tiny = partitionMatrix(cooToCsr(laplacian2d(2, 1)), 5).plan;
        checkCovers(tiny);
        QCOMPARE(tiny.parts.size(), std::size_t(2));
    }

    void gpuBackendWithoutDeviceSaysSo() {
        if (cudaDeviceCount() > 0) QSKIP("this machine has a GPU (tst_cuda_multigpu covers it)");
        PartitionRunOptions options;
        options.backend = PartitionBackend::Cuda;
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, powerIteration(partitionMatrix(cooToCsr(laplacian2d(8, 8)), 2), options));
    }
    // One process per GPU builds its plan from its own rows and the x spans the others send it: the
    // slices and the completed plan (rows, bytes, x spans, halo spans, exchange) are those of one
    // process cutting the whole matrix, so both runs compute the same thing.
    void rankPlansMeetAsTheSingleProcessPlan_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("ranks");
        for (const char* name : {"bcsstk13.mtx", "watt_2.mtx", "olm1000.mtx", "west0479.mtx"})
            for (int ranks : {1, 2, 3, 4}) QTest::newRow(qPrintable(QStringLiteral("%1 %2 ranks").arg(name).arg(ranks))) << QString::fromLatin1(name) << ranks;
    }
    void rankPlansMeetAsTheSingleProcessPlan() {
        QFETCH(QString, file);
        QFETCH(int, ranks);
        const std::string path = sharedMatrix(file.toLatin1().constData()).toStdString();
        const PartitionedMatrix<double> single = partitionMatrix(toCsr<double>(readMatrixMarket(path)), ranks);
        QCOMPARE(int(single.plan.parts.size()), ranks);
        PartitionPlan met;
        for (int r = 0; r < ranks; ++r) {
            const RankRows rows = readMatrixMarketRows(path, r, ranks);
            const CsrMatrix<double> slice = rankCsrSlice<double>(rows);
            const CsrMatrix<double>& expected = single.csr[std::size_t(r)];
            QCOMPARE(slice.rows, expected.rows);
            QCOMPARE(slice.cols, expected.cols);
            QVERIFY(slice.rowPtr == expected.rowPtr);
            QVERIFY(slice.colIndex == expected.colIndex);
            QVERIFY(slice.values == expected.values);
            const PartitionPlan partial = rankPartialPlan(slice, rows.blockStarts, r);
            if (r == 0) met = partial;
            met.parts[std::size_t(r)] = partial.parts[std::size_t(r)];  // what the all-gather brings
        }
        planExchange(met, HaloExchange::Auto);
        for (int p = 0; p < ranks; ++p) {
            const RowPartition &a = met.parts[std::size_t(p)], &b = single.plan.parts[std::size_t(p)];
            QCOMPARE(a.rowBegin, b.rowBegin);
            QCOMPARE(a.rowEnd, b.rowEnd);
            QCOMPARE(a.bytes, b.bytes);
            QCOMPARE(a.xBegin, b.xBegin);
            QCOMPARE(a.xEnd, b.xEnd);
        }
        QCOMPARE(met.halo.size(), single.plan.halo.size());
        for (std::size_t t = 0; t < met.halo.size(); ++t) {
            QCOMPARE(met.halo[t].from, single.plan.halo[t].from);
            QCOMPARE(met.halo[t].to, single.plan.halo[t].to);
            QCOMPARE(met.halo[t].begin, single.plan.halo[t].begin);
            QCOMPARE(met.halo[t].end, single.plan.halo[t].end);
        }
        QCOMPARE(met.exchange, single.plan.exchange);
        QCOMPARE(describePlan(met), describePlan(single.plan));
        // A slice given for another rank's block is refused, not planned.
        if (ranks > 1 && single.plan.parts[0].rows() != single.plan.parts[1].rows())
            QVERIFY_THROWS_EXCEPTION(InputError, rankPartialPlan(single.csr[0], readMatrixMarketRows(path, 1, ranks).blockStarts, 1));
    }
};

QTEST_GUILESS_MAIN(TestMultiGpu)
#include "tst_multigpu.moc"
