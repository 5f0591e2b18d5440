// computeStats over hand-made matrices with exact expected figures, against a brute-force oracle on
// seeded random matrices, and against the figures of INDEX.md for shared test matrices.
#include "randommatrixcase.h"
#include "spyglass/error.h"
#include "spyglass/stats.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

using spyglass::Field;
using spyglass::Index;
using spyglass::Layout;
using spyglass::Matrix;
using spyglass::MatrixStats;
using spyglass::Symmetry;

namespace {

Matrix coordinate(Index rows, Index cols, Symmetry symmetry, std::vector<std::pair<Index, Index>> entries,
                  std::vector<double> values = {}, Field field = Field::Real) {
    Matrix m;
    m.rows = rows;
    m.cols = cols;
    m.symmetry = symmetry;
    m.field = field;
    for (auto [i, j] : entries) {
        m.rowIndex.push_back(i);
        m.colIndex.push_back(j);
    }
    if (field != Field::Pattern) {
        if (values.empty()) values.assign(entries.size(), 2.0);
        m.real = values;
    }
    if (field == Field::Complex) m.imag.assign(entries.size(), 0.0);
    return m;
}

// The oracle: expand explicitly into a list, then count everything the slow obvious way.
MatrixStats bruteForceStats(const Matrix& m) {
    std::vector<std::pair<Index, Index>> full;
    for (std::size_t k = 0; k < m.rowIndex.size(); ++k) {
        full.emplace_back(m.rowIndex[k], m.colIndex[k]);
        if (m.symmetry != Symmetry::General && m.rowIndex[k] != m.colIndex[k])
            full.emplace_back(m.colIndex[k], m.rowIndex[k]);
    }
    MatrixStats s;
    s.nnz = static_cast<spyglass::Count>(full.size());
    std::vector<Index> perRow(m.rows, 0), perCol(m.cols, 0);
    std::vector<char> offsetUsed(std::size_t(m.rows) + std::size_t(m.cols), 0);
    for (auto [i, j] : full) {
        ++perRow[i];
        ++perCol[j];
        offsetUsed[std::size_t(j - i + m.rows - 1)] = 1;
        s.lowerBandwidth = std::max(s.lowerBandwidth, i - j);
        s.upperBandwidth = std::max(s.upperBandwidth, j - i);
        s.bandwidth = std::max(s.bandwidth, std::abs(i - j));
    }
    s.diagonals = std::count(offsetUsed.begin(), offsetUsed.end(), 1);
    for (Index c : perRow) {
        s.emptyRows += c == 0;
        s.maxRowEntries = std::max(s.maxRowEntries, c);
    }
    for (Index c : perCol) s.emptyCols += c == 0;
    return s;
}

void compareStructure(const MatrixStats& actual, const MatrixStats& expected) {
    QCOMPARE(actual.nnz, expected.nnz);
    QCOMPARE(actual.bandwidth, expected.bandwidth);
    QCOMPARE(actual.lowerBandwidth, expected.lowerBandwidth);
    QCOMPARE(actual.upperBandwidth, expected.upperBandwidth);
    QCOMPARE(actual.diagonals, expected.diagonals);
    QCOMPARE(actual.emptyRows, expected.emptyRows);
    QCOMPARE(actual.emptyCols, expected.emptyCols);
    QCOMPARE(actual.maxRowEntries, expected.maxRowEntries);
}

} // namespace

class TestStats : public QObject {
    Q_OBJECT
private slots:
    void generalMatrixHasExactFigures() {
        // 4 x 5:  row 0: (0,0) (0,4); row 2: (2,1) (2,2) (2,3); row 3: (3,0). Row 1 is empty; every column is used.
        const Matrix m = coordinate(4, 5, Symmetry::General, {{0, 0}, {0, 4}, {2, 1}, {2, 2}, {2, 3}, {3, 0}});
        const MatrixStats s = spyglass::computeStats(m);
        QCOMPARE(s.rows, 4);
        QCOMPARE(s.cols, 5);
        QCOMPARE(s.stored, 6);
        QCOMPARE(s.nnz, 6);
        QCOMPARE(s.upperBandwidth, 4);  // (0,4)
        QCOMPARE(s.lowerBandwidth, 3);  // (3,0)
        QCOMPARE(s.bandwidth, 4);
        QCOMPARE(s.diagonals, 5);       // offsets 0, 4, -1, 1, -3
        QCOMPARE(s.emptyRows, 1);       // row 1
        QCOMPARE(s.emptyCols, 0);
        QCOMPARE(s.maxRowEntries, 3);
        QCOMPARE(s.density, 6.0 / 20.0);
        QCOMPARE(s.binary, false);
        QCOMPARE(s.hasNonFinite, false);
        QCOMPARE(s.layout, Layout::Coordinate);
        QCOMPARE(s.field, Field::Real);
    }

