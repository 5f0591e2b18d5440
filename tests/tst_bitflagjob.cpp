// The bit-flag panel's compute service (method A in the GUI): the layout is the library's encoding
// and its bytes match the pre-flight estimate; add, subtract, multiply and LU give the right matrices
// (checked here against dense arithmetic written in the test) and pass their own checks; the checks
// reject a wrong result; a long run cancels; mismatched shapes, non-square matrices and sizes past
// the byte bound fail with messages that name them; the lookup path finds the CSR position.
#include "bitflag_testing.h"
#include "testmatrices.h"

#include "core/bitflagcheck.h"
#include "core/bitflagjob.h"
#include "core/bitflagmultiplyverdict.h"
#include "core/bitflaglookup.h"

#include "spyglass/backend.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <QSignalSpy>
#include <QtTest>

#include <random>

using namespace spyglass;
using namespace bitflag_testing;

namespace {

std::shared_ptr<const Matrix> matrixOf(const std::vector<double>& dense, Index rows, Index cols) {
    auto m = std::make_shared<Matrix>();
    m->rows = rows;
    m->cols = cols;
    for (Index j = 0; j < cols; ++j)  // column by column, as a file might list them
        for (Index i = 0; i < rows; ++i)
            if (const double v = dense[std::size_t(i) * cols + j]; v != 0) {
                m->rowIndex.push_back(i);
                m->colIndex.push_back(j);
                m->real.push_back(v);
            }
    return m;
}

std::shared_ptr<const Matrix> sharedFile(const char* name) {
    return std::make_shared<const Matrix>(readMatrixMarket((testMatricesDir() + QLatin1Char('/') + QLatin1String(name)).toStdString()));
}

std::vector<double> denseOfCsr(const CsrMatrix<double>& m) {
    std::vector<double> d(std::size_t(m.rows) * std::size_t(m.cols), 0.0);
    for (Index i = 0; i < m.rows; ++i)
        for (Count k = m.rowPtr[i]; k < m.rowPtr[i + 1]; ++k) d[std::size_t(i) * m.cols + m.colIndex[std::size_t(k)]] = m.values[std::size_t(k)];
    return d;
}

app::BitFlagOpRequest request(app::BitFlagOp op, std::shared_ptr<const Matrix> a, std::shared_ptr<const Matrix> b = {}) {
    app::BitFlagOpRequest r;
    r.op = op;
    r.a = std::move(a);
    r.b = std::move(b);
    return r;
}

// Diagonally dominant, so that LU without pivoting never meets a small pivot.
std::vector<double> dominant(Index n, double density, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<double> d = randomDense(n, n, density, rng);
    for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + i] = 10.0 * n;
    return d;
}

// The four layouts: row- or column-major lines, with or without the per-word prefix counts.
void everyOrderWithAndWithoutPrefix() {
    QTest::addColumn<bool>("columnMajor");
    QTest::addColumn<bool>("prefix");
    QTest::newRow("row-major") << false << false;
    QTest::newRow("row-major + prefix") << false << true;
    QTest::newRow("column-major") << true << false;
    QTest::newRow("column-major + prefix") << true << true;
}

} // namespace

