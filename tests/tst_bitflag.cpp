// Method A reference: the format round-trips exactly, popcount access finds every element, bytes vs
// CSR follow the break-even formula, and add/sub/multiply/LU match dense arithmetic exactly.
#include "bitflag_testing.h"
#include "testmatrices.h"
#include "thrownmessage.h"

#include "spyglass/bitflag.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <QDir>
#include <QtTest>

#include <cmath>

using namespace spyglass;
using namespace bitflag_testing;

namespace {

const std::vector<std::pair<Index, Index>> kShapes = {{0, 0}, {0, 5}, {4, 0}, {1, 1}, {7, 31}, {9, 32}, {5, 33},
                                                      {13, 64}, {3, 65}, {65, 3}, {17, 129}, {129, 17}, {37, 200}};

} // namespace

class TestBitFlag : public QObject {
    Q_OBJECT

private slots:
    void wordGeometryFollowsTheSeed() {
        struct Case { Index cols; int bits; Index words; };
        for (const Case c : {Case{1, 32, 1}, Case{32, 32, 1}, Case{33, 64, 1}, Case{64, 64, 1}, Case{65, 64, 2}, Case{200, 64, 4}}) {
            CooMatrix<double> coo;
            coo.rows = 3;
            coo.cols = c.cols;
            const BitFlagMatrix<double> m = encodeBitFlag(coo);
            QCOMPARE(m.wordBits, c.bits);
            QCOMPARE(m.wordsPerLine, c.words);
            QCOMPARE(c.bits == 32 ? m.flags32.size() : m.flags64.size(), std::size_t(3 * c.words));
        }
        // Low bit first: element (0, 0) is bit 0 of word 0, (0, 64) bit 0 of word 1.
        CooMatrix<double> coo;
        coo.rows = 1;
        coo.cols = 70;
        coo.rowIndex = {0, 0, 0};
        coo.colIndex = {0, 5, 64};
        coo.values = {1, 2, 3};
        const BitFlagMatrix<double> m = encodeBitFlag(coo);
        QCOMPARE(m.flags64[0], std::uint64_t(0x21));
        QCOMPARE(m.flags64[1], std::uint64_t(1));
        QCOMPARE(m.lineStart, (std::vector<Count>{0, 3}));
    }

    void randomMatricesRoundTripInBothOrders() {
        std::mt19937 rng(20190101);
        for (const auto& [rows, cols] : kShapes)
            for (double density : {0.0, 0.07, 0.5, 1.0})
                for (const BitFlagOptions& options : everyBitFlagLayout()) {
                    const std::vector<double> d = randomDense(rows, cols, density, rng);
                    const CooMatrix<double> coo = cooOf<double>(d, rows, cols);
                    const BitFlagMatrix<double> m = encodeBitFlag(coo, options);
                    validateBitFlag(m);
                    QCOMPARE(m.nonzeros, coo.nnz());
                    QVERIFY(sameCsr(decodeBitFlag(m), cooToCsr(coo)));
                    QCOMPARE(denseOf(m), d);
                }
    }