    void symmetricEntriesCountWithTheirMirror() {
        // Lower triangle of a 5 x 5: diagonal (0,0), (4,4) and off-diagonal (2,0), (4,1), (3,2).
        const Matrix m = coordinate(5, 5, Symmetry::Symmetric, {{0, 0}, {2, 0}, {4, 1}, {3, 2}, {4, 4}}, {1, 1, 1, 1, 1});
        const MatrixStats s = spyglass::computeStats(m);
        QCOMPARE(s.stored, 5);
        QCOMPARE(s.nnz, 8);  // 2 diagonal + 2 * 3 off-diagonal
        QCOMPARE(s.lowerBandwidth, 3);
        QCOMPARE(s.upperBandwidth, 3);
        QCOMPARE(s.bandwidth, 3);
        QCOMPARE(s.diagonals, 7);  // 0 and +-2, +-3, +-1 from the three mirrored pairs
        QCOMPARE(s.emptyRows, 0);
        QCOMPARE(s.emptyCols, 0);
        QCOMPARE(s.maxRowEntries, 2);
        QCOMPARE(s.binary, true);
        compareStructure(s, bruteForceStats(m));
    }

    void skewSymmetricMirrorIsNotBinaryAndHasNoDiagonal() {
        const Matrix m = coordinate(6, 6, Symmetry::SkewSymmetric, {{1, 0}, {5, 2}}, {1.0, 1.0});
        const MatrixStats s = spyglass::computeStats(m);
        QCOMPARE(s.nnz, 4);
        QCOMPARE(s.bandwidth, 3);
        QCOMPARE(s.diagonals, 4);  // -1, +1, -3, +3
        QCOMPARE(s.emptyRows, 2);  // rows 3 and 4
        QCOMPARE(s.emptyCols, 2);
        QCOMPARE(s.maxRowEntries, 1);
        QCOMPARE(s.binary, false);  // the mirror holds -1
        compareStructure(s, bruteForceStats(m));
    }

