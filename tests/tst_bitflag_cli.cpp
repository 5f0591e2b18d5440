// spyglass-cli bitflag, matop and lu as a user runs them: the decoded file equals the input, matop's
// output equals the library's reference result, lu's L U reproduces A within its rounding bound, and
// failures (zero pivot, no GPU, unknown operation) give the documented exit codes and messages.
#include "bitflag_testing.h"
#include "clisuite.h"
#include "testmatrices.h"

#include "spyglass/backend.h"
#include "spyglass/bitflag.h"
#include "spyglass/convert.h"
#include "spyglass/matrixmarket.h"

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace spyglass;
using bitflag_testing::sameCsr;

namespace {

using Result = clitesting::CliResult<>;

CsrMatrix<double> loadCsr(const QString& path, bool dropZeros) {
    CsrMatrix<double> csr = toCsr<double>(readMatrixMarket(path.toStdString()));
    if (!dropZeros) return csr;
    return decodeBitFlag(encodeBitFlag(csr));  // the seed flags nonzeros only
}

} // namespace

class TestBitFlagCli : public clitesting::CliSuite {
    Q_OBJECT

    Result run(const QStringList& args) { return clitesting::runProgram(m_cli, args); }
    QString matrix(const char* name) const { return testMatricesDir() + "/" + name; }
    QString temp(const char* name) const { return m_dir.filePath(name); }

private slots:
    void bitflagOutRoundTripsTheMatrix_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("colMajor");
        for (const char* name : {"west0479.mtx", "bcsstk02.mtx", "lp_afiro.mtx", "1138_bus.mtx", "skew_fp64.mtx"}) {
            QTest::newRow(qPrintable(QString(name) + " rows")) << QString(name) << false;
            QTest::newRow(qPrintable(QString(name) + " cols")) << QString(name) << true;
        }
    }
    void bitflagOutRoundTripsTheMatrix() {
        QFETCH(QString, file);
        QFETCH(bool, colMajor);
        QStringList args{"bitflag", matrix(qPrintable(file)), "--stats", "--out", temp("round.mtx")};
        if (colMajor) args << "--col-major";
        const Result r = run(args);
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.contains("break-even"));
        QVERIFY(sameCsr(loadCsr(temp("round.mtx"), false), loadCsr(matrix(qPrintable(file)), true)));
    }

    void matopWritesTheReferenceResult_data() {
        QTest::addColumn<QString>("op");
        QTest::addColumn<QString>("a");
        QTest::addColumn<QString>("b");
        QTest::newRow("add") << "add" << "west0479.mtx" << "west0479.mtx";
        QTest::newRow("sub") << "sub" << "bcsstk02.mtx" << "full.mtx";  // shapes differ: must fail
        QTest::newRow("mul") << "mul" << "1138_bus.mtx" << "1138_bus.mtx";
    }
    void matopWritesTheReferenceResult() {
        QFETCH(QString, op);
        QFETCH(QString, a);
        QFETCH(QString, b);
        const Result r = run({"matop", op, matrix(qPrintable(a)), matrix(qPrintable(b)), "--out", temp("c.mtx")});
        const CsrMatrix<double> ca = loadCsr(matrix(qPrintable(a)), true), cb = loadCsr(matrix(qPrintable(b)), true);
        if (ca.rows != cb.rows || ca.cols != cb.cols) {
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("differ") || r.err.contains("but B is"), r.err.constData());
            return;
        }
        QCOMPARE(r.exitCode, 0);
        BitFlagOptions colMajor;
        colMajor.order = BitFlagOrder::ColumnMajor;
        const BitFlagMatrix<double> fa = encodeBitFlag(ca);
        const BitFlagMatrix<double> want = op == "add" ? bitFlagAdd(fa, encodeBitFlag(cb))
                                         : bitFlagMultiply(fa, encodeBitFlag(cb, colMajor));
        // The file keeps only what the written matrix holds: compare through the same nonzero filter.
        QVERIFY(sameCsr(loadCsr(temp("c.mtx"), true), decodeBitFlag(encodeBitFlag(decodeBitFlag(want)))));
    }

    void luFactorsReproduceTheMatrixWithinRounding() {
        const Result r = run({"lu", matrix("bcsstk02.mtx"), "--out-l", temp("l.mtx"), "--out-u", temp("u.mtx")});
        QCOMPARE(r.exitCode, 0);
        const DenseMatrix<double> a = csrToDense(loadCsr(matrix("bcsstk02.mtx"), false));
        const DenseMatrix<double> l = csrToDense(loadCsr(temp("l.mtx"), false)), u = csrToDense(loadCsr(temp("u.mtx"), false));
        const Index n = a.rows;
        // Backward error of LU without pivoting: |A - LU| <= gamma_n |L||U| elementwise (Higham 9.3);
        // the files hold 17 significant digits, which adds far less.
        const double eps = std::numeric_limits<double>::epsilon(), gamma = n * eps / (1 - n * eps);
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < n; ++j) {
                double lu = 0, bound = 0;
                for (Index k = 0; k < n; ++k) {
                    lu += l(i, k) * u(k, j);
                    bound += std::abs(l(i, k) * u(k, j));
                }
                if (j < i) QCOMPARE(u(i, j), 0.0);
                if (j > i) QCOMPARE(l(i, j), 0.0);
                QVERIFY2(std::abs(lu - a(i, j)) <= 2 * gamma * bound, qPrintable(QString("(%1,%2)").arg(i).arg(j)));
            }
    }

    void luNamesTheStepOfAZeroPivot() {
        const Result r = run({"lu", matrix("west0479.mtx")});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("step 0") && r.err.contains("is zero"), r.err.constData());
    }

    void luWithPivotingFactorsWhatThePlainLuCannot() {
        // west0479 has a zero at (0,0) (the plain LU stops at step 0); with --pivot the factors of P A come
        // out, L unit lower and U upper, with a backward error at rounding level.
        const Result r = run({"lu", matrix("west0479.mtx"), "--pivot", "--out-l", temp("pl.mtx"), "--out-u", temp("pu.mtx")});
        QCOMPARE(r.exitCode, 0);
        const QRegularExpressionMatch residual = QRegularExpression("residual\\s+(\\S+)").match(QString::fromUtf8(r.out));
        QVERIFY2(residual.hasMatch(), r.out.constData());
        const double n = 479;
        QVERIFY2(residual.captured(1).toDouble() <= n * std::numeric_limits<double>::epsilon(), r.out.constData());
        const CsrMatrix<double> l = loadCsr(temp("pl.mtx"), false), u = loadCsr(temp("pu.mtx"), false);
        for (Index i = 0; i < l.rows; ++i) {
            QCOMPARE(l.colIndex[std::size_t(l.rowPtr[std::size_t(i) + 1] - 1)], i);  // last entry of row i: the unit diagonal
            QCOMPARE(l.values[std::size_t(l.rowPtr[std::size_t(i) + 1] - 1)], 1.0);
            for (Count k = u.rowPtr[std::size_t(i)]; k < u.rowPtr[std::size_t(i) + 1]; ++k) QVERIFY(u.colIndex[std::size_t(k)] >= i);
        }
    }

    void cudaWithoutDeviceFailsClearly() {
        if (cudaDeviceInfo().present) QSKIP("a CUDA device is present");
        for (const QStringList& args : {QStringList{"lu", matrix("bcsstk02.mtx"), "--backend", "cuda"},
                                        QStringList{"matop", "add", matrix("full.mtx"), matrix("full.mtx"), "--backend", "cuda"}}) {
            const Result r = run(args);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("CUDA"), r.err.constData());
        }
        // The vendor backends say which library could not run.
        const Result lu = run({"lu", matrix("bcsstk02.mtx"), "--backend", "cusolver"});
        QCOMPARE(lu.exitCode, 1);
        QVERIFY2(lu.err.contains("cuSOLVER getrf"), lu.err.constData());
        const Result mul = run({"matop", "mul", matrix("full.mtx"), matrix("full.mtx"), "--backend", "cusparse"});
        QCOMPARE(mul.exitCode, 1);
        QVERIFY2(mul.err.contains("cuSPARSE"), mul.err.constData());
        // A vendor name where the command has none is a usage error.
        QCOMPARE(run({"lu", matrix("bcsstk02.mtx"), "--backend", "cusparse"}).exitCode, 2);
    }

    void unknownOperationIsAUsageError() {
        const Result r = run({"matop", "div", matrix("full.mtx"), matrix("full.mtx")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("div"));
    }
};

QTEST_GUILESS_MAIN(TestBitFlagCli)
#include "tst_bitflag_cli.moc"
#include "moc_clisuite.cpp"
