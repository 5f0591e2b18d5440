// Structural statistics in one pass over the stored entries. The symmetric mirror of each
// off-diagonal entry is accounted for as it is visited, so the expansion is never materialised and
// memory stays O(rows + cols) per thread: a row counter, a column-seen bitmap and a diagonal-offset
// bitmap. Threads scan slices of the entries, then merge by ranges of rows: no pass over all entries
// or all rows runs on one thread.
#include "spyglass/stats.h"

#include "core/parallel_ranges.h"

#include "spyglass/error.h"
#include "spyglass/hostmemory.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <exception>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

namespace spyglass {

namespace {

void validateEntries(const Matrix& matrix) {
    if (matrix.rows < 0 || matrix.cols < 0)
        throw InputError("matrix has a negative size " + std::to_string(matrix.rows) + " x " +
                         std::to_string(matrix.cols));
    const std::size_t stored = matrix.rowIndex.size();
    if (matrix.colIndex.size() != stored)
        throw InputError("matrix has " + std::to_string(stored) + " row indices but " +
                         std::to_string(matrix.colIndex.size()) + " column indices");
    const std::size_t expectedReal = matrix.isPattern() ? 0 : stored;
    if (matrix.real.size() != expectedReal)
        throw InputError("matrix has " + std::to_string(matrix.real.size()) + " values for " + std::to_string(stored) +
                         " entries of field " + toString(matrix.field));
    const std::size_t expectedImag = matrix.isComplex() ? stored : 0;
    if (matrix.imag.size() != expectedImag)
        throw InputError("matrix has " + std::to_string(matrix.imag.size()) + " imaginary parts for " +
                         std::to_string(stored) + " entries of field " + toString(matrix.field));
    if (matrix.symmetry != Symmetry::General && matrix.rows != matrix.cols)
        throw InputError(std::string(toString(matrix.symmetry)) + " matrix is not square: " +
                         std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols));
}

[[noreturn]] void throwOutOfRange(const Matrix& matrix, std::size_t k) {
    throw InputError("entry " + std::to_string(k + 1) + " at (" + std::to_string(matrix.rowIndex[k]) + ", " +
                     std::to_string(matrix.colIndex[k]) + ") (0-based) lies outside the " +
                     std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols) + " matrix");
}

// One bit per column or diagonal: 8 times smaller than bytes, so for millions of columns the
// randomly touched set stays in cache.
class Bitmap {
public:
    explicit Bitmap(std::size_t bits) : m_words((bits + 63) / 64, 0) {}
    void set(std::size_t bit) { m_words[bit >> 6] |= std::uint64_t(1) << (bit & 63); }
    std::size_t words() const { return m_words.size(); }
    std::uint64_t word(std::size_t w) const { return m_words[w]; }

private:
    std::vector<std::uint64_t> m_words;
};

// What one thread learns from a slice of the entries. Built on that thread, so its counters are
// zero-filled (first touched) there and every thread pays for its own.
struct Partial {
    // Entries per row, modulo 256: a byte per row keeps the randomly touched array small. Each time a
    // row's byte wraps, the row is listed in `wrapped` (worth 256 entries): rare, as a row needs 256
    // entries in one slice.
    std::vector<std::uint8_t> rowLow;
    std::vector<Index> wrapped;
    Bitmap colSeen;
    Bitmap diagonalSeen;  // offset j - i in [-(rows-1), cols-1] at bit j - i + rows - 1
    Count nnz = 0;
    Index lower = 0, upper = 0;
    std::size_t firstOutside = std::numeric_limits<std::size_t>::max();  // first entry outside the matrix
    bool realAllOne = true, imagAllZero = true, nonFinite = false, offDiagonal = false;

    explicit Partial(const Matrix& matrix)
        : rowLow(static_cast<std::size_t>(matrix.rows), 0), colSeen(static_cast<std::size_t>(matrix.cols)),
          diagonalSeen(static_cast<std::size_t>(matrix.rows) + static_cast<std::size_t>(matrix.cols)) {}
};

