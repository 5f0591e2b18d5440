// Binary patterns: built from the file form (symmetry expanded, values checked to be 1) and back.
#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace spyglass {

namespace {

std::string entryPlace(const Matrix& matrix, std::size_t k) {
    return "entry " + std::to_string(k + 1) + " (row " + std::to_string(matrix.rowIndex[k] + 1) + ", column " +
           std::to_string(matrix.colIndex[k] + 1) + ")";
}

// Counting sort by row, then sort and deduplicate each row: O(nnz + rows) plus the per-row sorts.
BinaryPattern buildPattern(Index rows, Index cols, const std::vector<Index>& rowIndex,
                           const std::vector<Index>& colIndex) {
    BinaryPattern pattern;
    pattern.rows = rows;
    pattern.cols = cols;
    pattern.rowPtr.assign(static_cast<std::size_t>(rows) + 1, 0);
    for (Index r : rowIndex) ++pattern.rowPtr[static_cast<std::size_t>(r) + 1];
    for (Index r = 0; r < rows; ++r) pattern.rowPtr[r + 1] += pattern.rowPtr[r];
    std::vector<Count> next(pattern.rowPtr.begin(), pattern.rowPtr.end() - 1);
    pattern.colIndex.resize(rowIndex.size());
    for (std::size_t k = 0; k < rowIndex.size(); ++k) pattern.colIndex[next[rowIndex[k]]++] = colIndex[k];
    // Sort and drop duplicates row by row, compacting in place.
    Count write = 0;
    for (Index r = 0; r < rows; ++r) {
        const Count begin = pattern.rowPtr[r], end = pattern.rowPtr[r + 1];
        std::sort(pattern.colIndex.begin() + begin, pattern.colIndex.begin() + end);
        pattern.rowPtr[r] = write;
        for (Count k = begin; k < end; ++k)
            if (k == begin || pattern.colIndex[k] != pattern.colIndex[k - 1]) pattern.colIndex[write++] = pattern.colIndex[k];
    }
    pattern.rowPtr[rows] = write;
    pattern.colIndex.resize(static_cast<std::size_t>(write));
    pattern.colIndex.shrink_to_fit();
    return pattern;
}

} // namespace

BinaryPattern binaryPatternFromCoordinates(Index rows, Index cols, const std::vector<Index>& rowIndex,
                                           const std::vector<Index>& colIndex) {
    if (rows < 0 || cols < 0) throw InputError("binary pattern: negative dimensions");
    if (rowIndex.size() != colIndex.size()) throw InputError("binary pattern: row and column index counts differ");
    for (std::size_t k = 0; k < rowIndex.size(); ++k)
        if (rowIndex[k] < 0 || rowIndex[k] >= rows || colIndex[k] < 0 || colIndex[k] >= cols)
            throw InputError("binary pattern: entry " + std::to_string(k + 1) + " (" + std::to_string(rowIndex[k]) + ", " +
                             std::to_string(colIndex[k]) + ") lies outside " + std::to_string(rows) + " x " +
                             std::to_string(cols));
    return buildPattern(rows, cols, rowIndex, colIndex);
}

BinaryPattern binaryPatternFromMatrix(const Matrix& matrix) {
    const std::size_t stored = matrix.rowIndex.size();
    if (matrix.colIndex.size() != stored) throw InputError("binary pattern: row and column index counts differ");
    if (!matrix.isPattern() && matrix.real.size() != stored)
        throw InputError("binary pattern: " + std::to_string(matrix.real.size()) + " values for " +
                         std::to_string(stored) + " entries");
    const bool mirrored = matrix.symmetry != Symmetry::General;
    std::vector<Index> rows, cols;
    rows.reserve(mirrored ? 2 * stored : stored);
    cols.reserve(rows.capacity());
    for (std::size_t k = 0; k < stored; ++k) {
        if (!matrix.isPattern()) {
            const double value = matrix.real[k];
            const double imag = matrix.isComplex() && k < matrix.imag.size() ? matrix.imag[k] : 0.0;
            if (matrix.layout == Layout::Array && value == 0.0 && imag == 0.0) continue;  // arrays list their zeros
            if (value != 1.0 || imag != 0.0)
                throw InputError("not a binary matrix: " + entryPlace(matrix, k) + " has value " + std::to_string(value) +
                                 (imag != 0.0 ? " + " + std::to_string(imag) + "i" : std::string()) +
                                 "; the hybrid encoding needs every value to be 1");
            if (matrix.symmetry == Symmetry::SkewSymmetric)
                throw InputError("not a binary matrix: skew-symmetric " + entryPlace(matrix, k) +
                                 " mirrors to -1; the hybrid encoding needs every value to be 1");
        }
        const Index i = matrix.rowIndex[k], j = matrix.colIndex[k];
        if (i < 0 || i >= matrix.rows || j < 0 || j >= matrix.cols)
            throw InputError("binary pattern: " + entryPlace(matrix, k) + " lies outside the matrix");
        rows.push_back(i);
        cols.push_back(j);
        if (mirrored && i != j) {
            rows.push_back(j);
            cols.push_back(i);
        }
    }
    return buildPattern(matrix.rows, matrix.cols, rows, cols);
}

Matrix matrixFromBinaryPattern(const BinaryPattern& pattern) {
    Matrix matrix;
    matrix.layout = Layout::Coordinate;
    matrix.field = Field::Pattern;
    matrix.symmetry = Symmetry::General;
    matrix.rows = pattern.rows;
    matrix.cols = pattern.cols;
    matrix.rowIndex.reserve(pattern.colIndex.size());
    matrix.colIndex = pattern.colIndex;
    for (Index r = 0; r < pattern.rows; ++r)
        for (Count k = pattern.rowPtr[r]; k < pattern.rowPtr[r + 1]; ++k) matrix.rowIndex.push_back(r);
    return matrix;
}

} // namespace spyglass
