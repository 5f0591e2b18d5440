// Method A's vendor baselines through their public host entry points (csrAddCusparse,
// csrMultiplyCusparse), as the GUI's bit-flag panel calls them: integer values, so fp32 must agree
// exactly with the bit-flag CPU reference; A - B by negating B; shapes checked before the device.
#include "bitflag_testing.h"

#include "spyglass/backend.h"
#include "spyglass/bitflag.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"

#include <QtTest>

using namespace spyglass;
using namespace bitflag_testing;

namespace {
CsrMatrix<float> toFloat(const CsrMatrix<double>& m) {
    CsrMatrix<float> f;
    f.rows = m.rows;
    f.cols = m.cols;
    f.rowPtr = m.rowPtr;
    f.colIndex = m.colIndex;
    f.values.assign(m.values.begin(), m.values.end());
    return f;
}

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
        QVERIFY_THROWS_EXCEPTION(InputError, csrAddCusparse(a, b));
        QVERIFY_THROWS_EXCEPTION(InputError, csrMultiplyCusparse(b, a));
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
            const CsrMatrix<float> fa = toFloat(decodeBitFlag(a)), fb = toFloat(decodeBitFlag(b));
            QVERIFY(sameAsReference(csrAddCusparse(fa, fb), decodeBitFlag(bitFlagAdd(a, b))));
            QVERIFY(sameAsReference(csrAddCusparse(fa, fb, -1.0f), decodeBitFlag(bitFlagSub(a, b))));
            QVERIFY(sameAsReference(csrMultiplyCusparse(fa, fb), decodeBitFlag(bitFlagMultiply(a, bColumns))));
        }
    }
};

QTEST_GUILESS_MAIN(TestCudaBitFlagVendor)
#include "tst_cuda_bitflag_vendor.moc"