class TestBitFlagJob : public QObject {
    Q_OBJECT
private slots:
    void layoutIsTheEncodingAndItsBytesMatchTheEstimate_data() { everyOrderWithAndWithoutPrefix(); }
    void layoutIsTheEncodingAndItsBytesMatchTheEstimate() {
        QFETCH(bool, columnMajor);
        QFETCH(bool, prefix);
        const auto m = sharedFile("west0479.mtx");
        app::BitFlagLayoutRequest r;
        r.matrix = m;
        r.order = columnMajor ? BitFlagOrder::ColumnMajor : BitFlagOrder::RowMajor;
        r.prefixCounts = prefix;
        QVector<int> percents;
        app::BitFlagJobControl control;
        control.progress = [&](int p, const QString&) { percents << p; };
        const app::BitFlagLayout layout = app::buildBitFlagLayout(r, control);
        QVERIFY(layout.format);
        QCOMPARE(layout.format->order, r.order);
        QCOMPARE(layout.format->withPrefixCounts, prefix);
        validateBitFlag(*layout.format);
        const CsrMatrix<double> expected = withoutZeros(toCsr<double>(*m)), got = decodeBitFlag(*layout.format);
        QCOMPARE(got.rowPtr, expected.rowPtr);
        QCOMPARE(got.colIndex, expected.colIndex);
        QCOMPARE(got.values, expected.values);
        const BitFlagStats stats = computeBitFlagStats(*layout.format);
        QCOMPARE(layout.stats.bitFlagBytes, stats.bitFlagBytes);
        QCOMPARE(layout.stats.csrBytes, stats.csrBytes);
        // The four storage choices, each estimated from the shape, equal what encoding them builds.
        QCOMPARE(layout.choices.size(), 4);
        for (const app::BitFlagBytes& c : layout.choices) {
            BitFlagOptions o;
            o.order = c.order;
            o.prefixCounts = c.prefixCounts;
            const BitFlagStats s = computeBitFlagStats(encodeBitFlag(expected, o));
            QCOMPARE(c.total(), double(s.bitFlagBytes));
            QCOMPARE(c.flags, double(s.flagBytes));
            QCOMPARE(c.breakEvenDensity, s.breakEvenDensity);
        }
        QVERIFY(!percents.isEmpty());
        QVERIFY(std::is_sorted(percents.begin(), percents.end()));
    }

    void addAndSubtractGiveTwiceAAndAStructuralZero() {
        const auto m = sharedFile("bcsstk02.mtx");
        const std::vector<double> a = denseOfCsr(withoutZeros(toCsr<double>(*m)));
        const app::BitFlagOpResult sum = app::runBitFlagOperation(request(app::BitFlagOp::Add, m));
        QVERIFY(sum.allAgree());
        QCOMPARE(sum.runs.front().checkedAgainst, QStringLiteral("fp64 CSR oracle"));
        QVERIFY(sum.product);
        const std::vector<double> c = denseOfCsr(*sum.product);
        for (std::size_t k = 0; k < a.size(); ++k) QCOMPARE(c[k], 2 * a[k]);
        QCOMPARE(sum.runs.front().entries, withoutZeros(toCsr<double>(*m)).nnz());

        const app::BitFlagOpResult difference = app::runBitFlagOperation(request(app::BitFlagOp::Subtract, m));
        QVERIFY(difference.allAgree());
        // A - A keeps every flag with a stored 0 (the structural union, as csrgeam2 does).
        QCOMPARE(difference.product->nnz(), withoutZeros(toCsr<double>(*m)).nnz());
        for (double v : difference.product->values) QCOMPARE(v, 0.0);
    }

    void subtractWithASecondMatrixIsAMinusB() {
        std::mt19937 rng(7);
        const std::vector<double> a = randomDense(37, 70, 0.2, rng), b = randomDense(37, 70, 0.2, rng);
        const app::BitFlagOpResult r = app::runBitFlagOperation(request(app::BitFlagOp::Subtract, matrixOf(a, 37, 70), matrixOf(b, 37, 70)));
        QVERIFY(r.allAgree());
        const std::vector<double> c = denseOfCsr(*r.product);
        for (std::size_t k = 0; k < a.size(); ++k) QCOMPARE(c[k], a[k] - b[k]);
    }

