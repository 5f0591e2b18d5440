// The valued hybrid SpMV on the GPU against the CPU reference (hybridValuedSpmvReference): hand-made
// matrices with integer values and x (sums exact: results must be equal bit for bit), every tile kind
// of the kernel's plan, and every shared real matrix (within rounding). QSKIPs without a device.
#include "cudatesting.h"
#include "plantedbinary.h"
#include "testmatrices.h"

#include "spyglass/backend.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/matrixmarket.h"

#include <QDir>
#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

using namespace spyglass;

namespace {

DenseRegion rect(Index r0, Index r1, Index c0, Index c1, RegionShape shape = RegionShape::Rectangle,
                 TriangleCorner corner = TriangleCorner::LowerLeft, Index low = 0, Index high = 0) {
    return plantedtesting::region(shape, r0, r1, c0, c1, corner, low, high);
}

// Integer-valued matrix: the regions filled at `fill`, plus residual rows whose lengths follow
// `lengthOf(row)` (columns outside every region).
CsrMatrix<double> integerMatrix(Index rows, Index cols, const std::vector<DenseRegion>& regions, double fill,
                                const std::function<Index(Index)>& lengthOf, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    CooMatrix<double> coo;
    coo.rows = rows, coo.cols = cols;
    for (const DenseRegion& r : regions)
        for (Index i = r.rowBegin; i < r.rowEnd; ++i)
            for (Index j = r.span(i).begin; j < r.span(i).end; ++j)
                if (unit(rng) < fill) {
                    coo.rowIndex.push_back(i), coo.colIndex.push_back(j);
                    coo.values.push_back(double(int(rng() % 9) - 4) + (rng() % 2 ? 0.5 : 0.0));
                }
    for (Index i = 0; i < rows; ++i)
        for (Index k = 0, n = lengthOf(i); k < n; ++k) {
            const Index j = Index(rng() % cols);
            if (plantedtesting::insideAnyRegion(regions, i, j)) continue;
            coo.rowIndex.push_back(i), coo.colIndex.push_back(j);
            coo.values.push_back(double(int(rng() % 7) - 3));
        }
    return cooToCsr(coo);  // duplicates summed: still integers (or halves)
}

template <typename T>
std::vector<T> integerX(Index n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<T> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = T(int(rng() % 7) - 3);
    return x;
}

template <typename T>
void compareExact(const HybridValuedMatrix<T>& h, unsigned seed) {
    const auto x = integerX<T>(h.cols, seed);
    const std::vector<T> cpu = hybridValuedSpmvReference(h, x);
    const std::vector<T> gpu = hybridSpmv(h, x, {HybridSpmvBackend::Cuda});
    QCOMPARE(gpu.size(), cpu.size());
    for (std::size_t i = 0; i < cpu.size(); ++i)
        if (gpu[i] != cpu[i]) QFAIL(qPrintable(QStringLiteral("row %1: GPU %2, CPU %3").arg(i).arg(double(gpu[i])).arg(double(cpu[i]))));
}

} // namespace

