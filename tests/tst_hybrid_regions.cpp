// Dense-region geometry and detection (method D, steps 1-3).
#include "binarymatrixrows.h"
#include "testmatrices.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/matrixmarket.h"

#include "randompattern.h"

#include <QtTest>

#include <random>
#include <set>

using namespace spyglass;

namespace {

std::set<std::pair<Index, Index>> cellsOf(const DenseRegion& r) {
    std::set<std::pair<Index, Index>> cells;
    for (Index i = r.rowBegin; i < r.rowEnd; ++i) {
        const ColumnSpan s = r.span(i);
        for (Index j = s.begin; j < s.end; ++j) cells.insert({i, j});
    }
    return cells;
}

DenseRegion randomRegion(std::mt19937& rng, Index n) {
    std::uniform_int_distribution<Index> pos(0, n - 2);
    DenseRegion r;
    r.rowBegin = pos(rng), r.colBegin = pos(rng);
    r.rowEnd = r.rowBegin + 1 + std::uniform_int_distribution<Index>(0, n - 1 - r.rowBegin - 1)(rng);
    r.colEnd = r.colBegin + 1 + std::uniform_int_distribution<Index>(0, n - 1 - r.colBegin - 1)(rng);
    r.shape = static_cast<RegionShape>(rng() % 3);
    r.corner = static_cast<TriangleCorner>(rng() % 4);
    r.bandLow = -static_cast<Index>(rng() % 4);
    r.bandHigh = r.bandLow + static_cast<Index>(rng() % 5);
    return r;
}

using randompattern::randomPattern;

} // namespace

class TestDenseRegions : public QObject {
    Q_OBJECT
private slots:
    void squareTrianglesIncludeTheDiagonalAndHaveTriangularCellCounts() {
        for (Index n : {1, 2, 7, 33}) {
            for (int corner = 0; corner < 4; ++corner) {
                DenseRegion t;
                t.shape = RegionShape::Triangle;
                t.corner = static_cast<TriangleCorner>(corner);
                t.rowBegin = 3, t.rowEnd = 3 + n, t.colBegin = 5, t.colEnd = 5 + n;
                QCOMPARE(t.cells(), Count(n) * (n + 1) / 2);
            }
            DenseRegion lower;
            lower.shape = RegionShape::Triangle;
            lower.rowEnd = n, lower.colEnd = n;
            for (Index i = 0; i < n; ++i) {
                QCOMPARE(lower.span(i).begin, 0);
                QCOMPARE(lower.span(i).end, i + 1);
            }
        }
    }

    void bandCoversExactlyItsOffsets() {
        DenseRegion band;
        band.shape = RegionShape::Band;
        band.rowBegin = 10, band.rowEnd = 27, band.colBegin = 4, band.colEnd = 25, band.bandLow = -2, band.bandHigh = 3;
        for (const auto& [i, j] : cellsOf(band)) {
            const Index offset = (j - band.colBegin) - (i - band.rowBegin);
            QVERIFY(offset >= -2 && offset <= 3);
        }
        Count expected = 0;
        for (Index i = 0; i < 17; ++i)
            for (Index j = 0; j < 21; ++j) expected += (j - i >= -2 && j - i <= 3);
        QCOMPARE(band.cells(), expected);
        QCOMPARE(band.bandWidth(), 6);
    }

    void overlapTestAgreesWithCellSets() {
        std::mt19937 rng(41);
        int overlapping = 0;
        for (int trial = 0; trial < 600; ++trial) {
            const DenseRegion a = randomRegion(rng, 23), b = randomRegion(rng, 23);
            const auto ca = cellsOf(a), cb = cellsOf(b);
            bool shared = false;
            for (const auto& cell : ca) shared = shared || cb.count(cell);
            QCOMPARE(regionsOverlap(a, b), shared);
            overlapping += shared;
        }
        QVERIFY(overlapping > 50 && overlapping < 550);  // both outcomes were exercised
    }

    void exactOnesCountAgreesWithBruteForce() {
        std::mt19937 rng(7);
        const BinaryPattern p = randomPattern(rng, 31, 29, 0.4);
        std::set<std::pair<Index, Index>> ones;
        for (Index i = 0; i < p.rows; ++i)
            for (Count k = p.rowPtr[i]; k < p.rowPtr[i + 1]; ++k) ones.insert({i, p.colIndex[k]});
        for (int trial = 0; trial < 200; ++trial) {
            const DenseRegion r = randomRegion(rng, 29);
            Count expected = 0;
            for (const auto& cell : cellsOf(r)) expected += ones.count(cell);
            QCOMPARE(countRegionOnes(p, r), expected);
        }
    }