// Mirrored is a template parameter so that the general case carries no test for it per entry.
template <bool Mirrored>
void scanEntries(const Matrix& matrix, std::size_t first, std::size_t last, Partial& partial) {
    const Index* rowIndex = matrix.rowIndex.data();
    const Index* colIndex = matrix.colIndex.data();
    std::uint8_t* rowLow = partial.rowLow.data();
    std::vector<Index>& wrapped = partial.wrapped;
    Bitmap& colSeen = partial.colSeen;
    Bitmap& diagonalSeen = partial.diagonalSeen;
    const std::int64_t diagonalBase = std::int64_t(matrix.rows) - 1;
    const auto rows = static_cast<std::uint32_t>(matrix.rows), cols = static_cast<std::uint32_t>(matrix.cols);
    Count nnz = 0;
    Index lower = 0, upper = 0;
    auto bump = [rowLow, &wrapped](Index i) {
        if (++rowLow[i] == 0) wrapped.push_back(i);
    };
    for (std::size_t k = first; k < last; ++k) {
        const Index i = rowIndex[k], j = colIndex[k];
        // One unsigned compare also rejects negative indices.
        if (static_cast<std::uint32_t>(i) >= rows || static_cast<std::uint32_t>(j) >= cols) {
            partial.firstOutside = std::min(partial.firstOutside, k);
            continue;
        }
        const Index offset = j - i;  // cannot overflow: both lie in [0, 2^31)
        bump(i);
        colSeen.set(static_cast<std::size_t>(j));
        diagonalSeen.set(static_cast<std::size_t>(diagonalBase + offset));
        ++nnz;
        upper = std::max(upper, offset);
        lower = std::max(lower, -offset);
        if (Mirrored && i != j) {
            // The mirror (j, i) of a square matrix: same distance, other side of the diagonal.
            bump(j);
            colSeen.set(static_cast<std::size_t>(i));
            diagonalSeen.set(static_cast<std::size_t>(diagonalBase - offset));
            ++nnz;
            const Index distance = offset > 0 ? offset : -offset;
            upper = std::max(upper, distance);
            lower = std::max(lower, distance);
        }
    }
    partial.nnz += nnz;
    partial.lower = std::max(partial.lower, lower);
    partial.upper = std::max(partial.upper, upper);
}

void scanValues(const Matrix& matrix, std::size_t first, std::size_t last, Partial& partial) {
    if (matrix.isPattern()) return;
    bool allOne = true, nonFinite = false;
    for (std::size_t k = first; k < last; ++k) {
        const double v = matrix.real[k];
        allOne = allOne && v == 1.0;
        nonFinite = nonFinite || !std::isfinite(v);
    }
    bool allZero = true;
    if (matrix.isComplex()) {
        for (std::size_t k = first; k < last; ++k) {
            const double v = matrix.imag[k];
            allZero = allZero && v == 0.0;
            nonFinite = nonFinite || !std::isfinite(v);
        }
    }
    bool offDiagonal = false;
    if (matrix.symmetry == Symmetry::SkewSymmetric) {
        for (std::size_t k = first; k < last && !offDiagonal; ++k) offDiagonal = matrix.rowIndex[k] != matrix.colIndex[k];
    }
    partial.realAllOne = allOne;
    partial.imagAllZero = allZero;
    partial.nonFinite = nonFinite;
    partial.offDiagonal = offDiagonal;
}

void scanSlice(const Matrix& matrix, std::size_t first, std::size_t last, Partial& partial) {
    if (matrix.symmetry == Symmetry::General)
        scanEntries<false>(matrix, first, last, partial);
    else
        scanEntries<true>(matrix, first, last, partial);
    scanValues(matrix, first, last, partial);
}

