// spmv, svd and invert as one process per GPU (--rank/--world-size/--rendezvous, docs/scale.md), checked
// up to where they would need a GPU (CI has none): what a rank does not take is a usage error naming
// it, before the rank reads anything or waits for the others; a rank without a GPU fails at once,
// naming itself; and a world of one is the single-process run. The shares of a batch are
// tst_batchshare's, the two-process runs tst_cuda_multigpu's.
#include "clitesting.h"
#include "testmatrices.h"

#include "spyglass/multigpu.h"

#include <QtTest>

#include <QProcess>

namespace {

using Result = clitesting::CliResult<>;

// Rank 1 of 2, meeting at a rendezvous nobody else comes to (a usage error stops it before it looks).
QStringList rankOneOfTwo() {
    return {QStringLiteral("--rank"), QStringLiteral("1"), QStringLiteral("--world-size"), QStringLiteral("2"), QStringLiteral("--rendezvous"),
            QStringLiteral("file:/tmp/spyglass-unused-rank"), QStringLiteral("--run-id"), QStringLiteral("t1"),
            QStringLiteral("--rendezvous-timeout"), QStringLiteral("2")};
}

} // namespace

class TestCliRank : public QObject {
    Q_OBJECT

    QString m_cli;

private slots:
    void initTestCase() { CLITESTING_REQUIRE_CLI(m_cli); }

    void rankMistakesAreUsageErrors_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QString matrix = sharedMatrix("olm1000.mtx");
        const QStringList spmv{QStringLiteral("spmv"), matrix};
        const QStringList csr{QStringLiteral("--format"), QStringLiteral("csr"), QStringLiteral("--backend"), QStringLiteral("cusparse")};
        QTest::newRow("spmv segdia") << (spmv + QStringList{"--format", "segdia", "--backend", "cuda"}) << QStringLiteral("(--world-size 2) runs --format csr only");
        QTest::newRow("spmv on the cpu") << (spmv + QStringList{"--format", "csr", "--backend", "cpu"}) << QStringLiteral("give --backend cusparse");
        QTest::newRow("spmv --gpus") << (spmv + csr + QStringList{"--gpus", "1"}) << QStringLiteral("leave out --gpus and --partitions");
        QTest::newRow("spmv --partitions") << (spmv + csr + QStringList{"--partitions", "2"}) << QStringLiteral("leave out --gpus and --partitions");
        QTest::newRow("spmv --stats") << (spmv + csr + QStringList{"--stats"}) << QStringLiteral("prints no --stats");
        QTest::newRow("spmv complex") << (spmv + csr + QStringList{"--type", "c128"}) << QStringLiteral("--type f32 or f64");
        const QStringList svd{QStringLiteral("svd"), QStringLiteral("--n"), QStringLiteral("8"), QStringLiteral("--batch"), QStringLiteral("10")};
        QTest::newRow("svd --gpus") << (svd + QStringList{"--backend", "cuda", "--gpus", "1"}) << QStringLiteral("(--world-size 2) takes its GPU from the local rank: leave out --gpus");
        QTest::newRow("svd on the cpu") << svd << QStringLiteral("--backend cuda, cusolver or cusolver-gesvda");
        QTest::newRow("svd --out") << (svd + QStringList{"--backend", "cuda", "--out", "/tmp/spyglass-sigma.mtx"}) << QStringLiteral("leave out --in and --out");
        QTest::newRow("svd --vendor") << (svd + QStringList{"--backend", "cuda", "--vendor"}) << QStringLiteral("leave out --vendor");
        const QStringList invert{QStringLiteral("invert"), QStringLiteral("--n"), QStringLiteral("4"), QStringLiteral("--batch"), QStringLiteral("10")};
        QTest::newRow("invert --gpus") << (invert + QStringList{"--backend", "cuda", "--gpus", "2"}) << QStringLiteral("leave out --gpus");
        QTest::newRow("invert on the cpu") << invert << QStringLiteral("--backend cuda or cublas");
        QTest::newRow("invert --in") << (invert + QStringList{"--backend", "cuda", "--in", matrix}) << QStringLiteral("leave out --in and --out");
        QTest::newRow("invert --list-failed") << (invert + QStringList{"--backend", "cublas", "--list-failed"}) << QStringLiteral("leave out --list-failed");
    }
    void rankMistakesAreUsageErrors() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        const Result r = clitesting::runProgram(m_cli, args + rankOneOfTwo(), clitesting::launcherFreeEnvironment(), 60000);
        clitesting::verifyUsageError(r, message);
    }

    // Without a GPU a rank fails at once (before the rendezvous), naming itself.
    void rankWithoutGpuSaysSo_data() {
        QTest::addColumn<QStringList>("args");
        QTest::newRow("spmv") << QStringList{"spmv", sharedMatrix("olm1000.mtx"), "--format", "csr", "--backend", "cusparse"};
        QTest::newRow("svd") << QStringList{"svd", "--n", "8", "--batch", "10", "--backend", "cuda"};
        QTest::newRow("invert") << QStringList{"invert", "--n", "4", "--batch", "10", "--backend", "cublas"};
    }
    void rankWithoutGpuSaysSo() {
        QFETCH(QStringList, args);
        if (spyglass::cudaDeviceCount() > 0) QSKIP("this machine has a GPU: the two-process runs are tst_cuda_multigpu's");
        const Result r = clitesting::runProgram(m_cli, args + rankOneOfTwo(), clitesting::launcherFreeEnvironment(), 60000);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("rank 1 of 2"), r.err.constData());
        QVERIFY2(r.out.isEmpty(), r.out.constData());
    }

    // A world of one is the single-process run: the same y, and the rendezvous said to go unused.
    void spmvWorldSizeOneIsOneProcess() {
        const QStringList common{QStringLiteral("spmv"), sharedMatrix("olm1000.mtx"), QStringLiteral("--format"), QStringLiteral("csr"),
                                 QStringLiteral("--x"), QStringLiteral("random"), QStringLiteral("--seed"), QStringLiteral("5")};
        const QProcessEnvironment env = clitesting::launcherFreeEnvironment();
        const Result plain = clitesting::runProgram(m_cli, common, env, 60000);
        QVERIFY2(plain.exitCode == 0, plain.err.constData());
        const Result one = clitesting::runProgram(
            m_cli, common + QStringList{"--world-size", "1", "--rendezvous", "file:/tmp/spyglass-unused", "--run-id", "t1"}, env, 60000);
        QVERIFY2(one.exitCode == 0, one.err.constData());
        QVERIFY2(one.err.contains("the rendezvous is not used"), one.err.constData());
        QCOMPARE(one.out, plain.out);
    }
};

QTEST_GUILESS_MAIN(TestCliRank)
#include "tst_cli_rank.moc"
