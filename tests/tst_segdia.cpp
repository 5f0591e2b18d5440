// Method B on the CPU: the segmented DIA encoding keeps every nonzero, its statistics are right on hand
// cases, the merge rule's invariant holds, and the reference SpMV of every format matches a dense product.
#include "segdia_testing.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/matrixgenerators_dia.h"
#include "spyglass/segmenteddia.h"
#include "spyglass/spmv.h"

#include <QtTest>

#include <algorithm>
#include <set>

using namespace spyglass;
using namespace segdia_testing;

namespace {

template <typename T>
bool sameCoo(const CooMatrix<T>& a, const CooMatrix<T>& b) {
    return a.rows == b.rows && a.cols == b.cols && a.rowIndex == b.rowIndex && a.colIndex == b.colIndex &&
           a.values == b.values;
}

CooMatrix<double> cooFrom(Index rows, Index cols, std::vector<std::tuple<Index, Index, double>> entries) {
    CooMatrix<double> coo;
    coo.rows = rows;
    coo.cols = cols;
    for (auto [r, c, v] : entries) {
        coo.rowIndex.push_back(r);
        coo.colIndex.push_back(c);
        coo.values.push_back(v);
    }
    return coo;
}

// The oracle: a dense product where the matrix fits comfortably, else the expanded entries summed in
// long double (both independent of the formats under test).
std::vector<double> oracleProduct(const Matrix& matrix, const std::vector<double>& x) {
    std::vector<double> y(static_cast<std::size_t>(matrix.rows), 0.0);
    if (Count(matrix.rows) * matrix.cols <= 4'000'000) {
        const auto a = toDense<double>(matrix);
        for (Index j = 0; j < a.cols; ++j)
            for (Index i = 0; i < a.rows; ++i) y[i] += a(i, j) * x[j];
        return y;
    }
    const auto coo = toCoo<double>(expandSymmetry(matrix));
    std::vector<long double> sum(y.size(), 0.0L);
    for (std::size_t k = 0; k < coo.values.size(); ++k)
        sum[coo.rowIndex[k]] += static_cast<long double>(coo.values[k]) * x[coo.colIndex[k]];
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<double>(sum[i]);
    return y;
}

void checkMergeInvariant(const std::vector<Count>& work, const std::vector<std::vector<Index>>& blocks,
                         const std::vector<DiaMergeStep>& steps) {
    std::vector<int> seen(work.size(), 0);
    Count maxWork = 0, minWork = 0;
    Index previousLead = -1;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        QVERIFY(!blocks[b].empty());
        QVERIFY(std::is_sorted(blocks[b].begin(), blocks[b].end()));
        QVERIFY(blocks[b].front() > previousLead);
        previousLead = blocks[b].front();
        Count sum = 0;
        for (Index s : blocks[b]) {
            ++seen[s];
            sum += work[s];
        }
        maxWork = b == 0 ? sum : std::max(maxWork, sum);
        minWork = b == 0 ? sum : std::min(minWork, sum);
    }
    for (int count : seen) QCOMPARE(count, 1);  // every segment in exactly one block
    if (blocks.size() > 1) QVERIFY2(maxWork <= 2 * minWork, qPrintable(QString("max %1 min %2").arg(maxWork).arg(minWork)));
    QCOMPARE(Count(steps.size()), Count(work.size()) - Count(blocks.size()));
    for (const auto& step : steps) {
        QVERIFY(step.absorbedWork <= step.intoWork);
        QVERIFY(step.maxWork > 2 * step.absorbedWork);
        // The seed's branch never grows the largest block.
        if (step.rule == DiaMergeRule::TwoSmallest) QVERIFY(step.absorbedWork + step.intoWork < step.maxWork);
    }
}

} // namespace

