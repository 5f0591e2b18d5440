// spyglass-cli power and spmv --partitions as a user runs them, on the CPU reference (CI has no GPU):
// the partitioned result is the unpartitioned one, the Rayleigh quotient has a line of its own and is
// checked against the CPU reference, and bad requests get a message naming the problem. One process
// per GPU (--rank/--world-size/--rendezvous, or the launchers' variables) is checked up to where it
// would need a GPU: its run is tst_cuda_multigpu's.
#include "clitesting.h"
#include "testmatrices.h"

#include "spyglass/multigpu.h"

#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>

namespace {

using Result = clitesting::CliResult<>;

} // namespace

class TestCliPower : public QObject {
    Q_OBJECT

    QString m_cli;

    Result run(const QStringList& args) { return clitesting::runProgram(m_cli, args, QProcessEnvironment::systemEnvironment(), 300000); }

    static double rayleighOf(const QByteArray& out) {
        const QRegularExpressionMatch m = QRegularExpression(QStringLiteral("^rayleigh: (\\S+)$"), QRegularExpression::MultilineOption)
                                              .match(QString::fromUtf8(out));
        return m.hasMatch() ? m.captured(1).toDouble() : std::nan("");
    }

private slots:
    void initTestCase() {
        CLITESTING_REQUIRE_CLI(m_cli);
    }

    void powerPartitionsAgreeAndAreChecked_data() {
        QTest::addColumn<QString>("format");
        QTest::newRow("csr") << QStringLiteral("csr");
        QTest::newRow("segdia") << QStringLiteral("segdia");
    }
    void powerPartitionsAgreeAndAreChecked() {
        QFETCH(QString, format);
        const QString file = sharedMatrix("watt_2.mtx");
        const QStringList common{QStringLiteral("power"), file, QStringLiteral("--cpu"), QStringLiteral("--iterations"),
                                 QStringLiteral("40"), QStringLiteral("--format"), format, QStringLiteral("--threshold"), QStringLiteral("128")};
        const Result one = run(common + QStringList{QStringLiteral("--partitions"), QStringLiteral("1")});
        QVERIFY2(one.exitCode == 0, one.err.constData());
        const Result three = run(common + QStringList{QStringLiteral("--partitions"), QStringLiteral("3"), QStringLiteral("--stats")});
        QVERIFY2(three.exitCode == 0, three.err.constData());
        QVERIFY2(three.err.contains("partitions: 3 of 1856 x 1856"), three.err.constData());
        QVERIFY2(three.out.contains("agrees"), three.out.constData());
        const double a = rayleighOf(one.out), b = rayleighOf(three.out);
        QVERIFY2(std::isfinite(a) && std::isfinite(b), three.out.constData());
        QVERIFY2(std::abs(a - b) <= 1e-12 * std::abs(a), qPrintable(QStringLiteral("%1 vs %2").arg(a, 0, 'g', 17).arg(b, 0, 'g', 17)));
    }