// The per-row and per-bit results of all partials, for one range of rows and of bitmap words: the
// merge is split across the threads too, so no pass over all rows runs on one thread.
struct Merged {
    std::uint64_t maxRow = 0;
    Index emptyRows = 0;
    std::size_t colsSeen = 0, diagonals = 0;
};

std::pair<std::size_t, std::size_t> rangeOf(std::size_t size, std::size_t part, std::size_t parts) {
    const std::size_t chunk = (size + parts - 1) / parts;
    return {std::min(size, part * chunk), std::min(size, (part + 1) * chunk)};
}

void mergeRange(const std::vector<std::unique_ptr<Partial>>& parts, std::size_t part, std::size_t count, Merged& merged) {
    const auto [firstRow, lastRow] = rangeOf(parts.front()->rowLow.size(), part, count);
    for (std::size_t r = firstRow; r < lastRow; ++r) {
        std::uint64_t sum = 0;
        for (const auto& p : parts) sum += p->rowLow[r];
        merged.maxRow = std::max(merged.maxRow, sum);
        merged.emptyRows += sum == 0;
    }
    auto countBits = [&](const Bitmap Partial::*bitmap) {
        const auto [firstWord, lastWord] = rangeOf((parts.front().get()->*bitmap).words(), part, count);
        std::size_t bits = 0;
        for (std::size_t w = firstWord; w < lastWord; ++w) {
            std::uint64_t word = 0;
            for (const auto& p : parts) word |= (p.get()->*bitmap).word(w);
            bits += static_cast<std::size_t>(__builtin_popcountll(word));
        }
        return bits;
    };
    merged.colsSeen = countBits(&Partial::colSeen);
    merged.diagonals = countBits(&Partial::diagonalSeen);
}

// The statistics' threads (out of memory is what they throw, mostly).
using parallel::onThreads;

// Counters of one thread in bytes: a byte per row, a bit per column and per diagonal.
std::uint64_t counterBytes(const Matrix& matrix) {
    return std::uint64_t(matrix.rows) + (2 * std::uint64_t(matrix.rows) + 2 * std::uint64_t(matrix.cols)) / 8 + 64;
}

// Each thread costs its own counters (zeroed and merged on that thread, so the wall time of that is
// one thread's share): worth it unless the counters outweigh the entries themselves.
std::size_t automaticThreads(const Matrix& matrix) {
    const std::size_t stored = matrix.rowIndex.size();
    const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
    const std::size_t byEntries = stored / (std::size_t(1) << 16);
    const std::uint64_t entryBytes = 8 * std::uint64_t(stored);
    const std::size_t byMemory = static_cast<std::size_t>(entryBytes / counterBytes(matrix));
    return std::max<std::size_t>(1, std::min({hardware, byEntries, byMemory}));
}

} // namespace

unsigned automaticStatsThreads(const Matrix& matrix) { return static_cast<unsigned>(automaticThreads(matrix)); }

