// The spy picture: bins the symmetry-expanded entries of a window into width x height.
//
// Binning rule, the same on each axis independently. Entry (i, j) covers the unit cell
// [i, i+1) x [j, j+1). A bin spans s = (window extent) / (bins) cells.
//  - s >= 1 (zoomed out): a cell belongs to the one bin that holds the cell's centre (c + 0.5), so
//    every entry inside the window is counted exactly once and the total is preserved.
//  - s <  1 (zoomed in past one cell per bin): a bin shows the cell under the bin's centre, i.e. a
//    cell belongs to every bin whose centre lies in [c, c+1). The picture is the cell grid enlarged
//    by nearest neighbour; no bin is left blank between two adjacent entries.
// An entry lands in (its row bins) x (its column bins); a symmetric mirror is binned the same way.
// cellsPerBin counts the matrix cells assigned to a bin by this very rule (0 for bins beyond the
// matrix edge, 1 when zoomed in), so density = counts / cells is the fraction of the bin's cells
// that hold an entry: 1 for a full matrix, at most 1 unless duplicates are stored.
#include "spyglass/densityimage.h"

#include "spyglass/error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <thread>

namespace spyglass {

namespace {

// The bin of a cell when bins span one cell or more: the bin holding the cell's centre. The one
// expression both for counting entries and for cellsPerBin, so the two agree to the last bit.
inline std::int32_t uniformBin(Index cell, double begin, double inverseBinSize, std::int32_t lastBin) {
    return std::min(lastBin, static_cast<std::int32_t>((double(cell) + 0.5 - begin) * inverseBinSize));
}

// Which bins each cell of one axis falls in.
//  single (bins of one cell or more): arithmetic, no table, because for a matrix of millions of rows
//  a table look-up per entry is a cache miss; cells [firstCell, firstCell + span) are exactly those
//  whose centre lies in the window and inside the matrix.
//  otherwise (zoomed in, so the window spans at most as many cells as bins): a table of bin runs for
//  the cells [firstCell, firstCell + span).
struct AxisBins {
    Index firstCell = 0;
    std::size_t span = 0;
    bool single = true;
    double begin = 0, inverseBinSize = 0;
    std::int32_t lastBin = 0;
    std::vector<std::int32_t> binBegin, binEnd;  // only when !single; binBegin -1: the cell is in no bin
    std::vector<double> cellsPerBin;

