// renderDensity: exact counts on hand cases, the binning rule checked against a direct
// definitional oracle on seeded random windows (zoomed out, zoomed in, fractional, past the edge),
// count preservation, symmetric expansion, and the threaded path on a large input.
#include "spyglass/densityimage.h"
#include "spyglass/error.h"

#include <QtTest>

#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <utility>
#include <vector>

using spyglass::DensityImage;
using spyglass::Index;
using spyglass::Matrix;
using spyglass::MatrixWindow;
using spyglass::Symmetry;

namespace {

Matrix pattern(Index rows, Index cols, Symmetry symmetry, const std::vector<std::pair<Index, Index>>& entries) {
    Matrix m;
    m.rows = rows;
    m.cols = cols;
    m.symmetry = symmetry;
    m.field = spyglass::Field::Pattern;
    for (auto [i, j] : entries) {
        m.rowIndex.push_back(i);
        m.colIndex.push_back(j);
    }
    return m;
}

Matrix randomPattern(Index rows, Index cols, std::size_t entries, unsigned seed, Symmetry symmetry = Symmetry::General) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<Index> row(0, rows - 1), col(0, cols - 1);
    std::vector<std::pair<Index, Index>> list;
    while (list.size() < entries) {
        Index i = row(rng), j = col(rng);
        if (symmetry != Symmetry::General && i < j) std::swap(i, j);
        list.emplace_back(i, j);
    }
    return pattern(rows, cols, symmetry, list);
}

Matrix full(Index rows, Index cols) {
    std::vector<std::pair<Index, Index>> list;
    for (Index j = 0; j < cols; ++j)
        for (Index i = 0; i < rows; ++i) list.emplace_back(i, j);
    return pattern(rows, cols, Symmetry::General, list);
}

// The documented rule, stated directly on one axis: does cell c belong to bin b?
bool cellInBin(Index cell, int bin, double begin, double end, int bins, Index dimension) {
    if (cell < 0 || cell >= dimension) return false;
    const double size = (end - begin) / bins;
    if (size >= 1.0) {
        const double centre = cell + 0.5;
        return begin + bin * size <= centre && centre < begin + (bin + 1) * size && centre < end;
    }
    const double binCentre = begin + (bin + 0.5) * size;
    return cell <= binCentre && binCentre < cell + 1;
}

// One render of a property test: a window (it may stick out of the matrix) and its bin grid.
struct RenderRequest {
    MatrixWindow window;
    int width = 0, height = 0;
};

// count seeded requests: each window starts within start on both axes, spans extent, and has
// 1..maxBins bins each way.
std::vector<RenderRequest> randomRequests(unsigned seed, int count, std::pair<double, double> start,
                                          std::pair<double, double> extent, int maxBins) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> begin(start.first, start.second), span(extent.first, extent.second);
    std::uniform_int_distribution<int> bins(1, maxBins);
    std::vector<RenderRequest> requests;
    for (int k = 0; k < count; ++k) {
        const double r0 = begin(rng), c0 = begin(rng);
        RenderRequest r;
        r.window = MatrixWindow{r0, r0 + span(rng), c0, c0 + span(rng)};
        r.width = bins(rng);
        r.height = bins(rng);
        requests.push_back(r);
    }
    return requests;
}

DensityImage oracle(const Matrix& m, const MatrixWindow& w, int width, int height) {
    DensityImage image;
    image.width = width;
    image.height = height;
    image.counts.assign(std::size_t(width) * height, 0);
    image.cellsPerBin.assign(std::size_t(width) * height, 0);
    auto add = [&](Index i, Index j) {
        for (int y = 0; y < height; ++y) {
            if (!cellInBin(i, y, w.rowBegin, w.rowEnd, height, m.rows)) continue;
            for (int x = 0; x < width; ++x)
                if (cellInBin(j, x, w.colBegin, w.colEnd, width, m.cols)) ++image.counts[std::size_t(y) * width + x];
        }
    };
    for (std::size_t k = 0; k < m.rowIndex.size(); ++k) {
        add(m.rowIndex[k], m.colIndex[k]);
        if (m.symmetry != Symmetry::General && m.rowIndex[k] != m.colIndex[k]) add(m.colIndex[k], m.rowIndex[k]);
    }
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            int rowCells = 0, colCells = 0;
            for (Index i = 0; i < m.rows; ++i) rowCells += cellInBin(i, y, w.rowBegin, w.rowEnd, height, m.rows);
            for (Index j = 0; j < m.cols; ++j) colCells += cellInBin(j, x, w.colBegin, w.colEnd, width, m.cols);
            image.cellsPerBin[std::size_t(y) * width + x] = double(rowCells) * colCells;
        }
    return image;
}