class TestSegmentedDia : public QObject {
    Q_OBJECT

private slots:
    void encodeDecodeKeepsEveryNonzeroOfRandomBandedMatrices() {
        int cases = 0;
        for (unsigned seed = 1; seed <= 6; ++seed) {
            for (auto [rows, cols] : {std::pair<Index, Index>{1, 1}, {97, 97}, {301, 257}, {64, 333}, {1000, 1000}}) {
                const auto coo = generators::randomBanded(rows, cols, 9, 0.7, 13, seed);
                for (Index threshold : {Index(1), Index(7), Index(64), Index(rows + 5)}) {
                    SegmentedDiaOptions options;
                    options.threshold = threshold;
                    for (bool merge : {true, false}) {
                        options.merge = merge;
                        const auto m = buildSegmentedDia(coo, options);
                        QVERIFY(sameCoo(segmentedDiaToCoo(m), coo));
                        QCOMPARE(m.nonzeros, coo.nnz());
                        ++cases;
                    }
                }
                QVERIFY(sameCoo(diaToCoo(buildDia(coo)), coo));
            }
        }
        QVERIFY(cases > 200);
    }

    void encodeDecodeKeepsEveryNonzeroOfSharedMatrices() {
        const QStringList files = realMatrixFiles();
        QVERIFY(files.size() >= 15);
        for (const QString& name : files) {
            const auto matrix = readMatrixMarket(QDir(matricesDir()).filePath(name).toStdString());
            const auto coo = canonicalCoo<double>(matrix);
            for (Index threshold : {Index(1), Index(3), Index(32), Index(512)}) {
                SegmentedDiaOptions options;
                options.threshold = threshold;
                QVERIFY2(sameCoo(segmentedDiaToCoo(buildSegmentedDia(coo, options)), coo), qPrintable(name));
            }
        }
    }

    void duplicatesAreSummedAndFloatBuildsToo() {
        const auto coo = cooFrom(3, 3, {{0, 0, 1.0}, {2, 1, 2.0}, {0, 0, 3.0}});
        const auto m = buildSegmentedDia(castCoo<float>(coo), {2, true});
        const auto back = segmentedDiaToCoo(m);
        QCOMPARE(back.values, (std::vector<float>{4.0f, 2.0f}));
        QCOMPARE(m.nonzeros, Count(2));
    }

    void statsMatchHandCountedCase() {
        // Threshold 2 cuts 6 rows into 3 segments:
        //   rows 0-1: (0,0) (1,1) (0,1)        offsets {0,1}      2 x 2 = 4 slots, 3 nonzeros
        //   rows 2-3: (2,2) (3,3) (3,0)        offsets {-3,0}     2 x 2 = 4 slots, 3 nonzeros
        //   rows 4-5: (4,4) (5,5) (4,5) (5,1) (4,0)  offsets {-4,0,1}  3 x 2 = 6 slots, 5 nonzeros
        const auto coo = cooFrom(6, 6, {{0, 0, 1}, {1, 1, 2}, {0, 1, 3}, {2, 2, 4}, {3, 3, 5}, {3, 0, 6},
                                        {4, 4, 7}, {5, 5, 8}, {4, 5, 9}, {5, 1, 10}, {4, 0, 11}});
        const auto m = buildSegmentedDia(coo, {2, true});
        QCOMPARE(m.offsets, (std::vector<Index>{0, 1, -3, 0, -4, 0, 1}));
        QCOMPARE(m.segmentOffsetStart, (std::vector<Count>{0, 2, 4, 7}));
        QCOMPARE(m.segmentValueStart, (std::vector<Count>{0, 4, 8, 14}));
        // Segment 1, diagonal -3 (index 0): row 2 has column -1 (padding), row 3 has (3,0) = 6;
        // segment 2 starts with diagonal -4, which holds (4,0) = 11 and (5,1) = 10.
        QCOMPARE(m.values[4], 0.0);
        QCOMPARE(m.values[5], 6.0);
        QCOMPARE(m.values[8], 11.0);
        QCOMPARE(m.values[9], 10.0);
        const auto stats = computeSegmentedDiaStats(m);
        QCOMPARE(stats.segments, Count(3));
        QCOMPARE(stats.blocks, Count(3));  // works 4, 4, 6: 6 <= 2 x 4, nothing to merge
        QVERIFY(m.mergeSteps.empty());
        QCOMPARE(stats.nonzeros, Count(11));
        QCOMPARE(stats.storedSlots, Count(14));
        QCOMPARE(stats.paddingRatio, 14.0 / 11.0);
        QCOMPARE(stats.maxBlockWork, Count(6));
        QCOMPARE(stats.minBlockWork, Count(4));
        QCOMPARE(stats.maxSegmentDiagonals, Index(3));
        QCOMPARE(stats.totalDiagonals, Count(7));
        const std::size_t bytes = 14 * sizeof(double) + 7 * sizeof(Index) + 4 * sizeof(Index) + 4 * sizeof(Count) +
                                  4 * sizeof(Count) + 4 * sizeof(Index) + 3 * sizeof(Index);
        QCOMPARE(stats.bytes, bytes);
    }