    // For single only, and only for a cell inside [firstCell, firstCell + span).
    std::int32_t binOf(Index cell) const { return uniformBin(cell, begin, inverseBinSize, lastBin); }
    // The run of bins [first, last) of cell; false when the cell lies in none.
    bool bins(Index cell, std::int32_t& first, std::int32_t& last) const {
        const std::size_t k = static_cast<std::size_t>(std::int64_t(cell) - firstCell);
        if (k >= span) return false;
        if (single) {
            first = binOf(cell);
            last = first + 1;
            return true;
        }
        first = binBegin[k];
        last = binEnd[k];
        return first >= 0;
    }
};

AxisBins mapAxis(double begin, double end, Index dimension, int bins) {
    AxisBins axis;
    axis.cellsPerBin.assign(static_cast<std::size_t>(bins), 0.0);
    axis.begin = begin;
    axis.lastBin = bins - 1;
    const double binSize = (end - begin) / bins;
    axis.single = binSize >= 1.0;
    if (axis.single) {
        // c + 0.5 in [begin, end)  <=>  ceil(begin - 0.5) <= c < ceil(end - 0.5); exact for |c| < 2^52.
        const double lo = std::clamp(std::ceil(begin - 0.5), 0.0, double(dimension));
        const double hi = std::clamp(std::ceil(end - 0.5), 0.0, double(dimension));
        axis.firstCell = static_cast<Index>(lo);
        axis.span = hi > lo ? static_cast<std::size_t>(hi - lo) : 0;
        axis.inverseBinSize = 1.0 / binSize;
        for (std::size_t k = 0; k < axis.span; ++k)
            axis.cellsPerBin[static_cast<std::size_t>(axis.binOf(axis.firstCell + static_cast<Index>(k)))] += 1.0;
        return axis;
    }
    const double lo = std::clamp(std::floor(begin), 0.0, double(dimension));
    const double hi = std::clamp(std::ceil(end), 0.0, double(dimension));
    axis.firstCell = static_cast<Index>(lo);
    axis.span = hi > lo ? static_cast<std::size_t>(hi - lo) : 0;
    axis.binBegin.assign(axis.span, -1);
    axis.binEnd.assign(axis.span, -1);
    // Bin centres increase with the bin, so each cell's bins form one contiguous run.
    for (int bin = 0; bin < bins; ++bin) {
        const double cell = std::floor(begin + (bin + 0.5) * binSize);
        if (cell < lo || cell >= hi) continue;
        const std::size_t k = static_cast<std::size_t>(cell - lo);
        if (axis.binBegin[k] < 0) axis.binBegin[k] = bin;
        axis.binEnd[k] = bin + 1;
        axis.cellsPerBin[static_cast<std::size_t>(bin)] = 1.0;
    }
    return axis;
}

void validate(const Matrix& matrix, const MatrixWindow& window, int width, int height) {
    if (width < 1 || height < 1)
        throw InputError("density image size " + std::to_string(width) + " x " + std::to_string(height) +
                         " must be at least 1 x 1");
    if (std::int64_t(width) * height > (std::int64_t(1) << 26))  // 64 M bins: 8192 x 8192
        throw InputError("density image size " + std::to_string(width) + " x " + std::to_string(height) +
                         " is too large");
    const bool finite = std::isfinite(window.rowBegin) && std::isfinite(window.rowEnd) &&
                        std::isfinite(window.colBegin) && std::isfinite(window.colEnd);
    if (!finite || !(window.rowEnd > window.rowBegin) || !(window.colEnd > window.colBegin))
        throw InputError("density window rows [" + std::to_string(window.rowBegin) + ", " +
                         std::to_string(window.rowEnd) + ") x cols [" + std::to_string(window.colBegin) + ", " +
                         std::to_string(window.colEnd) + ") is empty or not finite");
    if (matrix.rowIndex.size() != matrix.colIndex.size())
        throw InputError("matrix has " + std::to_string(matrix.rowIndex.size()) + " row indices but " +
                         std::to_string(matrix.colIndex.size()) + " column indices");
}

// One axis of the zoomed-out case as plain values, so that they stay in registers in the hot loop
// (a struct read through a reference would be reloaded after every counter store).
struct UniformAxis {
    std::int64_t firstCell;
    std::size_t span;
    double begin, inverseBinSize;
    std::int32_t lastBin;
    explicit UniformAxis(const AxisBins& axis)
        : firstCell(axis.firstCell), span(axis.span), begin(axis.begin), inverseBinSize(axis.inverseBinSize),
          lastBin(axis.lastBin) {}
    std::int32_t binOf(Index cell) const { return uniformBin(cell, begin, inverseBinSize, lastBin); }
};

// Per-thread bin counters split into a hot byte and a cold carry: the randomly touched array is a
// quarter of the size of 32-bit counts (1 MB for 1024 x 1024, so it stays in cache); the carry is
// touched once per 256 entries of a bin.
struct BinCounters {
    std::vector<std::uint8_t> low;
    std::vector<std::uint32_t> carries;  // count = low + 256 * carries
    explicit BinCounters(std::size_t bins) : low(bins, 0), carries(bins, 0) {}
};

struct CounterRefs {
    std::uint8_t* low;
    std::uint32_t* carries;
    void add(std::size_t bin) const {
        if (++low[bin] == 0) ++carries[bin];
    }
};

template <bool Mirrored>
void binUniform(const Matrix& matrix, const AxisBins& rowAxis, const AxisBins& colAxis, std::size_t width,
                std::size_t first, std::size_t last, CounterRefs counts) {
    const UniformAxis rows(rowAxis), cols(colAxis);
    const Index* rowIndex = matrix.rowIndex.data();
    const Index* colIndex = matrix.colIndex.data();
    auto add = [&](Index i, Index j) {
        const std::size_t r = static_cast<std::size_t>(std::int64_t(i) - rows.firstCell);
        const std::size_t c = static_cast<std::size_t>(std::int64_t(j) - cols.firstCell);
        if (r >= rows.span || c >= cols.span) return;
        counts.add(static_cast<std::size_t>(rows.binOf(i)) * width + static_cast<std::size_t>(cols.binOf(j)));
    };
    for (std::size_t k = first; k < last; ++k) {
        const Index i = rowIndex[k], j = colIndex[k];
        add(i, j);
        if (Mirrored && i != j) add(j, i);
    }
}

// Bins entries [first, last) into counts (width x height). Indices outside the matrix or the window
// fall outside the axis ranges and are skipped, so bad indices cannot write out of bounds.
void binEntries(const Matrix& matrix, const AxisBins& rows, const AxisBins& cols, int width, std::size_t first,
                std::size_t last, BinCounters* counters) {
    const CounterRefs counts{counters->low.data(), counters->carries.data()};
    const bool mirrored = matrix.symmetry != Symmetry::General;
    const std::size_t w = static_cast<std::size_t>(width);
    if (rows.single && cols.single) {
        // The common, zoomed-out case: arithmetic only, no tables and no inner loops.
        if (mirrored)
            binUniform<true>(matrix, rows, cols, w, first, last, counts);
        else
            binUniform<false>(matrix, rows, cols, w, first, last, counts);
        return;
    }
    const Index* rowIndex = matrix.rowIndex.data();
    const Index* colIndex = matrix.colIndex.data();
    auto add = [&](Index i, Index j) {
        std::int32_t y0, y1, x0, x1;
        if (!rows.bins(i, y0, y1) || !cols.bins(j, x0, x1)) return;
        for (std::int32_t y = y0; y < y1; ++y)
            for (std::int32_t x = x0; x < x1; ++x) counts.add(static_cast<std::size_t>(y) * w + static_cast<std::size_t>(x));
    };
    for (std::size_t k = first; k < last; ++k) {
        const Index i = rowIndex[k], j = colIndex[k];
        add(i, j);
        if (mirrored && i != j) add(j, i);
    }
}

} // namespace

double DensityImage::density(int x, int y) const {
    if (x < 0 || y < 0 || x >= width || y >= height) return 0.0;
    const std::size_t bin = static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x);
    const double cells = cellsPerBin[bin];
    if (cells <= 0.0) return 0.0;
    return std::min(1.0, counts[bin] / cells);
}