std::uint64_t total(const DensityImage& image) {
    return std::accumulate(image.counts.begin(), image.counts.end(), std::uint64_t(0));
}

MatrixWindow whole(const Matrix& m) { return {0, double(m.rows), 0, double(m.cols)}; }

} // namespace

class TestDensityImage : public QObject {
    Q_OBJECT
private slots:
    void handCaseHasExactCounts() {
        // 4 x 4 into 2 x 2: the top-left 2 x 2 block holds 3 entries, the bottom-right one 2.
        const Matrix m = pattern(4, 4, Symmetry::General, {{0, 0}, {0, 1}, {1, 0}, {3, 3}, {2, 3}});
        const DensityImage image = spyglass::renderDensity(m, whole(m), 2, 2);
        QCOMPARE(image.width, 2);
        QCOMPARE(image.height, 2);
        QCOMPARE(image.counts, (std::vector<std::uint32_t>{3, 0, 0, 2}));
        QCOMPARE(image.cellsPerBin, (std::vector<double>{4, 4, 4, 4}));
        QCOMPARE(image.maxCount, 3u);
        QCOMPARE(image.density(0, 0), 0.75);
        QCOMPARE(image.density(1, 1), 0.5);
        QCOMPARE(image.density(1, 0), 0.0);
    }

    void wideImageMapsColumnsToX() {
        // 2 x 6 into 3 x 1: x follows columns, y follows rows.
        const Matrix m = pattern(2, 6, Symmetry::General, {{0, 0}, {1, 5}, {1, 4}, {0, 2}});
        const DensityImage image = spyglass::renderDensity(m, whole(m), 3, 1);
        QCOMPARE(image.counts, (std::vector<std::uint32_t>{1, 1, 2}));
        QCOMPARE(image.cellsPerBin, (std::vector<double>{4, 4, 4}));
    }

