// The valued hybrid SpMV on the GPU against the CPU reference (hybridValuedSpmvReference): hand-made
// matrices with integer values and x (sums exact: results must be equal bit for bit), every tile kind
// of the kernel's plan, and every shared real matrix (within rounding); the same in complex values
// (c64, c128: integer parts bit for bit, random parts within rounding, both parts non-zero so that a
// kernel dropping or conjugating the imaginary parts fails). QSKIPs without a device.
#include "complexoracle.h"
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
#include "spyglass/segdia_spmv.h"

#include <QDir>
#include <QtTest>

#include <cmath>
#include <complex>
#include <functional>
#include <limits>
#include <random>
#include <type_traits>

using namespace spyglass;

namespace {

using complexoracle::randomComplexX;

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

template <typename T> constexpr bool isComplexValue = false;
template <typename R> constexpr bool isComplexValue<std::complex<R>> = true;

// An integer in [-3, 3], as both parts of a complex value.
template <typename T>
T integerValue(std::mt19937& rng) {
    if constexpr (isComplexValue<T>) {
        const int re = int(rng() % 7) - 3;  // named: the order of the two draws is fixed
        return T(re, int(rng() % 7) - 3);
    } else {
        return T(int(rng() % 7) - 3);
    }
}

template <typename T>
std::vector<T> integerX(Index n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<T> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = integerValue<T>(rng);
    return x;
}

QString valueText(double v) { return QString::number(v, 'g', 17); }
template <typename R>
QString valueText(std::complex<R> v) {
    return QStringLiteral("(%1, %2)").arg(double(v.real()), 0, 'g', 17).arg(double(v.imag()), 0, 'g', 17);
}

template <typename T>
void compareExact(const HybridValuedMatrix<T>& h, unsigned seed) {
    const auto x = integerX<T>(h.cols, seed);
    const std::vector<T> cpu = hybridValuedSpmvReference(h, x);
    const std::vector<T> gpu = hybridSpmv(h, x, {HybridSpmvBackend::Cuda});
    QCOMPARE(gpu.size(), cpu.size());
    for (std::size_t i = 0; i < cpu.size(); ++i)
        if (gpu[i] != cpu[i])
            QFAIL(qPrintable(QStringLiteral("row %1: GPU %2, CPU %3").arg(i).arg(valueText(gpu[i]), valueText(cpu[i]))));
}

// `a`'s pattern with complex values: integers (both parts in [-3, 3], the imaginary one never 0:
// every product and sum exact in fp64, and in c64 once rounded) or both parts uniform in [-1, 1).
template <typename C>
CsrMatrix<C> complexValues(const CsrMatrix<double>& a, unsigned seed, bool integers) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    CsrMatrix<C> c;
    c.rows = a.rows, c.cols = a.cols, c.rowPtr = a.rowPtr, c.colIndex = a.colIndex;
    c.values.reserve(a.values.size());
    for (std::size_t k = 0; k < a.values.size(); ++k) {
        if (integers) {
            const int im = 1 + int(rng() % 3);
            c.values.push_back(C(typename C::value_type(a.values[k]), typename C::value_type(rng() % 2 ? im : -im)));
        } else {
            const double re = uniform(rng);  // named: the order of the two draws is fixed
            c.values.push_back(C(typename C::value_type(re), typename C::value_type(uniform(rng))));
        }
    }
    return c;
}

// Complex values, random parts: the GPU and the CPU reference each sum both parts of a row in fp64, in
// different orders. A part is a sum of 2 n_i real products (Re: ar xr - ai xi, Im: ar xi + ai xr);
// a complex product costs at most two roundings per part (one with an FMA), so each side is within
// (n_i + 1) u S of the exact part, S = sum_j (|ar xr| + |ai xi|) (or the Im pair) <= sum_j |a_ij| |x_j|
// by Cauchy-Schwarz: the two differ by at most (n_i + 1) eps sum_j |a_ij| |x_j| in each part, and the
// existing real bound (n_i + 2) eps sum_j |a_ij x_j| covers that per part with the same slack. c64
// rounds each part once more to float (the same rounding on both sides, so values a rounding apart
// can only land one float ulp apart): plus eps(float) |y_cpu part|.
template <typename C>
void compareWithinRounding(const HybridValuedMatrix<C>& h, const CsrMatrix<C>& a, const std::vector<C>& x, const QString& what) {
    using R = typename C::value_type;
    const std::vector<C> cpu = hybridValuedSpmvReference(h, x), gpu = hybridSpmv(h, x, {HybridSpmvBackend::Cuda});
    QCOMPARE(gpu.size(), cpu.size());
    const double eps = std::numeric_limits<double>::epsilon();
    const double finalRounding = std::is_same_v<R, float> ? double(std::numeric_limits<float>::epsilon()) : 0.0;
    double worst = 0;
    for (Index i = 0; i < a.rows; ++i) {
        double magnitude = 0;
        for (Count k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k)
            magnitude += std::abs(std::complex<double>(a.values[k])) * std::abs(std::complex<double>(x[a.colIndex[k]]));
        const double bound = double(a.rowPtr[i + 1] - a.rowPtr[i] + 2) * eps * magnitude;
        const std::complex<double> g(gpu[i]), c(cpu[i]);
        const double reBound = bound + finalRounding * std::fabs(c.real()), imBound = bound + finalRounding * std::fabs(c.imag());
        if (!(std::fabs(g.real() - c.real()) <= reBound && std::fabs(g.imag() - c.imag()) <= imBound))
            QFAIL(qPrintable(QStringLiteral("%1 row %2: GPU %3, CPU %4, bounds %5, %6")
                                 .arg(what).arg(i).arg(valueText(gpu[i]), valueText(cpu[i])).arg(reBound).arg(imBound)));
        if (bound > 0) worst = std::max(worst, std::abs(g - c) / bound);
    }
    qInfo("%s: worst |GPU - CPU| / fp64 bound %.3g", qPrintable(what), worst);
}

