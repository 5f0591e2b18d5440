// Complex SpMV on the GPU (c64, c128): Spyglass's segmented-DIA kernels (every load variant and
// remainder mode, HDIA, plain DIA) and cuSPARSE CSR agree with y = A x computed straight from the
// matrix's entries in long double (complexoracle.h), not by the library. Values and x have both parts
// random, so a kernel that dropped the imaginary parts or conjugated A would fail (the test shows its
// check sees a conjugated product). Skips without a device.
#include "complexoracle.h"
#include "cudatesting.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_generators.h"
#include "spyglass/segdia_spmv.h"

#include <QtTest>

#include <complex>
#include <functional>
#include <random>

using namespace spyglass;
using complexoracle::directProduct;
using complexoracle::worstRelativeError;

namespace {

// The pattern of `shape` with complex values: both parts uniform in [-1, 1) (or small integers, so
// that every product and sum is exact in c64), stored general, as a complex Matrix Market file would.
Matrix complexValued(const CooMatrix<double>& shape, unsigned seed, bool integers = false) {
    Matrix m;
    m.field = Field::Complex;
    m.rows = shape.rows;
    m.cols = shape.cols;
    m.rowIndex = shape.rowIndex;
    m.colIndex = shape.colIndex;
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::uniform_int_distribution<int> small(-4, 4);
    for (std::size_t k = 0; k < shape.rowIndex.size(); ++k) {
        const double re = integers ? small(rng) : uniform(rng);  // named: the order of the two draws is fixed
        m.real.push_back(re);
        m.imag.push_back(integers ? small(rng) : uniform(rng));
    }
    return m;
}

// x with both parts random, each exact in R (so the oracle multiplies the x the device does).
template <typename R>
std::vector<std::complex<double>> complexX(Index cols, unsigned seed, bool integers = false) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<R> uniform(-1, 1);
    std::uniform_int_distribution<int> small(-3, 3);
    std::vector<std::complex<double>> x(static_cast<std::size_t>(cols));
    for (auto& v : x) {
        const double re = integers ? small(rng) : uniform(rng);
        v = {re, integers ? double(small(rng)) : double(uniform(rng))};
    }
    return x;
}

// Every GPU path for complex<R> on `m`, each compared with the oracle: within `tolerance` of its
// largest entry (0: exactly), and never within 1e-3 of the conjugated product.
template <typename R>
void checkEveryGpuPath(const Matrix& m, const std::vector<std::complex<double>>& x64, double tolerance, const QString& what) {
    using C = std::complex<R>;
    const auto want = directProduct(m, x64), conjugated = directProduct(m, x64, true);
    QVERIFY2(worstRelativeError(std::vector<std::complex<double>>(want.begin(), want.end()), conjugated) > 1e-3,
             "the imaginary parts do not matter on this matrix: the check could not see a conjugated product");
    const CooMatrix<C> coo = toCoo<C>(m);
    const CsrMatrix<C> csr = cooToCsr(coo);
    const std::vector<C> x(x64.begin(), x64.end());
    const char* type = sizeof(R) == 4 ? "c64" : "c128";
    const auto expect = [&](const std::vector<C>& got, const QString& path) {
        const std::vector<std::complex<double>> y(got.begin(), got.end());
        const double worst = worstRelativeError(y, want);
        QVERIFY2(worst <= tolerance, qPrintable(QStringLiteral("%1 %2 %3: worst relative error %4 over %5")
                                                    .arg(what, path, QLatin1String(type)).arg(worst).arg(tolerance)));
        QVERIFY2(worstRelativeError(y, conjugated) > 1e-3, qPrintable(what + " " + path + ": agrees with the conjugated product"));
    };
    SpmvOptions cuda{SpmvBackend::Cuda};
    constexpr auto rowBlocks = SegmentedDiaRemainderKernel::RowBlocks, owners = SegmentedDiaRemainderKernel::Owners,
                   subWarps = SegmentedDiaRemainderKernel::SubWarps;
    const SegmentedDiaVariant variants[] = {{SegmentedDiaLoads::Vector16, 0, 0, rowBlocks}, {SegmentedDiaLoads::Vector16, 8, 0, owners},
                                            {SegmentedDiaLoads::Scalar, 1, 0, rowBlocks},   {SegmentedDiaLoads::Scalar, 4, 0, owners},
                                            {SegmentedDiaLoads::Vector16, 0, 0, subWarps},  {SegmentedDiaLoads::Scalar, 2, 8, subWarps}};
    // Thresholds that are not multiples of a vector's lanes (37, the scalar fall-back) and the default.
    for (Index threshold : {Index(37), Index(1024)}) {
        for (SegmentedDiaRemainder remainder : {SegmentedDiaRemainder::Off, SegmentedDiaRemainder::Auto, SegmentedDiaRemainder::All}) {
            const auto seg = buildSegmentedDia(coo, {threshold, true, remainder});
            for (const SegmentedDiaVariant& variant : variants) {
                cuda.variant = variant;
                expect(spmv(seg, x, cuda), QStringLiteral("segdia threshold %1 remainder %2 loads %3 rows %4 width %5 kernel %6")
                                                .arg(threshold).arg(int(remainder)).arg(int(variant.loads)).arg(variant.rowsPerThread)
                                                .arg(variant.remainderWidth).arg(toString(variant.remainder)));
                if (QTest::currentTestFailed()) return;
            }
        }
        cuda.variant = {};
        expect(spmv(buildHdia(coo, threshold), x, cuda), QStringLiteral("hdia threshold %1").arg(threshold));
        if (QTest::currentTestFailed()) return;
    }
    try {
        expect(spmv(buildDia(coo, 50'000'000), x, cuda), QStringLiteral("dia"));
    } catch (const OutOfMemoryError&) {
        // plain DIA of a scattered matrix does not fit: its known weakness, nothing to compare
    }
    if (QTest::currentTestFailed()) return;
    expect(spmv(csr, x, {SpmvBackend::Cusparse}), QStringLiteral("cuSPARSE CSR"));
}

