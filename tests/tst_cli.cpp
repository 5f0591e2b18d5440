// spyglass-cli as a user runs it: a separate process with no display, on the shared matrices.
// info --json must agree with INDEX.md, convert must round-trip exactly, and failures must exit 1
// (usage errors 2) with a message naming the file and line.
#include "clisuite.h"
#include "matrixentries.h"
#include "testmatrices.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <cstring>

namespace {

QString matricesDir() {
    return testMatricesDir();
}

QString matrix(const QString& name) { return matricesDir() + QLatin1Char('/') + name; }

using Result = clitesting::CliResult<>;

using matrixentries::sameBits;

} // namespace

class TestCli : public clitesting::CliSuite {
    Q_OBJECT

    Result run(const QStringList& args) { return clitesting::runProgram(m_cli, args, clitesting::headlessEnvironment()); }

    QJsonObject infoJson(const QString& file) {
        return clitesting::jsonOfRun(run({QStringLiteral("info"), file, QStringLiteral("--json")}), "info");
    }

private slots:
    void infoJsonMatchesIndex_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::addColumn<qint64>("stored");
        QTest::addColumn<qint64>("nnz");
        QTest::addColumn<QString>("layout");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("symmetry");
        QTest::addColumn<int>("bandwidth");   // -1: INDEX.md does not say
        QTest::addColumn<int>("maxPerRow");   // -1: INDEX.md does not say
        QTest::addColumn<int>("emptyRows");   // -1: INDEX.md does not say
        QTest::addColumn<int>("emptyCols");
        QTest::addColumn<int>("diagonals");   // -1: INDEX.md does not say
        QTest::addColumn<bool>("binary");
        // Figures copied from tests/data/matrices/INDEX.md.
        QTest::newRow("1138_bus") << "1138_bus.mtx" << 1138 << 1138 << qint64(2596) << qint64(4054) << "coordinate"
                                  << "real" << "symmetric" << 1030 << 18 << -1 << -1 << -1 << false;
        QTest::newRow("3by0") << "3by0.mtx" << 3 << 0 << qint64(0) << qint64(0) << "array" << "real" << "general" << -1
                              << -1 << 3 << 0 << 0 << true;
        QTest::newRow("bcsstk02 dense symmetric") << "bcsstk02.mtx" << 66 << 66 << qint64(2211) << qint64(4356)
                                                  << "coordinate" << "real" << "symmetric" << 65 << 66 << 0 << 0
                                                  << 131 << false;
        QTest::newRow("bcsstm08 diagonal") << "bcsstm08.mtx" << 1074 << 1074 << qint64(1074) << qint64(1074)
                                           << "coordinate" << "real" << "symmetric" << 0 << 1 << 0 << 0 << 1 << false;
        QTest::newRow("c hermitian") << "c.mtx" << 3 << 3 << qint64(5) << qint64(7) << "coordinate" << "complex"
                                     << "hermitian" << 2 << 3 << -1 << -1 << -1 << false;
        QTest::newRow("cover pattern") << "cover.mtx" << 7 << 7 << qint64(12) << qint64(12) << "coordinate"
                                       << "pattern" << "general" << 5 << 3 << -1 << -1 << -1 << true;
        QTest::newRow("empty") << "empty.mtx" << 3 << 4 << qint64(0) << qint64(0) << "coordinate" << "real"
                               << "general" << 0 << 0 << 3 << 4 << 0 << true;
        QTest::newRow("Franz6 integer") << "Franz6_id1959_aug.mtx" << 10592 << 3016 << qint64(48472) << qint64(48472)
                                        << "coordinate" << "integer" << "general" << 7576 << 6 << -1 << -1 << -1
                                        << false;
        QTest::newRow("full_symmetric array") << "full_symmetric.mtx" << 4 << 4 << qint64(10) << qint64(16) << "array"
                                              << "real" << "symmetric" << 3 << 4 << 0 << 0 << 7 << false;
        QTest::newRow("karate") << "karate.mtx" << 34 << 34 << qint64(78) << qint64(156) << "coordinate" << "pattern"
                                << "symmetric" << 31 << 17 << -1 << -1 << -1 << true;
        QTest::newRow("LFAT5 hypersparse") << "LFAT5_hypersparse.mtx" << 2000 << 2000 << qint64(30) << qint64(46)
                                           << "coordinate" << "real" << "symmetric" << 5 << 5 << 1986 << 1986 << -1
                                           << false;
        QTest::newRow("lp_afiro") << "lp_afiro.mtx" << 27 << 51 << qint64(102) << qint64(102) << "coordinate"
                                  << "real" << "general" << 35 << 10 << -1 << -1 << -1 << false;
        QTest::newRow("n1024-l1") << "n1024-l1.mtx" << 1024 << 1024 << qint64(32768) << qint64(32768) << "coordinate"
                                  << "real" << "general" << 1023 << 32 << 0 << 0 << 63 << false;
        QTest::newRow("olm1000") << "olm1000.mtx" << 1000 << 1000 << qint64(3996) << qint64(3996) << "coordinate"
                                 << "real" << "general" << 3 << 6 << -1 << -1 << 6 << false;
        QTest::newRow("pts5ldd03") << "pts5ldd03.mtx" << 161 << 161 << qint64(745) << qint64(745) << "coordinate"
                                   << "real" << "general" << 15 << 5 << -1 << -1 << 7 << false;
        QTest::newRow("skew_fp64") << "skew_fp64.mtx" << 6 << 6 << qint64(10) << qint64(20) << "coordinate" << "real"
                                   << "skew-symmetric" << 5 << 4 << -1 << -1 << -1 << false;
        QTest::newRow("sparse-images") << "sparse-images-1024_subset.mtx" << 1200 << 1024 << qint64(122713)
                                       << qint64(122713) << "coordinate" << "pattern" << "general" << 1016 << 276 << 0
                                       << 311 << -1 << true;
        QTest::newRow("watt_2") << "watt_2.mtx" << 1856 << 1856 << qint64(11550) << qint64(11550) << "coordinate"
                                << "real" << "general" << 127 << 128 << -1 << -1 << -1 << false;
        QTest::newRow("young1c") << "young1c.mtx" << 841 << 841 << qint64(4089) << qint64(4089) << "coordinate"
                                 << "complex" << "general" << 29 << 5 << -1 << -1 << 5 << false;
    }
    void infoJsonMatchesIndex() {
        QFETCH(QString, file);
        QFETCH(int, rows);
        QFETCH(int, cols);
        QFETCH(qint64, stored);
        QFETCH(qint64, nnz);
        QFETCH(QString, layout);
        QFETCH(QString, field);
        QFETCH(QString, symmetry);
        QFETCH(int, bandwidth);
        QFETCH(int, maxPerRow);
        QFETCH(int, emptyRows);
        QFETCH(int, emptyCols);
        QFETCH(int, diagonals);
        QFETCH(bool, binary);
        const QJsonObject o = infoJson(matrix(file));
        QVERIFY(!o.isEmpty());
        for (const char* key : {"rows", "cols", "nnz", "stored", "density", "bandwidth", "diagonals", "empty_rows",
                                "empty_cols", "max_row_entries"})
            QVERIFY2(o.value(QLatin1String(key)).isDouble(), key);  // numbers as numbers, not strings
        for (const char* key : {"field", "symmetry", "layout", "file", "backend"})
            QVERIFY2(o.value(QLatin1String(key)).isString(), key);
        QVERIFY(o.value(QStringLiteral("binary")).isBool());
        QCOMPARE(o.value(QStringLiteral("rows")).toInteger(), rows);
        QCOMPARE(o.value(QStringLiteral("cols")).toInteger(), cols);
        QCOMPARE(o.value(QStringLiteral("stored")).toInteger(), stored);
        QCOMPARE(o.value(QStringLiteral("nnz")).toInteger(), nnz);
        QCOMPARE(o.value(QStringLiteral("layout")).toString(), layout);
        QCOMPARE(o.value(QStringLiteral("field")).toString(), field);
        QCOMPARE(o.value(QStringLiteral("symmetry")).toString(), symmetry);
        QCOMPARE(o.value(QStringLiteral("file")).toString(), matrix(file));
        QCOMPARE(o.value(QStringLiteral("binary")).toBool(), binary);
        const double cells = double(rows) * cols;
        QCOMPARE(o.value(QStringLiteral("density")).toDouble(), cells > 0 ? double(nnz) / cells : 0.0);
        if (bandwidth >= 0) QCOMPARE(o.value(QStringLiteral("bandwidth")).toInteger(), bandwidth);
        if (maxPerRow >= 0) QCOMPARE(o.value(QStringLiteral("max_row_entries")).toInteger(), maxPerRow);
        if (emptyRows >= 0) QCOMPARE(o.value(QStringLiteral("empty_rows")).toInteger(), emptyRows);
        if (emptyCols >= 0) QCOMPARE(o.value(QStringLiteral("empty_cols")).toInteger(), emptyCols);
        if (diagonals >= 0) QCOMPARE(o.value(QStringLiteral("diagonals")).toInteger(), diagonals);
    }

    void infoTextNamesTheFigures() {
        const Result r = run({QStringLiteral("info"), matrix(QStringLiteral("LFAT5_hypersparse.mtx"))});
        QCOMPARE(r.exitCode, 0);
        const QString text = QString::fromUtf8(r.out);
        QVERIFY2(text.contains(QStringLiteral("2000 x 2000")), r.out.constData());
        QVERIFY2(text.contains(QRegularExpression(QStringLiteral("empty rows\\s+1986"))), r.out.constData());
        QVERIFY2(text.contains(QRegularExpression(QStringLiteral("entries \\(expanded\\)\\s+46"))), r.out.constData());
    }

    void convertRoundTripsExactly_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("suffix");
        QTest::newRow("symmetric real") << "bcsstk13.mtx" << ".mtx";
        QTest::newRow("hermitian complex, gzip") << "c.mtx" << ".mtx.gz";
        QTest::newRow("skew with inf") << "skew_fp64.mtx" << ".mtx";
        QTest::newRow("array") << "full_symmetric.mtx" << ".mtx";
        QTest::newRow("pattern, gzip") << "karate.mtx" << ".mtx.gz";
        QTest::newRow("integer rectangular") << "Franz6_id1959_aug.mtx" << ".mtx";
        QTest::newRow("3 x 0") << "3by0.mtx" << ".mtx";
    }
    void convertRoundTripsExactly() {
        QFETCH(QString, file);
        QFETCH(QString, suffix);
        const QString out = m_dir.filePath(QFileInfo(file).completeBaseName() + QStringLiteral("-copy") + suffix);
        const Result r = run({QStringLiteral("convert"), matrix(file), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const spyglass::Matrix a = spyglass::readMatrixMarket(matrix(file).toStdString());
        const spyglass::Matrix b = spyglass::readMatrixMarket(out.toStdString());
        QCOMPARE(b.layout, a.layout);
        QCOMPARE(b.field, a.field);
        QCOMPARE(b.symmetry, a.symmetry);
        QCOMPARE(b.rows, a.rows);
        QCOMPARE(b.cols, a.cols);
        QCOMPARE(b.rowIndex, a.rowIndex);
        QCOMPARE(b.colIndex, a.colIndex);
        QVERIFY(sameBits(b.real, a.real));
        QVERIFY(sameBits(b.imag, a.imag));
        // info reads the copy (gzip included) to the same figures, apart from the name.
        QJsonObject before = infoJson(matrix(file)), after = infoJson(out);
        QVERIFY(!after.isEmpty());
        before.remove(QStringLiteral("file"));
        after.remove(QStringLiteral("file"));
        QCOMPARE(after, before);
        if (suffix.endsWith(QLatin1String(".gz"))) {
            QFile written(out);
            QVERIFY(written.open(QIODevice::ReadOnly));
            QCOMPARE(written.read(2), QByteArray("\x1f\x8b"));
        }
    }

    void convertExpandSymmetryWritesTheFullMatrix_data() {
        QTest::addColumn<QString>("file");
        QTest::newRow("symmetric") << "1138_bus.mtx";
        QTest::newRow("hermitian") << "c.mtx";
        QTest::newRow("skew") << "skew_fp64.mtx";
        QTest::newRow("pattern symmetric") << "pushpull.mtx";
    }
    void convertExpandSymmetryWritesTheFullMatrix() {
        QFETCH(QString, file);
        const QString out = m_dir.filePath(QFileInfo(file).completeBaseName() + QStringLiteral("-general.mtx"));
        const Result r = run({QStringLiteral("convert"), QStringLiteral("--expand-symmetry"), matrix(file), out});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QJsonObject before = infoJson(matrix(file));
        const QJsonObject after = infoJson(out);
        QCOMPARE(after.value(QStringLiteral("symmetry")).toString(), QStringLiteral("general"));
        QCOMPARE(after.value(QStringLiteral("stored")).toInteger(), before.value(QStringLiteral("nnz")).toInteger());
        for (const char* key : {"nnz", "rows", "cols", "bandwidth", "diagonals", "empty_rows", "empty_cols",
                                "max_row_entries", "field", "binary"})
            QVERIFY2(after.value(QLatin1String(key)) == before.value(QLatin1String(key)), key);
    }

    void malformedFileFailsNamingFileAndLine() {
        const QString bad = m_dir.filePath(QStringLiteral("bad entry.mtx"));
        QVERIFY(testfiles::writeFile(bad, "%%MatrixMarket matrix coordinate real general\n% a comment\n3 3 2\n1 1 1.0\n4 1 2.0\n"));
        const QString out = m_dir.filePath(QStringLiteral("never-written.mtx"));
        for (const QStringList& args : {QStringList{QStringLiteral("info"), bad},
                                        QStringList{QStringLiteral("info"), QStringLiteral("--json"), bad},
                                        QStringList{QStringLiteral("convert"), bad, out}}) {
            const Result r = run(args);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains((bad + QStringLiteral(":5:")).toUtf8()), r.err.constData());
            QVERIFY2(r.out.isEmpty(), r.out.constData());  // no half-written JSON
        }
        QVERIFY(!QFileInfo::exists(out));
    }

    void failedConvertKeepsTheOldOutput() {
        const QString out = m_dir.filePath(QStringLiteral("kept.mtx"));
        QVERIFY(testfiles::writeFile(out, "old contents\n"));
        const Result r = run({QStringLiteral("convert"), m_dir.filePath(QStringLiteral("missing.mtx")), out});
        QCOMPARE(r.exitCode, 1);
        QCOMPARE(testfiles::contentsOf(out), QByteArray("old contents\n"));
    }

    void unwritableOutputFails() {
        const QString out = m_dir.filePath(QStringLiteral("no/such/folder/out.mtx"));
        const Result r = run({QStringLiteral("convert"), matrix(QStringLiteral("karate.mtx")), out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("no/such/folder"), r.err.constData());
    }

    void nonexistentFileFailsWithClearMessage() {
        const QString missing = m_dir.filePath(QStringLiteral("does-not-exist.mtx"));
        const Result r = run({QStringLiteral("info"), missing});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(missing.toUtf8()), r.err.constData());
        QVERIFY2(r.err.contains("No such file"), r.err.constData());
    }

    void usageErrorsExitTwo_data() {
        clitesting::addUsageErrorColumns();
        QTest::newRow("no command") << QStringList{} << "usage";
        QTest::newRow("unknown command") << QStringList{"frobnicate"} << "unknown command";
        QTest::newRow("info without file") << QStringList{"info"} << "missing argument";
        QTest::newRow("info unknown option") << QStringList{"info", "--bogus", matrix("karate.mtx")} << "--bogus";
        QTest::newRow("info two files") << QStringList{"info", matrix("karate.mtx"), matrix("c.mtx")} << "unexpected";
        QTest::newRow("info flag with value") << QStringList{"info", "--json=yes", matrix("karate.mtx")} << "--json";
        QTest::newRow("convert one file") << QStringList{"convert", matrix("karate.mtx")} << "missing argument";
        QTest::newRow("convert unknown option") << QStringList{"convert", "-x", matrix("karate.mtx"), "o.mtx"} << "-x";
    }
    void usageErrorsExitTwo() {
        clitesting::verifyUsageErrorOfRow([this](const QStringList& args) { return run(args); });
    }

    void helpListsTheCommands() {
        clitesting::verifyHelpLists(run({QStringLiteral("--help")}), {"info FILE [--json]", "convert IN OUT [--expand-symmetry]"});
    }

    // Every subcommand answers --help with its usage and exit 0, and runs nothing (no FILE needed).
    void everySubcommandAnswersHelp() {
        const auto listing = run({QStringLiteral("--help")});
        QCOMPARE(listing.exitCode, 0);
        int commands = 0;
        for (const QByteArray& line : listing.out.split('\n')) {
            const QByteArray trimmed = line.trimmed();
            if (trimmed.isEmpty() || !line.startsWith("  ")) continue;
            const QString name = QString::fromUtf8(trimmed.split(' ').first());
            if (name.startsWith(QLatin1Char('-')) || name == QLatin1String("spyglass-cli")) continue;
            const auto help = run({name, QStringLiteral("--help")});
            QVERIFY2(help.exitCode == 0, qPrintable(name + QStringLiteral(": ") + QString::fromUtf8(help.err)));
            QVERIFY2(help.out.startsWith("usage: spyglass-cli " + name.toUtf8()), qPrintable(name + QStringLiteral(": ") + QString::fromUtf8(help.out)));
            ++commands;
        }
        QVERIFY2(commands >= 10, qPrintable(QString::fromUtf8(listing.out)));
        // The timing commands name the measurement options in their usage.
        for (const char* timed : {"invert", "svd", "spmv", "compare"})
            QVERIFY2(run({QLatin1String(timed), QStringLiteral("-h")}).out.contains("--repeats"), timed);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
#include "moc_clisuite.cpp"
