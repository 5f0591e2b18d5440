// spyglass-cli power and spmv --partitions as a user runs them, on the CPU reference (CI has no GPU):
// the partitioned result is the unpartitioned one, the Rayleigh quotient has a line of its own and is
// checked against the CPU reference, and bad requests get a message naming the problem.
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
};

QTEST_GUILESS_MAIN(TestCliPower)
#include "tst_cli_power.moc"
