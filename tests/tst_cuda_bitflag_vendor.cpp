// Method A's vendor baselines through their public host entry points (csrAdd, csrSub,
// csrMultiply and bitFlagLuPivoted on the Vendor backend), as the GUI's bit-flag panel calls them: integer
// values, so fp32 must agree exactly with the bit-flag CPU reference; A - B by negating B; shapes
// checked before the device; cuSOLVER's LU pivots as the reference does and fails at the same step.
#include "bitflag_testing.h"

#include "spyglass/backend.h"
#include "spyglass/bitflag.h"
#include "spyglass/bitflag_baselines.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace spyglass;
using namespace bitflag_testing;

namespace {
bool sameAsReference(const CsrMatrix<float>& got, const CsrMatrix<double>& want) {
    if (got.rows != want.rows || got.cols != want.cols || got.rowPtr != want.rowPtr || got.colIndex != want.colIndex) return false;
    for (std::size_t k = 0; k < got.values.size(); ++k)
        if (double(got.values[k]) != want.values[k]) return false;
    return true;
}
} // namespace

class TestCudaBitFlagVendor : public QObject {
    Q_OBJECT
private slots:
    void shapesAreCheckedFirst() {
        CsrMatrix<float> a, b;
        a.rows = 2;
        a.cols = 3;
        a.rowPtr = {0, 0, 0};
        b.rows = 3;
        b.cols = 3;
        b.rowPtr = {0, 0, 0, 0};
        QVERIFY_THROWS_EXCEPTION(InputError, csrAdd(a, b, vendorOptions()));
        QVERIFY_THROWS_EXCEPTION(InputError, csrMultiply(b, a, vendorOptions()));
    }

    void cusparseAddSubAndMultiplyMatchTheReference() {
        if (!cudaDeviceInfo().present) QSKIP(cudaDeviceInfo().reason.c_str());
        std::mt19937 rng(3);
        for (const auto& [n, density] : std::vector<std::pair<Index, double>>{{1, 1.0}, {33, 0.3}, {129, 0.05}, {300, 0.02}}) {
            const std::vector<double> da = randomDense(n, n, density, rng), db = randomDense(n, n, density, rng);
            const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(da, n, n)), b = encodeBitFlag(cooOf<double>(db, n, n));
            BitFlagOptions columns;
            columns.order = BitFlagOrder::ColumnMajor;
            const BitFlagMatrix<double> bColumns = encodeBitFlag(cooOf<double>(db, n, n), columns);
            const CsrMatrix<float> fa = convertValues<float>(decodeBitFlag(a)), fb = convertValues<float>(decodeBitFlag(b));
            QVERIFY(sameAsReference(csrAdd(fa, fb, vendorOptions()), decodeBitFlag(bitFlagAdd(a, b))));
            QVERIFY(sameAsReference(csrSub(fa, fb, vendorOptions()), decodeBitFlag(bitFlagSub(a, b))));
            QVERIFY(sameAsReference(csrMultiply(fa, fb, vendorOptions()), decodeBitFlag(bitFlagMultiply(a, bColumns))));
        }
    }

    void cusolverLuRefusesANonSquareMatrixFirst() {
        const BitFlagMatrix<double> wide = encodeBitFlag(cooOf<double>(std::vector<double>(6, 1.0), 2, 3));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivoted(wide, vendorOptions()));
    }

    void cusolverLuPivotsLikeTheReference() {
        if (!cudaDeviceInfo().present) QSKIP(cudaDeviceInfo().reason.c_str());
        std::mt19937 rng(17);
        std::uniform_real_distribution<double> value(-1, 1);
        for (const Index n : {1, 2, 5, 33, 64, 65, 200}) {
            // Continuous values (no exact ties between candidate pivots) and a zero diagonal, so that
            // every step must swap rows.
            std::vector<double> d(std::size_t(n) * std::size_t(n));
            for (double& x : d) x = value(rng);
            if (n > 1)
                for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + i] = 0;
            const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(d, n, n));
            const BitFlagPivotedLu<double> want = bitFlagLuPivoted(a), got = bitFlagLuPivoted(a, vendorOptions());
            QCOMPARE(got.rowOrder, want.rowOrder);
            // Backward error of a pivoted LU: ||PA - LU|| / ||A|| is a small multiple of n u.
            const double residual = bitFlagLuResidual(a, got);
            QVERIFY2(residual <= 4 * n * std::numeric_limits<double>::epsilon(), qPrintable(QString::number(residual)));
            // The same factors up to rounding: both are backward stable for the same P, and these
            // random matrices are well conditioned (growth is small), so entry differences stay far
            // below 1e-10 of max |U|.
            const CsrMatrix<double> lw = decodeBitFlag(want.lower), lg = decodeBitFlag(got.lower);
            const CsrMatrix<double> uw = decodeBitFlag(want.upper), ug = decodeBitFlag(got.upper);
            double scale = 0;
            for (double v : uw.values) scale = std::max(scale, std::abs(v));
            QCOMPARE(lg.rowPtr.size(), lw.rowPtr.size());
            const auto worst = [](const CsrMatrix<double>& x, const CsrMatrix<double>& y) {
                std::vector<double> dx(std::size_t(x.rows) * std::size_t(x.cols), 0.0), dy = dx;
                for (Index i = 0; i < x.rows; ++i) {
                    for (Count k = x.rowPtr[std::size_t(i)]; k < x.rowPtr[std::size_t(i) + 1]; ++k)
                        dx[std::size_t(i) * x.cols + x.colIndex[std::size_t(k)]] = x.values[std::size_t(k)];
                    for (Count k = y.rowPtr[std::size_t(i)]; k < y.rowPtr[std::size_t(i) + 1]; ++k)
                        dy[std::size_t(i) * y.cols + y.colIndex[std::size_t(k)]] = y.values[std::size_t(k)];
                }
                double w = 0;
                for (std::size_t k = 0; k < dx.size(); ++k) w = std::max(w, std::abs(dx[k] - dy[k]));
                return w;
            };
            QVERIFY(worst(lg, lw) <= 1e-10);
            QVERIFY(worst(ug, uw) <= 1e-10 * scale);
        }
    }

    void cusolverLuFailsAtTheReferencesStep() {
        if (!cudaDeviceInfo().present) QSKIP(cudaDeviceInfo().reason.c_str());
        std::mt19937 rng(4);
        const Index n = 40, zeroColumn = 23;
        std::vector<double> d = randomDense(n, n, 0.5, rng);
        for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + zeroColumn] = 0;  // column 23 stays zero: step 23 fails
        const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(d, n, n));
        Index referenceStep = -1, cusolverStep = -2;
        try {
            bitFlagLuPivoted(a);
        } catch (const BitFlagPivotError& e) {
            referenceStep = e.step();
        }
        try {
            bitFlagLuPivoted(a, vendorOptions());
        } catch (const BitFlagPivotError& e) {
            cusolverStep = e.step();
            QVERIFY2(QString::fromStdString(e.what()).contains(QLatin1String("cuSOLVER getrf: step 23")), e.what());
        }
        QCOMPARE(referenceStep, zeroColumn);
        QCOMPARE(cusolverStep, zeroColumn);
    }
};

QTEST_GUILESS_MAIN(TestCudaBitFlagVendor)
#include "tst_cuda_bitflag_vendor.moc"
