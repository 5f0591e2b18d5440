// spyglass-cli compare as a user runs it: --json on matrices of the test set (the CPU reference here,
// the GPU where there is one). Every format has a row; the ones that did not run say why; every row
// that ran agrees with the reference within its bound; the pick is the fastest agreeing row.
#include "clisuite.h"
#include "testmatrices.h"

#include <QtTest>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

namespace {

using Result = clitesting::CliResult<>;

const QStringList kFormats = {"csr", "dia", "hdia", "segdia", "segdia-off", "hybrid", "hybrid-valued", "bitflag"};

} // namespace

class TestCliCompare : public clitesting::CliSuite {
    Q_OBJECT

    Result run(const QStringList& args) { return clitesting::runProgram(m_cli, args, clitesting::headlessEnvironment(), 300000); }

    QJsonObject compareJson(const QString& file, const QStringList& extra = {}) {
        return clitesting::jsonOfRun(
            run(QStringList{QStringLiteral("compare"), file, QStringLiteral("--json"), QStringLiteral("--repeats"), QStringLiteral("3")} +
                extra),
            "compare");
    }

private slots:
    void everyFormatHasARowAndThePickIsTheFastest_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("type");
        QTest::addColumn<bool>("binary");
        QTest::addColumn<QStringList>("mustRun");      // formats that apply to this matrix
        QTest::addColumn<QStringList>("mustNotRun");   // formats that must say why not
        QTest::newRow("olm1000 f64 (banded)") << "olm1000.mtx" << "f64" << false
                                              << QStringList{"csr", "dia", "hdia", "segdia", "segdia-off", "hybrid-valued", "bitflag"} << QStringList{"hybrid"};
        QTest::newRow("watt_2 f32 (banded, sparse diagonals)") << "watt_2.mtx" << "f32" << false
                                                               << QStringList{"csr", "segdia", "hybrid-valued", "bitflag"} << QStringList{"hybrid"};
        QTest::newRow("west0479 (irregular)") << "west0479.mtx" << "f64" << false << QStringList{"csr", "segdia", "hybrid-valued", "bitflag"}
                                              << QStringList{"dia", "hybrid"};
        QTest::newRow("karate (binary, symmetric)") << "karate.mtx" << "f32" << true
                                                    << QStringList{"csr", "segdia", "hybrid", "bitflag"} << QStringList{"hybrid-valued"};
        QTest::newRow("pushpull (binary, blocky)") << "pushpull.mtx" << "f32" << true << QStringList{"csr", "segdia", "hybrid", "bitflag"}
                                                   << QStringList{"dia", "hybrid-valued"};
        QTest::newRow("lp_afiro (rectangular)") << "lp_afiro.mtx" << "f64" << false << QStringList{"csr", "segdia", "hybrid-valued", "bitflag"}
                                                << QStringList{"hybrid"};
        // Complex matrices run in complex values; bit flags and the binary hybrid say why they cannot.
        QTest::newRow("young1c c128 (complex stencil)") << "young1c.mtx" << "c128" << false
                                                        << QStringList{"csr", "dia", "hdia", "segdia", "segdia-off", "hybrid-valued"}
                                                        << QStringList{"hybrid", "bitflag"};
        QTest::newRow("arrowc c64 (complex arrow)") << "arrowc.mtx" << "c64" << false << QStringList{"csr", "segdia", "hybrid-valued"}
                                                    << QStringList{"dia", "hybrid", "bitflag"};
        QTest::newRow("luxembourg (large, binary)") << "luxembourg.mtx" << "f32" << true << QStringList{"csr", "segdia", "hybrid"}
                                                    << QStringList{"dia", "hybrid-valued", "bitflag"};
    }
    void everyFormatHasARowAndThePickIsTheFastest() {
        QFETCH(QString, file);
        QFETCH(QString, type);
        QFETCH(bool, binary);
        QFETCH(QStringList, mustRun);
        QFETCH(QStringList, mustNotRun);
        const QJsonObject o = compareJson(sharedMatrix(file.toLatin1().constData()),
                                          {QStringLiteral("--type"), type, QStringLiteral("--x"), QStringLiteral("random")});
        QCOMPARE(o.value("precision").toString(), type);
        QCOMPARE(o.value("matrix").toObject().value("binary").toBool(), binary);
        const bool onGpu = o.value("on_gpu").toBool();
        QVERIFY(o.value("copy_bandwidth_gb_per_s").toDouble() > 0);
        const QJsonArray rows = o.value("formats").toArray();
        QStringList seen;
        int fastest = -1;
        double fastestMs = 0;
        for (int i = 0; i < rows.size(); ++i) {
            const QJsonObject row = rows[i].toObject();
            const QString key = row.value("format").toString();
            seen << key;
            const QString backend = row.value("backend").toString();
            // Each row names where it ran; on the CPU every row is the reference.
            if (onGpu) QVERIFY2(backend == (key == "csr" ? "cuSPARSE" : "CUDA"), qPrintable(key + ": " + backend));
            else QCOMPARE(backend, QStringLiteral("CPU reference"));
            if (!row.value("applicable").toBool()) {
                QVERIFY2(!row.value("reason").toString().isEmpty(), qPrintable(key + " did not run and gives no reason"));
                QVERIFY2(!mustRun.contains(key), qPrintable(key + " should run: " + row.value("reason").toString()));
                if (key == "hybrid" && !binary) QVERIFY(row.value("reason").toString().startsWith("not binary"));
                if (key == "hybrid-valued" && binary) QVERIFY(row.value("reason").toString().startsWith("binary"));
                continue;
            }
            QVERIFY2(!mustNotRun.contains(key), qPrintable(key + " should not run on " + file));
            QVERIFY2(row.value("agrees").toBool() && row.value("error_over_bound").toDouble() <= 1.0,
                     qPrintable(QStringLiteral("%1: %2 x bound").arg(key).arg(row.value("error_over_bound").toDouble())));
            QVERIFY(row.value("bytes").toDouble() > 0);
            QVERIFY(row.value("repeats").toInt() == 3);
            const double ms = row.value("spmv_median_ms").toDouble();
            QVERIFY(ms >= 0 && row.value("spmv_min_ms").toDouble() <= ms && ms <= row.value("spmv_max_ms").toDouble());
            if (fastest < 0 || ms < fastestMs) fastest = i, fastestMs = ms;
        }
        QCOMPARE(seen, kFormats);
        const QJsonObject pick = o.value("pick").toObject();
        QCOMPARE(pick.value("index").toInt(-1), fastest);
        QCOMPARE(pick.value("format").toString(), rows[fastest].toObject().value("format").toString());
        QVERIFY2(pick.value("reason").toString().startsWith(rows[fastest].toObject().value("name").toString() + ":"),
                 qPrintable(pick.value("reason").toString()));
    }

    void tableGoesToOutAtomicallyWithEveryRowAndTheRecommendation() {
        const QString out = m_dir.filePath(QStringLiteral("olm1000.md"));
        const Result r = run({QStringLiteral("compare"), sharedMatrix("olm1000.mtx"), QStringLiteral("--cpu"), QStringLiteral("--repeats"),
                              QStringLiteral("2"), QStringLiteral("--out"), out});
        QCOMPARE(r.exitCode, 0);
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString text = QString::fromUtf8(file.readAll());
        QCOMPARE(QString::fromUtf8(r.out).trimmed(), text.trimmed());  // stdout shows the same table
        for (const char* name : {"| CSR ", "| plain DIA ", "| HDIA ", "| segmented DIA ", "| segmented DIA (remainder off) ", "| hybrid binary ", "| hybrid valued ", "| bit-flag "})
            QVERIFY2(text.contains(QLatin1String(name)), name);
        QVERIFY(text.contains(QStringLiteral("CPU reference backend (GPU not used)")));
        QVERIFY(text.contains(QStringLiteral("\nRecommendation: ")));
        QVERIFY(text.contains(QStringLiteral("not binary")));
        QVERIFY(QDir(m_dir.path()).entryList(QDir::Files | QDir::Hidden).size() == 1);  // no temporary left
    }

    void xFromAFileAndBadInput() {
        const QString x = m_dir.filePath(QStringLiteral("x.txt"));
        QVERIFY(testfiles::writeFile(x, "1 2 3\n"));
        Result r = run({QStringLiteral("compare"), sharedMatrix("olm1000.mtx"), QStringLiteral("--x"), x});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("x needs 1000 numbers, value 4 is missing"), r.err.constData());
        // A complex type for a real matrix is refused by name (a complex matrix runs as c64 or c128).
        r = run({QStringLiteral("compare"), sharedMatrix("olm1000.mtx"), QStringLiteral("--type"), QStringLiteral("c64")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("is for complex matrices; this one is real"), r.err.constData());
        r = run({QStringLiteral("compare"), sharedMatrix("olm1000.mtx"), QStringLiteral("--type"), QStringLiteral("f16")});
        QCOMPARE(r.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
#include "moc_clisuite.cpp"