    void multiplyIsTheDenseProduct() {
        std::mt19937 rng(11);
        const Index n = 97;  // two 64-bit words per line, the second partly past the end
        const std::vector<double> a = randomDense(n, n, 0.08, rng);
        const app::BitFlagOpResult r = app::runBitFlagOperation(request(app::BitFlagOp::Multiply, matrixOf(a, n, n)));
        QVERIFY2(r.allAgree(), qPrintable(r.runs.front().problem + r.runs.front().error));
        const std::vector<double> want = denseProduct(a, a, n, n, n), got = denseOfCsr(*r.product);
        for (std::size_t k = 0; k < want.size(); ++k) QCOMPARE(got[k], want[k]);  // integers: exact

        const std::vector<double> b = randomDense(n, 40, 0.1, rng);
        const app::BitFlagOpResult rect = app::runBitFlagOperation(request(app::BitFlagOp::Multiply, matrixOf(a, n, n), matrixOf(b, n, 40)));
        QVERIFY(rect.allAgree());
        QCOMPARE(rect.cols, 40);
        const std::vector<double> want2 = denseProduct(a, b, n, n, 40), got2 = denseOfCsr(*rect.product);
        for (std::size_t k = 0; k < want2.size(); ++k) QCOMPARE(got2[k], want2[k]);
    }

    void luFactorsMultiplyBackToA() {
        const Index n = 60;
        const std::vector<double> a = dominant(n, 0.15, 3);
        const app::BitFlagOpResult r = app::runBitFlagOperation(request(app::BitFlagOp::Lu, matrixOf(a, n, n)));
        QVERIFY2(r.allAgree(), qPrintable(r.runs.front().problem + r.runs.front().error));
        QVERIFY(r.lower && r.upper);
        const std::vector<double> l = denseOfCsr(*r.lower), u = denseOfCsr(*r.upper);
        for (Index i = 0; i < n; ++i) {
            QCOMPARE(l[std::size_t(i) * n + i], 1.0);
            for (Index j = i + 1; j < n; ++j) QCOMPARE(l[std::size_t(i) * n + j], 0.0);
            for (Index j = 0; j < i; ++j) QCOMPARE(u[std::size_t(i) * n + j], 0.0);
        }
        const std::vector<double> lu = denseProduct(l, u, n, n, n);
        for (std::size_t k = 0; k < a.size(); ++k) QVERIFY(std::abs(lu[k] - a[k]) <= 1e-12 * 10 * n);
        QVERIFY(r.runs.front().residual >= 0 && r.runs.front().residual < 1e-14);
    }

    void luReportsAZeroPivotAsTheReferenceError() {
        // (0 1; 1 0) is nonsingular but needs a row swap: the seed's LU cannot factor it.
        const app::BitFlagOpResult r = app::runBitFlagOperation(request(app::BitFlagOp::Lu, matrixOf({0, 1, 1, 0}, 2, 2)));
        QVERIFY(!r.runs.front().error.isEmpty());
        QVERIFY2(r.runs.front().error.contains(QLatin1String("step 0")), qPrintable(r.runs.front().error));
        QVERIFY(r.runs.front().error.contains(QLatin1String("pivot")));
        QVERIFY(!r.allAgree());
        QVERIFY(!r.lower);
        // With partial pivoting it is a row swap: P A = I = L U, exactly.
        QCOMPARE(r.runs.size(), 2);
        QVERIFY2(r.runs[1].error.isEmpty(), qPrintable(r.runs[1].error));
        QVERIFY(r.runs[1].agrees);
        QCOMPARE(r.runs[1].residual, 0.0);
    }

    void luWithPivotingFactorsAMatrixTheSeedCannot() {
        // Random, not diagonally dominant, with a zero diagonal: the seed stops at step 0, partial
        // pivoting factors it and its backward error stays within gamma_n.
        std::mt19937 rng(21);
        const Index n = 48;
        std::vector<double> a = randomDense(n, n, 0.3, rng);
        for (Index i = 0; i < n; ++i) a[std::size_t(i) * n + i] = 0;
        for (Index i = 0; i < n; ++i) a[std::size_t(i) * n + (i + 1) % n] = 1 + double(i % 5);  // nonsingular
        const app::BitFlagOpResult r = app::runBitFlagOperation(request(app::BitFlagOp::Lu, matrixOf(a, n, n)));
        QVERIFY(!r.runs[0].error.isEmpty());
        QVERIFY2(r.runs[1].agrees, qPrintable(r.runs[1].problem + r.runs[1].error));
        QVERIFY(r.runs[1].residual > 0 && r.runs[1].residual < 1e-13);
        QVERIFY(r.runs[1].worstBoundRatio <= 1);
    }

