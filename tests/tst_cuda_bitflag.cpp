// Method A on CUDA: every kernel (batch get, CSR get baseline, add/sub, multiply, shared-memory LU)
// against the CPU reference. Integer-valued inputs, so every comparison is exact.
#include "bitflag_testing.h"

#include "spyglass/backend.h"
#include "spyglass/bitflag.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"

#include <QtTest>

using namespace spyglass;
using namespace bitflag_testing;

namespace {

template <typename T>
bool sameCsr(const CsrMatrix<T>& x, const CsrMatrix<T>& y) {
    return x.rows == y.rows && x.cols == y.cols && x.rowPtr == y.rowPtr && x.colIndex == y.colIndex && x.values == y.values;
}

const std::vector<std::pair<Index, Index>> kShapes = {{1, 1}, {7, 31}, {9, 32}, {5, 33}, {13, 64}, {3, 65},
                                                      {65, 3}, {17, 129}, {301, 1000}, {0, 7}, {6, 0}};

} // namespace

class TestCudaBitFlag : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (!cudaDeviceInfo().present) QSKIP(cudaDeviceInfo().reason.c_str());
    }

    void cudaBatchGetMatchesReference() {
        std::mt19937 rng(1);
        for (const auto& [rows, cols] : kShapes) {
            if (rows == 0 || cols == 0) continue;
            const std::vector<double> d = randomDense(rows, cols, 0.3, rng);
            std::vector<Index> qi(10007), qj(10007);
            std::uniform_int_distribution<Index> ri(0, rows - 1), rj(0, cols - 1);
            for (std::size_t q = 0; q < qi.size(); ++q) {
                qi[q] = ri(rng);
                qj[q] = rj(rng);
            }
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor})
                for (bool prefix : {false, true}) {
                    BitFlagOptions options;
                    options.order = order;
                    options.prefixCounts = prefix;
                    const BitFlagMatrix<float> m = encodeBitFlag(cooOf<float>(d, rows, cols), options);
                    const std::vector<float> got = bitFlagGetBatchCuda(m, qi, qj);
                    for (std::size_t q = 0; q < qi.size(); ++q) QCOMPARE(got[q], bitFlagGet(m, qi[q], qj[q]));
                }
            const CsrMatrix<double> csr = cooToCsr(cooOf<double>(d, rows, cols));
            const std::vector<double> got = csrGetBatchCuda(csr, qi, qj);
            for (std::size_t q = 0; q < qi.size(); ++q) QCOMPARE(got[q], d[std::size_t(qi[q]) * cols + qj[q]]);
        }
        const BitFlagMatrix<float> m = encodeBitFlag(cooOf<float>({1, 2}, 1, 2));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagGetBatchCuda(m, {0}, {2}));
    }

    void cudaAddAndSubtractMatchReference() {
        std::mt19937 rng(2);
        for (const auto& [rows, cols] : kShapes)
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor})
                for (double density : {0.02, 0.4}) {
                    BitFlagOptions options;
                    options.order = order;
                    const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(randomDense(rows, cols, density, rng), rows, cols), options);
                    const BitFlagMatrix<double> b = encodeBitFlag(cooOf<double>(randomDense(rows, cols, density, rng), rows, cols), options);
                    const BitFlagMatrix<double> sum = bitFlagAddCuda(a, b), diff = bitFlagSubCuda(a, b);
                    validateBitFlag(sum);
                    validateBitFlag(diff);
                    QVERIFY(sameCsr(decodeBitFlag(sum), decodeBitFlag(bitFlagAdd(a, b))));
                    QVERIFY(sameCsr(decodeBitFlag(diff), decodeBitFlag(bitFlagSub(a, b))));
                }
    }

    void cudaMultiplyMatchesReference() {
        std::mt19937 rng(3);
        struct Case { Index n, k, m; double density; };
        for (const Case c : {Case{1, 1, 1, 1.0}, Case{7, 31, 5, 0.3}, Case{13, 33, 9, 0.2}, Case{5, 64, 70, 0.1},
                             Case{40, 130, 33, 0.05}, Case{129, 257, 131, 0.1}, Case{300, 500, 301, 0.01},
                             Case{3, 0, 4, 0.5}, Case{0, 5, 3, 0.5}, Case{31, 65, 31, 0.5}}) {
            BitFlagOptions colMajor;
            colMajor.order = BitFlagOrder::ColumnMajor;
            const BitFlagMatrix<float> a = encodeBitFlag(cooOf<float>(randomDense(c.n, c.k, c.density, rng), c.n, c.k));
            const BitFlagMatrix<float> b = encodeBitFlag(cooOf<float>(randomDense(c.k, c.m, c.density, rng), c.k, c.m), colMajor);
            const BitFlagMatrix<float> got = bitFlagMultiplyCuda(a, b);
            validateBitFlag(got);
            QVERIFY2(sameCsr(decodeBitFlag(got), decodeBitFlag(bitFlagMultiply(a, b))),
                     qPrintable(QString("%1x%2x%3").arg(c.n).arg(c.k).arg(c.m)));
        }
    }

    void cudaLuMatchesExactFactors() {
        std::mt19937 rng(4);
        QVERIFY(bitFlagLuCudaMaxOrder<float>() >= 96);
        for (Index n : {1, 2, 5, 33, 64, 77, bitFlagLuCudaMaxOrder<double>()}) {
            const ExactLuCase c = exactLuCase(n, 0.15, rng);
            const BitFlagLu<double> lu = bitFlagLuCuda(encodeBitFlag(cooOf<double>(c.a, n, n)));
            QCOMPARE(denseOf(lu.lower), c.lower);
            QCOMPARE(denseOf(lu.upper), c.upper);
        }
        for (Index n : {31, 96, bitFlagLuCudaMaxOrder<float>()}) {
            const ExactLuCase c = exactLuCase(n, 0.1, rng);
            BitFlagOptions colMajor;
            colMajor.order = BitFlagOrder::ColumnMajor;
            const BitFlagLu<float> lu = bitFlagLuCuda(encodeBitFlag(cooOf<float>(c.a, n, n), colMajor));
            QCOMPARE(denseOf(lu.lower), c.lower);
            QCOMPARE(denseOf(lu.upper), c.upper);
        }
    }

    void cudaLuReportsTheStepOfAZeroPivot() {
        const std::vector<double> d = {2, 4, 1, 1, 2, 3, 5, 1, 7};
        try {
            bitFlagLuCuda(encodeBitFlag(cooOf<double>(d, 3, 3)));
            QFAIL("zero pivot accepted");
        } catch (const BitFlagPivotError& e) {
            QCOMPARE(e.step(), 1);
        }
        const Index n = bitFlagLuCudaMaxOrder<double>() + 1;
        std::mt19937 rng(5);
        const ExactLuCase c = exactLuCase(n, 0.1, rng);
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuCuda(encodeBitFlag(cooOf<double>(c.a, n, n))));
    }
};

QTEST_GUILESS_MAIN(TestCudaBitFlag)
#include "tst_cuda_bitflag.moc"
