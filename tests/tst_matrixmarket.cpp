// Matrix Market reading and writing: every shared matrix loads with the counts INDEX.md lists,
// every malformed input is refused with the line at fault, and write -> read is exact.
#include "matrixentries.h"
#include "sharedmatrixindex.h"
#include "testmatrices.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <sys/stat.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace spyglass;

Q_DECLARE_METATYPE(spyglass::Layout)
Q_DECLARE_METATYPE(spyglass::Field)
Q_DECLARE_METATYPE(spyglass::Symmetry)

Q_DECLARE_METATYPE(IndexedMatrix)

namespace {

QString matricesDir() {
    return testMatricesDir();
}

std::string matrixPath(const QString& name) { return (matricesDir() + "/" + name).toStdString(); }

bool sameDouble(double a, double b) {
    if (std::isnan(a) || std::isnan(b)) {
        return std::isnan(a) && std::isnan(b);
    }
    // Bitwise, so that -0.0 and 0.0 are told apart: the writer promises exact round trips.
    return std::memcmp(&a, &b, sizeof a) == 0;
}

bool sameValues(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) {
        return false;
    }
    for (std::size_t k = 0; k < a.size(); ++k) {
        if (!sameDouble(a[k], b[k])) {
            return false;
        }
    }
    return true;
}

void verifySameMatrix(const Matrix& actual, const Matrix& expected) {
    const char* differs = matrixentries::matrixDifference(actual, expected, sameValues);
    QVERIFY2(!differs, qPrintable(QStringLiteral("the matrices differ in their %1").arg(QLatin1String(differs ? differs : ""))));
}

const char* const kRealBanner = "%%MatrixMarket matrix coordinate real general\n";

// A large, valid text so that progress and cancel get several checkpoints.
std::string largeRealText(int entries) {
    std::string text = kRealBanner;
    text += "1000 1000 " + std::to_string(entries) + "\n";
    std::mt19937 random(7);
    std::uniform_int_distribution<int> index(1, 1000);
    for (int k = 0; k < entries; ++k) {
        text += std::to_string(index(random)) + " " + std::to_string(index(random)) + " 0.12345678901234\n";
    }
    return text;
}

double randomDouble(std::mt19937_64& random) {
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-1074, 1023);
    switch (random() % 8) {
    case 0: return std::ldexp(mantissa(random), exponent(random));  // full range, subnormals included
    case 1: return static_cast<double>(static_cast<std::int64_t>(random() % 2001) - 1000);
    case 2: return -0.0;
    default: return mantissa(random) * 1000.0;
    }
}

Matrix randomMatrix(std::mt19937_64& random, Layout layout, Field field, Symmetry symmetry, Index rows, Index cols) {
    Matrix m;
    m.layout = layout;
    m.field = field;
    m.symmetry = symmetry;
    m.rows = rows;
    m.cols = cols;
    m.comments = {" random test matrix", "%GraphBLAS type double"};
    auto addEntry = [&](Index i, Index j) {
        m.rowIndex.push_back(i);
        m.colIndex.push_back(j);
        if (field == Field::Integer) {
            m.real.push_back(static_cast<double>(static_cast<std::int64_t>(random() % 2000001) - 1000000));
        } else if (field != Field::Pattern) {
            m.real.push_back(randomDouble(random));
        }
        if (field == Field::Complex) {
            m.imag.push_back(randomDouble(random));
        }
    };
    if (layout == Layout::Array) {
        for (Index j = 0; j < cols; ++j) {
            const Index first = symmetry == Symmetry::General ? 0 : symmetry == Symmetry::SkewSymmetric ? j + 1 : j;
            for (Index i = first; i < rows; ++i) {
                addEntry(i, j);
            }
        }
        return m;
    }
    const int entries = static_cast<int>(random() % 200) + 1;
    for (int k = 0; k < entries; ++k) {
        Index i = static_cast<Index>(random() % static_cast<std::uint64_t>(rows));
        Index j = static_cast<Index>(random() % static_cast<std::uint64_t>(cols));
        if (symmetry != Symmetry::General) {
            if (i < j) {
                std::swap(i, j);
            }
            if (symmetry == Symmetry::SkewSymmetric && i == j) {
                continue;
            }
        }
        addEntry(i, j);
    }
    return m;
}

} // namespace

