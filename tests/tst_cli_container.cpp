// spyglass-cli's container commands as a user runs them (a separate process, no display): export in
// every encoding, decode back to Matrix Market with the same entries, encode-binary's figures
// checked against the library, and the exit codes: 1 for damaged input or impossible output
// (message naming the problem and place, old output kept), 2 for usage errors.
#include "clisuite.h"
#include "matrixentries.h"
#include "testmatrices.h"

#include "spyglass/container.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/matrixmarket.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

#include <cstring>

using namespace spyglass;

namespace {

QString matrix(const QString& name) { return testMatricesDir() + QLatin1Char('/') + name; }

using Result = clitesting::CliResult<>;

using matrixentries::expectedEntries;
using matrixentries::sameCsrBits;

using clitesting::contentsOf;

} // namespace

class TestCliContainer : public clitesting::CliSuite {
    Q_OBJECT

    Result run(const QStringList& args) { return clitesting::runProgram(m_cli, args, clitesting::headlessEnvironment()); }

    QString path(const QString& name) const { return m_dir.filePath(name); }

private slots:
    void spmvOnTheHybridEncodingEqualsCsr() {
        // pushpull's dense diagonal blocks become regions (a real encoding, not the CSR fallback);
        // with integer x (ones, then a file of small integers) every sum is exact, so y must be equal
        // digit for digit to CSR's.
        const QString xFile = m_dir.filePath(QStringLiteral("x.txt"));
        QByteArray xs;
        for (int j = 0; j < 4000; ++j) xs += QByteArray::number(j % 7 - 3) + '\n';
        QVERIFY(testfiles::writeFile(xFile, xs));
        for (const QString& x : {QStringLiteral("ones"), xFile}) {
            const Result hybrid = run({"spmv", matrix("pushpull.mtx"), "--format", "hybrid", "--x", x, "--stats"});
            QCOMPARE(hybrid.exitCode, 0);
            QVERIFY2(hybrid.err.contains("regions") && !hybrid.err.contains("fallback"), hybrid.err.constData());
            const Result csr = run({"spmv", matrix("pushpull.mtx"), "--format", "csr", "--x", x});
            QCOMPARE(csr.exitCode, 0);
            QCOMPARE(hybrid.out.count('\n'), qsizetype(4000));
            QCOMPARE(hybrid.out, csr.out);
        }
        // a matrix with other values takes the valued hybrid encoding: the same y as CSR within rounding
        // (fp64, a different summation order); detection options belong to --format hybrid
        Result r = run({"spmv", matrix("west0479.mtx"), "--format", "hybrid", "--x", "random", "--stats"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.contains("valued hybrid"), r.err.constData());
        const Result csrValued = run({"spmv", matrix("west0479.mtx"), "--format", "csr", "--x", "random"});
        const QList<QByteArray> yHybrid = r.out.split('\n'), yCsr = csrValued.out.split('\n');
        QCOMPARE(yHybrid.size(), yCsr.size());
        for (int i = 0; i + 1 < yHybrid.size(); ++i)
            QVERIFY2(std::fabs(yHybrid[i].toDouble() - yCsr[i].toDouble()) <= 1e-9 * (1.0 + std::fabs(yCsr[i].toDouble())),
                     qPrintable(QStringLiteral("row %1: %2 vs %3").arg(i).arg(QString(yHybrid[i]), QString(yCsr[i]))));
        // a complex matrix takes the valued encoding in c128 on the CPU (tst_cli_spmv_complex checks its y)
        r = run({"spmv", matrix("young1c.mtx"), "--format", "hybrid"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.startsWith("%%MatrixMarket matrix array complex general"), r.out.left(80).constData());
        r = run({"spmv", matrix("pushpull.mtx"), "--format", "segdia", "--fill", "0.6"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--format hybrid only"), r.err.constData());
    }

    void spmvSegdiaRemainderPoliciesGiveCsrsResult() {
        // n1024-l1's values are multiples of 1/16: with x = ones every sum is exact, so each policy's
        // y equals CSR's digit for digit. In double the byte rule (weight 1.5) keeps a diagonal from
        // fill 4/9 on; the 29 sparser ones hold 7169 nonzeros, which go to the remainder. (One segment
        // of 1024 rows: Auto's length, 256, stores this matrix as pure DIA, with nothing to compare.)
        const Result csr = run({"spmv", matrix("n1024-l1.mtx"), "--format", "csr"});
        QCOMPARE(csr.exitCode, 0);
        const std::vector<std::pair<const char*, const char*>> policies = {
            {"auto", "remainder (auto): 7169 nonzeros in 1 segments"},
            {"off", "remainder (off): 0 nonzeros in 0 segments"},
            {"all", "remainder (all): 32768 nonzeros in 1 segments"}};
        for (const auto& [policy, stats] : policies) {
            const Result r = run({"spmv", matrix("n1024-l1.mtx"), "--format", "segdia", "--threshold", "1024", "--remainder", policy, "--stats"});
            QCOMPARE(r.exitCode, 0);
            QVERIFY2(r.err.contains(stats), r.err.constData());
            QCOMPARE(r.out, csr.out);
        }
        const Result bad = run({"spmv", matrix("n1024-l1.mtx"), "--format", "segdia", "--remainder", "some"});
        QCOMPARE(bad.exitCode, 2);
    }

    void exportThenDecodeGivesTheMatrixBack_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QStringList>("options");
        QTest::newRow("segdia symmetric real") << "1138_bus.mtx" << "segdia" << QStringList{};
        QTest::newRow("segdia banded, HDIA of 7 rows") << "watt_2.mtx" << "segdia" << QStringList{"--threshold", "7", "--no-merge"};
        QTest::newRow("segdia integer rectangular") << "Franz6_id1959_aug.mtx" << "segdia" << QStringList{"--threshold", "100"};
        QTest::newRow("segdia pattern") << "karate.mtx" << "segdia" << QStringList{};
        QTest::newRow("segdia skew with inf") << "skew_fp64.mtx" << "segdia" << QStringList{"--threshold", "4"};
        QTest::newRow("bitflag row-major") << "west0479.mtx" << "bitflag" << QStringList{};
        QTest::newRow("bitflag column-major, prefix") << "lp_afiro.mtx" << "bitflag" << QStringList{"--col-major", "--prefix"};
        QTest::newRow("bitflag pattern") << "cover.mtx" << "bitflag" << QStringList{};
        QTest::newRow("bitflag array with zeros") << "full_symmetric.mtx" << "bitflag" << QStringList{};
        QTest::newRow("bitflag 3 x 0") << "3by0.mtx" << "bitflag" << QStringList{};
        QTest::newRow("hybrid blocky pattern") << "pushpull.mtx" << "hybrid" << QStringList{};
    }
    void exportThenDecodeGivesTheMatrixBack() {
        QFETCH(QString, file);
        QFETCH(QString, format);
        QFETCH(QStringList, options);
        const QString container = path(file + QLatin1Char('.') + format + QStringLiteral(".spy"));
        const QString decoded = path(file + QLatin1Char('.') + format + QStringLiteral(".mtx"));
        const Result exported = run(QStringList{"export", matrix(file), "--format", format, "-o", container} + options);
        QVERIFY2(exported.exitCode == 0, exported.err.constData());
        QVERIFY2(exported.out.contains(container.toUtf8()), exported.out.constData());
        const Result back = run({"decode", container, "-o", decoded});
        QVERIFY2(back.exitCode == 0, back.err.constData());
        QVERIFY2(back.out.contains((format + QStringLiteral(" container")).toUtf8()), back.out.constData());

        const Matrix original = readMatrixMarket(matrix(file).toStdString());
        const Matrix result = readMatrixMarket(decoded.toStdString());
        QCOMPARE(result.symmetry, Symmetry::General);
        QCOMPARE(result.field, original.field == Field::Double ? Field::Real : original.field);
        // Segmented DIA cannot keep explicit zeros (they are padding); the others keep the structure.
        QVERIFY(sameCsrBits(expectedEntries(result, false), expectedEntries(original, format == QLatin1String("segdia"))));
        if (format == QLatin1String("segdia")) {
            const Index threshold = options.contains("--threshold") ? options[options.indexOf("--threshold") + 1].toInt() : 1024;
            QCOMPARE(parseSegmentedDiaContainer(readFileBytes(container.toStdString())).threshold, threshold);
        }
    }

    void encodeBinaryPrintsRegionsByShapeAndTheBytesOfEachForm() {
        // Planted shapes, well apart, 80-95 % full, with scattered ones between them.
        BlockyMatrixSpec spec;
        spec.rows = spec.cols = 1500;
        spec.rectangles = 2, spec.triangles = 2, spec.bands = 2;
        spec.blockSize = 160, spec.bandWidth = 9, spec.fillMin = 0.8, spec.fillMax = 0.95, spec.scattered = 2000, spec.seed = 3;
        const GeneratedBinary g = generateBlockyBinary(spec);
        const QString input = path(QStringLiteral("blocky.mtx"));
        writeMatrixMarket(input.toStdString(), matrixFromBinaryPattern(g.pattern));
        const QString out = path(QStringLiteral("blocky.spy")), json = path(QStringLiteral("blocky-regions.json"));
        const Result r = run({"encode-binary", input, "-o", out, "--thumb", "300", "--fill", "0.6", "--regions", json});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        const QString text = QString::fromUtf8(r.out);

        const HybridBinaryMatrix hybrid = readHybridContainer(out.toStdString());
        QVERIFY(decodeHybrid(hybrid) == g.pattern);
        int byShape[3] = {0, 0, 0};
        for (const HybridBlock& b : hybrid.blocks) ++byShape[int(b.region.shape)];
        // Every planted shape found and kept as its own shape.
        QCOMPARE(byShape[int(RegionShape::Rectangle)], 2);
        QCOMPARE(byShape[int(RegionShape::Triangle)], 2);
        QCOMPARE(byShape[int(RegionShape::Band)], 2);
        QVERIFY2(text.contains(QStringLiteral("regions encoded: 6 (rectangle 2, triangle 2, band 2)")), qPrintable(text));
        const Count nnz = g.pattern.nnz();
        const QString bytes = QStringLiteral("bytes: CSR %1, COO %2, hybrid %3")
                                  .arg(patternCsrBytes(g.pattern.rows, nnz))
                                  .arg(qulonglong(nnz) * 8)
                                  .arg(hybrid.encodedBytes());
        QVERIFY2(text.contains(bytes), qPrintable(text + QStringLiteral("\nexpected: ") + bytes));
        QVERIFY(hybrid.encodedBytes() < patternCsrBytes(g.pattern.rows, nnz) / 2);
        // --thumb bounds the thumbnail's longer side.
        const QRegularExpressionMatch thumb = QRegularExpression(QStringLiteral("thumbnail (\\d+) x (\\d+)")).match(text);
        QVERIFY(thumb.hasMatch());
        QVERIFY(std::max(thumb.captured(1).toInt(), thumb.captured(2).toInt()) <= 300);
        const QJsonObject doc = QJsonDocument::fromJson(contentsOf(json)).object();
        QCOMPARE(doc.value(QStringLiteral("regions")).toArray().size(), 6);
    }

    void decodeRefusesDamagedFilesNamingTheSectionAndKeepsTheOldOutput() {
        const QString container = path(QStringLiteral("olm.spy"));
        QCOMPARE(run({"export", matrix("olm1000.mtx"), "--format", "segdia", "--threshold", "64", "-o", container}).exitCode, 0);
        const QByteArray good = contentsOf(container);
        const QString out = path(QStringLiteral("kept.mtx"));
        QVERIFY(testfiles::writeFile(out, "old contents\n"));

        // Truncated.
        const QString cut = path(QStringLiteral("cut.spy"));
        QVERIFY(testfiles::writeFile(cut, good.left(good.size() - 100)));
        Result r = run({"decode", cut, "-o", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("cut.spy: byte 40") && r.err.contains("truncated"), r.err.constData());
        // One bit flipped.
        QByteArray flipped = good;
        flipped[300] = char(flipped[300] ^ 0x04);
        const QString damaged = path(QStringLiteral("flipped.spy"));
        QVERIFY(testfiles::writeFile(damaged, flipped));
        r = run({"decode", damaged, "-o", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("checksum mismatch"), r.err.constData());
        // Contents wrong behind a correct checksum: the section and field are named.
        Container c = parseKnownContainer(std::string_view(good.constData(), std::size_t(good.size())), "olm.spy");
        for (ContainerSection& s : c.sections)
            if (s.id == container::kSegdiaRowStarts) s.payload[4] = 1;  // segment 1 starts at row 1, not 64
        const std::string bytes = serializeContainer(c);
        const QString inconsistent = path(QStringLiteral("inconsistent.spy"));
        QVERIFY(testfiles::writeFile(inconsistent, QByteArray(bytes.data(), qsizetype(bytes.size()))));
        r = run({"decode", inconsistent, "-o", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("section 0x0202 (segment row starts): entry 1 is 1, expected 64"), r.err.constData());
        // Not a container at all.
        r = run({"decode", matrix("olm1000.mtx"), "-o", out});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("not a Spyglass container"), r.err.constData());
        QCOMPARE(contentsOf(out), QByteArray("old contents\n"));
    }

    // Every command that reads a matrix reads an export as well: info and convert see the matrix the
    // container holds; a damaged one is refused naming the file and the byte.
    void commandsReadAnExportLikeItsText() {
        const QString container = path(QStringLiteral("west.spy"));
        QCOMPARE(run({"export", matrix("west0479.mtx"), "--format", "bitflag", "-o", container}).exitCode, 0);
        const Result text = run({"info", matrix("west0479.mtx"), "--json"});
        const Result spy = run({"--threads", "2", "info", container, "--json"});
        QVERIFY2(spy.exitCode == 0, spy.err.constData());
        const QJsonObject a = QJsonDocument::fromJson(text.out).object(), b = QJsonDocument::fromJson(spy.out).object();
        for (const char* key : {"rows", "cols", "nnz", "bandwidth", "diagonals", "empty_rows", "max_row_entries"})
            QVERIFY2(a.value(QLatin1String(key)) == b.value(QLatin1String(key)), key);
        const QString back = path(QStringLiteral("west-back.mtx"));
        QCOMPARE(run({"convert", container, back}).exitCode, 0);
        QVERIFY(readMatrixMarket(back.toStdString()).rowIndex == readContainerMatrix(container.toStdString()).rowIndex);

        const QString cut = path(QStringLiteral("west-cut.spy"));
        QVERIFY(testfiles::writeFile(cut, contentsOf(container).left(200)));
        const Result r = run({"info", cut});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("west-cut.spy: byte ") && r.err.contains("truncated"), r.err.constData());
        QCOMPARE(run({"--threads", "0", "info", container}).exitCode, 2);  // a thread count is 1..1024
    }

    void exportRefusesWhatAContainerCannotHold() {
        const QString out = path(QStringLiteral("complex.spy"));
        for (const char* format : {"segdia", "bitflag"}) {
            const Result r = run({"export", matrix("young1c.mtx"), "--format", format, "-o", out});
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("young1c.mtx") && r.err.contains("complex"), r.err.constData());
        }
        // The hybrid encoding holds real values (the valued form) but not complex ones.
        const Result hybrid = run({"export", matrix("young1c.mtx"), "--format", "hybrid", "-o", out});
        QCOMPARE(hybrid.exitCode, 1);
        QVERIFY2(hybrid.err.contains("young1c.mtx") && hybrid.err.contains("complex"), hybrid.err.constData());
        QVERIFY(!QFileInfo::exists(out));
        const Result valued = run({"export", matrix("west0479.mtx"), "--format", "hybrid", "-o", out});
        QCOMPARE(valued.exitCode, 0);
        QVERIFY2(valued.out.contains("valued hybrid"), valued.out.constData());
        const Result decoded = run({"decode", out, "-o", path(QStringLiteral("west0479-back.mtx"))});
        QCOMPARE(decoded.exitCode, 0);
        const CsrMatrix<double> original = toCsr<double>(readMatrixMarket(matrix("west0479.mtx").toStdString()));
        const CsrMatrix<double> back = toCsr<double>(readMatrixMarket(path(QStringLiteral("west0479-back.mtx")).toStdString()));
        QCOMPARE(back.colIndex, original.colIndex);  // west0479 stores no zeros: exactly the same entries
        QCOMPARE(back.values, original.values);
        QFile::remove(out);
        const Result unwritable = run({"export", matrix("olm1000.mtx"), "--format", "bitflag", "-o", path("no/dir/x.spy")});
        QCOMPARE(unwritable.exitCode, 1);
        QVERIFY2(unwritable.err.contains("no/dir"), unwritable.err.constData());
    }

    void usageErrorsExitTwo_data() {
        clitesting::addUsageErrorColumns();
        const QString k = matrix("karate.mtx");
        QTest::newRow("export without -o") << QStringList{"export", k, "--format", "segdia"} << "-o OUT is required";
        QTest::newRow("export unknown format") << QStringList{"export", k, "--format", "csr", "-o", "x"} << "--format";
        QTest::newRow("segdia option with hybrid") << QStringList{"export", k, "--threshold", "8", "-o", "x"} << "--threshold applies to --format segdia only";
        QTest::newRow("bitflag option with segdia") << QStringList{"export", k, "--format", "segdia", "--col-major", "-o", "x"} << "--col-major applies to --format bitflag only";
        QTest::newRow("hybrid option with bitflag") << QStringList{"export", k, "--format", "bitflag", "--fill", "0.7", "-o", "x"} << "--fill applies to --format hybrid only";
        QTest::newRow("threshold 0") << QStringList{"export", k, "--format", "segdia", "--threshold", "0", "-o", "x"} << "--threshold";
        QTest::newRow("encode-binary without -o") << QStringList{"encode-binary", k} << "-o OUT is required";
        QTest::newRow("encode-binary thumb and cells") << QStringList{"encode-binary", k, "-o", "x", "--thumb", "64", "--cells-per-pixel", "2"} << "not both";
        QTest::newRow("encode-binary fill out of range") << QStringList{"encode-binary", k, "-o", "x", "--fill", "1.5"} << "--fill";
        QTest::newRow("encode-binary unknown option") << QStringList{"encode-binary", k, "-o", "x", "--bogus"} << "--bogus";
        QTest::newRow("decode without -o") << QStringList{"decode", "x.spy"} << "-o OUT.mtx is required";
        QTest::newRow("decode two inputs") << QStringList{"decode", "a.spy", "b.spy", "-o", "x"} << "unexpected";
    }
    void usageErrorsExitTwo() {
        clitesting::verifyUsageErrorOfRow([this](const QStringList& args) { return run(args); });
    }

    void helpListsTheContainerCommands() {
        clitesting::verifyHelpLists(run({QStringLiteral("--help")}),
                                    {"export FILE --format hybrid|segdia|bitflag -o OUT", "encode-binary FILE -o OUT", "decode IN -o OUT.mtx"});
    }
};

QTEST_GUILESS_MAIN(TestCliContainer)
#include "tst_cli_container.moc"
#include "moc_clisuite.cpp"