    void thumbnailBinsEveryNonzeroOnce_data() {
        QTest::addColumn<int>("cellsPerPixel");
        for (int cpp : {1, 3, 8, 64}) QTest::addRow("cpp %d", cpp) << cpp;
    }
    void thumbnailBinsEveryNonzeroOnce() {
        QFETCH(int, cellsPerPixel);
        std::mt19937 rng(5);
        const BinaryPattern p = randomPattern(rng, 45, 37, 0.3);
        const PatternThumbnail t = renderPatternThumbnail(p, cellsPerPixel);
        QCOMPARE(t.width, (37 + cellsPerPixel - 1) / cellsPerPixel);
        QCOMPARE(t.height, (45 + cellsPerPixel - 1) / cellsPerPixel);
        std::vector<std::uint32_t> expected(t.counts.size(), 0);
        for (Index i = 0; i < p.rows; ++i)
            for (Count k = p.rowPtr[i]; k < p.rowPtr[i + 1]; ++k)
                ++expected[static_cast<std::size_t>(i / cellsPerPixel) * t.width + p.colIndex[k] / cellsPerPixel];
        QVERIFY(t.counts == expected);
        for (int y = 0; y < t.height; ++y)
            for (int x = 0; x < t.width; ++x) QVERIFY(t.density(x, y) >= 0.0 && t.density(x, y) <= 1.0);
    }

    void detectionFindsPlantedShapesOfEachKind_data() {
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("cellsPerPixel");
        for (int seed : {1, 2, 3}) {
            QTest::addRow("seed %d cpp 1", seed) << seed << 1;
            QTest::addRow("seed %d cpp 4", seed) << seed << 4;
        }
    }
    void detectionFindsPlantedShapesOfEachKind() {
        QFETCH(int, seed);
        QFETCH(int, cellsPerPixel);
        BlockyMatrixSpec spec;
        spec.rows = 1001, spec.cols = 877;  // not multiples of the block or pixel size
        spec.rectangles = 3, spec.triangles = 3, spec.bands = 2;
        spec.blockSize = 96, spec.bandWidth = 11;
        spec.fillMin = 0.75, spec.fillMax = 0.95;
        spec.scattered = 3000;
        spec.seed = static_cast<std::uint64_t>(seed);
        const GeneratedBinary g = generateBlockyBinary(spec);
        DetectionOptions options;
        options.cellsPerPixel = cellsPerPixel;
        options.pixelThreshold = cellsPerPixel == 1 ? 1.0 : 0.3;
        const DetectionResult result = detectDenseRegions(g.pattern, options);
        for (std::size_t a = 0; a < result.regions.size(); ++a) {
            QVERIFY2(result.regions[a].fill() > options.minFill, qPrintable(QString::fromStdString(result.regions[a].describe())));
            QCOMPARE(result.regions[a].ones, countRegionOnes(g.pattern, result.regions[a]));
            for (std::size_t b = 0; b < a; ++b) QVERIFY(!regionsOverlap(result.regions[a], result.regions[b]));
        }
        // Each planted shape is found as the same kind of shape covering most of its ones.
        for (const DenseRegion& planted : g.planted) {
            Count covered = 0;
            bool sameKind = false;
            for (const DenseRegion& found : result.regions) {
                if (!regionsOverlap(found, planted)) continue;
                DenseRegion common = found;
                const Count inside = countRegionOnes(g.pattern, found);
                covered += std::min(inside, planted.ones);
                sameKind = sameKind || (found.shape == planted.shape &&
                                        (planted.shape != RegionShape::Triangle || found.corner == planted.corner));
                Q_UNUSED(common);
            }
            std::string found;
            for (const DenseRegion& r : result.regions)
                if (regionsOverlap(r, planted)) found += "; found " + r.describe();
            found += "; dropped shape/fill/overlap/size " + std::to_string(result.droppedByShape) + "/" +
                     std::to_string(result.droppedByFill) + "/" + std::to_string(result.droppedByOverlap) + "/" +
                     std::to_string(result.droppedBySize);
            QVERIFY2(sameKind, qPrintable(QString::fromStdString("not found as its kind: " + planted.describe() + found)));
            QVERIFY2(covered >= planted.ones * 8 / 10, qPrintable(QString::fromStdString("mostly missed: " + planted.describe())));
        }
    }