    void everyRealMatrixRoundTripsExactly() {
        const QDir dir(testMatricesDir());
        const QStringList files = dir.entryList({"*.mtx"}, QDir::Files, QDir::Name);
        QVERIFY2(files.size() >= 20, qPrintable(dir.absolutePath()));
        int tested = 0;
        for (const QString& name : files) {
            Matrix file;
            try {
                file = readMatrixMarket(dir.filePath(name).toStdString());
            } catch (const InputError&) {
                continue;  // deliberately malformed files are the parser's tests
            }
            if (file.isComplex()) continue;
            // The flags cost rows x cols bits: a 10^5 x 10^5 matrix needs 1.25 GB of them, which is the
            // format's nature (it is meant for dense-ish blocks), not something to allocate in a test.
            if (double(file.rows) * double(file.cols) / 8 > 64.0 * 1024 * 1024) {
                qInfo("%s: %d x %d, flags would take %.0f MiB; skipped", qPrintable(name), file.rows, file.cols,
                      double(file.rows) * file.cols / 8 / 1048576);
                continue;
            }
            const CsrMatrix<double> csr = toCsr<double>(file);
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                BitFlagOptions options;
                options.order = order;
                options.keepExplicitZeros = true;
                const BitFlagMatrix<double> exact = encodeBitFlag(csr, options);
                validateBitFlag(exact);
                QVERIFY2(sameCsr(decodeBitFlag(exact), csr), qPrintable(name));
                options.keepExplicitZeros = false;
                options.prefixCounts = true;
                const BitFlagMatrix<double> seed = encodeBitFlag(csr, options);
                validateBitFlag(seed);
                QVERIFY2(sameCsr(decodeBitFlag(seed), withoutZeros(csr)), qPrintable(name));
                QVERIFY2(sameCsr(decodeBitFlag(reorderBitFlag(exact, order == BitFlagOrder::RowMajor
                                                                         ? BitFlagOrder::ColumnMajor
                                                                         : BitFlagOrder::RowMajor, true)), csr),
                         qPrintable(name));
            }
            ++tested;
        }
        qInfo("%d real matrices round-tripped", tested);
        QVERIFY(tested >= 15);
    }

    void accessFindsEveryElementWithAndWithoutPrefixCounts() {
        std::mt19937 rng(7);
        for (const auto& [rows, cols] : kShapes)
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                const std::vector<double> d = randomDense(rows, cols, 0.3, rng);
                BitFlagOptions options;
                options.order = order;
                BitFlagMatrix<float> plain = encodeBitFlag(cooOf<float>(d, rows, cols), options);
                options.prefixCounts = true;
                BitFlagMatrix<float> fast = encodeBitFlag(cooOf<float>(d, rows, cols), options);
                for (Index i = 0; i < rows; ++i)
                    for (Index j = 0; j < cols; ++j) {
                        const double want = d[std::size_t(i) * cols + j];
                        QCOMPARE(double(bitFlagGet(plain, i, j)), want);
                        QCOMPARE(bitFlagValueIndex(fast, i, j), bitFlagValueIndex(plain, i, j));
                        QCOMPARE(bitFlagValueIndex(plain, i, j).has_value(), want != 0);
                    }
            }
    }

    void setWritesOnlyWhereTheFlagIsPresent() {
        std::mt19937 rng(11);
        const Index rows = 23, cols = 97;
        std::vector<double> d = randomDense(rows, cols, 0.2, rng);
        BitFlagMatrix<double> m = encodeBitFlag(cooOf<double>(d, rows, cols));
        for (Index i = 0; i < rows; ++i)
            for (Index j = 0; j < cols; ++j) {
                double& x = d[std::size_t(i) * cols + j];
                if (x != 0) {
                    bitFlagSet(m, i, j, double(i * 1000 + j + 1));
                    x = i * 1000 + j + 1;
                } else {
                    QVERIFY_THROWS_EXCEPTION(InputError, bitFlagSet(m, i, j, 5.0));
                }
            }
        QCOMPARE(denseOf(m), d);
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagGet(m, rows, 0));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagGet(m, 0, -1));
    }

    void batchSetIsAllOrNothingAndTheLastWriteWins() {
        std::mt19937 rng(12);
        const Index rows = 19, cols = 70;
        std::vector<double> d = randomDense(rows, cols, 0.3, rng);
        for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
            BitFlagOptions options;
            options.order = order;
            BitFlagMatrix<double> m = encodeBitFlag(cooOf<double>(d, rows, cols), options);
            std::vector<Index> qi, qj;
            std::vector<double> v;
            std::vector<double> want = d;
            for (Index i = 0; i < rows; ++i)
                for (Index j = 0; j < cols; ++j)
                    if (d[std::size_t(i) * cols + j] != 0) {
                        // every stored entry twice: the second value must stay
                        for (int pass = 0; pass < 2; ++pass) {
                            qi.push_back(i);
                            qj.push_back(j);
                            v.push_back(double(pass * 100000 + i * 100 + j));
                        }
                        want[std::size_t(i) * cols + j] = double(100000 + i * 100 + j);
                    }
            bitFlagSetBatch(m, qi, qj, v);
            QCOMPARE(denseOf(m), want);

            // One query at a clear flag: nothing is written and the message names the query.
            const BitFlagMatrix<double> before = m;
            Index zi = 0, zj = 0;
            while (d[std::size_t(zi) * cols + zj] != 0) zj = (zj + 1) % cols, zi += zj == 0;
            qi.insert(qi.begin() + 3, zi);
            qj.insert(qj.begin() + 3, zj);
            v.insert(v.begin() + 3, 7.0);
            try {
                bitFlagSetBatch(m, qi, qj, v);
                QFAIL("a write at a clear flag was accepted");
            } catch (const InputError& e) {
                const QString message = QString::fromStdString(e.what());
                QVERIFY2(message.contains(QStringLiteral("query 3: (%1, %2) has no flag").arg(zi).arg(zj)), e.what());
            }
            QVERIFY(m.values == before.values);
            QVERIFY_THROWS_EXCEPTION(InputError, bitFlagSetBatch(m, {0}, {cols}, {1.0}));
            QVERIFY_THROWS_EXCEPTION(InputError, bitFlagSetBatch(m, {0, 0}, {0}, {1.0}));
        }
    }

    void badInputIsRefusedNamingThePlace() {
        CooMatrix<double> coo;
        coo.rows = 3;
        coo.cols = 4;
        coo.rowIndex = {0, 3};
        coo.colIndex = {1, 1};
        coo.values = {1, 2};
        const std::optional<std::string> message = thrownMessage<InputError>([&] { encodeBitFlag(coo); });
        QVERIFY2(message, "out-of-range entry accepted");
        QVERIFY2(QString::fromStdString(*message).contains("entry 1 at (3, 1)"), message->c_str());
        std::mt19937 rng(3);
        BitFlagMatrix<double> m = encodeBitFlag(cooOf<double>(randomDense(9, 70, 0.5, rng), 9, 70));
        m.flags64[5] |= std::uint64_t(1) << 63;  // row 2's second word: column 127 does not exist
        QVERIFY_THROWS_EXCEPTION(InputError, validateBitFlag(m));
    }

    void bytesFollowTheBreakEvenDensity() {
        std::mt19937 rng(5);
        for (const auto& [rows, cols] : std::vector<std::pair<Index, Index>>{{200, 128}, {150, 100}, {64, 30}, {90, 200}})
            for (bool prefix : {false, true}) {
                const double breakEven = bitFlagBreakEvenDensity(rows, cols, BitFlagOrder::RowMajor, prefix);
                QVERIFY(breakEven > 0 && breakEven < 1);
                for (double factor : {0.5, 2.0}) {
                    const double density = std::min(1.0, breakEven * factor);
                    BitFlagOptions options;
                    options.prefixCounts = prefix;
                    const BitFlagMatrix<double> m = encodeBitFlag(cooOf<double>(randomDense(rows, cols, density, rng), rows, cols), options);
                    const BitFlagStats s = computeBitFlagStats(m);
                    QCOMPARE(s.breakEvenDensity, breakEven);
                    const std::size_t arrays = m.values.size() * 8 + m.flags32.size() * 4 + m.flags64.size() * 8 +
                                               m.lineStart.size() * 8 + m.wordPrefix.size() * 4;
                    QCOMPARE(s.bitFlagBytes, arrays);
                    QCOMPARE(s.csrBytes, m.values.size() * 12 + (std::size_t(rows) + 1) * 8);
                    // Which one is smaller is decided by the measured density against the break-even.
                    QCOMPARE(s.bitFlagBytes < s.csrBytes, s.density > breakEven);
                }
            }
        // 64-bit words over 64 columns: one bit per element against 32 bits of index: 1/32.
        QCOMPARE(bitFlagBreakEvenDensity(100, 640, BitFlagOrder::RowMajor, false), 1.0 / 32);
    }

    void addAndSubtractCoverTheFourFlagCases() {
        std::mt19937 rng(2019);
        for (const auto& [rows, cols] : kShapes)
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                const std::vector<double> da = randomDense(rows, cols, 0.4, rng), db = randomDense(rows, cols, 0.4, rng);
                BitFlagOptions options;
                options.order = order;
                const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(da, rows, cols), options);
                const BitFlagMatrix<double> b = encodeBitFlag(cooOf<double>(db, rows, cols), options);
                const BitFlagMatrix<double> sum = bitFlagAdd(a, b), diff = bitFlagSub(a, b);
                validateBitFlag(sum);
                validateBitFlag(diff);
                for (std::size_t k = 0; k < da.size(); ++k) {
                    const Index i = Index(k / std::max<Index>(cols, 1)), j = Index(k % std::max<Index>(cols, 1));
                    QCOMPARE(bitFlagGet(sum, i, j), da[k] + db[k]);
                    QCOMPARE(bitFlagGet(diff, i, j), da[k] - db[k]);
                    // The flag set is the union: a cancellation keeps its flag.
                    QCOMPARE(bitFlagValueIndex(sum, i, j).has_value(), da[k] != 0 || db[k] != 0);
                }
            }
        const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>({1, 0}, 1, 2));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagAdd(a, encodeBitFlag(cooOf<double>({1, 0, 2}, 1, 3))));
    }

    void multiplyMatchesDenseProduct() {
        std::mt19937 rng(4242);
        struct Case { Index n, k, m; double density; };
        for (const Case c : {Case{1, 1, 1, 1.0}, Case{7, 31, 5, 0.3}, Case{13, 33, 9, 0.2}, Case{5, 64, 70, 0.1},
                             Case{40, 130, 33, 0.05}, Case{3, 0, 4, 0.5}, Case{0, 5, 3, 0.5}, Case{31, 65, 31, 0.5}})
            for (bool prefix : {false, true}) {
                const std::vector<double> da = randomDense(c.n, c.k, c.density, rng), db = randomDense(c.k, c.m, c.density, rng);
                BitFlagOptions rowMajor, colMajor;
                rowMajor.prefixCounts = colMajor.prefixCounts = prefix;
                colMajor.order = BitFlagOrder::ColumnMajor;
                const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(da, c.n, c.k), rowMajor);
                const BitFlagMatrix<double> b = encodeBitFlag(cooOf<double>(db, c.k, c.m), colMajor);
                const BitFlagMatrix<double> product = bitFlagMultiply(a, b);
                validateBitFlag(product);
                QCOMPARE(denseOf(product), denseProduct(da, db, c.n, c.k, c.m));
            }
        const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>({1, 2}, 1, 2));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagMultiply(a, a));  // B must be column-major
    }

    void luRecoversExactFactors() {
        std::mt19937 rng(31);
        for (Index n : {1, 2, 5, 31, 33, 64, 97})
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                const ExactLuCase c = exactLuCase(n, 0.15, rng);
                BitFlagOptions options;
                options.order = order;
                const BitFlagLu<double> lu = bitFlagLu(encodeBitFlag(cooOf<double>(c.a, n, n), options));
                QCOMPARE(denseOf(lu.lower), c.lower);
                QCOMPARE(denseOf(lu.upper), c.upper);
                const BitFlagLu<float> luf = bitFlagLu(encodeBitFlag(cooOf<float>(c.a, n, n), options));
                QCOMPARE(denseOf(luf.upper), c.upper);
            }
    }

    void luReportsTheStepOfAZeroPivot() {
        // Pivot of step 0 is zero outright.
        try {
            bitFlagLu(encodeBitFlag(cooOf<double>({0, 1, 1, 0}, 2, 2)));
            QFAIL("zero pivot accepted");
        } catch (const BitFlagPivotError& e) {
            QCOMPARE(e.step(), 0);
            QVERIFY2(QString(e.what()).contains("step 0"), e.what());
        }
        // Rows 0 and 1 agree on their first two columns: step 1's pivot becomes exactly zero.
        const std::vector<double> d = {2, 4, 1, 1, 2, 3, 5, 1, 7};
        try {
            bitFlagLu(encodeBitFlag(cooOf<double>(d, 3, 3)));
            QFAIL("zero pivot accepted");
        } catch (const BitFlagPivotError& e) {
            QCOMPARE(e.step(), 1);
        }
        // A tiny (not zero) pivot is refused too: 2^-52 is below the default 2 x epsilon threshold.
        const std::vector<double> tiny = {1, 1, 1, 1 + std::ldexp(1.0, -52)};
        try {
            bitFlagLu(encodeBitFlag(cooOf<double>(tiny, 2, 2)));
            QFAIL("tiny pivot accepted");
        } catch (const BitFlagPivotError& e) {
            QCOMPARE(e.step(), 1);
            QVERIFY(e.pivot() != 0);
            QVERIFY2(QString(e.what()).contains("tiny"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLu(encodeBitFlag(cooOf<double>({1, 2}, 1, 2))));
    }

    void pivotedLuRecoversKnownFactorsAndRowOrder() {
        std::mt19937 rng(41);
        for (Index n : {1, 2, 5, 33, 64, 130})
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                const ExactPivotedLuCase c = exactPivotedLuCase(n, 0.2, rng);
                BitFlagOptions options;
                options.order = order;
                const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(c.a, n, n), options);
                const BitFlagPivotedLu<double> lu = bitFlagLuPivoted(a);
                validateBitFlag(lu.lower);
                validateBitFlag(lu.upper);
                QCOMPARE(lu.rowOrder, c.rowOrder);
                QCOMPARE(denseOf(lu.lower), c.lower);
                QCOMPARE(denseOf(lu.upper), c.upper);
                QCOMPARE(bitFlagLuResidual(a, lu), 0.0);
                const BitFlagPivotedLu<float> luf = bitFlagLuPivoted(encodeBitFlag(cooOf<float>(c.a, n, n), options));
                QCOMPARE(luf.rowOrder, c.rowOrder);
                QCOMPARE(denseOf(luf.upper), c.upper);
            }
    }

    void pivotedLuResidualIsAtRoundingLevel() {
        // These matrices need real pivoting (their large entries sit off the diagonal). Backward stability of
        // partial pivoting: ||PA - LU|| / ||A|| stays near n x epsilon (growth is small in practice).
        std::mt19937 rng(43);
        for (Index n : {7, 64, 150}) {
            const std::vector<double> d = randomPivotingDense(n, 0.3, rng);
            const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(d, n, n));
            const double residual = bitFlagLuResidual(a, bitFlagLuPivoted(a));
            QVERIFY2(residual <= n * std::numeric_limits<double>::epsilon(), qPrintable(QString::number(residual)));
            const BitFlagMatrix<float> af = encodeBitFlag(cooOf<float>(d, n, n));
            const double residualF = bitFlagLuResidual(af, bitFlagLuPivoted(af));
            QVERIFY2(residualF <= n * std::numeric_limits<float>::epsilon(), qPrintable(QString::number(residualF)));
            QVERIFY(residualF > 0);  // a float LU of these matrices rounds somewhere: the residual is measured, not zero by accident
        }
        // A residual notices a wrong factor.
        const std::vector<double> d = {4, 1, 2, 3};
        const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(d, 2, 2));
        BitFlagPivotedLu<double> lu = bitFlagLuPivoted(a);
        std::swap(lu.rowOrder[0], lu.rowOrder[1]);
        QVERIFY(bitFlagLuResidual(a, lu) > 0.1);
    }

    void pivotedLuReportsTheSingularStep() {
        // Column 3 of A is zero: every candidate of step 3 is exactly zero, pivoting or not.
        std::mt19937 rng(47);
        const Index n = 9;
        std::vector<double> d = randomDense(n, n, 0.6, rng);
        for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + i] = 20;
        for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + 3] = 0;
        try {
            bitFlagLuPivoted(encodeBitFlag(cooOf<double>(d, n, n)));
            QFAIL("singular matrix accepted");
        } catch (const BitFlagPivotError& e) {
            QCOMPARE(e.step(), 3);
            QCOMPARE(e.pivot(), 0.0);
            QVERIFY2(QString(e.what()).contains("step 3") && QString(e.what()).contains("singular"), e.what());
        }
        // A zero diagonal alone is no problem once rows may be exchanged.
        const BitFlagPivotedLu<double> lu = bitFlagLuPivoted(encodeBitFlag(cooOf<double>({0, 1, 1, 0}, 2, 2)));
        QCOMPARE(lu.rowOrder, (std::vector<Index>{1, 0}));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivoted(encodeBitFlag(cooOf<double>({1, 2}, 1, 2))));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivoted(encodeBitFlag(cooOf<double>({1, 0, 0, NAN}, 2, 2))));
        const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>({1, 0, 0, 1}, 2, 2));
        BitFlagPivotedLu<double> wrong = bitFlagLuPivoted(a);
        wrong.rowOrder.pop_back();
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuResidual(a, wrong));
    }

    void pivotedLuLeafOptionsAreValidatedBeforeTheDevice() {
        // The Cuda LU's leaf options are checked before any device is asked (so also without one): a
        // cluster leaf of more than 16 blocks or a negative count, an unknown leaf kernel.
        const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>({1, 0, 0, 1}, 2, 2));
        BitFlagRunOptions options;
        options.backend = BitFlagBackend::Cuda;
        options.leaf = BitFlagLuLeaf::Cluster;
        for (const Index blocks : {-1, 17}) {
            options.leafClusterBlocks = blocks;
            QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivoted(a, options));
        }
        options.leafClusterBlocks = 0;
        options.leaf = static_cast<BitFlagLuLeaf>(7);
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivoted(a, options));
        QCOMPARE(QString(toString(BitFlagLuLeaf::OneBlock)), QString("one-block leaf"));
        QCOMPARE(QString(toString(BitFlagLuLeaf::Cluster)), QString("cluster leaf"));
        QCOMPARE(QString(toString(BitFlagLuLeaf::Auto)), QString("automatic leaf"));
    }
};

QTEST_GUILESS_MAIN(TestBitFlag)
#include "tst_bitflag.moc"
