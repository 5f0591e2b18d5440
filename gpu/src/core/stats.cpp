// Structural statistics in one pass over the stored entries. The symmetric mirror of each
// off-diagonal entry is accounted for as it is visited, so the expansion is never materialised and
// memory stays O(rows + cols): a row counter, a column-seen bitmap and a diagonal-offset bitmap.
#include "spyglass/stats.h"

#include "spyglass/error.h"
#include "spyglass/hostmemory.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
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
    void merge(const Bitmap& other) {
        for (std::size_t w = 0; w < m_words.size(); ++w) m_words[w] |= other.m_words[w];
    }
    std::size_t count() const {
        std::size_t n = 0;
        for (std::uint64_t word : m_words) n += static_cast<std::size_t>(__builtin_popcountll(word));
        return n;
    }

private:
    std::vector<std::uint64_t> m_words;
};

// What one thread learns from a slice of the entries.
struct Partial {
    // Entries per row split into a hot byte and a cold carry (count = low + 256 * carry): the randomly
    // touched array is a quarter of 32-bit counters, so for millions of rows far fewer cache misses.
    std::vector<std::uint8_t> rowLow;
    std::vector<std::uint32_t> rowCarry;
    Bitmap colSeen;
    Bitmap diagonalSeen;  // offset j - i in [-(rows-1), cols-1] at bit j - i + rows - 1
    Count nnz = 0;
    Index lower = 0, upper = 0;
    std::size_t firstOutside = std::numeric_limits<std::size_t>::max();  // first entry outside the matrix

    explicit Partial(const Matrix& matrix)
        : rowLow(static_cast<std::size_t>(matrix.rows), 0), rowCarry(static_cast<std::size_t>(matrix.rows), 0),
          colSeen(static_cast<std::size_t>(matrix.cols)),
          diagonalSeen(static_cast<std::size_t>(matrix.rows) + static_cast<std::size_t>(matrix.cols)) {}
};