    void mergeFollowsTheSeedOnHandCase() {
        // Works 8 1 1 8 2: the two 1s merge (8 > 2 x 1), then that 2 with the other 2 (8 > 2 x 2),
        // then max 8 <= 2 x 4 stops it.
        std::vector<DiaMergeStep> steps;
        const auto blocks = mergeSegmentsByWork({8, 1, 1, 8, 2}, &steps);
        QCOMPARE(blocks, (std::vector<std::vector<Index>>{{0}, {1, 2, 4}, {3}}));
        QCOMPARE(steps.size(), std::size_t(2));
        QCOMPARE(steps[0].absorbedLead, Index(1));
        QCOMPARE(steps[0].intoLead, Index(2));
        QCOMPARE(steps[0].rule, DiaMergeRule::TwoSmallest);
        QCOMPARE(steps[1].absorbedWork + steps[1].intoWork, Count(4));
        QCOMPARE(steps[1].blocksAfter, Count(3));
        // Only the smallest lags: 10 > 2 x 4 but not > 2 x 6, so it joins the 6 (SmallestIntoNext).
        steps.clear();
        const auto second = mergeSegmentsByWork({10, 4, 6, 9}, &steps);
        QCOMPARE(second, (std::vector<std::vector<Index>>{{0}, {1, 2}, {3}}));
        QCOMPARE(steps.size(), std::size_t(1));
        QCOMPARE(steps[0].rule, DiaMergeRule::SmallestIntoNext);
    }

    void mergeLeavesNoBlockWithMoreThanTwiceTheWorkOfAnother() {
        std::mt19937 rng(99);
        for (int trial = 0; trial < 300; ++trial) {
            const int count = 1 + int(rng() % 200);
            std::vector<Count> work(count);
            const int spread = 1 + int(rng() % 1000);
            for (auto& w : work) w = (rng() % 10 == 0) ? 0 : Count(rng() % spread);
            std::vector<DiaMergeStep> steps;
            const auto blocks = mergeSegmentsByWork(work, &steps);
            checkMergeInvariant(work, blocks, steps);
        }
        QVERIFY(mergeSegmentsByWork({}).empty());
    }

    void builtBlocksCoverEveryRowOnceAndHonourTheInvariant() {
        const auto coo = generators::cfdLike(23, 19, 17, 6, 40, 5);
        const auto m = buildSegmentedDia(coo, {64, true});
        std::vector<Count> work(m.segments());
        for (Index s = 0; s < m.segments(); ++s) work[s] = m.segmentWork(s);
        std::vector<std::vector<Index>> blocks;
        for (Index b = 0; b < m.blocks(); ++b)
            blocks.emplace_back(m.blockSegments.begin() + m.blockStart[b], m.blockSegments.begin() + m.blockStart[b + 1]);
        checkMergeInvariant(work, blocks, m.mergeSteps);
        const auto hdia = buildHdia(coo, 64);
        QCOMPARE(hdia.blocks(), hdia.segments());
        QVERIFY(hdia.mergeSteps.empty());
    }

