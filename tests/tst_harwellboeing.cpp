// Harwell-Boeing / Rutherford-Boeing (spyglass/harwellboeing.h): files written by scipy.io.hb_write
// (tests/data/hb, scripts/make_hb_fixtures.py) open through readMatrixFile as the Matrix Market
// originals; hand-written files cover symmetric, pattern, complex and integer types, Fortran D and
// letterless exponents, adjacent fixed-width fields and a right-hand-side line; bad files are refused
// naming the line.
#include "testmatrices.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/harwellboeing.h"
#include "spyglass/matrixfile.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <complex>

using namespace spyglass;

namespace {

QString fixture(const char* name) { return QStringLiteral(SPYGLASS_SOURCE_DIR "/tests/data/hb/") + QLatin1String(name); }

double denseDifference(const Matrix& a, const Matrix& b) {
    if (a.rows != b.rows || a.cols != b.cols) return 1e300;
    const DenseMatrix<std::complex<double>> da = toDense<std::complex<double>>(a), db = toDense<std::complex<double>>(b);
    double worst = 0;
    for (std::size_t k = 0; k < da.values.size(); ++k) worst = std::max(worst, std::abs(da.values[k] - db.values[k]));
    return worst;
}

// Header lines padded to their fixed columns: type at 0, counts as I14 from column 14.
std::string header(const std::string& type, int rows, int cols, int entries, const std::string& formats, const std::string& cards = {}) {
    char line3[128];
    std::snprintf(line3, sizeof line3, "%-14s%14d%14d%14d%14d", type.c_str(), rows, cols, entries, 0);
    const std::string line2 = cards.empty() ? std::string("             1             1             1             1") : cards;
    return "Spyglass test matrix                                                    KEY     \n" + line2 + "\n" + line3 + "\n" + formats + "\n";
}

} // namespace