DensityImage renderDensity(const Matrix& matrix, const MatrixWindow& window, int width, int height) {
    validate(matrix, window, width, height);
    const AxisBins rows = mapAxis(window.rowBegin, window.rowEnd, matrix.rows, height);
    const AxisBins cols = mapAxis(window.colBegin, window.colEnd, matrix.cols, width);

    DensityImage image;
    image.width = width;
    image.height = height;
    const std::size_t bins = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
    image.counts.assign(bins, 0);
    image.cellsPerBin.resize(bins);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x)
            image.cellsPerBin[static_cast<std::size_t>(y) * width + x] = rows.cellsPerBin[y] * cols.cellsPerBin[x];

    // Private counts per thread (no atomics in the scatter), summed at the end. Small inputs stay on
    // the calling thread: starting threads costs more than binning them.
    const std::size_t stored = matrix.rowIndex.size();
    constexpr std::size_t entriesPerThread = std::size_t(1) << 21;
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    std::size_t threads = std::clamp<std::size_t>(stored / entriesPerThread, 1, std::min(hardware, 4u));
    if (stored / threads < 4 * bins) threads = 1;  // a huge image: clearing and merging would dominate
    std::vector<BinCounters> counters(threads, BinCounters(bins));
    std::vector<std::thread> workers;
    const std::size_t chunk = (stored + threads - 1) / threads;
    for (std::size_t t = 1; t < threads; ++t)
        workers.emplace_back(binEntries, std::cref(matrix), std::cref(rows), std::cref(cols), width,
                             std::min(stored, t * chunk), std::min(stored, (t + 1) * chunk), &counters[t]);
    binEntries(matrix, rows, cols, width, 0, std::min(stored, chunk), &counters[0]);
    for (std::thread& worker : workers) worker.join();
    for (std::size_t b = 0; b < bins; ++b) {
        std::uint64_t count = 0;
        for (const BinCounters& c : counters) count += c.low[b] + 256 * std::uint64_t(c.carries[b]);
        image.counts[b] = static_cast<std::uint32_t>(std::min<std::uint64_t>(count, UINT32_MAX));  // saturate
    }
    image.maxCount = bins ? *std::max_element(image.counts.begin(), image.counts.end()) : 0;
    return image;
}

} // namespace spyglass
