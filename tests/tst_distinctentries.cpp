// makeEntriesDistinct against a std::map oracle (a position's values summed in file order) on seeded
// random unordered files with duplicates; ordered files left untouched; a dense array's zeros
// dropped and counted; and the statistics of the examples (a 4 x 4 file with one duplicate,
// a dense array with zeros) as MATLAB's nnz and scipy's count_nonzero give them.
#include "matrixentries.h"
#include "spyglass/distinctentries.h"
#include "spyglass/error.h"
#include "spyglass/stats.h"

#include <QtTest>

#include <algorithm>

#include <map>
#include <random>
#include <utility>

using spyglass::Count;
using spyglass::DistinctEntriesReport;
using spyglass::Field;
using spyglass::Index;
using spyglass::Layout;
using spyglass::Matrix;

namespace {

Matrix randomFile(std::mt19937& rng, Index rows, Index cols, std::size_t entries, Field field) {
    Matrix m;
    m.rows = rows, m.cols = cols, m.field = field;
    std::uniform_int_distribution<Index> row(0, rows - 1), col(0, cols - 1);
    std::uniform_int_distribution<int> value(-3, 3);
    for (std::size_t k = 0; k < entries; ++k) {
        m.rowIndex.push_back(row(rng));
        m.colIndex.push_back(col(rng));
        if (field != Field::Pattern) m.real.push_back(value(rng) * 0.5);
        if (field == Field::Complex) m.imag.push_back(value(rng) * 0.25);
    }
    return m;
}

// The oracle: each position once, its values summed in file order.
std::map<std::pair<Index, Index>, std::pair<double, double>> byPosition(const Matrix& m) {
    std::map<std::pair<Index, Index>, std::pair<double, double>> out;
    for (std::size_t k = 0; k < m.rowIndex.size(); ++k) {
        auto& v = out[{m.rowIndex[k], m.colIndex[k]}];
        if (!m.isPattern()) v.first += m.real[k];
        if (m.isComplex()) v.second += m.imag[k];
    }
    return out;
}

} // namespace

class TestDistinctEntries : public QObject {
    Q_OBJECT

private slots:
    void unorderedFilesWithDuplicatesMatchTheOracle_data() {
        QTest::addColumn<int>("field");
        QTest::addColumn<int>("threads");
        QTest::newRow("real, 1 thread") << int(Field::Real) << 1;
        QTest::newRow("real, 3 threads") << int(Field::Real) << 3;
        QTest::newRow("complex") << int(Field::Complex) << 2;
        QTest::newRow("pattern") << int(Field::Pattern) << 2;
    }
    void unorderedFilesWithDuplicatesMatchTheOracle() {
        QFETCH(int, field);
        QFETCH(int, threads);
        std::mt19937 rng(20261127u + unsigned(field));
        for (int trial = 0; trial < 20; ++trial) {
            // Small shapes force many duplicates; 600000 entries span several slices of the order check.
            const Index rows = 1 + Index(rng() % 60), cols = 1 + Index(rng() % 60);
            const std::size_t entries = trial == 0 ? 600000 : 1 + rng() % 4000;
            Matrix m = randomFile(rng, rows, cols, entries, Field(field));
            const auto expected = byPosition(m);
            const DistinctEntriesReport report = makeEntriesDistinct(m, unsigned(threads));
            QCOMPARE(std::size_t(m.stored()), expected.size());
            QCOMPARE(report.duplicatesSummed, Count(entries - expected.size()));
            QCOMPARE(report.arrayZerosDropped, Count(0));
            for (std::size_t k = 0; k < m.rowIndex.size(); ++k) {
                const auto it = expected.find({m.rowIndex[k], m.colIndex[k]});
                QVERIFY2(it != expected.end(), "a position the file never listed");
                if (k > 0) {  // sorted by row, then column: each position once
                    const bool after = m.rowIndex[k - 1] < m.rowIndex[k] ||
                                       (m.rowIndex[k - 1] == m.rowIndex[k] && m.colIndex[k - 1] < m.colIndex[k]);
                    QVERIFY(after);
                }
                if (!m.isPattern()) QCOMPARE(m.real[k], it->second.first);
                if (m.isComplex()) QCOMPARE(m.imag[k], it->second.second);
            }
        }
    }