    void cfdLikeSegmentedPaddingStaysLowWhereDiaPadsHeavily() {
        const auto coo = generators::cfdLike(60, 50, 40, 8, 64, 11);
        const auto stats = computeSegmentedDiaStats(buildSegmentedDia(coo, {256, true}));
        QVERIFY2(stats.paddingRatio <= 1.10, qPrintable(QString::number(stats.paddingRatio)));
        const auto dia = buildDia(coo);
        const double diaPadding = double(dia.storedSlots()) / double(dia.nonzeros);
        QVERIFY2(diaPadding > 4.0, qPrintable(QString::number(diaPadding)));
    }

    void laplacianPaddingMatchesTheMissingBoundaryNeighbours() {
        const Index nx = 37, ny = 29;
        const auto coo = generators::laplacian2d(nx, ny);
        QCOMPARE(coo.nnz(), Count(5) * nx * ny - 2 * nx - 2 * ny);
        const auto dia = buildDia(coo);
        QCOMPARE(dia.offsets, (std::vector<Index>{-nx, -1, 0, 1, nx}));
        const auto seg = buildSegmentedDia(coo, {Index(nx * ny), true});  // one segment = plain DIA
        QCOMPARE(computeSegmentedDiaStats(seg).storedSlots, dia.storedSlots());
    }

    void referenceSpmvOfEveryFormatMatchesDenseProductOnSharedMatrices() {
        for (const QString& name : realMatrixFiles()) {
            const auto matrix = readMatrixMarket(QDir(matricesDir()).filePath(name).toStdString());
            const auto coo = canonicalCoo<double>(matrix);
            const auto csr = toCsr<double>(matrix);
            const auto x = randomVector<double>(static_cast<std::size_t>(coo.cols), 17);
            const auto want = oracleProduct(matrix, x);
            const auto bound = rowErrorBounds(csr, x);
            QVERIFY2(compareRows(spmvReference(csr, x), want, bound).empty(), qPrintable(name + " csr"));
            for (Index threshold : {Index(1), Index(5), Index(128)}) {
                const auto seg = buildSegmentedDia(coo, {threshold, true});
                const std::string problem = compareRows(spmvReference(seg, x), want, bound);
                QVERIFY2(problem.empty(), qPrintable(name + " segdia: " + QString::fromStdString(problem)));
            }
            const std::string hdia = compareRows(spmvReference(buildHdia(coo, 16), x), want, bound);
            QVERIFY2(hdia.empty(), qPrintable(name + " hdia: " + QString::fromStdString(hdia)));
            // Plain DIA of a scattered matrix (luxembourg) would need tens of GB: that is its weakness.
            DiaMatrix<double> dia;
            try {
                dia = buildDia(coo, 20'000'000);
            } catch (const OutOfMemoryError&) {
                continue;
            }
            const std::string diaProblem = compareRows(spmvReference(dia, x), want, bound);
            QVERIFY2(diaProblem.empty(), qPrintable(name + " dia: " + QString::fromStdString(diaProblem)));
        }
    }

    void integerStencilSpmvIsExact() {
        const auto coo = generators::stencil27(13, 11, 7);
        const auto seg = buildSegmentedDia(coo, {100, true});
        std::vector<double> x(static_cast<std::size_t>(coo.cols));
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(int(i % 7) - 3);
        std::vector<double> want(static_cast<std::size_t>(coo.rows), 0.0);
        for (std::size_t k = 0; k < coo.values.size(); ++k) want[coo.rowIndex[k]] += coo.values[k] * x[coo.colIndex[k]];
        QCOMPARE(spmvReference(seg, x), want);
        QCOMPARE(spmvReference(buildDia(coo), x), want);
    }

