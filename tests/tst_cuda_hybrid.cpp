// CUDA SpMV on the hybrid encoding equals the CPU reference exactly: binary matrix, integer x, so
// every partial sum is an integer far below 2^53 (fp64 accumulation) and below 2^24 after rounding.
#include "binarymatrixrows.h"
#include "cudatesting.h"
#include "testmatrices.h"
#include "spyglass/backend.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <algorithm>
#include <iterator>
#include <random>

using namespace spyglass;

namespace {

template <typename T>
std::vector<T> integerVector(Index n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> value(-4, 4);
    std::vector<T> x(static_cast<std::size_t>(n));
    for (T& v : x) v = static_cast<T>(value(rng));
    return x;
}

void compareBothPrecisions(const HybridBinaryMatrix& h, const BinaryPattern& p, std::uint32_t seed) {
    const auto xd = integerVector<double>(h.cols, seed);
    const auto yd = hybridSpmv(h, xd, {HybridSpmvBackend::Cuda});
    QVERIFY(yd == hybridSpmvReference(h, xd));
    QVERIFY(yd == patternSpmvReference(p, xd));
    const auto xf = integerVector<float>(h.cols, seed + 1);
    QVERIFY(hybridSpmv(h, xf, {HybridSpmvBackend::Cuda}) == hybridSpmvReference(h, xf));
}

} // namespace

