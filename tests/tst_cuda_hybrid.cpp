// CUDA SpMV on the hybrid encoding equals the CPU reference exactly: binary matrix, integer x, so
// every partial sum is an integer far below 2^53 (fp64 accumulation) and below 2^24 after rounding.
#include "testmatrices.h"
#include "spyglass/backend.h"
#include "spyglass/denseregions.h"
#include "spyglass/error.h"
#include "spyglass/hybridbinary.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <random>

using namespace spyglass;

namespace {

QString matricesDir() {
    return testMatricesDir();
}

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
    const auto yd = hybridSpmvCuda(h, xd);
    QVERIFY(yd == hybridSpmvReference(h, xd));
    QVERIFY(yd == patternSpmvReference(p, xd));
    const auto xf = integerVector<float>(h.cols, seed + 1);
    QVERIFY(hybridSpmvCuda(h, xf) == hybridSpmvReference(h, xf));
}

} // namespace

class TestCudaHybrid : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        const DeviceInfo device = cudaDeviceInfo();
        if (!device.present) QSKIP(qPrintable(QString::fromStdString("no CUDA device: " + device.reason)));
        qInfo("device: %s", device.name.c_str());
    }

    void cudaSpmvMatchesReferenceOnSharedBinaryMatrices_data() {
        QTest::addColumn<QString>("file");
        for (const char* name : {"cover.mtx", "karate.mtx", "luxembourg.mtx", "pushpull.mtx", "sparse-images-1024_subset.mtx"})
            QTest::newRow(name) << QString::fromLatin1(name);
    }
    void cudaSpmvMatchesReferenceOnSharedBinaryMatrices() {
        QFETCH(QString, file);
        const BinaryPattern p = binaryPatternFromMatrix(readMatrixMarket((matricesDir() + "/" + file).toStdString()));
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
        QTest::addColumn<int>("seed");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::newRow("square") << 1 << 4099 << 4099;
        QTest::newRow("wide") << 2 << 1501 << 6007;
        QTest::newRow("tall") << 3 << 7001 << 2003;
    }
    void cudaSpmvMatchesReferenceOnGeneratedBlockyMatrices() {
        QFETCH(int, seed);
        QFETCH(int, rows);
        QFETCH(int, cols);
        BlockyMatrixSpec spec;
        spec.rows = rows, spec.cols = cols, spec.rectangles = 6, spec.triangles = 8, spec.bands = 4;
        spec.blockSize = 300, spec.bandWidth = 33, spec.scattered = 60000, spec.seed = static_cast<std::uint64_t>(seed);
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

    void wrongVectorLengthIsRejected() {
        const GeneratedBinary seed = seedExampleBinary();
        QVERIFY_THROWS_EXCEPTION(InputError, hybridSpmvCuda(encodeHybrid(seed.pattern, {}), std::vector<double>(9)));
    }
};

QTEST_GUILESS_MAIN(TestCudaHybrid)
#include "tst_cuda_hybrid.moc"