class TestCudaHybridValued : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() {
        CUDATESTING_REQUIRE_DEVICE();
    }

    // Rows of every kind the plan makes: empty residual rows, runs of short rows (1, 2, 4 ... 32 lanes),
    // a row past 8192 entries (a whole block), covered strips where one, two or three regions share
    // rows, spans shorter and longer than a warp's unrolled step, triangles of each corner, a band with
    // empty rows at its ends, and gaps of uncovered rows between strips.
    void cudaSpmvMatchesReferenceOnEveryTileKind() {
        const Index rows = 3001, cols = 12007;
        const std::vector<DenseRegion> regions = {
            rect(10, 300, 100, 900),                                    // wide: spans past 8 x 32 values
            rect(150, 420, 1000, 1013),                                 // narrow, shares rows with the first
            rect(200, 260, 2000, 2700, RegionShape::Triangle, TriangleCorner::LowerLeft),
            rect(700, 777, 3000, 3100, RegionShape::Triangle, TriangleCorner::UpperRight),
            rect(800, 1100, 4000, 4050, RegionShape::Triangle, TriangleCorner::UpperLeft),
            rect(1200, 1233, 5000, 5800, RegionShape::Triangle, TriangleCorner::LowerRight),
            rect(1500, 1900, 6000, 6300, RegionShape::Band, TriangleCorner::LowerLeft, -350, -200),  // empty rows both ends
            rect(2990, 3001, 12000, 12007),                             // the last rows and columns
        };
        const auto lengthOf = [](Index i) -> Index {
            if (i == 2500) return 9000;                 // a block on one row
            if (i >= 2600 && i < 2700) return 40 + i % 30;  // a warp each
            if (i % 97 == 0) return 0;
            return (i / 50) % 7 == 0 ? 0 : 1 + (i * 7) % 13;
        };
        const CsrMatrix<double> a = integerMatrix(rows, cols, regions, 0.75, lengthOf, 5);
        const HybridValuedMatrix<double> h = encodeHybridValued(a, regions, {true});
        QCOMPARE(h.blocks.size(), regions.size());
        compareExact(h, 1);
        compareExact(encodeHybridValued(convertValues<float>(a), regions, {true}), 2);
        // The same matrix as residual only.
        compareExact(encodeHybridValued(a, {}), 3);
    }

    void cudaSpmvMatchesReferenceOnGeneratedBlockyMatrix() {
        BlockyMatrixSpec spec;
        spec.rows = 20011, spec.cols = 19997;
        spec.rectangles = 6, spec.triangles = 4, spec.bands = 2;
        spec.blockSize = 700, spec.bandWidth = 40;
        spec.scattered = 60000;
        spec.seed = 11;
        const GeneratedBinary g = generateBlockyBinary(spec);
        CsrMatrix<float> a;
        a.rows = g.pattern.rows, a.cols = g.pattern.cols, a.rowPtr = g.pattern.rowPtr, a.colIndex = g.pattern.colIndex;
        a.values.resize(a.colIndex.size());
        for (std::size_t k = 0; k < a.values.size(); ++k) a.values[k] = float(int(k % 11) - 5);
        DetectionResult detected;
        const HybridValuedMatrix<float> h = detectAndEncodeHybridValued(a, {}, &detected);
        QVERIFY(!h.blocks.empty());
        compareExact(h, 4);
    }

    void cudaSpmvMatchesReferenceOnSharedMatrices_data() {
        QTest::addColumn<QString>("path");
        for (const QString& f : QDir(testMatricesDir()).entryList({QStringLiteral("*.mtx")}, QDir::Files, QDir::Name))
            QTest::newRow(qPrintable(f)) << QDir(testMatricesDir()).filePath(f);
    }

    // Real values: CPU and GPU sum in a different order (both in fp64), so they agree within
    // (row length + 2) x eps(double) x sum |a x|; in fp32 the final rounding is the same one.
    void cudaSpmvMatchesReferenceOnSharedMatrices() {
        QFETCH(QString, path);
        const Matrix m = readMatrixMarket(path.toStdString());
        if (m.isComplex()) QSKIP("complex: no real SpMV");
        const CsrMatrix<double> a = toCsr<double>(m);
        std::vector<DenseRegion> regions = detectDenseRegions(patternOfCsr(a)).regions;
        if (regions.empty() && a.rows >= 4 && a.cols >= 4) regions.push_back(rect(a.rows / 4, a.rows / 2, a.cols / 4, a.cols / 2));
        const HybridValuedMatrix<double> h = encodeHybridValued(a, regions, {true});
        std::mt19937 rng(9);
        std::uniform_real_distribution<double> dist(-1, 1);
        std::vector<double> x(std::size_t(a.cols));
        for (double& v : x) v = dist(rng);
        const auto cpu = hybridValuedSpmvReference(h, x), gpu = hybridSpmv(h, x, {HybridSpmvBackend::Cuda});
        QCOMPARE(gpu.size(), cpu.size());
        for (Index i = 0; i < a.rows; ++i) {
            double magnitude = 0;
            for (Count k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) magnitude += std::fabs(a.values[k] * x[a.colIndex[k]]);
            if (!std::isfinite(cpu[i]) || !std::isfinite(magnitude)) {
                // A row that meets an inf (skew_fp64 holds one) must give the same non-finite result.
                const bool same = std::isnan(cpu[i]) ? std::isnan(gpu[i]) : gpu[i] == cpu[i];
                if (!same)
                    QFAIL(qPrintable(QStringLiteral("row %1: GPU %2, CPU %3 (non-finite)").arg(i).arg(gpu[i]).arg(cpu[i])));
                continue;
            }
            const double bound = double(a.rowPtr[i + 1] - a.rowPtr[i] + 2) * std::numeric_limits<double>::epsilon() * magnitude;
            if (!(std::fabs(gpu[i] - cpu[i]) <= bound))
                QFAIL(qPrintable(QStringLiteral("row %1: GPU %2, CPU %3, bound %4").arg(i).arg(gpu[i], 0, 'g', 17).arg(cpu[i], 0, 'g', 17).arg(bound)));
        }
    }

    void wrongVectorLengthIsRejected() {
        HybridValuedMatrix<float> h;
        h.rows = 3, h.cols = 4;
        h.residual.rows = 3, h.residual.cols = 4;
        h.residual.rowPtr.assign(4, 0);
        QVERIFY_THROWS_EXCEPTION(InputError, hybridSpmv(h, std::vector<float>(3), {HybridSpmvBackend::Cuda}));
    }
};

QTEST_GUILESS_MAIN(TestCudaHybridValued)
#include "tst_cuda_hybrid_valued.moc"