MatrixStats computeStats(const Matrix& matrix, unsigned threadCount) {
    validateEntries(matrix);
    // The counters below are sized by the header, which a tiny file can set to 2^31 rows: refuse what
    // could never fit before zero-filling it (a byte per row, a bit per column and per diagonal).
    requireHostMemory(counterBytes(matrix), "statistics of a " + std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols) + " matrix");
    MatrixStats stats;
    stats.rows = matrix.rows;
    stats.cols = matrix.cols;
    stats.stored = matrix.stored();
    stats.field = matrix.field;
    stats.symmetry = matrix.symmetry;
    stats.layout = matrix.layout;

    const std::size_t stored = matrix.rowIndex.size();
    const std::size_t threads = threadCount > 0 ? threadCount : automaticThreads(matrix);
    if (threads > 1)
        requireHostMemory(threads * counterBytes(matrix), "statistics of a " + std::to_string(matrix.rows) + " x " +
                                                              std::to_string(matrix.cols) + " matrix on " +
                                                              std::to_string(threads) + " threads");

    // Each thread scans a slice of the entries into private counters (no atomics); then each merges
    // one range of rows and bitmap words across all of them.
    std::vector<std::unique_ptr<Partial>> parts(threads);
    onThreads(threads, [&](std::size_t t) {
        parts[t] = std::make_unique<Partial>(matrix);
        const auto [first, last] = rangeOf(stored, t, threads);
        scanSlice(matrix, first, last, *parts[t]);
    });
    Count nnz = 0;
    Index lower = 0, upper = 0;
    std::size_t firstOutside = std::numeric_limits<std::size_t>::max();
    bool realAllOne = true, imagAllZero = true, nonFinite = false, offDiagonal = false;
    for (const auto& p : parts) {
        nnz += p->nnz;
        lower = std::max(lower, p->lower);
        upper = std::max(upper, p->upper);
        firstOutside = std::min(firstOutside, p->firstOutside);
        realAllOne = realAllOne && p->realAllOne;
        imagAllZero = imagAllZero && p->imagAllZero;
        nonFinite = nonFinite || p->nonFinite;
        offDiagonal = offDiagonal || p->offDiagonal;
    }
    if (firstOutside < stored) throwOutOfRange(matrix, firstOutside);

    std::vector<Merged> merged(threads);
    onThreads(threads, [&](std::size_t t) { mergeRange(parts, t, threads, merged[t]); });
    std::uint64_t maxRow = 0;
    Index emptyRows = 0;
    std::size_t colsSeen = 0, diagonals = 0;
    for (const Merged& m : merged) {
        maxRow = std::max(maxRow, m.maxRow);
        emptyRows += m.emptyRows;
        colsSeen += m.colsSeen;
        diagonals += m.diagonals;
    }
    // Rows whose byte wrapped hold 256 more entries per wrap than the bytes say (and are not empty).
    std::vector<Index> wrapped;
    for (const auto& p : parts) wrapped.insert(wrapped.end(), p->wrapped.begin(), p->wrapped.end());
    std::sort(wrapped.begin(), wrapped.end());
    for (std::size_t w = 0; w < wrapped.size();) {
        const Index row = wrapped[w];
        std::size_t end = w;
        while (end < wrapped.size() && wrapped[end] == row) ++end;
        std::uint64_t low = 0;
        for (const auto& p : parts) low += p->rowLow[static_cast<std::size_t>(row)];
        maxRow = std::max(maxRow, low + 256 * std::uint64_t(end - w));
        emptyRows -= low == 0;
        w = end;
    }

    stats.nnz = nnz;
    stats.lowerBandwidth = lower;
    stats.upperBandwidth = upper;
    stats.bandwidth = std::max(lower, upper);
    const std::size_t rows = static_cast<std::size_t>(matrix.rows), cols = static_cast<std::size_t>(matrix.cols);
    stats.density = rows > 0 && cols > 0 ? double(nnz) / (double(rows) * double(cols)) : 0.0;
    // Only duplicates could take a row past the Index range: saturate.
    stats.maxRowEntries = static_cast<Index>(std::min<std::uint64_t>(maxRow, std::numeric_limits<Index>::max()));
    stats.emptyRows = emptyRows;
    stats.emptyCols = matrix.cols - static_cast<Index>(colsSeen);
    stats.diagonals = static_cast<Count>(diagonals);

    // Values: a skew-symmetric mirror is -v, so any stored off-diagonal value makes it non-binary;
    // a Hermitian mirror is conj(v), which is 1 exactly when v is 1.
    const bool binary = matrix.isPattern() || (realAllOne && imagAllZero && !offDiagonal);
    stats.binary = binary;
    stats.hasNonFinite = !matrix.isPattern() && nonFinite;
    return stats;
}

void noteDistinctEntries(MatrixStats& stats, const DistinctEntriesReport& report) {
    stats.distinct = report;
    stats.stored += report.removed();
    if (report.wasArray) stats.layout = Layout::Array;
}

} // namespace spyglass
