// spyglass-cli svd as a user runs it (a separate process): the CPU run reports converged matrices
// with errors at rounding level, max sweeps 1 is reported as non-convergence, bad shapes are usage
// errors (exit 2), and GPU backends without a GPU fail with a message (exit 1).
#include "spyglass/backend.h"

#include <QtTest>

#include <QProcess>
#include <QRegularExpression>

#include <limits>

namespace {

struct Result {
    int exitCode = -1;
    QString out, err;
};

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

    Result run(const QStringList& args) {
        QProcess process;
        process.start(m_cli, QStringList{QStringLiteral("svd")} + args);
        Result result;
        if (!process.waitForFinished(120000) || process.exitStatus() != QProcess::NormalExit) return result;
        result.exitCode = process.exitCode();
        result.out = QString::fromUtf8(process.readAllStandardOutput());
        result.err = QString::fromUtf8(process.readAllStandardError());
        return result;
    }

private slots:
    void initTestCase() {
        m_cli = QCoreApplication::applicationDirPath() + QStringLiteral("/../app/spyglass-cli");
        if (!QFileInfo(m_cli).isExecutable()) QSKIP("spyglass-cli is not built next to the tests");
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
    void gpuBackendsWithoutDeviceFailWithAMessage() {
        if (spyglass::cudaDeviceInfo().present) QSKIP("a GPU is present");
        for (const QString backend : {"cuda", "cusolver"}) {
            const Result r = run({"--n", "8", "--batch", "4", "--backend", backend});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("needs a GPU") || r.err.contains("no CUDA"), qPrintable(r.err));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliSvd)
#include "tst_cli_svd.moc"