// Rounding-derived bounds relative to the largest |y|: a few dozen unit roundoffs of the type for the
// short rows of these matrices (c64 ~6e-8, c128 ~1e-16 per operation).
constexpr double kC64Tolerance = 1e-5, kC128Tolerance = 1e-12;

} // namespace

class TestCudaComplexSpmv : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { CUDATESTING_REQUIRE_DEVICE(); }

    void cudaComplexSpmvMatchesTheOracleOnABandedMatrix() {
        const Matrix m = complexValued(generators::laplacian2d(301, 257), 5);
        checkEveryGpuPath<float>(m, complexX<float>(m.cols, 7), kC64Tolerance, QStringLiteral("laplacian2d 301x257"));
        checkEveryGpuPath<double>(m, complexX<double>(m.cols, 7), kC128Tolerance, QStringLiteral("laplacian2d 301x257"));
    }

    void cudaComplexSpmvMatchesTheOracleWithARemainder() {
        // Rectangular, broken diagonals and scattered entries: the CSR remainder's owner, long-row and
        // sub-warp paths all run.
        const Matrix m = complexValued(generators::randomBanded(1001, 777, 15, 0.6, 200, 9), 11);
        checkEveryGpuPath<float>(m, complexX<float>(m.cols, 13), kC64Tolerance, QStringLiteral("randomBanded 1001x777"));
        checkEveryGpuPath<double>(m, complexX<double>(m.cols, 13), kC128Tolerance, QStringLiteral("randomBanded 1001x777"));
    }

    void cudaComplexSpmvIsExactOnIntegerValues() {
        // Small integer parts: every product and partial sum is an integer far below 2^24, so any
        // summation order gives the exact result, in c64 as in c128.
        const Matrix m = complexValued(generators::laplacian2d(129, 67), 17, true);
        checkEveryGpuPath<float>(m, complexX<float>(m.cols, 19, true), 0.0, QStringLiteral("integer laplacian2d"));
        checkEveryGpuPath<double>(m, complexX<double>(m.cols, 19, true), 0.0, QStringLiteral("integer laplacian2d"));
    }

    void cudaComplexSpmvHandlesTinyShapes() {
        // 1 x 1 and a single row: one thread, the rest of the block idle.
        CooMatrix<double> one;
        one.rows = one.cols = 1;
        one.rowIndex = {0};
        one.colIndex = {0};
        one.values = {1};
        checkEveryGpuPath<double>(complexValued(one, 23), complexX<double>(1, 29), kC128Tolerance, QStringLiteral("1x1"));
        CooMatrix<double> row;
        row.rows = 1;
        row.cols = 70;
        for (Index j = 0; j < row.cols; j += 3) {
            row.rowIndex.push_back(0);
            row.colIndex.push_back(j);
            row.values.push_back(1);
        }
        checkEveryGpuPath<float>(complexValued(row, 31), complexX<float>(row.cols, 37), kC64Tolerance, QStringLiteral("1x70"));
    }
};

QTEST_GUILESS_MAIN(TestCudaComplexSpmv)
#include "tst_cuda_complexspmv.moc"