    // A few bytes of a file can declare half a billion rows around a handful of entries (the .mat
    // fuzzer's finding): the pass sorts the entries instead of counting by row, so its memory follows
    // the entries; the result is the oracle's, position by position, in (row, column) order.
    void aHugeDeclaredSizeIsSortedByEntries() {
        std::mt19937 rng(536870946u);
        Matrix m;
        m.rows = 536870946, m.cols = 34, m.field = Field::Real;
        const Index someRows[] = {0, 7, 536870945, 268435456, 99999999, 3};
        for (int k = 0; k < 3000; ++k) {
            m.rowIndex.push_back(someRows[rng() % 6]);
            m.colIndex.push_back(Index(rng() % 34));
            m.real.push_back(double(int(rng() % 7) - 3) * 0.5);
        }
        const auto expected = byPosition(m);
        const DistinctEntriesReport report = makeEntriesDistinct(m, 2);
        QCOMPARE(report.duplicatesSummed, Count(3000 - expected.size()));
        QCOMPARE(std::size_t(m.stored()), expected.size());
        std::size_t k = 0;
        for (const auto& [position, value] : expected) {
            QCOMPARE(m.rowIndex[k], position.first);
            QCOMPARE(m.colIndex[k], position.second);
            QCOMPARE(m.real[k], value.first);
            ++k;
        }
    }

    // Ordered files (row by row, or column by column as SuiteSparse writes them) cannot repeat a
    // position: they come back exactly as read, explicit zeros included.
    void orderedFilesAreLeftAsRead() {
        Matrix rowMajor;
        rowMajor.rows = rowMajor.cols = 3;
        rowMajor.rowIndex = {0, 0, 1, 2};
        rowMajor.colIndex = {0, 2, 1, 0};
        rowMajor.real = {1, 0, 2, 3};
        Matrix columnMajor = rowMajor;
        columnMajor.rowIndex = {0, 2, 1, 0};
        columnMajor.colIndex = {0, 0, 1, 2};
        for (const Matrix& original : {rowMajor, columnMajor}) {
            Matrix m = original;
            const DistinctEntriesReport report = makeEntriesDistinct(m);
            QCOMPARE(report.removed(), Count(0));
            QCOMPARE(m.rowIndex, original.rowIndex);
            QCOMPARE(m.colIndex, original.colIndex);
            QCOMPARE(m.real, original.real);
        }
    }

