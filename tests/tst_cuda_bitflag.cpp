// Method A on CUDA: every kernel (batch get, CSR get baseline, add/sub, multiply, shared-memory LU)
// against the CPU reference. Integer-valued inputs, so every comparison is exact.
#include "bitflag_testing.h"

#include "spyglass/backend.h"
#include "spyglass/bitflag.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"

#include <QtTest>

#include <cmath>
#include <limits>

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

    void cudaAddCoversManyTilesWideLinesAndFullChunks() {
        // 2000 lines: 250 tiles of eight, so the look-back crosses many 32-tile windows; 5000 columns: 79
        // words a line, three 32-word chunks; density 0.95: chunks with far more than 32 set bits.
        std::mt19937 rng(12);
        struct Case { Index rows, cols; double density; };
        for (const Case c : {Case{2000, 70, 0.02}, Case{2000, 70, 0.95}, Case{40, 5000, 0.3}, Case{40, 5000, 0.95},
                             Case{257, 129, 0.5}}) {
            const std::vector<double> da = randomDense(c.rows, c.cols, c.density, rng);
            const std::vector<double> db = randomDense(c.rows, c.cols, c.density / 3, rng);
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                BitFlagOptions options;
                options.order = order;
                const BitFlagMatrix<float> a = encodeBitFlag(cooOf<float>(da, c.rows, c.cols), options);
                const BitFlagMatrix<float> b = encodeBitFlag(cooOf<float>(db, c.rows, c.cols), options);
                const BitFlagMatrix<float> sum = bitFlagAddCuda(a, b), diff = bitFlagSubCuda(b, a);
                validateBitFlag(sum);
                validateBitFlag(diff);
                QVERIFY(sameCsr(decodeBitFlag(sum), decodeBitFlag(bitFlagAdd(a, b))));
                QVERIFY(sameCsr(decodeBitFlag(diff), decodeBitFlag(bitFlagSub(b, a))));
            }
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

    void cudaPivotedLuRecoversKnownFactorsAndRowOrder() {
        // The exact cases of bitflag_testing.h: one clear pivot per step, values multiples of 1/4. The
        // row order must come back exactly; L and U to rounding (cuBLAS trsm may solve by inverted blocks),
        // i.e. within n x epsilon of their size.
        std::mt19937 rng(6);
        QVERIFY(bitFlagLuPivotedCudaMaxOrder<float>() >= 8192);
        struct Case { Index n, panel, leaf; };
        for (const Case c : {Case{1, 128, 32}, Case{2, 128, 32}, Case{37, 128, 32}, Case{300, 128, 32}, Case{300, 256, 32},
                             Case{129, 16, 5}, Case{100, 7, 3}, Case{70, 1, 1}, Case{200, 64, 16}}) {
            const ExactPivotedLuCase e = exactPivotedLuCase(c.n, 0.2, rng);
            BitFlagBlockedLuOptions options;
            options.panelWidth = c.panel;
            options.leafWidth = c.leaf;
            double scale = 1;
            for (const double u : e.upper) scale = std::max(scale, std::abs(u));
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                BitFlagOptions encode;
                encode.order = order;
                const QString label = QString("n %1 panel %2 leaf %3").arg(c.n).arg(c.panel).arg(c.leaf);
                const BitFlagPivotedLu<double> lu = bitFlagLuPivotedCuda(encodeBitFlag(cooOf<double>(e.a, c.n, c.n), encode), options);
                QVERIFY2(lu.rowOrder == e.rowOrder, qPrintable(label));
                const double tolerance = c.n * std::numeric_limits<double>::epsilon();
                QVERIFY2(maxDifference(denseOf(lu.lower), e.lower) <= tolerance, qPrintable(label));
                QVERIFY2(maxDifference(denseOf(lu.upper), e.upper) <= tolerance * scale, qPrintable(label));
                const BitFlagPivotedLu<float> luf = bitFlagLuPivotedCuda(encodeBitFlag(cooOf<float>(e.a, c.n, c.n), encode), options);
                const double toleranceF = c.n * double(std::numeric_limits<float>::epsilon());
                QVERIFY2(luf.rowOrder == e.rowOrder, qPrintable(label));
                QVERIFY2(maxDifference(denseOf(luf.lower), e.lower) <= toleranceF, qPrintable(label));
                QVERIFY2(maxDifference(denseOf(luf.upper), e.upper) <= toleranceF * scale, qPrintable(label));
            }
        }
    }

    void cudaPivotedLuResidualMatchesReference() {
        // Matrices that need row exchanges: ||PA - LU|| / ||A|| of the GPU's factors at rounding level,
        // like the reference's (both bounded by n x epsilon).
        std::mt19937 rng(7);
        for (Index n : {64, 333}) {
            const std::vector<double> d = randomPivotingDense(n, 0.3, rng);
            for (const BitFlagBlockedLuOptions& options : {BitFlagBlockedLuOptions{}, BitFlagBlockedLuOptions{-1, 24, 7}}) {
                const BitFlagMatrix<float> a = encodeBitFlag(cooOf<float>(d, n, n));
                const BitFlagPivotedLu<float> gpu = bitFlagLuPivotedCuda(a, options);
                validateBitFlag(gpu.lower);
                validateBitFlag(gpu.upper);
                const double bound = n * double(std::numeric_limits<float>::epsilon());
                const double gpuResidual = bitFlagLuResidual(a, gpu), cpuResidual = bitFlagLuResidual(a, bitFlagLuPivoted(a));
                qInfo("n %d panel %d leaf %d: residual GPU %.3g, reference %.3g (bound %.3g)", n, options.panelWidth,
                      options.leafWidth, gpuResidual, cpuResidual, bound);
                QVERIFY(gpuResidual <= bound);
                QVERIFY(cpuResidual <= bound);
                const BitFlagMatrix<double> ad = encodeBitFlag(cooOf<double>(d, n, n));
                QVERIFY(bitFlagLuResidual(ad, bitFlagLuPivotedCuda(ad, options)) <= n * std::numeric_limits<double>::epsilon());
            }
        }
    }

    void cudaPivotedLuReportsTheSingularStep() {
        // A zero column c: every candidate of step c is exactly zero (the updates only subtract l x 0), at
        // a leaf start, inside a leaf, at a panel boundary.
        std::mt19937 rng(8);
        const Index n = 200;
        for (Index column : {0, 77, 128, 199}) {
            std::vector<double> d = randomPivotingDense(n, 0.3, rng);
            for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + column] = 0;
            try {
                bitFlagLuPivotedCuda(encodeBitFlag(cooOf<float>(d, n, n)));
                QFAIL("singular matrix accepted");
            } catch (const BitFlagPivotError& e) {
                QCOMPARE(e.step(), column);
                QCOMPARE(e.pivot(), 0.0);
                QVERIFY2(QString(e.what()).contains("singular"), e.what());
            }
        }
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivotedCuda(encodeBitFlag(cooOf<double>({1, 2}, 1, 2))));
        BitFlagBlockedLuOptions wide;
        wide.panelWidth = 257;
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivotedCuda(encodeBitFlag(cooOf<double>({1, 0, 0, 1}, 2, 2)), wide));
    }

    void cudaBatchedLuMatchesReference() {
        std::mt19937 rng(9);
        for (Index n : {1, 5, 16, 32, 33, 64, bitFlagLuCudaMaxOrder<double>()})
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                BitFlagOptions options;
                options.order = order;
                std::vector<BitFlagMatrix<double>> batch;
                std::vector<ExactLuCase> cases;
                for (int b = 0; b < 37; ++b) {
                    cases.push_back(exactLuCase(n, 0.2, rng));
                    batch.push_back(encodeBitFlag(cooOf<double>(cases.back().a, n, n), options));
                }
                const std::vector<BitFlagLu<double>> lu = bitFlagLuBatchedCuda(batch);
                QCOMPARE(lu.size(), batch.size());
                for (std::size_t b = 0; b < batch.size(); ++b) {
                    QCOMPARE(denseOf(lu[b].lower), cases[b].lower);
                    QCOMPARE(denseOf(lu[b].upper), cases[b].upper);
                    const BitFlagLu<double> reference = bitFlagLu(batch[b]);
                    QVERIFY(sameCsr(decodeBitFlag(lu[b].upper), decodeBitFlag(reference.upper)));
                }
            }
        const Index n = bitFlagLuCudaMaxOrder<float>();
        std::vector<BitFlagMatrix<float>> batch;
        std::vector<ExactLuCase> cases;
        for (int b = 0; b < 300; ++b) {
            cases.push_back(exactLuCase(n, 0.1, rng));
            batch.push_back(encodeBitFlag(cooOf<float>(cases.back().a, n, n)));
        }
        const std::vector<BitFlagLu<float>> lu = bitFlagLuBatchedCuda(batch);
        for (std::size_t b = 0; b < batch.size(); ++b) QCOMPARE(denseOf(lu[b].upper), cases[b].upper);
    }

    void cudaBatchedLuNamesTheMatrixWithABadPivot() {
        std::mt19937 rng(10);
        std::vector<BitFlagMatrix<double>> batch;
        for (int b = 0; b < 6; ++b) batch.push_back(encodeBitFlag(cooOf<double>(exactLuCase(3, 0.5, rng).a, 3, 3)));
        batch[3] = encodeBitFlag(cooOf<double>({2, 4, 1, 1, 2, 3, 5, 1, 7}, 3, 3));  // step 1's pivot is exactly zero
        try {
            bitFlagLuBatchedCuda(batch);
            QFAIL("zero pivot accepted");
        } catch (const BitFlagPivotError& e) {
            QCOMPARE(e.step(), 1);
            QVERIFY2(QString(e.what()).contains("matrix 3"), e.what());
        }
        batch[3] = encodeBitFlag(cooOf<double>({1, 2, 3, 4}, 2, 2));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuBatchedCuda(batch));
        QVERIFY(bitFlagLuBatchedCuda(std::vector<BitFlagMatrix<double>>{}).empty());
    }
};

QTEST_GUILESS_MAIN(TestCudaBitFlag)
#include "tst_cuda_bitflag.moc"