    void checksRejectAWrongResult() {
        std::mt19937 rng(5);
        const Index n = 30;
        const CsrMatrix<double> a = cooToCsr(cooOf<double>(randomDense(n, n, 0.2, rng), n, n));
        const app::OracleResult oracle = app::oracleMultiply(a, a);
        const double factor = 2 * app::gamma(oracle.maxTerms + 2, app::unitRoundoff64());
        QVERIFY(app::compareToOracle(oracle.value, oracle.value, oracle, factor).agrees());
        CsrMatrix<double> off = oracle.value;
        off.values[off.values.size() / 2] += 1e-6 * std::abs(off.values[off.values.size() / 2]) + 1e-9;
        const app::Comparison c = app::compareToOracle(off, oracle.value, oracle, factor);
        QVERIFY(c.samePattern);
        QVERIFY(!c.agrees());
        QVERIFY(c.worstBoundRatio > 1);
        QVERIFY(!c.firstProblem.isEmpty());
        CsrMatrix<double> missing = oracle.value;  // drop the last entry of the last non-empty row
        missing.colIndex.pop_back();
        missing.values.pop_back();
        for (Index i = 0; i < n; ++i) missing.rowPtr[std::size_t(i) + 1] = std::min(missing.rowPtr[std::size_t(i) + 1], missing.nnz());
        const app::Comparison p = app::compareToOracle(missing, oracle.value, oracle, factor);
        QVERIFY(!p.samePattern);
        QVERIFY(p.firstProblem.contains(QLatin1String("missing")));

        // LU: the identity factors of A != I fail the backward-error check.
        const std::vector<double> d = dominant(n, 0.2, 9);
        const CsrMatrix<double> da = cooToCsr(cooOf<double>(d, n, n));
        std::vector<double> eye(std::size_t(n) * n, 0.0);
        for (Index i = 0; i < n; ++i) eye[std::size_t(i) * n + i] = 1;
        const CsrMatrix<double> identity = cooToCsr(cooOf<double>(eye, n, n));
        const app::LuCheck bad = app::checkLu(da, identity, identity, app::gamma(n, app::unitRoundoff64()) * 2);
        QVERIFY(!bad.agrees());
        QVERIFY(!bad.firstProblem.isEmpty());
    }

    // SpGEMM's work count against a brute-force count of matching entry pairs, and the verdict's
    // two sides: the faster backend named, the reason (the operation counts) given.
    void multiplyVerdictCountsTheWorkAndSaysWhy() {
        const CsrMatrix<double> a = toCsr<double>(*sharedFile("west0479.mtx"));
        std::vector<Index> rowOfEntry(std::size_t(a.nnz()));
        for (Index i = 0; i < a.rows; ++i)
            for (Count e = a.rowPtr[std::size_t(i)]; e < a.rowPtr[std::size_t(i) + 1]; ++e) rowOfEntry[std::size_t(e)] = i;
        Count brute = 0;  // pairs (A's (i, k), B's (k, j)): every entry of A against every entry of B
        for (Count e = 0; e < a.nnz(); ++e)
            for (Count f = 0; f < a.nnz(); ++f)
                if (a.colIndex[std::size_t(e)] == rowOfEntry[std::size_t(f)]) ++brute;
        QCOMPARE(app::spgemmProducts(a, a), brute);

        app::MultiplyWork work;
        work.rows = work.cols = work.inner = 2048;
        work.products = 800000;
        work.density = 0.01;
        const QString slower = app::bitFlagMultiplyVerdict(0.80, 0.38, work);
        QVERIFY2(slower.startsWith(QStringLiteral("cuSPARSE SpGEMM is 2.11x faster")), qPrintable(slower));
        QVERIFY2(slower.contains(QStringLiteral("cannot win")) && slower.contains(QStringLiteral("134.22 M word ANDs")) &&
                     slower.contains(QStringLiteral("800.0 k multiply-adds")) && slower.contains(QStringLiteral("1 % density")),
                 qPrintable(slower));
        const QString faster = app::bitFlagMultiplyVerdict(0.17, 0.42, work);
        QVERIFY2(faster.startsWith(QStringLiteral("Bit-flag multiply 2.47x faster than cuSPARSE SpGEMM")), qPrintable(faster));
        QVERIFY(!faster.contains(QStringLiteral("cannot win")));
    }