class TestMatrixMarket : public QObject {
    Q_OBJECT
private:
    // The shared matrices with their figures in INDEX.md: read as indexed, and written back unchanged.
    void sharedMatrixRows() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<IndexedMatrix>("indexed");
        for (const IndexedMatrix& m : sharedMatrixIndex().matrices) QTest::newRow(qPrintable(m.file)) << m.file << m;
    }

private slots:
    // The rows below come from INDEX.md: every row of its table must parse, and there must be as many
    // as the files it states, or a matrix would drop out of the data unnoticed.
    void indexTableIsReadWhole() {
        const MatrixIndex index = sharedMatrixIndex();
        QVERIFY2(index.error.isEmpty(), qPrintable(index.error));
    }

    void sharedMatricesLoadWithIndexedCounts_data() { sharedMatrixRows(); }
    void sharedMatricesLoadWithIndexedCounts() {
        QFETCH(QString, file);
        QFETCH(IndexedMatrix, indexed);
        const Matrix m = readMatrixMarket(matrixPath(file));
        QCOMPARE(m.rows, indexed.rows);
        QCOMPARE(m.cols, indexed.cols);
        QCOMPARE(m.stored(), indexed.stored);
        QCOMPARE(m.expandedEntries(), indexed.expanded);
        QCOMPARE(m.layout, indexed.layout);
        QCOMPARE(m.field, indexed.field);
        QCOMPARE(m.symmetry, indexed.symmetry);
        QCOMPARE(expandSymmetry(m).stored(), indexed.expanded);
        for (Count k = 0; k < m.stored(); ++k) {
            QVERIFY(m.rowIndex[k] >= 0 && m.rowIndex[k] < m.rows);
            QVERIFY(m.colIndex[k] >= 0 && m.colIndex[k] < m.cols);
            if (indexed.symmetry != Symmetry::General) {
                QVERIFY2(m.rowIndex[k] >= m.colIndex[k], "symmetric kinds keep the lower triangle");
            }
        }
    }

    void sharedMatricesRoundTripExactly_data() { sharedMatrixRows(); }
    void sharedMatricesRoundTripExactly() {
        QFETCH(QString, file);
        const Matrix original = readMatrixMarket(matrixPath(file));
        const Matrix again = parseMatrixMarket(formatMatrixMarket(original));
        verifySameMatrix(again, original);
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/copy.mtx.gz").toStdString();
        writeMatrixMarket(path, original);
        verifySameMatrix(readMatrixMarket(path), original);
    }

    void sharedMatrixValuesAreReadExactly() {
        const Matrix skew = readMatrixMarket(matrixPath("skew_fp64.mtx"));
        QCOMPARE(skew.rowIndex[1], 4);
        QCOMPARE(skew.colIndex[1], 0);
        QVERIFY(std::isinf(skew.real[1]) && skew.real[1] > 0);
        QCOMPARE(skew.real[0], -.12565458736262625);
        const Matrix hermitian = readMatrixMarket(matrixPath("c.mtx"));
        QCOMPARE(hermitian.real[1], 2.0);
        QCOMPARE(hermitian.imag[1], -1.0);
        const Matrix cover = readMatrixMarket(matrixPath("cover.mtx"));
        QVERIFY(cover.real.empty());
        QVERIFY(cover.isBinary());
        QVERIFY(!cover.comments.empty());
        QCOMPARE(cover.comments[0].substr(0, 10), std::string("%GraphBLAS"));
    }

    void malformedInputIsRejectedWithLine_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("problem");
        const QString real = kRealBanner;
        auto row = [](const char* name, const QString& text, int line, const char* problem) {
            QTest::newRow(name) << text << line << QString(problem);
        };
        row("empty input", "", 1, "banner");
        row("missing banner", "3 3 1\n1 1 1\n", 1, "missing %%MatrixMarket banner");
        row("misspelt banner", "%%MatrixMarkt matrix coordinate real general\n1 1 0\n", 1, "banner");
        row("bad object", "%%MatrixMarket vector coordinate real general\n1 1 0\n", 1, "object 'vector'");
        row("bad format", "%%MatrixMarket matrix coordinates real general\n1 1 0\n", 1, "format 'coordinates'");
        row("bad field", "%%MatrixMarket matrix coordinate float general\n1 1 0\n", 1, "field 'float'");
        row("bad symmetry", "%%MatrixMarket matrix coordinate real symmetrical\n1 1 0\n", 1,
            "symmetry 'symmetrical'");
        row("banner too short", "%%MatrixMarket matrix coordinate real\n1 1 0\n", 1, "needs object");
        row("banner too long", "%%MatrixMarket matrix coordinate real general extra\n1 1 0\n", 1, "'extra'");
        row("hermitian real", "%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n", 1, "hermitian");
        row("hermitian integer", "%%MatrixMarket matrix coordinate integer hermitian\n1 1 0\n", 1, "hermitian");
        row("pattern array", "%%MatrixMarket matrix array pattern general\n1 1\n", 1, "pattern");
        row("skew pattern", "%%MatrixMarket matrix coordinate pattern skew-symmetric\n1 1 0\n", 1, "skew");
        row("missing size line", real + "% only a comment\n\n", 4, "missing size line");
        row("short size line", real + "2 2\n1 1 1\n", 2, "entry count");
        row("size line extra", real + "2 2 1 9\n1 1 1\n", 2, "after the size line");
        row("negative rows", real + "-2 2 1\n1 1 1\n", 2, "negative row count");
        row("negative entries", real + "2 2 -1\n", 2, "negative entry count");
        row("text in size", real + "2 two 1\n1 1 1\n", 2, "'two' is not a whole number");
        row("dimension too large", real + "3000000000 1 0\n", 2, "exceeds the limit");
        row("symmetric non-square", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", 2,
            "must be square");
        row("claims 10^12 entries", real + "1000000 1000000 1000000000000\n1 1 1\n", 2, "more than the limit");
        row("claims 10^9 in a tiny file", real + "100000 100000 1000000000\n1 1 1\n", 4,
            "file ends after 1 of 1000000000 entries");
        row("truncated", real + "2 2 3\n1 1 1\n2 2 2\n", 5, "file ends after 2 of 3 entries");
        row("truncated mid line", real + "2 2 2\n1 1 1\n2 2", 4, "missing value");
        row("too many entries", real + "2 2 1\n1 1 1\n2 2 2\n", 4, "more entries than the 1 declared");
        row("row out of range", real + "2 2 1\n3 1 1\n", 3, "row index 3 is outside 1..2");
        // Blank and comment lines among the entries still count towards the reported line.
        row("error after blank and comment lines", real + "2 2 2\n1 1 1\n\n% note\n \t\n2 9 1\n", 7,
            "column index 9 is outside 1..2");
        row("error after CRLF lines", "%%MatrixMarket matrix coordinate real general\r\n% c\r\n2 2 2\r\n\r\n1 1 1\r\nx 1 1\r\n",
            6, "'x' is not a valid row index");
        row("error in header comments", real + "% one\n\n%% two\n2 2 1 x\n", 5, "after the size line");
        row("column out of range", real + "2 2 1\n1 7 1\n", 3, "column index 7 is outside 1..2");
        row("zero-based index", real + "2 2 1\n0 1 1\n", 3, "index 0");
        row("negative index", real + "2 2 1\n1 -1 1\n", 3, "negative column index");
        row("fractional index", real + "2 2 1\n1.0 1 1\n", 3, "not a valid row index");
        row("value in pattern", "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 5\n", 3,
            "value '5' in a pattern");
        row("missing value", real + "2 2 2\n1 1 1\n2 2\n", 4, "missing value");
        row("missing imaginary part", "%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1.5\n", 3,
            "missing imaginary part");
        row("text for value", real + "2 2 1\n1 1 abc\n", 3, "'abc' is not a number");
        row("half a number", real + "2 2 1\n1 1 1.5x\n", 3, "'1.5x' is not a number");
        row("double sign", real + "2 2 1\n1 1 +-1\n", 3, "not a number");
        row("garbage after entry", real + "2 2 1\n1 1 1.0 junk\n", 3, "unexpected text 'junk'");
        row("two entries on a line", real + "2 2 2\n1 1 1.0 2 2 2.0\n", 3, "unexpected text");
        row("non-integer in integer field", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", 3,
            "not an integer");
        row("integer overflow", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 99999999999999999999\n",
            3, "64-bit range");
        row("skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 1\n", 4,
            "diagonal entry (2,2)");
        row("symmetric upper duplicates lower",
            "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1\n3 3 1\n1 2 1\n", 5,
            "entry (1,2) above the diagonal duplicates (2,1)");
        row("array too few values", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", 6,
            "file ends after 3 of 4");
        row("array too many values", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n5\n", 7,
            "more entries than the 4");
        row("array symmetric full count", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n2\n3\n4\n", 6,
            "more entries than the 3");
        row("array size with count", "%%MatrixMarket matrix array real general\n2 2 4\n1\n2\n3\n4\n", 2,
            "after the size line");
        row("array two values per line", "%%MatrixMarket matrix array real general\n2 1\n1 2\n", 3,
            "unexpected text '2'");
    }
    void malformedInputIsRejectedWithLine() {
        QFETCH(QString, text);
        QFETCH(int, line);
        QFETCH(QString, problem);
        const std::string bytes = text.toStdString();
        try {
            const Matrix m = parseMatrixMarket(bytes, "bad.mtx");
            QFAIL(qPrintable("accepted a malformed input with " + QString::number(m.stored()) + " entries"));
        } catch (const ParseError& error) {
            QCOMPARE(error.source(), std::string("bad.mtx"));
            QCOMPARE(error.line(), std::int64_t(line));
            QVERIFY2(QString::fromStdString(error.problem()).contains(problem), error.what());
            QVERIFY(QString(error.what()).startsWith("bad.mtx:" + QString::number(line) + ": "));
        }
    }

    void bannerTokensAreCaseInsensitive() {
        const Matrix m = parseMatrixMarket("%%matrixmarket MATRIX Coordinate PATTERN Symmetric\n3 3 1\n3 1\n");
        QCOMPARE(m.field, Field::Pattern);
        QCOMPARE(m.symmetry, Symmetry::Symmetric);
        QCOMPARE(m.rowIndex, std::vector<Index>{2});
        QCOMPARE(m.colIndex, std::vector<Index>{0});
    }

    void blankLinesCommentsAndIndentationAreTolerated() {
        const std::string text = "%%MatrixMarket matrix coordinate real general\r\n"
                                 "%%GraphBLAS type float\r\n"
                                 "\r\n"
                                 "% a comment\r\n"
                                 "   \t\r\n"
                                 "  \t 3  4\t 2  \r\n"
                                 "\n"
                                 "% comment among the entries\n"
                                 "\t 3   4   -2.5\n"
                                 "\n"
                                 "  1 1 7  \n"
                                 "\n\n  \t\n% trailing comment\n";
        const Matrix m = parseMatrixMarket(text);
        QCOMPARE(m.rows, 3);
        QCOMPARE(m.cols, 4);
        QCOMPARE(m.rowIndex, (std::vector<Index>{2, 0}));
        QCOMPARE(m.colIndex, (std::vector<Index>{3, 0}));
        QCOMPARE(m.real, (std::vector<double>{-2.5, 7.0}));
        QCOMPARE(m.comments, (std::vector<std::string>{"%GraphBLAS type float", " a comment"}));
    }

    void specialAndUnusualNumberSpellingsAreRead() {
        const char* spellings[] = {"inf", "-inf", "Infinity", "-INF", "+inf", "NaN", "nan", "+1.5",
                                   "1.5D+02", "1e400", "-1e400", "1e-400", ".5", "-.25", "5.", "0x10"};
        std::string text = kRealBanner;
        const int count = 15;  // the hexadecimal spelling is checked on its own below
        text += "1 " + std::to_string(count) + " " + std::to_string(count) + "\n";
        for (int k = 0; k < count; ++k) {
            text += "1 " + std::to_string(k + 1) + " " + spellings[k] + "\n";
        }
        const Matrix m = parseMatrixMarket(text);
        const double inf = std::numeric_limits<double>::infinity();
        const std::vector<double> expected = {inf, -inf, inf, -inf, inf, 0, 0, 1.5, 150.0, inf, -inf, 0.0, 0.5, -0.25, 5.0};
        for (int k = 0; k < count; ++k) {
            if (k == 5 || k == 6) {
                QVERIFY(std::isnan(m.real[k]));
            } else {
                QCOMPARE(m.real[k], expected[k]);
            }
        }
        QVERIFY_THROWS_EXCEPTION(ParseError, parseMatrixMarket(std::string(kRealBanner) + "1 1 1\n1 1 0x10\n"));
    }

    void emptyShapesAreRead() {
        const Matrix zeroRows = parseMatrixMarket(std::string(kRealBanner) + "0 5 0\n");
        QCOMPARE(zeroRows.rows, 0);
        QCOMPARE(zeroRows.cols, 5);
        QCOMPARE(zeroRows.stored(), Count(0));
        const Matrix zeroArray = parseMatrixMarket("%%MatrixMarket matrix array complex general\n0 7\n");
        QCOMPARE(zeroArray.cols, 7);
        QCOMPARE(zeroArray.stored(), Count(0));
        const Matrix noNewline = parseMatrixMarket(std::string(kRealBanner) + "1 1 1\n1 1 2");
        QCOMPARE(noNewline.real, std::vector<double>{2.0});
        const Matrix skewOne = parseMatrixMarket("%%MatrixMarket matrix array real skew-symmetric\n1 1\n");
        QCOMPARE(skewOne.stored(), Count(0));
    }

    void arrayEntriesAreColumnMajorLowerTriangle() {
        const Matrix skew = parseMatrixMarket("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
        QCOMPARE(skew.rowIndex, (std::vector<Index>{1, 2, 2}));
        QCOMPARE(skew.colIndex, (std::vector<Index>{0, 0, 1}));
        QCOMPARE(skew.expandedEntries(), Count(6));
        const Matrix general = parseMatrixMarket("%%MatrixMarket matrix array integer general\n2 3\n1\n2\n3\n4\n5\n-6\n");
        QCOMPARE(general.rowIndex, (std::vector<Index>{0, 1, 0, 1, 0, 1}));
        QCOMPARE(general.colIndex, (std::vector<Index>{0, 0, 1, 1, 2, 2}));
        QCOMPARE(general.real.back(), -6.0);
        const Matrix hermitian = parseMatrixMarket("%%MatrixMarket matrix array complex hermitian\n2 2\n1 0\n2 3\n4 0\n");
        QCOMPARE(hermitian.rowIndex, (std::vector<Index>{0, 1, 1}));
        QCOMPARE(hermitian.colIndex, (std::vector<Index>{0, 0, 1}));
        QCOMPARE(hermitian.imag, (std::vector<double>{0, 3, 0}));
    }

    void upperTriangleEntriesAreStoredAsTheirMirror() {
        const Matrix skew = parseMatrixMarket("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n1 3 2.5\n2 1 4\n");
        QCOMPARE(skew.rowIndex, (std::vector<Index>{2, 1}));
        QCOMPARE(skew.colIndex, (std::vector<Index>{0, 0}));
        QCOMPARE(skew.real, (std::vector<double>{-2.5, 4.0}));
        const Matrix hermitian =
            parseMatrixMarket("%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 2 1.5 2\n");
        QCOMPARE(hermitian.rowIndex, std::vector<Index>{1});
        QCOMPARE(hermitian.colIndex, std::vector<Index>{0});
        QCOMPARE(hermitian.real, std::vector<double>{1.5});
        QCOMPARE(hermitian.imag, std::vector<double>{-2.0});
    }

    void gzipIsDetectedByContentNotName() {
        QTemporaryDir dir;
        const Matrix original = readMatrixMarket(matrixPath("west0479.mtx"));
        const std::string gzPath = (dir.path() + "/w.mtx.gz").toStdString();
        writeMatrixMarket(gzPath, original);
        std::ifstream in(gzPath, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        QVERIFY(bytes.size() > 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b);
        const std::string disguised = (dir.path() + "/w.mtx").toStdString();
        std::ofstream(disguised, std::ios::binary) << bytes;
        verifySameMatrix(readMatrixMarket(disguised), original);
    }

    void truncatedGzipIsRejected() {
        QTemporaryDir dir;
        const Matrix original = readMatrixMarket(matrixPath("bcsstk13.mtx"));
        const std::string gzPath = (dir.path() + "/b.mtx.gz").toStdString();
        writeMatrixMarket(gzPath, original);
        std::ifstream in(gzPath, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        for (const double keep : {0.1, 0.5, 0.99}) {
            const std::string cut = (dir.path() + "/cut.mtx.gz").toStdString();
            std::ofstream(cut, std::ios::binary | std::ios::trunc)
                << bytes.substr(0, static_cast<std::size_t>(static_cast<double>(bytes.size()) * keep));
            try {
                readMatrixMarket(cut);
                QFAIL("accepted a truncated gzip file");
            } catch (const ParseError& error) {
                QVERIFY2(QString::fromStdString(error.problem()).contains("truncated"), error.what());
                QVERIFY(error.line() >= 1);
            }
        }
    }

    void directoryIsRefusedNamingThePath() {
        QTemporaryDir dir;
        try {
            readMatrixMarket(dir.path().toStdString());
            QFAIL("read a directory");
        } catch (const Error& error) {
            QVERIFY2(QString(error.what()).contains(dir.path()), error.what());
            QVERIFY2(QString(error.what()).contains(std::strerror(EISDIR)), error.what());
        }
    }

    void unseekableInputIsReadPlainAndGzip() {
        QTemporaryDir dir;
        const Matrix original = readMatrixMarket(matrixPath("young1c.mtx"));
        const std::string gzPath = (dir.path() + "/y.mtx.gz").toStdString();
        writeMatrixMarket(gzPath, original);
        std::ifstream in(gzPath, std::ios::binary);
        const std::string gzBytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const std::string fifo = (dir.path() + "/pipe").toStdString();
        QVERIFY(::mkfifo(fifo.c_str(), 0600) == 0);
        for (const std::string& bytes : {formatMatrixMarket(original), gzBytes}) {
            std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << bytes; });
            Matrix piped;
            try {
                piped = readMatrixMarket(fifo);
            } catch (...) {
                writer.join();
                throw;
            }
            writer.join();
            verifySameMatrix(piped, original);
        }
    }

    void missingFileNamesThePath() {
        try {
            readMatrixMarket("/nonexistent/dir/m.mtx");
            QFAIL("read a missing file");
        } catch (const Error& error) {
            QVERIFY(QString(error.what()).contains("/nonexistent/dir/m.mtx"));
        }
    }

    void progressRisesToOneAndCancelStops() {
        const std::string text = largeRealText(400000);  // about 10 MB
        std::vector<double> fractions;
        ReadOptions options;
        options.progress = [&](double fraction) { fractions.push_back(fraction); };
        const Matrix m = parseMatrixMarket(text, "big", options);
        QCOMPARE(m.stored(), Count(400000));
        QVERIFY(fractions.size() >= 4);
        for (std::size_t k = 1; k < fractions.size(); ++k) {
            QVERIFY(fractions[k] >= fractions[k - 1]);
        }
        QCOMPARE(fractions.back(), 1.0);

        std::atomic<bool> cancel{false};
        ReadOptions cancelling;
        cancelling.cancel = &cancel;
        int calls = 0;
        cancelling.progress = [&](double) {
            if (++calls == 2) {
                cancel = true;
            }
        };
        QVERIFY_THROWS_EXCEPTION(CancelledError, parseMatrixMarket(text, "big", cancelling));
        QCOMPARE(calls, 2);  // stopped at the very next checkpoint

        QTemporaryDir dir;
        const std::string path = (dir.path() + "/big.mtx").toStdString();
        std::ofstream(path, std::ios::binary) << text;
        std::atomic<bool> already{true};
        ReadOptions cancelled;
        cancelled.cancel = &already;
        QVERIFY_THROWS_EXCEPTION(CancelledError, readMatrixMarket(path, cancelled));
        fractions.clear();
        readMatrixMarket(path, options);
        QCOMPARE(fractions.back(), 1.0);
    }

    void randomMatricesRoundTripExactly_data() {
        QTest::addColumn<spyglass::Layout>("layout");
        QTest::addColumn<spyglass::Field>("field");
        QTest::addColumn<spyglass::Symmetry>("symmetry");
        for (Layout layout : {Layout::Coordinate, Layout::Array}) {
            for (Field field : {Field::Real, Field::Double, Field::Integer, Field::Complex, Field::Pattern}) {
                for (Symmetry symmetry :
                     {Symmetry::General, Symmetry::Symmetric, Symmetry::SkewSymmetric, Symmetry::Hermitian}) {
                    const bool valid = !(layout == Layout::Array && field == Field::Pattern) &&
                                       !(symmetry == Symmetry::Hermitian && field != Field::Complex) &&
                                       !(symmetry == Symmetry::SkewSymmetric && field == Field::Pattern);
                    if (valid) {
                        QTest::addRow("%s %s %s", toString(layout), toString(field), toString(symmetry))
                            << layout << field << symmetry;
                    }
                }
            }
        }
    }
    void randomMatricesRoundTripExactly() {
        QFETCH(spyglass::Layout, layout);
        QFETCH(spyglass::Field, field);
        QFETCH(spyglass::Symmetry, symmetry);
        std::mt19937_64 random(20240611 + static_cast<int>(layout) * 100 + static_cast<int>(field) * 10 +
                               static_cast<int>(symmetry));
        for (const auto& [rows, cols] : {std::pair<Index, Index>{1, 1}, {7, 7}, {13, 13}, {17, 5}, {3, 29}}) {
            if (symmetry != Symmetry::General && rows != cols) {
                continue;
            }
            const Matrix m = randomMatrix(random, layout, field, symmetry, rows, cols);
            verifySameMatrix(parseMatrixMarket(formatMatrixMarket(m)), m);

            // Written expanded, the general matrix holds exactly the mirrored entries.
            const Matrix expanded = parseMatrixMarket(formatMatrixMarket(m, WriteOptions{true}));
            QCOMPARE(expanded.symmetry, Symmetry::General);
            QCOMPARE(expanded.stored(), layout == Layout::Array ? Count(rows) * cols : m.expandedEntries());
            if (layout == Layout::Coordinate) {
                verifySameMatrix(expanded, expandSymmetry(m));
            } else if (field == Field::Complex) {
                const auto dense = toDense<std::complex<double>>(m);
                for (Count k = 0; k < expanded.stored(); ++k) {
                    const auto value = dense(expanded.rowIndex[k], expanded.colIndex[k]);
                    QVERIFY(sameDouble(expanded.real[k], value.real()) || (value.real() == 0 && expanded.real[k] == 0));
                    QVERIFY(sameDouble(expanded.imag[k], value.imag()) || (value.imag() == 0 && expanded.imag[k] == 0));
                }
            } else {
                const auto dense = toDense<double>(m);
                for (Count k = 0; k < expanded.stored(); ++k) {
                    const double value = dense(expanded.rowIndex[k], expanded.colIndex[k]);
                    QVERIFY(sameDouble(expanded.real[k], value) || (value == 0 && expanded.real[k] == 0));
                }
            }
        }
    }

    void writerRefusesInconsistentMatrices() {
        Matrix m = matrixentries::realEntries(2, 2, {0, 5}, {0, 0}, {1, 2});
        QVERIFY_THROWS_EXCEPTION(InputError, formatMatrixMarket(m));
        m.rowIndex = {0, 1};
        m.field = Field::Integer;
        m.real = {1, 2.5};
        QVERIFY_THROWS_EXCEPTION(InputError, formatMatrixMarket(m));
        m.layout = Layout::Array;
        m.real = {1, 2};
        QVERIFY_THROWS_EXCEPTION(InputError, formatMatrixMarket(m));  // 2 values for a 2 x 2 array
    }
};

QTEST_GUILESS_MAIN(TestMatrixMarket)
#include "tst_matrixmarket.moc"
