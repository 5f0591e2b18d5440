// Hybrid encoding of binary matrices (method D, steps 4-6): exact round trip, sizes, CPU SpMV.
#include "binarymatrixrows.h"
#include "testmatrices.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/spmvtiming.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <random>

using namespace spyglass;

namespace {

std::vector<double> integerVector(Index n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> value(-8, 8);
    std::vector<double> x(static_cast<std::size_t>(n));
    for (double& v : x) v = value(rng);
    return x;
}

// The seed counts numbers, not bytes: shape parameters (rectangle and triangle 4 each, diagonal
// block 5), then zeros and residual as COO pairs.
Count seedNumbers(const HybridBinaryMatrix& h) {
    Count numbers = 0;
    for (const HybridBlock& b : h.blocks) numbers += b.region.shape == RegionShape::Band ? 5 : 4;
    return numbers + 2 * h.zeros() + 2 * h.residual.nnz();
}

} // namespace

class TestHybrid : public QObject {
    Q_OBJECT
private slots:
    void seedExampleHasTheSeedsCountsAndCompressionRatios() {
        const GeneratedBinary seed = seedExampleBinary();
        QCOMPARE(seed.pattern.nnz(), Count(39));
        QCOMPARE(seed.planted.size(), std::size_t(3));
        QCOMPARE(seed.planted[0].shape, RegionShape::Rectangle);
        QCOMPARE(seed.planted[0].ones, Count(10));
        QCOMPARE(seed.planted[1].shape, RegionShape::Triangle);
        QCOMPARE(seed.planted[1].ones, Count(9));
        QCOMPARE(seed.planted[2].shape, RegionShape::Band);
        QCOMPARE(seed.planted[2].ones, Count(15));
        HybridEncodeOptions options;
        options.forceRegions = true;
        const HybridBinaryMatrix h = encodeHybrid(seed.pattern, seed.planted, options);
        QCOMPARE(h.blocks.size(), std::size_t(3));
        QCOMPARE(h.residual.nnz(), Count(5));
        QCOMPARE(h.zeros(), Count(5));
        QCOMPARE(2 * seed.pattern.nnz(), Count(78));                // COO
        QCOMPARE(seed.pattern.rows + 1 + seed.pattern.nnz(), Count(50));  // CSR
        QCOMPARE(seedNumbers(h), Count(33));                         // hybrid: 78/33 = 2.36, 50/33 = 1.52
        QVERIFY(decodeHybrid(h) == seed.pattern);
        const std::vector<double> x = integerVector(10, 3);
        QVERIFY(hybridSpmvReference(h, x) == patternSpmvReference(seed.pattern, x));
        // Without forcing, the regions are too small to pay for their records: plain CSR, flagged.
        const HybridBinaryMatrix plain = encodeHybrid(seed.pattern, seed.planted);
        QVERIFY(plain.csrFallback);
        QVERIFY(!plain.fallbackReason.empty());
        QVERIFY(decodeHybrid(plain) == seed.pattern);
    }

    void roundTripIsExactAndNeverLargerThanCsrOnSharedBinaryMatrices_data() {
        binarymatrixrows::addSharedRows();
    }
    void roundTripIsExactAndNeverLargerThanCsrOnSharedBinaryMatrices() {
        const BinaryPattern p = binarymatrixrows::sharedPatternOfRow();
        for (Index cpp : {0, 2, 16}) {
            DetectionOptions options;
            options.cellsPerPixel = cpp;
            if (cpp && std::int64_t(p.rows / cpp) * (p.cols / cpp) > 50000000) continue;
            const HybridBinaryMatrix h = encodeHybrid(p, detectDenseRegions(p, options).regions);
            validateHybrid(h);
            QVERIFY(decodeHybrid(h) == p);
            QCOMPARE(h.nnz(), p.nnz());
            QVERIFY2(h.encodedBytes() <= patternCsrBytes(p.rows, p.nnz()) + 16,
                     qPrintable(QString("%1 > %2").arg(h.encodedBytes()).arg(patternCsrBytes(p.rows, p.nnz()))));
            QVERIFY(h.csrFallback == h.blocks.empty());
            const std::vector<double> x = integerVector(p.cols, 11);
            QVERIFY(hybridSpmvReference(h, x) == patternSpmvReference(p, x));
        }
    }