    void gpuBackendsRunOrSayWhyNot() {
        const auto m = sharedFile("bcsstk02.mtx");
        app::BitFlagOpRequest r = request(app::BitFlagOp::Multiply, m);
        r.cuda = r.vendor = true;
        const app::BitFlagOpResult result = app::runBitFlagOperation(r);
        QCOMPARE(result.runs.size(), 3);
        QVERIFY(result.runs[0].agrees);
        if (!cudaDeviceInfo().present) {
            QVERIFY(!result.runs[1].error.isEmpty());
            QVERIFY(!result.runs[2].error.isEmpty());
            QVERIFY(result.verdict.isEmpty());  // nothing to compare
        } else {
            QVERIFY2(result.runs[1].agrees, qPrintable(result.runs[1].problem + result.runs[1].error));
            QVERIFY2(result.runs[2].agrees, qPrintable(result.runs[2].problem + result.runs[2].error));
            // Both ran: the tab says which was faster and why, with the two operation counts.
            QVERIFY2(result.verdict.contains(QStringLiteral("word ANDs")) && result.verdict.contains(QStringLiteral("multiply-adds")),
                     qPrintable(result.verdict));
            qInfo("%s", qPrintable(result.verdict));
        }
        // LU: CPU without and with pivoting, CUDA without and with pivoting, cuSOLVER getrf.
        app::BitFlagOpRequest lu = request(app::BitFlagOp::Lu, m);
        lu.cuda = lu.vendor = true;
        const app::BitFlagOpResult luResult = app::runBitFlagOperation(lu);
        QCOMPARE(luResult.runs.size(), 5);
        QVERIFY(luResult.runs[0].agrees);
        QVERIFY(luResult.runs[1].agrees);
        QVERIFY(luResult.runs[4].name.contains(QLatin1String("cuSOLVER")));
        for (int k = 2; k < 5; ++k) {
            const app::BitFlagOpRun& run = luResult.runs[k];
            if (!cudaDeviceInfo().present) {
                QVERIFY2(run.error.contains(QLatin1String("no CUDA")) || run.error.contains(QLatin1String("device")),
                         qPrintable(run.error));
            } else {
                QVERIFY2(run.agrees, qPrintable(run.name + ": " + run.problem + run.error));
                QVERIFY2(run.maxDifference < 1e-10, qPrintable(run.name + QString::number(run.maxDifference)));
            }
        }
    }

    void jobDeliversResultsAndProgress() {
        app::BitFlagJob job;
        QSignalSpy done(&job, &app::BitFlagJob::operationFinished);
        QSignalSpy progress(&job, &app::BitFlagJob::progress);
        const app::BitFlagOpRequest multiply = request(app::BitFlagOp::Multiply, sharedFile("west0479.mtx"));
        QVERIFY(job.startOperation(multiply));
        QVERIFY(!job.startOperation(multiply));  // one at a time
        QVERIFY(done.wait(30000));
        const auto result = done.first().first().value<app::BitFlagOpResult>();
        QVERIFY(result.allAgree());
        QVERIFY(!progress.isEmpty());

        QSignalSpy layoutDone(&job, &app::BitFlagJob::layoutFinished);
        app::BitFlagLayoutRequest lr;
        lr.matrix = sharedFile("west0479.mtx");
        QVERIFY(job.startLayout(lr));
        QVERIFY(layoutDone.wait(30000));
        QCOMPARE(layoutDone.first().first().value<app::BitFlagLayout>().format->rows, 479);
    }