    void zoomPastOneCellPerBinFillsEveryBinTheCellCovers() {
        // The centre cell of a 3 x 3 drawn at 9 x 9: a 3 x 3 block of bins, each showing that one cell.
        const Matrix m = pattern(3, 3, Symmetry::General, {{1, 1}});
        const DensityImage image = spyglass::renderDensity(m, whole(m), 9, 9);
        for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 9; ++x) {
                const bool inside = y >= 3 && y < 6 && x >= 3 && x < 6;
                QCOMPARE(image.counts[std::size_t(y) * 9 + x], inside ? 1u : 0u);
                QCOMPARE(image.cellsPerBin[std::size_t(y) * 9 + x], 1.0);
                QCOMPARE(image.density(x, y), inside ? 1.0 : 0.0);
            }
        // Fractional window [0.5, 2.5) at 4 bins: bin centres 0.75, 1.25, 1.75, 2.25 show cells 0, 1, 1, 2.
        const DensityImage half = spyglass::renderDensity(m, {0.5, 2.5, 0.5, 2.5}, 4, 4);
        QCOMPARE(half.counts, (std::vector<std::uint32_t>{0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0}));
    }

    void binsPastTheMatrixEdgeCountOnlyCellsInside() {
        // A full 5 x 5 in the window [0, 8)^2 at 2 x 2: bins of 4 cells; the far bin holds only cell 4.
        const Matrix m = full(5, 5);
        const DensityImage image = spyglass::renderDensity(m, {0, 8, 0, 8}, 2, 2);
        QCOMPARE(image.cellsPerBin, (std::vector<double>{16, 4, 4, 1}));
        QCOMPARE(image.counts, (std::vector<std::uint32_t>{16, 4, 4, 1}));
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 2; ++x) QCOMPARE(image.density(x, y), 1.0);
        // A window wholly outside the matrix is blank with no cells.
        const DensityImage outside = spyglass::renderDensity(m, {10, 20, -30, -1}, 3, 3);
        QCOMPARE(total(outside), std::uint64_t(0));
        QCOMPARE(std::accumulate(outside.cellsPerBin.begin(), outside.cellsPerBin.end(), 0.0), 0.0);
    }

    void fullMatrixHasDensityOneInEveryCoveredBin() {
        // Holds for any window exactly when cellsPerBin follows the same rule as the counts.
        const Matrix m = full(23, 17);
        for (const RenderRequest& r : randomRequests(11, 200, {-5.0, 20.0}, {0.3, 40.0}, 50)) {
            const DensityImage image = spyglass::renderDensity(m, r.window, r.width, r.height);
            for (std::size_t b = 0; b < image.counts.size(); ++b) {
                QCOMPARE(double(image.counts[b]), image.cellsPerBin[b]);
                if (image.cellsPerBin[b] > 0) QCOMPARE(image.density(int(b % r.width), int(b / r.width)), 1.0);
            }
        }
    }

    void countsMatchTheRuleOnRandomWindows() {
        const Matrix m = randomPattern(41, 29, 300, 7, Symmetry::General);
        for (const RenderRequest& r : randomRequests(12, 100, {-3.0, 30.0}, {0.5, 45.0}, 37)) {
            const DensityImage actual = spyglass::renderDensity(m, r.window, r.width, r.height);
            const DensityImage expected = oracle(m, r.window, r.width, r.height);
            QCOMPARE(actual.counts, expected.counts);
            QCOMPARE(actual.cellsPerBin, expected.cellsPerBin);
            QCOMPARE(actual.maxCount, *std::max_element(expected.counts.begin(), expected.counts.end()));
        }
    }

    void wholeWindowPreservesTotalCount_data() {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("height");
        QTest::newRow("1x1") << 1 << 1;
        QTest::newRow("7x5 uneven bins") << 7 << 5;
        QTest::newRow("131x97 one cell per bin") << 131 << 97;
        QTest::newRow("130x13") << 130 << 13;
    }
    void wholeWindowPreservesTotalCount() {
        QFETCH(int, width);
        QFETCH(int, height);
        const Matrix m = randomPattern(97, 131, 1001, 3);
        const DensityImage image = spyglass::renderDensity(m, whole(m), width, height);
        QCOMPARE(total(image), std::uint64_t(m.rowIndex.size()));
        QCOMPARE(std::accumulate(image.cellsPerBin.begin(), image.cellsPerBin.end(), 0.0), 97.0 * 131.0);
    }

    void symmetricMatrixDrawsItsMirror() {
        const Matrix lower = randomPattern(53, 53, 200, 5, Symmetry::Symmetric);
        Matrix expanded = lower;
        expanded.symmetry = Symmetry::General;
        std::size_t diagonal = 0;
        for (std::size_t k = 0; k < lower.rowIndex.size(); ++k) {
            if (lower.rowIndex[k] == lower.colIndex[k]) {
                ++diagonal;
                continue;
            }
            expanded.rowIndex.push_back(lower.colIndex[k]);
            expanded.colIndex.push_back(lower.rowIndex[k]);
        }
        for (const MatrixWindow& w : {whole(lower), MatrixWindow{10.25, 30.5, 3, 40}, MatrixWindow{20, 24, 20, 24}}) {
            const DensityImage a = spyglass::renderDensity(lower, w, 17, 19);
            const DensityImage b = spyglass::renderDensity(expanded, w, 17, 19);
            QCOMPARE(a.counts, b.counts);
        }
        const DensityImage image = spyglass::renderDensity(lower, whole(lower), 11, 11);
        QCOMPARE(total(image), std::uint64_t(2 * lower.rowIndex.size() - diagonal));
    }

    void threadedBinningMatchesDirectCount() {
        // Enough entries to split across threads; bins of 10 x 10 cells make the oracle a division.
        const Matrix m = randomPattern(1000, 990, 5'000'001, 9);
        const DensityImage image = spyglass::renderDensity(m, whole(m), 99, 100);
        std::vector<std::uint32_t> expected(99 * 100, 0);
        for (std::size_t k = 0; k < m.rowIndex.size(); ++k) ++expected[std::size_t(m.rowIndex[k] / 10) * 99 + m.colIndex[k] / 10];
        QCOMPARE(image.counts, expected);
    }

    void invalidRequestsAreRejected() {
        const Matrix m = full(3, 3);
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::renderDensity(m, whole(m), 0, 5));
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::renderDensity(m, whole(m), 5, -1));
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::renderDensity(m, {2, 2, 0, 3}, 5, 5));
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::renderDensity(m, {3, 1, 0, 3}, 5, 5));
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::renderDensity(m, whole(m), 10000, 10000));
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QVERIFY_THROWS_EXCEPTION(spyglass::InputError, spyglass::renderDensity(m, {0, nan, 0, 3}, 5, 5));
    }

    void emptyShapesGiveBlankImages() {
        const Matrix none = pattern(0, 0, Symmetry::General, {});
        const DensityImage image = spyglass::renderDensity(none, {0, 1, 0, 1}, 4, 3);
        QCOMPARE(image.counts.size(), std::size_t(12));
        QCOMPARE(image.maxCount, 0u);
        QCOMPARE(image.density(0, 0), 0.0);
        QCOMPARE(image.density(-1, 7), 0.0);  // outside the image: no crash
    }
};

QTEST_GUILESS_MAIN(TestDensityImage)
#include "tst_densityimage.moc"