    void generatedBlockyMatrixCompressesAndRoundTrips_data() {
        BlockyMatrixSpec planted = binarymatrixrows::squareBlockySpec(0, 5, 4, 3, 200, 20000);  // the rows give the size
        planted.bandWidth = 21;
        binarymatrixrows::addBlockyRows(planted, {{"square odd", 1, 2999, 2999}, {"wide", 2, 1777, 4001}, {"tall", 3, 5003, 1201}});
    }
    void generatedBlockyMatrixCompressesAndRoundTrips() {
        QFETCH(BlockyMatrixSpec, spec);
        const GeneratedBinary g = generateBlockyBinary(spec);
        const DetectionResult detected = detectDenseRegions(g.pattern);
        const HybridBinaryMatrix h = encodeHybrid(g.pattern, detected.regions);
        validateHybrid(h);
        QVERIFY(!h.csrFallback);
        QVERIFY(h.blocks.size() >= g.planted.size() / 2);
        QVERIFY(decodeHybrid(h) == g.pattern);
        // Reverse encoding of >50 %-full blocks must beat CSR clearly on a mostly-blocky matrix.
        QVERIFY2(h.encodedBytes() * 2 < patternCsrBytes(g.pattern.rows, g.pattern.nnz()),
                 qPrintable(QString("%1 vs %2").arg(h.encodedBytes()).arg(patternCsrBytes(g.pattern.rows, g.pattern.nnz()))));
        const std::vector<double> x = integerVector(g.pattern.cols, 5);
        QVERIFY(hybridSpmvReference(h, x) == patternSpmvReference(g.pattern, x));
        std::vector<float> xf(x.begin(), x.end());
        QVERIFY(hybridSpmvReference(h, xf) == patternSpmvReference(g.pattern, xf));
    }

    void encodingWithPlantedRegionsOfEveryShapeRoundTrips() {
        for (std::uint64_t seed = 1; seed <= 6; ++seed) {
            BlockyMatrixSpec spec;
            spec.rows = 613, spec.cols = 587, spec.rectangles = 2, spec.triangles = 4, spec.bands = 2;
            spec.blockSize = 61, spec.bandWidth = 7, spec.scattered = 900, spec.seed = seed;
            const GeneratedBinary g = generateBlockyBinary(spec);
            const HybridBinaryMatrix h = encodeHybrid(g.pattern, g.planted);
            QCOMPARE(h.blocks.size(), g.planted.size());
            QVERIFY(decodeHybrid(h) == g.pattern);
            const std::vector<double> x = integerVector(g.pattern.cols, 9);
            QVERIFY(hybridSpmvReference(h, x) == patternSpmvReference(g.pattern, x));
        }
    }

    void sparseRegionFallsBackToCsrWithReason() {
        std::mt19937 rng(2);
        std::vector<Index> ri, ci;
        for (int k = 0; k < 3000; ++k) ri.push_back(rng() % 500), ci.push_back(rng() % 400);
        const BinaryPattern p = binaryPatternFromCoordinates(500, 400, ri, ci);
        DenseRegion whole;
        whole.rowEnd = 500, whole.colEnd = 400;
        const HybridBinaryMatrix h = encodeHybrid(p, {whole});
        QVERIFY(h.csrFallback);
        QVERIFY(h.blocks.empty());
        QVERIFY(!h.fallbackReason.empty());
        QCOMPARE(h.encodedBytes(), patternCsrBytes(500, p.nnz()) + 16);
        QVERIFY(decodeHybrid(h) == p);
    }