    void longRunCancels() {
        const Index n = 1500;  // dense LU: n^3/3 = 1.1e9 updates, seconds of work
        const auto m = matrixOf(dominant(n, 0.5, 1), n, n);
        app::BitFlagJob job;
        QSignalSpy cancelled(&job, &app::BitFlagJob::cancelled);
        QSignalSpy finished(&job, &app::BitFlagJob::operationFinished);
        QSignalSpy progress(&job, &app::BitFlagJob::progress);
        QVERIFY(job.startOperation(request(app::BitFlagOp::Lu, m)));
        // Cancel once the factorization itself has started.
        QTRY_VERIFY_WITH_TIMEOUT(std::any_of(progress.begin(), progress.end(),
                                             [](const QList<QVariant>& s) { return s.at(1).toString().contains(QLatin1String("LU")); }),
                                 30000);
        job.cancel();
        QVERIFY(cancelled.wait(30000));
        QVERIFY(finished.isEmpty());

        std::atomic<bool> stop{true};
        app::BitFlagJobControl control;
        control.cancel = &stop;
        QVERIFY_THROWS_EXCEPTION(CancelledError, app::runBitFlagOperation(request(app::BitFlagOp::Multiply, m), control));
        // The library's own loops stop too (the job relies on them for the long part).
        BitFlagRunOptions libraryControl;
        libraryControl.cancel = &stop;
        const CsrMatrix<double> csr = toCsr<double>(*m);
        BitFlagOptions columns;
        columns.order = BitFlagOrder::ColumnMajor;
        QVERIFY_THROWS_EXCEPTION(CancelledError, bitFlagMultiply(encodeBitFlag(csr), encodeBitFlag(csr, columns), libraryControl));
        QVERIFY_THROWS_EXCEPTION(CancelledError, bitFlagLu(encodeBitFlag(csr), libraryControl));
    }

    void mismatchedAndNonSquareFailWithTheShapes() {
        std::mt19937 rng(2);
        const auto a = matrixOf(randomDense(6, 4, 0.5, rng), 6, 4);
        const auto b = matrixOf(randomDense(5, 5, 0.5, rng), 5, 5);
        app::BitFlagJob job;
        QSignalSpy failed(&job, &app::BitFlagJob::failed);
        QVERIFY(job.startOperation(request(app::BitFlagOp::Add, a, b)));
        QVERIFY(failed.wait(30000));
        QString message = failed.takeFirst().first().toString();
        QVERIFY2(message.contains(QStringLiteral("6 × 4")) && message.contains(QStringLiteral("5 × 5")), qPrintable(message));

        QVERIFY(job.startOperation(request(app::BitFlagOp::Multiply, a)));
        QVERIFY(failed.wait(30000));
        message = failed.takeFirst().first().toString();
        QVERIFY2(message.contains(QLatin1String("square")) && message.contains(QStringLiteral("6 × 4")), qPrintable(message));

        QVERIFY(job.startOperation(request(app::BitFlagOp::Lu, a)));
        QVERIFY(failed.wait(30000));
        message = failed.takeFirst().first().toString();
        QVERIFY2(message.contains(QLatin1String("LU needs a square matrix")), qPrintable(message));

        // A (6 x 4) times B (5 x 5): inner dimensions differ.
        QVERIFY_THROWS_EXCEPTION(InputError, app::runBitFlagOperation(request(app::BitFlagOp::Multiply, a, b)));
    }