    void tilingARealBandedMatrixKeepsItsDiagonals() {
        const auto block = canonicalCoo<double>(readMatrixMarket(QDir(matricesDir()).filePath("olm1000.mtx").toStdString()));
        const auto tiled = generators::tiledAlongDiagonal(block, 7);
        QCOMPARE(tiled.rows, 7 * block.rows);
        QCOMPARE(tiled.cols, 7 * block.cols);
        QCOMPARE(tiled.values.size(), 7 * block.values.size());
        // Same diagonals as the file (offsets -2..+3), so the whole tiled matrix stays one band.
        const auto dia = buildDia(tiled, 1'000'000);
        QCOMPARE(dia.offsets, buildDia(block, 1'000'000).offsets);
        // Copy c of entry k sits at (r + c*rows, col + c*cols) with its value, in row order.
        const auto csr = cooToCsr(tiled);
        const auto blockCsr = cooToCsr(block);
        for (Index c : {Index(0), Index(3), Index(6)})
            for (Index r : {Index(0), Index(499), Index(999)}) {
                const Index row = r + c * block.rows;
                QCOMPARE(csr.rowPtr[row + 1] - csr.rowPtr[row], blockCsr.rowPtr[r + 1] - blockCsr.rowPtr[r]);
                for (Count k = 0; k < blockCsr.rowPtr[r + 1] - blockCsr.rowPtr[r]; ++k) {
                    QCOMPARE(csr.colIndex[csr.rowPtr[row] + k], blockCsr.colIndex[blockCsr.rowPtr[r] + k] + c * block.cols);
                    QCOMPARE(csr.values[csr.rowPtr[row] + k], blockCsr.values[blockCsr.rowPtr[r] + k]);
                }
            }
        for (std::size_t k = 1; k < tiled.rowIndex.size(); ++k) QVERIFY(tiled.rowIndex[k - 1] <= tiled.rowIndex[k]);
        QVERIFY_THROWS_EXCEPTION(InputError, generators::tiledAlongDiagonal(block, 3'000'000));
        QVERIFY_THROWS_EXCEPTION(InputError, generators::tiledAlongDiagonal(block, -1));
        QCOMPARE(generators::tiledAlongDiagonal(block, 0).values.size(), std::size_t(0));
    }

    void badInputIsRefusedWithItsPlace() {
        const auto outside = cooFrom(3, 3, {{0, 0, 1.0}, {1, 3, 2.0}});
        try {
            buildSegmentedDia(outside);
            QFAIL("no exception");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("entry 1 at (1, 3)"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(InputError, buildSegmentedDia(cooFrom(3, 3, {}), {0, true}));
        const auto m = buildSegmentedDia(cooFrom(3, 3, {{0, 0, 1.0}}));
        QVERIFY_THROWS_EXCEPTION(InputError, spmvReference(m, std::vector<double>(2)));
        QVERIFY_THROWS_EXCEPTION(OutOfMemoryError, buildDia(generators::randomBanded(500, 500, 40, 0.1, 0, 3), 1000));
    }

    void edgeShapesWork() {
        const auto empty = buildSegmentedDia(cooFrom(0, 5, {}));
        QCOMPARE(empty.segments(), Index(0));
        QVERIFY(spmvReference(empty, std::vector<double>(5)).empty());
        const auto noCols = buildSegmentedDia(cooFrom(4, 0, {}), {3, true});
        QCOMPARE(spmvReference(noCols, std::vector<double>{}), std::vector<double>(4, 0.0));
        const auto emptyRows = buildSegmentedDia(cooFrom(9, 9, {{8, 0, 2.0}}), {2, true});
        std::vector<double> x(9, 1.5);
        std::vector<double> want(9, 0.0);
        want[8] = 3.0;
        QCOMPARE(spmvReference(emptyRows, x), want);
    }

    void gpuPathsReportAMissingDevice() {
        if (cudaDeviceInfo().present) QSKIP("a CUDA device is present");
        const auto coo = generators::laplacian2d(5, 4);
        const std::vector<double> x(20, 1.0);
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, spmvCuda(buildSegmentedDia(coo), x));
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, spmvCuda(buildDia(coo), x));
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, spmvCusparse(cooToCsr(coo), x));
    }
};

QTEST_GUILESS_MAIN(TestSegmentedDia)
#include "tst_segdia.moc"
