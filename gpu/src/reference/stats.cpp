// Structural statistics in one pass over the stored entries. The symmetric mirror of each
// off-diagonal entry is accounted for as it is visited, so the expansion is never materialised and
// memory stays O(rows + cols): a row counter, a column-seen bitmap and a diagonal-offset bitmap.
#include "spyglass/stats.h"

#include "spyglass/error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
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

} // namespace

MatrixStats computeStats(const Matrix& matrix) {
    validateEntries(matrix);
    MatrixStats stats;
    stats.rows = matrix.rows;
    stats.cols = matrix.cols;
    stats.stored = matrix.stored();
    stats.field = matrix.field;
    stats.symmetry = matrix.symmetry;
    stats.layout = matrix.layout;

    const bool mirrored = matrix.symmetry != Symmetry::General;
    const std::size_t rows = static_cast<std::size_t>(matrix.rows);
    const std::size_t cols = static_cast<std::size_t>(matrix.cols);
    // Saturating counters: a row can only exceed 2^32 entries through duplicates, and maxRowEntries
    // is an Index anyway.
    std::vector<std::uint32_t> rowEntries(rows, 0);
    std::vector<std::uint8_t> colSeen(cols, 0);
    // Offset j - i ranges over [-(rows-1), cols-1]; slot j - i + rows - 1.
    std::vector<std::uint8_t> diagonalSeen(rows + cols, 0);

    const Index* rowIndex = matrix.rowIndex.data();
    const Index* colIndex = matrix.colIndex.data();
    const std::size_t stored = matrix.rowIndex.size();
    Count nnz = 0;
    Index lower = 0, upper = 0;
    auto bump = [&](Index i) {
        std::uint32_t& count = rowEntries[static_cast<std::size_t>(i)];
        if (count != std::numeric_limits<std::uint32_t>::max()) ++count;
    };
    for (std::size_t k = 0; k < stored; ++k) {
        const Index i = rowIndex[k], j = colIndex[k];
        if (i < 0 || i >= matrix.rows || j < 0 || j >= matrix.cols) throwOutOfRange(matrix, k);
        const std::int64_t offset = std::int64_t(j) - i;
        bump(i);
        colSeen[static_cast<std::size_t>(j)] = 1;
        diagonalSeen[static_cast<std::size_t>(offset + matrix.rows - 1)] = 1;
        ++nnz;
        if (offset > 0) upper = std::max<Index>(upper, static_cast<Index>(offset));
        if (offset < 0) lower = std::max<Index>(lower, static_cast<Index>(-offset));
        if (mirrored && i != j) {
            // The mirror (j, i) of a square matrix: same |offset|, opposite side of the diagonal.
            bump(j);
            colSeen[static_cast<std::size_t>(i)] = 1;
            diagonalSeen[static_cast<std::size_t>(-offset + matrix.rows - 1)] = 1;
            ++nnz;
            const Index distance = static_cast<Index>(offset > 0 ? offset : -offset);
            upper = std::max(upper, distance);
            lower = std::max(lower, distance);
        }
    }
    stats.nnz = nnz;
    stats.lowerBandwidth = lower;
    stats.upperBandwidth = upper;
    stats.bandwidth = std::max(lower, upper);
    stats.density = rows > 0 && cols > 0 ? double(nnz) / (double(rows) * double(cols)) : 0.0;

    std::uint32_t maxRow = 0;
    Index emptyRows = 0;
    for (std::uint32_t count : rowEntries) {
        maxRow = std::max(maxRow, count);
        emptyRows += count == 0;
    }
    stats.maxRowEntries = static_cast<Index>(std::min<std::uint32_t>(maxRow, std::numeric_limits<Index>::max()));
    stats.emptyRows = emptyRows;
    Index emptyCols = 0;
    for (std::uint8_t seen : colSeen) emptyCols += seen == 0;
    stats.emptyCols = emptyCols;
    Count diagonals = 0;
    for (std::uint8_t seen : diagonalSeen) diagonals += seen;
    stats.diagonals = diagonals;

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