    void overlappingRegionsAreRejected() {
        const GeneratedBinary seed = seedExampleBinary();
        DenseRegion a, b;
        a.rowEnd = 5, a.colEnd = 5;
        b.shape = RegionShape::Triangle;
        b.corner = TriangleCorner::UpperRight;
        b.rowBegin = 4, b.rowEnd = 9, b.colBegin = 4, b.colEnd = 9;  // shares (4,4)
        QVERIFY_THROWS_EXCEPTION(InputError, encodeHybrid(seed.pattern, {a, b}));
        b.rowBegin = 5, b.rowEnd = 9;  // rows 5.. no longer meet a
        encodeHybrid(seed.pattern, {a, b});
    }

    void edgeShapesEncodeAndMultiply() {
        for (auto [rows, cols] : {std::pair<Index, Index>{0, 0}, {0, 7}, {7, 0}, {1, 1}, {5, 3}}) {
            std::vector<Index> ri, ci;
            if (rows && cols) ri = {0, rows - 1}, ci = {cols - 1, 0};
            const BinaryPattern p = binaryPatternFromCoordinates(rows, cols, ri, ci);
            const HybridBinaryMatrix h = encodeHybrid(p, detectDenseRegions(p).regions);
            QVERIFY(decodeHybrid(h) == p);
            const std::vector<double> x(static_cast<std::size_t>(cols), 2.0);
            QVERIFY(hybridSpmvReference(h, x) == patternSpmvReference(p, x));
        }
        QVERIFY_THROWS_EXCEPTION(InputError, hybridSpmvReference(HybridBinaryMatrix{}, std::vector<double>(3)));
    }

    void validationCatchesCorruptedEncodings() {
        BlockyMatrixSpec spec;
        spec.rows = spec.cols = 300, spec.rectangles = 2, spec.blockSize = 50, spec.scattered = 500;
        const GeneratedBinary g = generateBlockyBinary(spec);
        const HybridBinaryMatrix good = encodeHybrid(g.pattern, g.planted);
        QVERIFY(!good.csrFallback);
        validateHybrid(good);
        {
            HybridBinaryMatrix bad = good;
            QVERIFY(!bad.blocks[0].zeroOffsets.empty());
            bad.blocks[0].zeroOffsets.back() = 60;  // past a 50-wide span
            QVERIFY_THROWS_EXCEPTION(InputError, validateHybrid(bad));
        }
        {
            HybridBinaryMatrix bad = good;
            const DenseRegion& r = bad.blocks[0].region;
            bad.residual.colIndex[0] = r.colBegin;  // move a residual entry into a block's row?
            bad.residual.rowPtr.assign(bad.residual.rowPtr.size(), bad.residual.nnz());
            for (Index i = 0; i <= r.rowBegin; ++i) bad.residual.rowPtr[i] = 0;
            QVERIFY_THROWS_EXCEPTION(InputError, validateHybrid(bad));
        }
        {
            HybridBinaryMatrix bad = good;
            bad.blocks[1].region = bad.blocks[0].region;
            QVERIFY_THROWS_EXCEPTION(InputError, validateHybrid(bad));
        }
    }

    // hybridSpmv and its timed form validate before dispatch, with or without a GPU.
    void hybridSpmvDispatchesAndValidates() {
        const GeneratedBinary seed = seedExampleBinary();
        const HybridBinaryMatrix h = encodeHybrid(seed.pattern, seed.planted, {65535, true});
        std::vector<double> x(10);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(i) - 4.0;
        QCOMPARE(hybridSpmv(h, x), hybridSpmvReference(h, x));
        QVERIFY_THROWS_EXCEPTION(InputError, hybridSpmv(h, std::vector<double>(9), {HybridSpmvBackend::Cuda}));
        QVERIFY_THROWS_EXCEPTION(InputError, timeHybridSpmv(h, x, {HybridSpmvBackend::Reference}, {}));
        QVERIFY_THROWS_EXCEPTION(InputError, timeHybridSpmv(h, x, {HybridSpmvBackend::Cuda}, {0, 0}));
    }
};

QTEST_GUILESS_MAIN(TestHybrid)
#include "tst_hybrid.moc"