    void arrayLayoutCountsEveryStoredValueIncludingZeros() {
        // 3 x 2 dense array, column-major, with an explicit zero.
        Matrix m = coordinate(3, 2, Symmetry::General, {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}},
                              {1, 0, 1, 1, 1, 1});
        m.layout = Layout::Array;
        const MatrixStats s = spyglass::computeStats(m);
        QCOMPARE(s.layout, Layout::Array);
        QCOMPARE(s.nnz, 6);
        QCOMPARE(s.density, 1.0);
        QCOMPARE(s.bandwidth, 2);
        QCOMPARE(s.lowerBandwidth, 2);
        QCOMPARE(s.upperBandwidth, 1);
        QCOMPARE(s.diagonals, 4);  // -2, -1, 0, +1
        QCOMPARE(s.maxRowEntries, 2);
        QCOMPARE(s.binary, false);  // the zero
    }

    void emptyMatrixHasAllRowsAndColumnsEmpty() {
        const Matrix m = coordinate(3, 4, Symmetry::General, {});
        const MatrixStats s = spyglass::computeStats(m);
        QCOMPARE(s.nnz, 0);
        QCOMPARE(s.density, 0.0);
        QCOMPARE(s.emptyRows, 3);
        QCOMPARE(s.emptyCols, 4);
        QCOMPARE(s.diagonals, 0);
        QCOMPARE(s.bandwidth, 0);
        QCOMPARE(s.maxRowEntries, 0);
    }

    void zeroRowShapeHasZeroDensity() {
        Matrix m = coordinate(0, 7, Symmetry::General, {});
        MatrixStats s = spyglass::computeStats(m);
        QCOMPARE(s.rows, 0);
        QCOMPARE(s.density, 0.0);
        QCOMPARE(s.emptyRows, 0);
        QCOMPARE(s.emptyCols, 7);
        m = coordinate(3, 0, Symmetry::General, {});
        m.layout = Layout::Array;
        s = spyglass::computeStats(m);
        QCOMPARE(s.emptyRows, 3);
        QCOMPARE(s.emptyCols, 0);
        QCOMPARE(s.density, 0.0);
    }

    void patternFieldIsBinary() {
        const Matrix m = coordinate(3, 3, Symmetry::General, {{0, 1}, {2, 2}}, {}, Field::Pattern);
        const MatrixStats s = spyglass::computeStats(m);
        QCOMPARE(s.binary, true);
        QCOMPARE(s.hasNonFinite, false);
        QCOMPARE(s.field, Field::Pattern);
    }

    void valuesDecideBinaryAndNonFinite_data() {
        QTest::addColumn<double>("value");
        QTest::addColumn<double>("imag");
        QTest::addColumn<bool>("binary");
        QTest::addColumn<bool>("nonFinite");
        const double inf = std::numeric_limits<double>::infinity();
        QTest::newRow("one") << 1.0 << 0.0 << true << false;
        QTest::newRow("nearly one") << std::nextafter(1.0, 2.0) << 0.0 << false << false;
        QTest::newRow("one with imaginary part") << 1.0 << 0.5 << false << false;
        QTest::newRow("inf") << inf << 0.0 << false << true;
        QTest::newRow("nan") << std::numeric_limits<double>::quiet_NaN() << 0.0 << false << true;
        QTest::newRow("imaginary -inf") << 1.0 << -inf << false << true;
    }
    void valuesDecideBinaryAndNonFinite() {
        QFETCH(double, value);
        QFETCH(double, imag);
        QFETCH(bool, binary);
        QFETCH(bool, nonFinite);
        Matrix m = coordinate(3, 3, Symmetry::Hermitian, {{0, 0}, {1, 0}, {2, 1}}, {1.0, 1.0, value}, Field::Complex);
        m.imag[2] = imag;
        const MatrixStats s = spyglass::computeStats(m);
        QCOMPARE(s.binary, binary);
        QCOMPARE(s.hasNonFinite, nonFinite);
        QCOMPARE(s.nnz, 5);
    }

    void randomMatricesMatchBruteForceOracle_data() {
        QTest::addColumn<RandomMatrixCase>("matrix");
        QTest::newRow("general 1x1") << RandomMatrixCase{1, 1, 1, Symmetry::General, Field::Pattern, 1};
        QTest::newRow("general 37x53") << RandomMatrixCase{37, 53, 200, Symmetry::General, Field::Pattern, 2};
        QTest::newRow("general 101x3 with duplicates") << RandomMatrixCase{101, 3, 400, Symmetry::General, Field::Pattern, 3};
        QTest::newRow("symmetric 61") << RandomMatrixCase{61, 61, 150, Symmetry::Symmetric, Field::Pattern, 4};
        QTest::newRow("hermitian 17") << RandomMatrixCase{17, 17, 40, Symmetry::Hermitian, Field::Pattern, 5};
        QTest::newRow("skew 129") << RandomMatrixCase{129, 129, 300, Symmetry::SkewSymmetric, Field::Pattern, 6};
        // Enough entries for the threaded scan (slices of 2^21 and more) with its merge.
        QTest::newRow("symmetric 1501 threaded") << RandomMatrixCase{1501, 1501, 4'500'001, Symmetry::Symmetric, Field::Pattern, 7};
        QTest::newRow("general 3001x997 threaded") << RandomMatrixCase{3001, 997, 4'400'003, Symmetry::General, Field::Pattern, 8};
    }
    void randomMatricesMatchBruteForceOracle() {
        QFETCH(RandomMatrixCase, matrix);
        const int rows = matrix.rows, cols = matrix.cols, entries = matrix.entries;
        const Symmetry kind = matrix.symmetry;
        const unsigned seed = matrix.seed;
        std::mt19937 rng(seed);
        std::uniform_int_distribution<Index> row(0, rows - 1), col(0, cols - 1);
        std::vector<std::pair<Index, Index>> list;
        while (static_cast<int>(list.size()) < entries) {
            Index i = row(rng), j = col(rng);
            if (kind != Symmetry::General) {
                if (i < j) std::swap(i, j);
                if (kind == Symmetry::SkewSymmetric && i == j) continue;
            }
            list.emplace_back(i, j);
        }
        const Matrix m = coordinate(rows, cols, kind, list, {}, matrix.field);
        const MatrixStats s = spyglass::computeStats(m);
        compareStructure(s, bruteForceStats(m));
        QCOMPARE(s.stored, spyglass::Count(entries));
        QCOMPARE(s.density, double(s.nnz) / (double(rows) * cols));
    }

    // Every field of a threaded run equals the one-thread run, for thread counts far above what the
    // size would pick: slices of a few entries, empty slices, rows split across slices, and rows whose
    // per-thread byte counter wraps (256 and 700 entries in one slice; 256 spread over slices).
    void manyThreadsGiveTheOneThreadFigures_data() {
        QTest::addColumn<int>("symmetry");
        QTest::addColumn<int>("field");
        QTest::addColumn<unsigned>("seed");
        QTest::newRow("general real") << int(Symmetry::General) << int(Field::Real) << 11u;
        QTest::newRow("general pattern") << int(Symmetry::General) << int(Field::Pattern) << 12u;
        QTest::newRow("symmetric real") << int(Symmetry::Symmetric) << int(Field::Real) << 13u;
        QTest::newRow("skew real") << int(Symmetry::SkewSymmetric) << int(Field::Real) << 14u;
        QTest::newRow("hermitian complex") << int(Symmetry::Hermitian) << int(Field::Complex) << 15u;
        QTest::newRow("general integer ones") << int(Symmetry::General) << int(Field::Integer) << 16u;
    }
    void manyThreadsGiveTheOneThreadFigures() {
        QFETCH(int, symmetry);
        QFETCH(int, field);
        QFETCH(unsigned, seed);
        const auto kind = static_cast<Symmetry>(symmetry);
        const auto valueField = static_cast<Field>(field);
        const Index n = 300;
        std::mt19937 rng(seed);
        std::uniform_int_distribution<Index> index(0, n - 1);
        std::vector<std::pair<Index, Index>> list;
        auto add = [&](Index i, Index j) {
            if (kind != Symmetry::General && i < j) std::swap(i, j);
            if (kind == Symmetry::SkewSymmetric && i == j) return;
            list.emplace_back(i, j);
        };
        for (int k = 0; k < 256; ++k) add(n - 1, k % n);  // row n-1: 256 entries in a row, a byte wraps to 0
        for (int k = 0; k < 700; ++k) add(n - 2, (k * 7) % (n - 2));  // row n-2: wraps twice
        for (int k = 0; k < 900; ++k) add(index(rng), index(rng));
        for (int k = 0; k < 256; ++k) add(150, 100);  // 256 duplicates: the column count wraps too
        std::shuffle(list.begin() + 956, list.end(), rng);
        std::vector<double> values(list.size(), 1.0);
        if (valueField != Field::Integer) {
            for (std::size_t k = 0; k < values.size(); k += 97) values[k] = 2.5;
        }
        if (valueField == Field::Real) values[values.size() / 2] = std::numeric_limits<double>::infinity();
        const Matrix m = coordinate(n, n, kind, list, valueField == Field::Pattern ? std::vector<double>{} : values,
                                    valueField);
        const MatrixStats one = spyglass::computeStats(m, 1);
        compareStructure(one, bruteForceStats(m));
        for (unsigned threads : {2u, 3u, 7u, 16u, 64u, 1000u}) {
            const MatrixStats s = spyglass::computeStats(m, threads);
            compareStructure(s, one);
            QCOMPARE(s.rows, one.rows);
            QCOMPARE(s.cols, one.cols);
            QCOMPARE(s.stored, one.stored);
            QCOMPARE(s.field, one.field);
            QCOMPARE(s.symmetry, one.symmetry);
            QCOMPARE(s.layout, one.layout);
            QCOMPARE(s.density, one.density);
            QCOMPARE(s.binary, one.binary);
            QCOMPARE(s.hasNonFinite, one.hasNonFinite);
        }
        QCOMPARE(spyglass::computeStats(m).maxRowEntries, one.maxRowEntries);
    }

    // An entry outside the matrix is reported by its number in file order whichever thread finds it,
    // and the first of two is the one named.
    void manyThreadsReportTheFirstEntryOutside() {
        Matrix m = coordinate(50, 50, Symmetry::General, {}, {}, Field::Pattern);
        m.rowIndex.assign(1000, 3);
        m.colIndex.assign(1000, 4);
        m.rowIndex[777] = 50;
        m.colIndex[412] = -1;
        for (unsigned threads : {1u, 2u, 9u, 1000u}) {
            try {
                spyglass::computeStats(m, threads);
                QFAIL("no exception for an entry outside the matrix");
            } catch (const spyglass::InputError& error) {
                QVERIFY2(std::string(error.what()).find("entry 413 ") != std::string::npos, error.what());
            }
        }
    }

    void malformedMatrixIsRejected() {
        Matrix outside = coordinate(3, 3, Symmetry::General, {{0, 0}, {3, 1}});
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::computeStats(outside));
        Matrix negative = coordinate(3, 3, Symmetry::General, {{-1, 0}});
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::computeStats(negative));
        Matrix nonSquare = coordinate(3, 4, Symmetry::Symmetric, {{1, 0}});
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::computeStats(nonSquare));
        // An entry outside the matrix deep in a threaded scan is reported with its 1-based number.
        Matrix large = coordinate(1000, 1000, Symmetry::General, {}, {}, Field::Pattern);
        large.rowIndex.assign(5'000'000, 3);
        large.colIndex.assign(5'000'000, 4);
        large.colIndex[4'000'000] = 1000;
        try {
            spyglass::computeStats(large);
            QFAIL("no exception for an entry outside the matrix");
        } catch (const spyglass::InputError& error) {
            QVERIFY2(std::string(error.what()).find("entry 4000001 ") != std::string::npos, error.what());
        }
        Matrix missingValues = coordinate(3, 3, Symmetry::General, {{1, 0}});
        missingValues.real.clear();
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::computeStats(missingValues));
    }
};

QTEST_GUILESS_MAIN(TestStats)
#include "tst_stats.moc"
