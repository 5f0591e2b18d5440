// spyglass-cli names the backend that runs each computing command's work: the one chosen with
// --backend (cpu for the commands without one), not what the machine offers. On a GPU machine the
// banner once said "backend: CUDA: ..." for --backend cpu; here the expected line is spelled out
// exactly, so printing the device summary instead (on any machine) fails the test.
#include "clisuite.h"
#include "testmatrices.h"
#include "spyglass/backend.h"

#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QString matrix(const QString& name) { return testMatricesDir() + QLatin1Char('/') + name; }

using Result = clitesting::CliResult<QString>;

// Headless, and without a GPU memory cap inherited from whoever runs the suite.
QProcessEnvironment backendEnvironment() {
    QProcessEnvironment env = clitesting::headlessEnvironment();
    env.remove(QStringLiteral("SPYGLASS_GPU_MEMORY_CAP"));
    return env;
}

// The stderr lines "spyglass-cli COMMAND: backend: ..." (a command prints exactly one).
QStringList backendLines(const QString& err, const QString& command) {
    QStringList lines;
    const QString prefix = QStringLiteral("spyglass-cli %1: backend: ").arg(command);
    for (const QString& line : err.split(QLatin1Char('\n')))
        if (line.startsWith(prefix)) lines << line;
    return lines;
}

} // namespace

class TestCliBackend : public clitesting::CliSuite {
    Q_OBJECT

    Result run(const QStringList& args) { return clitesting::runProgram<QString>(m_cli, args, backendEnvironment()); }

private slots:
    void everyComputingCommandNamesTheCpuBackendItRunsOn_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("args");
        const QString hybridOut = m_dir.filePath(QStringLiteral("p.spyh"));
        // Commands with --backend, asked for the CPU.
        QTest::newRow("spmv") << "spmv" << QStringList{"spmv", matrix("west0479.mtx"), "--backend", "cpu"};
        QTest::newRow("spmv csr") << "spmv" << QStringList{"spmv", matrix("west0479.mtx"), "--format", "csr", "--backend", "cpu"};
        QTest::newRow("spmv default") << "spmv" << QStringList{"spmv", matrix("west0479.mtx")};  // cpu is the default
        QTest::newRow("matop") << "matop" << QStringList{"matop", "add", matrix("full.mtx"), matrix("full.mtx"), "--backend", "cpu"};
        QTest::newRow("lu") << "lu" << QStringList{"lu", matrix("bcsstk02.mtx"), "--backend", "cpu"};
        QTest::newRow("lu pivot") << "lu" << QStringList{"lu", matrix("bcsstk02.mtx"), "--pivot", "--backend", "cpu"};
        QTest::newRow("svd") << "svd" << QStringList{"svd", "--n", "4", "--batch", "3", "--backend", "cpu"};
        QTest::newRow("invert") << "invert" << QStringList{"invert", "--n", "4", "--batch", "3", "--backend", "cpu"};
        // Commands that always run on the host.
        QTest::newRow("detect") << "detect" << QStringList{"detect", matrix("pushpull.mtx")};
        QTest::newRow("encode-binary") << "encode-binary" << QStringList{"encode-binary", matrix("pushpull.mtx"), "-o", hybridOut};
        QTest::newRow("bitflag") << "bitflag" << QStringList{"bitflag", matrix("full.mtx"), "--stats"};
        QTest::newRow("export") << "export"
                                << QStringList{"export", matrix("olm1000.mtx"), "--format", "segdia", "-o",
                                               m_dir.filePath(QStringLiteral("o.spys"))};
    }

    void everyComputingCommandNamesTheCpuBackendItRunsOn() {
        QFETCH(QString, command);
        QFETCH(QStringList, args);
        const Result r = run(args);
        QVERIFY2(r.exitCode == 0, qPrintable(args.join(' ') + ": exit " + QString::number(r.exitCode) + "\n" + r.err));
        const QStringList lines = backendLines(r.err, command);
        QVERIFY2(lines.size() == 1, qPrintable(args.join(' ') + ": expected one backend line in\n" + r.err));
        QCOMPARE(lines.front(), QStringLiteral("spyglass-cli %1: backend: cpu (CPU reference)").arg(command));
        // Nothing on stderr may claim the GPU ran a CPU job.
        QVERIFY2(!r.err.contains(QLatin1String("CUDA:")), qPrintable(r.err));
    }

    void decodeNamesTheCpuBackend() {
        // decode needs a container: export one first.
        const QString container = m_dir.filePath(QStringLiteral("d.spys"));
        QCOMPARE(run({"export", matrix("olm1000.mtx"), "--format", "segdia", "-o", container}).exitCode, 0);
        const Result r = run({"decode", container, "-o", m_dir.filePath(QStringLiteral("d.mtx"))});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(backendLines(r.err, QStringLiteral("decode")), QStringList{"spyglass-cli decode: backend: cpu (CPU reference)"});
    }

    void gpuBackendsNameTheLibraryAndTheDevice_data() {
        QTest::addColumn<QString>("command");
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("runner");
        QTest::newRow("spmv cuda") << "spmv" << QStringList{"spmv", matrix("olm1000.mtx"), "--backend", "cuda"}
                                   << "cuda (Spyglass CUDA kernels; ";
        QTest::newRow("spmv cusparse") << "spmv" << QStringList{"spmv", matrix("olm1000.mtx"), "--format", "csr", "--backend", "cusparse"}
                                       << "cusparse (NVIDIA cuSPARSE; ";
        QTest::newRow("matop cusparse") << "matop" << QStringList{"matop", "add", matrix("full.mtx"), matrix("full.mtx"), "--backend", "cusparse"}
                                        << "cusparse (NVIDIA cuSPARSE; ";
        QTest::newRow("lu cusolver") << "lu" << QStringList{"lu", matrix("bcsstk02.mtx"), "--backend", "cusolver"}
                                     << "cusolver (NVIDIA cuSOLVER; ";
        QTest::newRow("svd cuda") << "svd" << QStringList{"svd", "--n", "4", "--batch", "3", "--backend", "cuda"}
                                  << "cuda (Spyglass CUDA kernels; ";
        QTest::newRow("invert cublas") << "invert" << QStringList{"invert", "--n", "4", "--batch", "3", "--backend", "cublas"}
                                       << "cublas (NVIDIA cuBLAS; ";
    }

    void gpuBackendsNameTheLibraryAndTheDevice() {
        // Runs on any machine: with a device the line names it (and the run succeeds), without one it
        // says why not (and the run fails with exit 1).
        QFETCH(QString, command);
        QFETCH(QStringList, args);
        QFETCH(QString, runner);
        const Result r = run(args);
        const QStringList lines = backendLines(r.err, command);
        QVERIFY2(lines.size() == 1, qPrintable(args.join(' ') + ": expected one backend line in\n" + r.err));
        const QString prefix = QStringLiteral("spyglass-cli %1: backend: ").arg(command) + runner;
        QVERIFY2(lines.front().startsWith(prefix), qPrintable(lines.front()));
        const spyglass::DeviceInfo device = spyglass::cudaDeviceInfo();
        if (device.present) {
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(lines.front().contains(QString::fromStdString(device.name)), qPrintable(lines.front()));
        } else {
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(lines.front().contains(QLatin1String("no CUDA device: ")), qPrintable(lines.front()));
        }
    }
};

QTEST_GUILESS_MAIN(TestCliBackend)
#include "tst_cli_backend.moc"
#include "moc_clisuite.cpp"
