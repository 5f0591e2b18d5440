// MatrixDocument and its value index: every cell answers what a brute-force scan of the stored
// entries (with symmetric expansion) says, on seeded random matrices of every symmetry kind.
#include "matrixentries.h"
#include "randommatrixcase.h"
#include "core/matrixdocument.h"

#include "spyglass/stats.h"

#include <QtTest>

#include <map>
#include <random>

using namespace spyglass;
using namespace spyglass::app;

namespace {

Matrix randomMatrix(Index rows, Index cols, int entries, Field field, Symmetry symmetry, unsigned seed) {
    std::mt19937 rng(seed);
    Matrix m;
    m.rows = rows;
    m.cols = cols;
    m.field = field;
    m.symmetry = symmetry;
    std::uniform_int_distribution<int> value(-9, 9);
    for (int e = 0; e < entries && rows > 0 && cols > 0; ++e) {
        Index r = std::uniform_int_distribution<Index>(0, rows - 1)(rng);
        Index c = std::uniform_int_distribution<Index>(0, cols - 1)(rng);
        if (symmetry != Symmetry::General) {
            if (r < c) std::swap(r, c);  // lower triangle stored, as in the files
            if (symmetry == Symmetry::SkewSymmetric && r == c) continue;
        }
        m.rowIndex.push_back(r);
        m.colIndex.push_back(c);
        if (field != Field::Pattern) m.real.push_back(value(rng) + 0.5);  // never zero, exact in binary
        if (field == Field::Complex) m.imag.push_back(value(rng) + 0.25);
    }
    return m;
}

MatrixDocument makeDocument(Matrix matrix) {
    auto shared = std::make_shared<const Matrix>(std::move(matrix));
    return MatrixDocument(QStringLiteral("memory.mtx"), shared, computeStats(*shared),
                          std::make_shared<const MatrixEntryIndex>(shared));
}

// The oracle: sum of stored entries per cell, then mirrored for the symmetric kinds.
std::map<std::pair<Index, Index>, std::complex<double>> bruteForce(const Matrix& m) {
    std::map<std::pair<Index, Index>, std::complex<double>> stored, full;
    for (Count e = 0; e < m.stored(); ++e) {
        const std::complex<double> v(m.isPattern() ? 1.0 : m.real[e], m.isComplex() ? m.imag[e] : 0.0);
        stored[{m.rowIndex[e], m.colIndex[e]}] += v;
    }
    full = stored;
    if (m.symmetry != Symmetry::General)
        for (const auto& [cell, v] : stored) {
            const std::pair<Index, Index> mirror{cell.second, cell.first};
            if (mirror == cell || stored.count(mirror)) continue;
            full[mirror] = m.symmetry == Symmetry::SkewSymmetric ? -v
                           : m.symmetry == Symmetry::Hermitian   ? std::conj(v)
                                                                 : v;
        }
    return full;
}

} // namespace

class TestDocument : public QObject {
    Q_OBJECT
private slots:
    void everyCellMatchesBruteForce_data() {
        QTest::addColumn<RandomMatrixCase>("matrix");
        QTest::newRow("general real 37x53 with duplicates") << RandomMatrixCase{37, 53, 600, Symmetry::General, Field::Real};
        QTest::newRow("symmetric real 41x41") << RandomMatrixCase{41, 41, 300, Symmetry::Symmetric, Field::Real};
        QTest::newRow("skew-symmetric 29x29") << RandomMatrixCase{29, 29, 200, Symmetry::SkewSymmetric, Field::Real};
        QTest::newRow("hermitian complex 23x23") << RandomMatrixCase{23, 23, 150, Symmetry::Hermitian, Field::Complex};
        QTest::newRow("pattern 1x97") << RandomMatrixCase{1, 97, 40, Symmetry::General, Field::Pattern};
        QTest::newRow("empty 3x0") << RandomMatrixCase{3, 0, 0, Symmetry::General, Field::Real};
    }
    void everyCellMatchesBruteForce() {
        QFETCH(RandomMatrixCase, matrix);
        const Matrix m = randomMatrix(matrix.rows, matrix.cols, matrix.entries, matrix.field, matrix.symmetry, 20240 + matrix.rows);
        const auto expected = bruteForce(m);
        const MatrixDocument document = makeDocument(m);
        for (Index r = 0; r < matrix.rows; ++r)
            for (Index c = 0; c < matrix.cols; ++c) {
                const CellValue cell = document.cellValue(r, c);
                const auto it = expected.find({r, c});
                QCOMPARE(cell.present, it != expected.end());
                if (cell.present) QCOMPARE(cell.value, it->second);  // sums of halves: exact
            }
    }

    void cellsOutsideTheMatrixAreEmpty() {
        const MatrixDocument document = makeDocument(randomMatrix(5, 7, 20, Field::Real, Symmetry::General, 3));
        QVERIFY(!document.cellValue(-1, 0).present);
        QVERIFY(!document.cellValue(0, -1).present);
        QVERIFY(!document.cellValue(5, 0).present);
        QVERIFY(!document.cellValue(0, 7).present);
    }

    void describeCellIsOneBasedWithValueOrNoEntry() {
        const MatrixDocument document = makeDocument(matrixentries::realEntries(4, 6, {2}, {5}, {-3.25}));
        QCOMPARE(document.describeCell(2, 5), QStringLiteral("row 3, col 6: -3.25"));
        QCOMPARE(document.describeCell(0, 0), QStringLiteral("row 1, col 1: 0 (no entry)"));
    }

    void describeCellShowsComplexAndMirroredValues() {
        Matrix m;
        m.rows = m.cols = 3;
        m.field = Field::Complex;
        m.symmetry = Symmetry::Hermitian;
        m.rowIndex = {2};
        m.colIndex = {0};
        m.real = {1.5};
        m.imag = {2};
        const MatrixDocument document = makeDocument(m);
        QCOMPARE(document.describeCell(2, 0), QStringLiteral("row 3, col 1: 1.5 + 2i"));
        QCOMPARE(document.describeCell(0, 2), QStringLiteral("row 1, col 3: 1.5 - 2i (mirrored)"));
    }

    void emptyDocumentHasNoShape() {
        const MatrixDocument document;
        QVERIFY(document.isEmpty());
        QCOMPARE(document.rows(), 0);
        QVERIFY(!document.cellValue(0, 0).present);
    }
};

QTEST_GUILESS_MAIN(TestDocument)
#include "tst_document.moc"