// Mirrored is a template parameter so that the general case carries no test for it per entry.
template <bool Mirrored>
void scanEntries(const Matrix& matrix, std::size_t first, std::size_t last, Partial& partial) {
    const Index* rowIndex = matrix.rowIndex.data();
    const Index* colIndex = matrix.colIndex.data();
    std::uint8_t* rowLow = partial.rowLow.data();
    std::uint32_t* rowCarry = partial.rowCarry.data();
    Bitmap& colSeen = partial.colSeen;
    Bitmap& diagonalSeen = partial.diagonalSeen;
    const std::int64_t diagonalBase = std::int64_t(matrix.rows) - 1;
    const auto rows = static_cast<std::uint32_t>(matrix.rows), cols = static_cast<std::uint32_t>(matrix.cols);
    Count nnz = 0;
    Index lower = 0, upper = 0;
    auto bump = [rowLow, rowCarry](Index i) {
        if (++rowLow[i] == 0) ++rowCarry[i];
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

void scanSlice(const Matrix& matrix, std::size_t first, std::size_t last, Partial& partial) {
    if (matrix.symmetry == Symmetry::General)
        scanEntries<false>(matrix, first, last, partial);
    else
        scanEntries<true>(matrix, first, last, partial);
}

void mergeInto(Partial& total, const Partial& part) {
    for (std::size_t r = 0; r < total.rowLow.size(); ++r) {
        const unsigned low = unsigned(total.rowLow[r]) + part.rowLow[r];
        total.rowLow[r] = static_cast<std::uint8_t>(low & 255);
        total.rowCarry[r] += part.rowCarry[r] + (low >> 8);
    }
    total.colSeen.merge(part.colSeen);
    total.diagonalSeen.merge(part.diagonalSeen);
    total.nnz += part.nnz;
    total.lower = std::max(total.lower, part.lower);
    total.upper = std::max(total.upper, part.upper);
    total.firstOutside = std::min(total.firstOutside, part.firstOutside);
}

} // namespace

MatrixStats computeStats(const Matrix& matrix) {
    validateEntries(matrix);
    // The counters below are sized by the header, which a tiny file can set to 2^31 rows: refuse what
    // could never fit before zero-filling it (5 bytes per row, a bit per column and per diagonal).
    requireHostMemory(5 * std::uint64_t(matrix.rows) + (2 * std::uint64_t(matrix.rows) + 2 * std::uint64_t(matrix.cols)) / 8,
                      "statistics of a " + std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols) + " matrix");
    MatrixStats stats;
    stats.rows = matrix.rows;
    stats.cols = matrix.cols;
    stats.stored = matrix.stored();
    stats.field = matrix.field;
    stats.symmetry = matrix.symmetry;
    stats.layout = matrix.layout;

    const std::size_t stored = matrix.rowIndex.size();
    const Index* rowIndex = matrix.rowIndex.data();
    const Index* colIndex = matrix.colIndex.data();

    // Each thread scans a slice into private counters (no atomics), merged in O(rows + cols) each.
    // Only worth it when the slice is much longer than the counters are.
    const std::size_t counters = static_cast<std::size_t>(matrix.rows) + static_cast<std::size_t>(matrix.cols);
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    std::size_t threads = std::min<std::size_t>(std::min(hardware, 4u), stored / (std::size_t(1) << 21));
    if (threads > 1 && stored / threads < 4 * counters) threads = 1;
    threads = std::max<std::size_t>(threads, 1);
    Partial total(matrix);
    if (threads == 1) {
        scanSlice(matrix, 0, stored, total);
    } else {
        std::vector<Partial> parts(threads - 1, Partial(matrix));
        std::vector<std::thread> workers;
        const std::size_t chunk = (stored + threads - 1) / threads;
        for (std::size_t t = 1; t < threads; ++t)
            workers.emplace_back(scanSlice, std::cref(matrix), std::min(stored, t * chunk),
                                 std::min(stored, (t + 1) * chunk), std::ref(parts[t - 1]));
        scanSlice(matrix, 0, std::min(stored, chunk), total);
        for (std::thread& worker : workers) worker.join();
        for (const Partial& part : parts) mergeInto(total, part);
    }
    if (total.firstOutside < stored) throwOutOfRange(matrix, total.firstOutside);

    stats.nnz = total.nnz;
    stats.lowerBandwidth = total.lower;
    stats.upperBandwidth = total.upper;
    stats.bandwidth = std::max(total.lower, total.upper);
    const std::size_t rows = static_cast<std::size_t>(matrix.rows), cols = static_cast<std::size_t>(matrix.cols);
    stats.density = rows > 0 && cols > 0 ? double(total.nnz) / (double(rows) * double(cols)) : 0.0;

    std::uint64_t maxRow = 0;
    Index emptyRows = 0;
    for (std::size_t r = 0; r < total.rowLow.size(); ++r) {
        const std::uint64_t count = total.rowLow[r] + 256 * std::uint64_t(total.rowCarry[r]);
        maxRow = std::max(maxRow, count);
        emptyRows += count == 0;
    }
    // Only duplicates could take a row past the Index range: saturate.
    stats.maxRowEntries = static_cast<Index>(std::min<std::uint64_t>(maxRow, std::numeric_limits<Index>::max()));
    stats.emptyRows = emptyRows;
    stats.emptyCols = matrix.cols - static_cast<Index>(total.colSeen.count());
    stats.diagonals = static_cast<Count>(total.diagonalSeen.count());

    // Values: a skew-symmetric mirror is -v, so any stored off-diagonal value makes it non-binary;
    // a Hermitian mirror is conj(v), which is 1 exactly when v is 1.
    bool binary = true, nonFinite = false;
    if (!matrix.isPattern()) {
        for (double v : matrix.real) {
            binary = binary && v == 1.0;
            nonFinite = nonFinite || !std::isfinite(v);
        }
        for (double v : matrix.imag) {
            binary = binary && v == 0.0;
            nonFinite = nonFinite || !std::isfinite(v);
        }
        if (matrix.symmetry == Symmetry::SkewSymmetric) {
            for (std::size_t k = 0; k < stored && binary; ++k)
                if (rowIndex[k] != colIndex[k]) binary = false;
        }
    }
    stats.binary = binary;
    stats.hasNonFinite = nonFinite;
    return stats;
}

} // namespace spyglass