    void hugeSizesAreRefusedBeforeAllocating() {
        auto huge = std::make_shared<Matrix>();
        huge->rows = huge->cols = 400000;  // 20 GB of flag bits for three entries
        huge->rowIndex = {0, 1, 399999};
        huge->colIndex = {0, 5, 399999};
        huge->real = {1, 2, 3};
        app::BitFlagLayoutRequest lr;
        lr.matrix = huge;
        try {
            app::buildBitFlagLayout(lr);
            QFAIL("a 400000 x 400000 bit-flag form was not refused");
        } catch (const InputError& e) {
            const QString message = QString::fromStdString(e.what());
            QVERIFY2(message.contains(QStringLiteral("400000 × 400000")) && message.contains(QLatin1String("flag bits alone")) &&
                         message.contains(QLatin1String("512.0 MB")),
                     qPrintable(message));
        }
        QVERIFY_THROWS_EXCEPTION(InputError, app::runBitFlagOperation(request(app::BitFlagOp::Add, huge)));

        // An operation's own worst case: A A may be dense, LU expands to dense.
        std::mt19937 rng(4);
        const auto small = matrixOf(randomDense(200, 200, 0.01, rng), 200, 200);
        app::BitFlagOpRequest mul = request(app::BitFlagOp::Multiply, small);
        mul.maxBytes = 100e3;  // the operand (~11 kB) fits, a dense 200 x 200 product (~340 kB) does not
        try {
            app::runBitFlagOperation(mul);
            QFAIL("the multiply's worst case was not refused");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains(QLatin1String("up to 40000 entries")), e.what());
        }
        app::BitFlagOpRequest lu = request(app::BitFlagOp::Lu, small);
        lu.maxBytes = 100e3;
        QVERIFY_THROWS_EXCEPTION(InputError, app::runBitFlagOperation(lu));
    }

    void complexMatricesAreRefused() {
        QVERIFY_THROWS_EXCEPTION(InputError, app::runBitFlagOperation(request(app::BitFlagOp::Add, sharedFile("complex.mtx"))));
    }

    void lookupPathFindsTheCsrPosition_data() { everyOrderWithAndWithoutPrefix(); }
    void lookupPathFindsTheCsrPosition() {
        QFETCH(bool, columnMajor);
        QFETCH(bool, prefix);
        std::mt19937 rng(13);
        const Index rows = 150, cols = 140;  // three words per line either way
        const std::vector<double> d = randomDense(rows, cols, 0.1, rng);
        BitFlagOptions o;
        o.order = columnMajor ? BitFlagOrder::ColumnMajor : BitFlagOrder::RowMajor;
        o.prefixCounts = prefix;
        const BitFlagMatrix<double> m = encodeBitFlag(cooOf<double>(d, rows, cols), o);
        // Position in M: count the stored entries before (i, j) in line order, from the dense matrix.
        auto expectedIndex = [&](Index i, Index j) {
            Count k = 0;
            for (Index r = 0; r < rows; ++r)
                for (Index c = 0; c < cols; ++c) {
                    const bool before = columnMajor ? (c < j || (c == j && r < i)) : (r < i || (r == i && c < j));
                    if (before && d[std::size_t(r) * cols + c] != 0) ++k;
                }
            return k;
        };
        int stored = 0, empty = 0;
        for (Index i = 0; i < rows; i += 7)
            for (Index j = 0; j < cols; j += 5) {
                const app::BitFlagLookupPath p = app::lookupBitFlag(m, i, j);
                const double v = d[std::size_t(i) * cols + j];
                QCOMPARE(p.flagSet, v != 0);
                QCOMPARE(p.line, columnMajor ? j : i);
                QCOMPARE(p.word, (columnMajor ? i : j) / 64);
                QCOMPARE(p.usedPrefixCount, prefix);
                if (v != 0) {
                    ++stored;
                    QCOMPARE(*p.valueIndex, expectedIndex(i, j));
                    QCOMPARE(p.value, v);
                    QVERIFY(p.describe().contains(QStringLiteral("M[%1] = ").arg(*p.valueIndex)));
                } else {
                    ++empty;
                    QVERIFY(!p.valueIndex);
                    QVERIFY(p.describe().contains(QLatin1String("not stored")));
                }
            }
        QVERIFY(stored > 10 && empty > 10);
        QVERIFY_THROWS_EXCEPTION(InputError, app::lookupBitFlag(m, rows, 0));
    }
};

QTEST_GUILESS_MAIN(TestBitFlagJob)
#include "tst_bitflagjob.moc"