    void powerJsonNamesThePlan() {
        const Result r = run({QStringLiteral("power"), sharedMatrix("olm1000.mtx"), QStringLiteral("--cpu"), QStringLiteral("--partitions"),
                              QStringLiteral("4"), QStringLiteral("--exchange"), QStringLiteral("send-recv"), QStringLiteral("--iterations"),
                              QStringLiteral("10"), QStringLiteral("--json")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        QCOMPARE(o.value("plan").toObject().value("partitions").toArray().size(), 4);
        QCOMPARE(o.value("plan").toObject().value("exchange").toString(), QStringLiteral("send/recv"));
        QVERIFY(o.value("check").toObject().value("agrees").toBool());
        QVERIFY(o.contains("communicationShare"));
        // The CPU reference runs separate passes and no overlapped exchange; the fields say so.
        QCOMPARE(o.value("fusedStep").toBool(true), false);
        QCOMPARE(o.value("overlappedExchange").toBool(true), false);
        QVERIFY(o.value("exchangeMs").isDouble());
    }

    void spmvPartitionsGiveTheSameVector() {
        const QString file = sharedMatrix("bcsstk13.mtx");
        const QStringList common{QStringLiteral("spmv"), file, QStringLiteral("--format"), QStringLiteral("csr"), QStringLiteral("--x"),
                                 QStringLiteral("random"), QStringLiteral("--backend"), QStringLiteral("cpu")};
        const Result whole = run(common);
        const Result parts = run(common + QStringList{QStringLiteral("--partitions"), QStringLiteral("5")});
        QVERIFY2(whole.exitCode == 0 && parts.exitCode == 0, parts.err.constData());
        QVERIFY(!whole.out.isEmpty());
        QCOMPARE(parts.out, whole.out);
    }

    void badRequestsAreNamed() {
        const Result wide = run({QStringLiteral("power"), sharedMatrix("lp_afiro.mtx"), QStringLiteral("--cpu")});
        QCOMPARE(wide.exitCode, 1);
        QVERIFY2(wide.err.contains("square"), wide.err.constData());
        const Result both = run({QStringLiteral("power"), sharedMatrix("olm1000.mtx"), QStringLiteral("--gpus"), QStringLiteral("2"),
                                 QStringLiteral("--partitions"), QStringLiteral("3")});
        QCOMPARE(both.exitCode, 2);
        if (spyglass::cudaDeviceCount() < 2) {
            const Result gpus = run({QStringLiteral("power"), sharedMatrix("olm1000.mtx"), QStringLiteral("--gpus"), QStringLiteral("2")});
            QCOMPARE(gpus.exitCode, 1);
            QVERIFY2(gpus.err.contains("this machine has"), gpus.err.constData());
        }
        const Result hybrid = run({QStringLiteral("power"), sharedMatrix("olm1000.mtx"), QStringLiteral("--cpu"), QStringLiteral("--format"),
                                   QStringLiteral("hybrid")});
        QCOMPARE(hybrid.exitCode, 1);
        QVERIFY2(hybrid.err.contains("binary"), hybrid.err.constData());
    }

    // Every way a process learns its place in the run is checked before it reads the matrix or waits
    // for anyone: a usage error (exit 2) naming the option or variable at fault.
    void processGroupMistakesAreUsageErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QStringList>("environment");
        QTest::addColumn<QString>("message");
        const QStringList meet{QStringLiteral("--rendezvous"), QStringLiteral("file:/tmp/spyglass-unused"), QStringLiteral("--run-id"),
                               QStringLiteral("t1")};
        QTest::newRow("rank past the world") << (QStringList{"--world-size", "2", "--rank", "2"} + meet) << QStringList{}
                                             << QStringLiteral("rank 2 (--rank) is outside 0..1 for world size 2");
        QTest::newRow("negative rank") << (QStringList{"--world-size", "2", "--rank", "-1"} + meet) << QStringList{}
                                       << QStringLiteral("rank -1 (--rank) is outside 0..1");
        QTest::newRow("world size 0") << QStringList{"--world-size", "0"} << QStringList{} << QStringLiteral("--world-size must be at least 1 (got 0)");
        QTest::newRow("no rendezvous") << QStringList{"--world-size", "2", "--rank", "1"} << QStringList{}
                                       << QStringLiteral("world size 2 (--world-size) needs --rendezvous file:PATH or tcp:HOST:PORT");
        QTest::newRow("torchrun without rendezvous") << QStringList{} << QStringList{"RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=0"}
                                                     << QStringLiteral("world size 2 (WORLD_SIZE) needs --rendezvous");
        QTest::newRow("torchrun rank past the world") << meet << QStringList{"RANK=5", "WORLD_SIZE=4"}
                                                      << QStringLiteral("rank 5 (RANK) is outside 0..3 for world size 4");
        QTest::newRow("torchrun world size not a number") << QStringList{} << QStringList{"WORLD_SIZE=two"}
                                                          << QStringLiteral("environment variable WORLD_SIZE: 'two' is not an integer");
        QTest::newRow("srun rank past the world")
            << QStringList{"--rendezvous", "file:/tmp/spyglass-unused"} << QStringList{"SLURM_PROCID=9", "SLURM_NTASKS=4", "SLURM_JOB_ID=77"}
            << QStringLiteral("rank 9 (SLURM_PROCID) is outside 0..3 for world size 4");
        QTest::newRow("no run id") << QStringList{"--world-size", "2", "--rendezvous", "file:/tmp/spyglass-unused"} << QStringList{}
                                   << QStringLiteral("needs a run id shared by every rank");
        QTest::newRow("rendezvous misspelt") << QStringList{"--world-size", "2", "--rendezvous", "udp:host:1", "--run-id", "t1"} << QStringList{}
                                             << QStringLiteral("udp:host:1");
        QTest::newRow("tcp port out of range") << QStringList{"--world-size", "2", "--rendezvous", "tcp:127.0.0.1:70000", "--run-id", "t1"}
                                               << QStringList{} << QStringLiteral("70000");
        QTest::newRow("not csr") << (QStringList{"--world-size", "2", "--format", "segdia"} + meet) << QStringList{}
                                 << QStringLiteral("runs --format csr only");
        QTest::newRow("with --gpus") << (QStringList{"--world-size", "2", "--gpus", "2"} + meet) << QStringList{}
                                     << QStringLiteral("leave out --gpus, --partitions and --cpu");
        QTest::newRow("with --cpu") << (QStringList{"--world-size", "2", "--cpu"} + meet) << QStringList{}
                                    << QStringLiteral("leave out --gpus, --partitions and --cpu");
    }
    void processGroupMistakesAreUsageErrors() {
        QFETCH(QStringList, args);
        QFETCH(QStringList, environment);
        QFETCH(QString, message);
        QProcessEnvironment env = clitesting::launcherFreeEnvironment();
        for (const QString& pair : environment) env.insert(pair.section(QLatin1Char('='), 0, 0), pair.section(QLatin1Char('='), 1));
        const Result r = clitesting::runProgram(m_cli, QStringList{QStringLiteral("power"), sharedMatrix("olm1000.mtx")} + args, env, 60000);
        clitesting::verifyUsageError(r, message);
    }

    // World size 1 is one process: the single-process run, with or without a rendezvous (which then
    // goes unused, and says so), the same Rayleigh quotient as no option at all.
    void worldSizeOneIsOneProcess() {
        const QStringList common{QStringLiteral("power"), sharedMatrix("olm1000.mtx"), QStringLiteral("--cpu"), QStringLiteral("--iterations"),
                                 QStringLiteral("12")};
        const QProcessEnvironment env = clitesting::launcherFreeEnvironment();
        const Result plain = clitesting::runProgram(m_cli, common, env, 60000);
        QVERIFY2(plain.exitCode == 0, plain.err.constData());
        const Result one = clitesting::runProgram(m_cli, common + QStringList{QStringLiteral("--world-size"), QStringLiteral("1")}, env, 60000);
        QVERIFY2(one.exitCode == 0, one.err.constData());
        QCOMPARE(rayleighOf(one.out), rayleighOf(plain.out));
        QProcessEnvironment torchrun = env;
        torchrun.insert(QStringLiteral("RANK"), QStringLiteral("0"));
        torchrun.insert(QStringLiteral("WORLD_SIZE"), QStringLiteral("1"));
        const Result met = clitesting::runProgram(
            m_cli, common + QStringList{QStringLiteral("--rendezvous"), QStringLiteral("file:/tmp/spyglass-unused"), QStringLiteral("--run-id"), QStringLiteral("t1")},
            torchrun, 60000);
        QVERIFY2(met.exitCode == 0, met.err.constData());
        QVERIFY2(met.err.contains("the rendezvous is not used"), met.err.constData());
        QCOMPARE(rayleighOf(met.out), rayleighOf(plain.out));
        // srun's variables count only with a rendezvous: a batch script's own process sees them too.
        QProcessEnvironment batch = env;
        batch.insert(QStringLiteral("SLURM_PROCID"), QStringLiteral("0"));
        batch.insert(QStringLiteral("SLURM_NTASKS"), QStringLiteral("8"));
        const Result script = clitesting::runProgram(m_cli, common, batch, 60000);
        QVERIFY2(script.exitCode == 0, script.err.constData());
        QCOMPARE(rayleighOf(script.out), rayleighOf(plain.out));
    }

    // Without a GPU a rank fails at once, naming itself, instead of waiting for the others.
    void rankWithoutGpuSaysSo() {
        if (spyglass::cudaDeviceCount() > 0) QSKIP("this machine has a GPU: the two-process run is tst_cuda_multigpu's");
        const Result r = clitesting::runProgram(m_cli,
                                                {QStringLiteral("power"), sharedMatrix("olm1000.mtx"), QStringLiteral("--rank"), QStringLiteral("1"),
                                                 QStringLiteral("--world-size"), QStringLiteral("2"), QStringLiteral("--rendezvous"),
                                                 QStringLiteral("file:/tmp/spyglass-unused"), QStringLiteral("--run-id"), QStringLiteral("t1"),
                                                 QStringLiteral("--rendezvous-timeout"), QStringLiteral("2")},
                                                clitesting::launcherFreeEnvironment(), 60000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("rank 1 of 2"), r.err.constData());
        QVERIFY2(r.out.isEmpty(), r.out.constData());
    }
};

QTEST_GUILESS_MAIN(TestCliPower)
#include "tst_cli_power.moc"