    void detectedRegionsOnSharedBinaryMatricesAreDenseAndDisjoint_data() {
        binarymatrixrows::addSharedRows();
    }
    void detectedRegionsOnSharedBinaryMatricesAreDenseAndDisjoint() {
        const BinaryPattern p = binarymatrixrows::sharedPatternOfRow();
        for (int cpp : {0, 1, 8}) {
            if (cpp == 1 && std::int64_t(p.rows) * p.cols > 100000000) continue;
            DetectionOptions options;
            options.cellsPerPixel = cpp;
            const DetectionResult result = detectDenseRegions(p, options);
            for (std::size_t a = 0; a < result.regions.size(); ++a) {
                validateRegion(result.regions[a], p.rows, p.cols);
                QVERIFY(result.regions[a].fill() > 0.5);
                for (std::size_t b = 0; b < a; ++b) QVERIFY(!regionsOverlap(result.regions[a], result.regions[b]));
            }
        }
    }

    void nonBinaryMatrixIsRejectedNamingTheEntry() {
        const Matrix m = parseMatrixMarket("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 3 2.5\n");
        try {
            binaryPatternFromMatrix(m);
            QFAIL("a value of 2.5 was accepted");
        } catch (const InputError& error) {
            QVERIFY2(QString(error.what()).contains("row 2, column 3"), error.what());
        }
    }

    void symmetricPatternIsExpanded() {
        const Matrix m = parseMatrixMarket("%%MatrixMarket matrix coordinate pattern symmetric\n4 4 3\n1 1\n3 1\n4 2\n");
        const BinaryPattern p = binaryPatternFromMatrix(m);
        QCOMPARE(p.nnz(), Count(5));
        QCOMPARE(p.rowPtr, (std::vector<Count>{0, 2, 3, 4, 5}));
        QCOMPARE(p.colIndex, (std::vector<Index>{0, 2, 3, 0, 1}));
    }

    void detectionStopsWhenCancelled() {
        BlockyMatrixSpec spec;
        spec.rows = spec.cols = 3000, spec.rectangles = 4, spec.blockSize = 200, spec.scattered = 100000;
        const GeneratedBinary g = generateBlockyBinary(spec);
        std::atomic<bool> cancel{true};
        DetectionOptions options;
        options.cancel = &cancel;
        QVERIFY_THROWS_EXCEPTION(CancelledError, detectDenseRegions(g.pattern, options));
    }

    // The scale target: 10^8 nonzeros detected in a few seconds on a 2-core machine. The
    // thumbnail pass dominates; the bound is loose (a loaded CI machine) but catches a quadratic step.
    void detectionOfHundredMillionNonzerosTakesSeconds() {
        BlockyMatrixSpec spec;
        spec.rows = spec.cols = 1000000, spec.rectangles = 24, spec.blockSize = 2048;
        spec.fillMin = 0.5, spec.fillMax = 0.9, spec.scattered = 30000000, spec.seed = 8;
        const GeneratedBinary g = generateBlockyBinary(spec);
        QVERIFY(g.pattern.nnz() > 95000000);
        QElapsedTimer timer;
        timer.start();
        const DetectionResult result = detectDenseRegions(g.pattern);
        const qint64 ms = timer.elapsed();
        qInfo("detection of %lld nonzeros: %lld ms (thumbnail %.0f ms, components %.0f ms, refine %.0f ms), %zu regions",
              static_cast<long long>(g.pattern.nnz()), ms, result.thumbnailMs, result.componentsMs, result.refineMs,
              result.regions.size());
        // Shapes closer than a pixel can merge into one component whose box is then mostly empty and
        // rejected; at this scale (gaps of half a pixel) most shapes must still be found.
        QVERIFY2(result.regions.size() >= g.planted.size() * 3 / 4, qPrintable(QString::number(result.regions.size())));
        for (const DenseRegion& r : result.regions) QVERIFY(r.fill() > 0.5);
        QVERIFY2(ms < 20000, "detection took more than 20 s");
    }

    void emptyAndDegenerateShapesDetectNothing() {
        for (auto [rows, cols] : {std::pair<Index, Index>{0, 5}, {5, 0}, {1, 1}, {2000, 3}}) {
            const BinaryPattern p = binaryPatternFromCoordinates(rows, cols, {}, {});
            QVERIFY(detectDenseRegions(p).regions.empty());
        }
    }
};

QTEST_GUILESS_MAIN(TestDenseRegions)
#include "tst_hybrid_regions.moc"
