// spyglass-cli svd as a user runs it (a separate process): the CPU run reports converged matrices
// with errors at rounding level, max sweeps 1 is reported as non-convergence, bad shapes are usage
// errors (exit 2), and GPU backends without a GPU fail with a message (exit 1).
#include "clitesting.h"
#include "spyglass/backend.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <QProcess>
#include <QRegularExpression>

#include <limits>

namespace {

using Result = clitesting::CliResult<QString>;

// The number after a label at the start of a line of the report, NaN when absent.
double field(const QString& out, const QString& label) {
    const QRegularExpression line("^" + QRegularExpression::escape(label) + R"(\s+([-+0-9.eEinfa]+))",
                                  QRegularExpression::MultilineOption);
    const auto match = line.match(out);
    return match.hasMatch() ? match.captured(1).toDouble() : std::numeric_limits<double>::quiet_NaN();
}

} // namespace

class TestCliSvd : public QObject {
    Q_OBJECT

    QString m_cli;

    Result run(const QStringList& args) { return clitesting::runProgram<QString>(m_cli, QStringList{QStringLiteral("svd")} + args); }

private slots:
    void initTestCase() {
        CLITESTING_REQUIRE_CLI(m_cli);
    }
    void cpuRunConvergesWithErrorsAtRoundingLevel() {
        for (const QString type : {"f32", "c128"}) {
            const Result r = run({"--n", "9", "--m", "12", "--batch", "40", "--type", type, "--kind", "graded", "--seed", "4"});
            QCOMPARE(r.exitCode, 0);
            const double eps = type == QLatin1String("f32") ? std::numeric_limits<float>::epsilon()
                                                            : std::numeric_limits<double>::epsilon();
            const double sweeps = field(r.out, "max sweeps used");
            QVERIFY(sweeps >= 2 && sweeps <= 30);
            // the library's bounds: 4 * sweeps * n * eps for the factorisation and V, tol + 4 m eps for U
            QVERIFY2(field(r.out, "max ||A-USV^H||/||A||") <= 4 * sweeps * 9 * eps, qPrintable(r.out));
            QVERIFY2(field(r.out, "max |V^H V - I|") <= 4 * sweeps * 9 * eps, qPrintable(r.out));
            QVERIFY2(field(r.out, "max |U^H U - I|") <= 12 * eps + 4 * 12 * eps, qPrintable(r.out));
            QCOMPARE(field(r.out, "not converged"), 0.0);
            QCOMPARE(field(r.out, "non-finite"), 0.0);
        }
    }
    void oneSweepIsReportedAsNotConverged() {
        const Result r = run({"--n", "16", "--batch", "7", "--max-sweeps", "1"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(field(r.out, "not converged"), 7.0);
        QCOMPARE(field(r.out, "max sweeps used"), 1.0);
    }
    void badShapesAreUsageErrors() {
        Result r = run({"--n", "8", "--m", "4"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY(r.err.contains("m >= n"));
        r = run({"--n", "65"});
        QCOMPARE(r.exitCode, 2);
        r = run({"--n", "8", "--type", "f16"});
        QCOMPARE(r.exitCode, 2);
    }
    void variantsAreForTheCudaBackend() {
        Result r = run({"--n", "8", "--batch", "4", "--variant", "register-groups"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--backend cuda"), qPrintable(r.err));
        r = run({"--n", "8", "--batch", "4", "--backend", "cuda", "--variant", "sideways"});
        QCOMPARE(r.exitCode, 2);
        // validated before any device work: the same message with or without a GPU
        r = run({"--n", "8", "--batch", "4", "--backend", "cuda", "--variant", "real-embedding"});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("complex"), qPrintable(r.err));
        r = run({"--n", "4", "--batch", "3"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains(QRegularExpression("^variant\\s+reference", QRegularExpression::MultilineOption)),
                 qPrintable(r.out));
    }
    void stackedFileInSingularValuesOut() {
        QTemporaryDir dir;
        // Two 3 x 2 matrices stacked (file 6 x 2): singular values {4, 3} and {5, 0} (a rank-1 matrix
        // whose column (3, 0, 4) has norm 5), known exactly.
        const QString in = dir.filePath("stack.mtx"), out = dir.filePath("sigma.mtx");
        QVERIFY(testfiles::writeFile(in, "%%MatrixMarket matrix coordinate real general\n6 2 4\n1 1 3\n2 2 -4\n4 1 3\n6 1 4\n"));
        Result r = run({"--m", "3", "--in", in, "--out", out, "--type", "f64"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.contains("2 of 3 x 2"), qPrintable(r.out));
        const spyglass::Matrix sigma = spyglass::readMatrixMarket(out.toStdString());
        QCOMPARE(sigma.rows, 2);
        QCOMPARE(sigma.cols, 2);
        // array files are column-major: (0,0) (1,0) (0,1) (1,1)
        const std::vector<double> want{4, 5, 3, 0};
        for (std::size_t k = 0; k < want.size(); ++k) QVERIFY2(std::abs(sigma.real[k] - want[k]) < 1e-12, qPrintable(QString::number(sigma.real[k])));
        // rows that are not a multiple of --m: exit 1 naming the file, the old output untouched
        const QByteArray before = [&] { QFile f(out); f.open(QIODevice::ReadOnly); return f.readAll(); }();
        r = run({"--m", "4", "--in", in, "--out", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("stack.mtx") && r.err.contains("multiple of 4"), qPrintable(r.err));
        QFile after(out);
        QVERIFY(after.open(QIODevice::ReadOnly));
        QCOMPARE(after.readAll(), before);
        // more columns than rows per matrix
        r = run({"--m", "1", "--in", in});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("n <= m"), qPrintable(r.err));
    }
    void gpuBackendsWithoutDeviceFailWithAMessage() {
        if (spyglass::cudaDeviceInfo().present) QSKIP("a GPU is present");
        for (const QString backend : {"cuda", "cusolver", "cusolver-gesvda"}) {
            const Result r = run({"--n", "8", "--batch", "4", "--backend", backend});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("needs a GPU") || r.err.contains("no CUDA"), qPrintable(r.err));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliSvd)
#include "tst_batchedsvd_cli.moc"