class TestHarwellBoeing : public QObject {
    Q_OBJECT

private slots:
    void scipyFilesMatchTheirOriginals_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("west0479") << QStringLiteral("west0479");
        QTest::newRow("watt_2") << QStringLiteral("watt_2");
        QTest::newRow("lp_afiro (26I3: adjacent fields)") << QStringLiteral("lp_afiro");
    }
    void scipyFilesMatchTheirOriginals() {
        QFETCH(QString, name);
        MatrixFileKind kind = MatrixFileKind::MatrixMarket;
        const Matrix m = readMatrixFile(fixture(qPrintable(name + QStringLiteral(".rua"))).toStdString(), {}, &kind);
        QCOMPARE(kind, MatrixFileKind::HarwellBoeing);
        QCOMPARE(m.field, Field::Real);
        const Matrix expected = readMatrixMarket(sharedMatrix(qPrintable(name + QStringLiteral(".mtx"))).toStdString());
        QCOMPARE(denseDifference(m, expected), 0.0);
    }

    void symmetricPattern() {
        // 4 x 4 lower triangle: (1,1) (2,1) (4,1) (3,3) (4,4); a pattern has no value format.
        const std::string text = header("PSA", 4, 4, 5, "(5I3)           (5I3)") +
                                 "  1  4  4  5  6\n"
                                 "  1  2  4  3  4\n";
        const Matrix m = parseHarwellBoeing(text, "p.psa");
        QCOMPARE(m.field, Field::Pattern);
        QCOMPARE(m.symmetry, Symmetry::Symmetric);
        QCOMPARE(m.rowIndex, (std::vector<Index>{0, 1, 3, 2, 3}));
        QCOMPARE(m.colIndex, (std::vector<Index>{0, 0, 0, 2, 3}));
        QCOMPARE(m.expandedEntries(), Count(7));
        QVERIFY(looksLikeHarwellBoeing(text));
    }

    void complexWithFortranExponentsAndARightHandSide() {
        // (4I2) with two-digit numbers side by side; D exponents; a letterless exponent (1.5-100); a
        // Harwell-Boeing right-hand-side card count (fifth number of line 2) and its line 5.
        const std::string text =
            header("CUA", 3, 2, 3, "(4I2)           (4I2)           (2D22.14)",
                   "             5             1             1             2             1") +
            "RHS rhs description line\n"
            " 1 3 4\n"
            " 1 310\n";
        try {
            parseHarwellBoeing(text, "c.cua");
            QFAIL("row 10 of a 3-row matrix was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("c.cua: line 7: row index 10 is outside 1..3")), e.what());
        }
        const std::string good =
            header("CUA", 12, 2, 3, "(4I2)           (4I2)           (2D22.14)",
                   "             5             1             1             2             1") +
            "RHS rhs description line\n"
            " 1 3 4\n"
            " 1 310\n"
            "  1.50000000000000D+00 -2.00000000000000D+00\n"
            "  3.25000000000000D-01           1.5-100   \n"
            "  0.00000000000000D+00  4.00000000000000E+00\n";
        const Matrix m = parseHarwellBoeing(good, "c.cua");
        QCOMPARE(m.field, Field::Complex);
        QCOMPARE(m.rowIndex, (std::vector<Index>{0, 2, 9}));
        QCOMPARE(m.colIndex, (std::vector<Index>{0, 0, 1}));
        QCOMPARE(m.real, (std::vector<double>{1.5, 0.325, 0.0}));
        QCOMPARE(m.imag, (std::vector<double>{-2.0, 1.5e-100, 4.0}));
    }

    void badFilesNameTheLine() {
        auto refused = [](const std::string& text, const char* words) {
            try {
                parseHarwellBoeing(text, "bad.rua");
            } catch (const InputError& e) {
                if (!QString::fromUtf8(e.what()).contains(QLatin1String(words))) qWarning() << e.what();
                return QString::fromUtf8(e.what()).contains(QLatin1String(words));
            }
            return false;
        };
        const std::string formats = "(5I3)           (5I3)           (3E12.4)";
        const std::string values = "  1.0000E+00  2.0000E+00  3.0000E+00\n";
        QVERIFY(refused(header("RUA", 3, 2, 3, formats) + "  1  3  2\n  1  2  3\n" + values, "column pointer 3 decreases"));
        QVERIFY(refused(header("RUA", 3, 2, 3, formats) + "  1  3  4\n  1  2  4\n" + values, "line 6: row index 4 is outside 1..3"));
        QVERIFY(refused(header("RSA", 3, 3, 3, "(5I3)           (5I3)           (3E12.4)") + "  1  2  3  4\n  1  1  3\n" + values,
                        "entry (1, 2) lies outside the lower triangle"));
        QVERIFY(refused(header("RUE", 3, 2, 3, formats) + "  1  3  4\n  1  2  3\n" + values, "elemental"));
        QVERIFY(refused(header("RUA", 3, 2, 3, formats) + "  1  3  4\n  1  2  3\n  1.0000E+00\n", "line 8: the file ends early"));
        QVERIFY(refused(header("RUA", 3, 2, 3, "(5I3)           (5I3)           (3X12)") + "  1  3  4\n", "value format"));
        QVERIFY(refused(header("IUA", 3, 2, 3, formats) + "  1  3  4\n  1  2  3\n  1.5000E+00  2.0000E+00  3.0000E+00\n", "integer matrix holds"));
        QVERIFY(refused(header("RUA", 3, 2, 3, formats) + "  1  3  4\n  1  x  3\n" + values, "row index 'x' is not an integer"));
        // The fuzzer's two findings, as shapes: a repeat count past int (UBSan overflow before), and a
        // column count that sized the pointers past the file (a 3.5 GB allocation before).
        QVERIFY(refused(header("RUA", 3, 2, 3, "(2222222222I3)  (5I3)           (3E12.4)") + "  1  3  4\n", "pointer format"));
        QVERIFY(refused(header("RUA", 3, 444444444, 3, formats) + "  1  3  4\n", "column pointers cannot fit"));
        // Every truncation of a real file is refused, never a crash.
        QFile file(fixture("lp_afiro.rua"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const std::string whole = file.readAll().toStdString();
        for (std::size_t cut = 0; cut + 1 < whole.size(); cut += 97)
            QVERIFY_THROWS_EXCEPTION(InputError, parseHarwellBoeing(whole.substr(0, cut), "cut.rua"));
    }
};

QTEST_GUILESS_MAIN(TestHarwellBoeing)
#include "tst_harwellboeing.moc"