// Every row of y carries the imaginary parts: the product differs from conj(A) x by far more than
// rounding (so a kernel that dropped or conjugated them could not pass compareWithinRounding).
template <typename C>
void requireImaginaryPartsMatter(const CsrMatrix<C>& a, const std::vector<C>& x) {
    CsrMatrix<C> conjugated = a;
    for (C& v : conjugated.values) v = std::conj(v);
    const std::vector<C> y = spmvReference(a, x), yc = spmvReference(conjugated, x);
    double difference = 0, scale = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        difference = std::max(difference, double(std::abs(y[i] - yc[i])));
        scale = std::max(scale, double(std::abs(y[i])));
    }
    QVERIFY2(difference > 1e-3 * scale, "the imaginary parts do not matter on this matrix");
}

// Rectangles, triangles, bands and a scattered residual over about 20 000 x 20 000: the real and the
// complex generated-matrix cases multiply the same shapes.
BlockyMatrixSpec blockySpec() {
    BlockyMatrixSpec spec;
    spec.rows = 20011, spec.cols = 19997;
    spec.rectangles = 6, spec.triangles = 4, spec.bands = 2;
    spec.blockSize = 700, spec.bandWidth = 40;
    spec.scattered = 60000;
    spec.seed = 11;
    return spec;
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
        const GeneratedBinary g = generateBlockyBinary(blockySpec());
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

    // The hand-made matrix of cudaSpmvMatchesReferenceOnEveryTileKind (covered strips of one to three
    // regions, every triangle corner, a band, residual rows of 1 to 32 lanes and of a warp each) in
    // complex values with integer parts: every product and sum is exact, so c64 and c128 agree with
    // the reference bit for bit. (Rows of a whole block: cudaComplexSpmvLongResidualRowsWithinRounding.)
    void cudaComplexSpmvMatchesReferenceOnEveryTileKind() {
        const Index rows = 3001, cols = 12007;
        const std::vector<DenseRegion> regions = {
            rect(10, 300, 100, 900),
            rect(150, 420, 1000, 1013),
            rect(200, 260, 2000, 2700, RegionShape::Triangle, TriangleCorner::LowerLeft),
            rect(700, 777, 3000, 3100, RegionShape::Triangle, TriangleCorner::UpperRight),
            rect(800, 1100, 4000, 4050, RegionShape::Triangle, TriangleCorner::UpperLeft),
            rect(1200, 1233, 5000, 5800, RegionShape::Triangle, TriangleCorner::LowerRight),
            rect(1500, 1900, 6000, 6300, RegionShape::Band, TriangleCorner::LowerLeft, -350, -200),
            rect(2990, 3001, 12000, 12007),
        };
        const auto lengthOf = [](Index i) -> Index {
            if (i == 2500) return 9000;
            if (i >= 2600 && i < 2700) return 40 + i % 30;
            if (i % 97 == 0) return 0;
            return (i / 50) % 7 == 0 ? 0 : 1 + (i * 7) % 13;
        };
        const CsrMatrix<double> real = integerMatrix(rows, cols, regions, 0.75, lengthOf, 5);
        // Integer parts only: the halves of integerMatrix doubled.
        CsrMatrix<double> whole = real;
        for (double& v : whole.values) v *= 2;
        const CsrMatrix<std::complex<double>> a = complexValues<std::complex<double>>(whole, 6, true);
        const HybridValuedMatrix<std::complex<double>> h = encodeHybridValued(a, regions, {true});
        QCOMPARE(h.blocks.size(), regions.size());
        compareExact(h, 7);
        compareExact(encodeHybridValued(complexValues<std::complex<float>>(whole, 6, true), regions, {true}), 8);
        // The same matrix as residual only.
        compareExact(encodeHybridValued(a, {}), 9);
    }

    // A generated matrix with rectangles, triangles, bands and a scattered residual (the planted shapes
    // kept as the regions), complex values and x with both parts random: c64 and c128 within rounding.
    void cudaComplexSpmvMatchesReferenceOnGeneratedBlockyMatrix() {
        const GeneratedBinary g = generateBlockyBinary(blockySpec());
        CsrMatrix<double> shape;
        shape.rows = g.pattern.rows, shape.cols = g.pattern.cols, shape.rowPtr = g.pattern.rowPtr, shape.colIndex = g.pattern.colIndex;
        shape.values.assign(shape.colIndex.size(), 1.0);
        bool triangles = false, bands = false;
        for (const DenseRegion& r : g.planted) {
            triangles = triangles || r.shape == RegionShape::Triangle;
            bands = bands || r.shape == RegionShape::Band;
        }
        QVERIFY(triangles && bands);

        const CsrMatrix<std::complex<double>> a128 = complexValues<std::complex<double>>(shape, 12, false);
        const HybridValuedMatrix<std::complex<double>> h128 = encodeHybridValued(a128, g.planted, {true});
        QCOMPARE(h128.blocks.size(), g.planted.size());
        QVERIFY(h128.residual.nnz() > 0);
        const auto x128 = randomComplexX<std::complex<double>>(shape.cols, 13);
        requireImaginaryPartsMatter(a128, x128);
        compareWithinRounding(h128, a128, x128, QStringLiteral("c128"));

        const CsrMatrix<std::complex<float>> a64 = complexValues<std::complex<float>>(shape, 12, false);
        const HybridValuedMatrix<std::complex<float>> h64 = encodeHybridValued(a64, g.planted, {true});
        compareWithinRounding(h64, a64, randomComplexX<std::complex<float>>(shape.cols, 14), QStringLiteral("c64"));
    }

    // Residual rows past kLongRowLength (8192) entries, each summed by a whole block (both parts through
    // the block's shared memory), beside a covered strip and short rows; random parts, within rounding.
    void cudaComplexSpmvLongResidualRowsWithinRounding() {
        const Index rows = 600, cols = 40000;
        const std::vector<DenseRegion> regions = {rect(100, 200, 0, 500)};
        const auto lengthOf = [](Index i) -> Index {
            if (i == 0) return 8192;         // draws with repeats: just under the threshold, a group of lanes
            if (i == 150) return 20000;      // inside the covered strip: its warp takes it
            if (i == 300 || i == 599) return 30000;  // about 21000 distinct columns: a whole block each
            return i % 5;
        };
        const CsrMatrix<double> shape = integerMatrix(rows, cols, regions, 0.9, lengthOf, 21);
        const CsrMatrix<std::complex<double>> a128 = complexValues<std::complex<double>>(shape, 22, false);
        const HybridValuedMatrix<std::complex<double>> h128 = encodeHybridValued(a128, regions, {true});
        for (Index row : {300, 599}) QVERIFY(h128.residual.rowPtr[row + 1] - h128.residual.rowPtr[row] >= 8192);
        const auto x128 = randomComplexX<std::complex<double>>(cols, 23);
        requireImaginaryPartsMatter(a128, x128);
        compareWithinRounding(h128, a128, x128, QStringLiteral("c128"));
        const CsrMatrix<std::complex<float>> a64 = complexValues<std::complex<float>>(shape, 22, false);
        compareWithinRounding(encodeHybridValued(a64, regions, {true}), a64, randomComplexX<std::complex<float>>(cols, 24),
                              QStringLiteral("c64"));
    }

    // Edge shapes in c128 and c64: no rows (nothing launched), no columns (x empty, every row 0), and a
    // 1 x 1 matrix whose one cell is a region.
    void cudaComplexSpmvOnEdgeShapes() {
        const auto shapes = [](Index rows, Index cols) {
            CsrMatrix<double> a;
            a.rows = rows, a.cols = cols;
            a.rowPtr.assign(std::size_t(rows) + 1, 0);
            return a;
        };
        CsrMatrix<double> one = shapes(1, 1);
        one.rowPtr = {0, 1}, one.colIndex = {0}, one.values = {2};
        compareExact(encodeHybridValued(complexValues<std::complex<double>>(shapes(0, 5), 31, true), {}), 32);
        compareExact(encodeHybridValued(complexValues<std::complex<double>>(shapes(4, 0), 31, true), {}), 33);
        compareExact(encodeHybridValued(complexValues<std::complex<double>>(one, 31, true), {rect(0, 1, 0, 1)}, {true}), 34);
        compareExact(encodeHybridValued(complexValues<std::complex<float>>(one, 31, true), {rect(0, 1, 0, 1)}, {true}), 35);
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