    // The order check runs four entries a step on each thread's slice (orderOf): one repeated
    // position, or one index outside the matrix, at any lane of a step, at a slice's seam or in the
    // last entries, in a list otherwise ordered by row (or by column), is still found.
    void oneBadEntryInALongOrderedListIsFound() {
        const Index side = 1300;
        Matrix rowMajor;
        rowMajor.rows = rowMajor.cols = side;
        rowMajor.field = Field::Pattern;
        for (Index i = 0; i < side; ++i)
            for (Index j = 0; j < side; j += 2) {
                rowMajor.rowIndex.push_back(i);
                rowMajor.colIndex.push_back((j + i) % side);
            }
        // Sorted within each row, so that the list is strictly row-major.
        for (std::size_t begin = 0; begin < rowMajor.rowIndex.size(); begin += side / 2)
            std::sort(rowMajor.colIndex.begin() + begin, rowMajor.colIndex.begin() + begin + side / 2);
        Matrix columnMajor = rowMajor;
        std::swap(columnMajor.rowIndex, columnMajor.colIndex);
        const std::size_t n = rowMajor.rowIndex.size();  // 845000: three slices of at least 2^18 on 3 threads
        const std::size_t seam = (n + 2) / 3;
        for (const Matrix* ordered : {&rowMajor, &columnMajor})
            for (std::size_t at : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(4), std::size_t(5), seam - 1, seam,
                                   seam + 1, seam + 2, n / 2, n / 2 + 1, n - 2, n - 1})
                for (unsigned threads : {1u, 3u}) {
                    Matrix repeated = *ordered;  // entry `at` repeats the one before it
                    repeated.rowIndex[at] = repeated.rowIndex[at - 1];
                    repeated.colIndex[at] = repeated.colIndex[at - 1];
                    QCOMPARE(makeEntriesDistinct(repeated, threads).duplicatesSummed, Count(1));
                    Matrix outside = *ordered;  // entry `at` lies past the last column
                    outside.colIndex[at] = side;
                    const Matrix before = outside;
                    QCOMPARE(makeEntriesDistinct(outside, threads).removed(), Count(0));
                    QCOMPARE(outside.rowIndex, before.rowIndex);
                    QCOMPARE(outside.colIndex, before.colIndex);
                    Matrix untouched = *ordered;
                    QCOMPARE(makeEntriesDistinct(untouched, threads).removed(), Count(0));
                    QCOMPARE(untouched.colIndex, ordered->colIndex);
                }
    }

    // The dense problem: a 100 x 100 array with 5,050 nonzeros (the upper triangle) counts
    // 5,050 entries, not 10,000; its statistics say 10,000 stored and 4,950 zeros not counted.
    void aDenseArrayCountsItsNonzeros() {
        Matrix m;
        m.layout = Layout::Array;
        m.rows = m.cols = 100;
        for (Index j = 0; j < 100; ++j)
            for (Index i = 0; i < 100; ++i) {
                m.rowIndex.push_back(i);
                m.colIndex.push_back(j);
                m.real.push_back(i <= j ? double(i + j + 1) : 0.0);
            }
        const DistinctEntriesReport report = makeEntriesDistinct(m);
        QVERIFY(report.wasArray);
        QCOMPARE(report.arrayZerosDropped, Count(4950));
        QCOMPARE(m.stored(), Count(5050));
        QCOMPARE(m.layout, Layout::Coordinate);
        for (std::size_t k = 0; k < m.rowIndex.size(); ++k) QVERIFY(m.rowIndex[k] <= m.colIndex[k]);
        spyglass::MatrixStats stats = spyglass::computeStats(m);
        spyglass::noteDistinctEntries(stats, report);
        QCOMPARE(stats.stored, Count(10000));
        QCOMPARE(stats.nnz, Count(5050));
        QCOMPARE(stats.layout, Layout::Array);
        QCOMPARE(stats.emptyRows, 0);
    }

    // The 4 x 4 file listing (1,1) twice: density 2/16, not 3/16; one entry in row 1.
    void aDuplicateIsCountedOnceInTheStatistics() {
        Matrix m = matrixentries::realEntries(4, 4, {0, 1, 0}, {0, 2, 0}, {1, 1, 2});
        const DistinctEntriesReport report = makeEntriesDistinct(m);
        QCOMPARE(report.duplicatesSummed, Count(1));
        spyglass::MatrixStats stats = spyglass::computeStats(m);
        spyglass::noteDistinctEntries(stats, report);
        QCOMPARE(stats.stored, Count(3));
        QCOMPARE(stats.nnz, Count(2));
        QCOMPARE(stats.density, 2.0 / 16.0);
        QCOMPARE(stats.maxRowEntries, 1);
        QCOMPARE(m.real, std::vector<double>({3, 1}));
    }

    // An index outside the matrix is the statistics' to report (with the entry's number): the
    // matrix comes back unchanged rather than sorted into an array it would overrun.
    void anOutOfRangeIndexLeavesTheMatrixForValidation() {
        Matrix m = matrixentries::realEntries(2, 2, {1, 0, 5}, {1, 0, 0}, {1, 2, 3});
        const Matrix before = m;
        QCOMPARE(makeEntriesDistinct(m).removed(), Count(0));
        QCOMPARE(m.rowIndex, before.rowIndex);
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::computeStats(m));
    }
};

QTEST_APPLESS_MAIN(TestDistinctEntries)
#include "tst_distinctentries.moc"