class TestCudaHybrid : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        CUDATESTING_REQUIRE_DEVICE();
    }

    void cudaSpmvMatchesReferenceOnSharedBinaryMatrices_data() {
        binarymatrixrows::addSharedRows();
    }
    void cudaSpmvMatchesReferenceOnSharedBinaryMatrices() {
        const BinaryPattern p = binarymatrixrows::sharedPatternOfRow();
        compareBothPrecisions(encodeHybrid(p, detectDenseRegions(p).regions), p, 3);
        // Forced regions exercise the block path even where detection keeps none.
        DetectionOptions fine;
        fine.cellsPerPixel = std::int64_t(p.rows) * p.cols > 100000000 ? 0 : 4;
        fine.minRegionCells = 1;
        HybridEncodeOptions force;
        force.forceRegions = true;
        compareBothPrecisions(encodeHybrid(p, detectDenseRegions(p, fine).regions, force), p, 5);
    }

    void cudaSpmvMatchesReferenceOnGeneratedBlockyMatrices_data() {
        BlockyMatrixSpec planted = binarymatrixrows::squareBlockySpec(0, 6, 8, 4, 300, 60000);  // the rows give the size
        planted.bandWidth = 33;
        binarymatrixrows::addBlockyRows(planted, {{"square", 1, 4099, 4099}, {"wide", 2, 1501, 6007}, {"tall", 3, 7001, 2003}});
    }
    void cudaSpmvMatchesReferenceOnGeneratedBlockyMatrices() {
        QFETCH(BlockyMatrixSpec, spec);
        const GeneratedBinary g = generateBlockyBinary(spec);
        const HybridBinaryMatrix detected = encodeHybrid(g.pattern, detectDenseRegions(g.pattern).regions);
        QVERIFY(!detected.csrFallback);
        compareBothPrecisions(detected, g.pattern, 7);
        compareBothPrecisions(encodeHybrid(g.pattern, g.planted), g.pattern, 9);
    }

    void cudaSpmvMatchesReferenceOnSeedExampleAndEdgeShapes() {
        const GeneratedBinary seed = seedExampleBinary();
        HybridEncodeOptions force;
        force.forceRegions = true;
        compareBothPrecisions(encodeHybrid(seed.pattern, seed.planted, force), seed.pattern, 1);
        for (auto [rows, cols] : {std::pair<Index, Index>{0, 4}, {4, 0}, {1, 1}, {33, 1}, {1, 65}}) {
            std::vector<Index> ri, ci;
            if (rows && cols) ri = {0, rows - 1}, ci = {cols - 1, 0};
            const BinaryPattern p = binaryPatternFromCoordinates(rows, cols, ri, ci);
            compareBothPrecisions(encodeHybrid(p, {}), p, 2);
        }
    }

    // Every path of the kernel's tile plan: region rows with more zeros than a warp stages at once
    // (1024), covered strips whose row count is not a multiple of the tile, strips of two regions,
    // regions whose columns fit the shared x buffer (4096 floats, 2048 doubles) and wider ones, spans
    // over one and several 2048-column chunks; residual-only rows of every length class: empty, short
    // runs up to the 256-row and 2048-entry limits, exactly 32 and 33 entries (thread run / warp), 8191
    // and 8192 (warp / whole block), a full row; and long residual rows inside covered strips.
    void cudaSpmvMatchesReferenceOnEveryTileKind() {
        BlockyMatrixSpec spec;
        spec.rows = 6000, spec.cols = 20000, spec.rectangles = 2, spec.triangles = 1, spec.bands = 1;
        spec.blockSize = 1100, spec.bandWidth = 601, spec.fillMin = 0.5, spec.fillMax = 0.55, spec.scattered = 0;
        spec.seed = 11;
        const GeneratedBinary g = generateBlockyBinary(spec);
        std::vector<bool> covered(static_cast<std::size_t>(spec.rows), false);
        for (const DenseRegion& r : g.planted)
            for (Index row = r.rowBegin; row < r.rowEnd; ++row) covered[row] = true;
        std::vector<Index> ri, ci;
        for (Index row = 0; row < g.pattern.rows; ++row)
            for (Count k = g.pattern.rowPtr[row]; k < g.pattern.rowPtr[row + 1]; ++k) ri.push_back(row), ci.push_back(g.pattern.colIndex[k]);
        // Residual-only rows (outside every planted shape) get exactly `length` entries, `stride` apart.
        auto fill = [&](Index row, Index length, Index stride) {
            for (Index j = 0; j < length; ++j) ri.push_back(row), ci.push_back((j * stride) % spec.cols);
        };
        std::vector<Index> free;
        for (Index row = 0; row < spec.rows; ++row)
            if (!covered[row]) free.push_back(row);
        QVERIFY(free.size() > 700);
        const Index lengths[] = {0, 1, 31, 32, 33, 100, 8191, 8192, spec.cols};
        for (std::size_t k = 0; k < std::size(lengths); ++k) fill(free[k * 3], lengths[k], lengths[k] > 9000 ? 1 : 2);
        for (std::size_t k = 100; k < 100 + 64; ++k) fill(free[k], 32, 3);     // 64 x 32 = one full shared buffer
        for (std::size_t k = 200; k < 200 + 300; ++k) fill(free[k], 2, 5);     // more short rows than one run holds
        for (std::size_t k = 600; k < free.size(); ++k) fill(free[k], static_cast<Index>(k % 7), 11);
        for (Index row = 0; row < spec.rows; row += 3)
            if (covered[row]) ri.push_back(row), ci.push_back((row * 13) % spec.cols);  // inside a shape or not
        // Long residual rows inside covered strips (columns outside the shapes are left to the encoder).
        const DenseRegion& first = g.planted.front();
        fill(first.rowBegin + 5, 9000, 2);
        fill(first.rowEnd - 1, 40, 7);
        // Wide regions below the generator's grid (its last slot ends at row 4 * 1237): 6000 and 8000
        // columns (never staged), 3000 and ~3050 (staged for float only); two of them share rows.
        auto region = [](RegionShape shape, Index r0, Index r1, Index c0, Index c1) {
            DenseRegion r;
            r.shape = shape, r.rowBegin = r0, r.rowEnd = r1, r.colBegin = c0, r.colEnd = c1;
            return r;
        };
        std::vector<DenseRegion> regions = g.planted;
        regions.push_back(region(RegionShape::Rectangle, 5870, 5910, 100, 6100));
        regions.push_back(region(RegionShape::Rectangle, 5850, 5890, 10000, 13000));
        regions.push_back(region(RegionShape::Triangle, 5950, 5990, 0, 8000));
        regions.back().corner = TriangleCorner::UpperRight;
        regions.push_back(region(RegionShape::Band, 5920, 5945, 14000, 19000));
        regions.back().bandLow = -50, regions.back().bandHigh = 3000;
        for (std::size_t k = g.planted.size(); k < regions.size(); ++k) {
            QVERIFY(regions[k].rowBegin >= 4 * 1237);
            for (Index row = regions[k].rowBegin; row < regions[k].rowEnd; ++row) {
                const ColumnSpan span = regions[k].span(row);
                for (Index j = span.begin; j < span.end; ++j)
                    if ((static_cast<std::uint32_t>(row) * 2654435761u ^ static_cast<std::uint32_t>(j) * 40503u) % 5 < 3)
                        ri.push_back(row), ci.push_back(j);
            }
        }
        const BinaryPattern p = binaryPatternFromCoordinates(spec.rows, spec.cols, ri, ci);
        const HybridBinaryMatrix h = encodeHybrid(p, regions);
        QVERIFY(!h.csrFallback);
        QCOMPARE(h.blocks.size(), regions.size());
        std::uint32_t mostZeros = 0;
        for (const HybridBlock& b : h.blocks)
            for (std::size_t r = 0; r + 1 < b.zeroRowPtr.size(); ++r) mostZeros = std::max(mostZeros, b.zeroRowPtr[r + 1] - b.zeroRowPtr[r]);
        QVERIFY(mostZeros > 1024);
        compareBothPrecisions(h, p, 13);
    }

    void wrongVectorLengthIsRejected() {
        const GeneratedBinary seed = seedExampleBinary();
        QVERIFY_THROWS_EXCEPTION(InputError, hybridSpmv(encodeHybrid(seed.pattern, {}), std::vector<double>(9), {HybridSpmvBackend::Cuda}));
    }
};

QTEST_GUILESS_MAIN(TestCudaHybrid)
#include "tst_cuda_hybrid.moc"
