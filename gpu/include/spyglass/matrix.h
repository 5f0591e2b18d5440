#pragma once
// The matrix as a file holds it: the Matrix Market header facts and the stored entries in
// coordinate form (0-based), before any symmetric expansion. Every other format is built from it.
#include <complex>
#include <cstdint>
#include <string>
#include <vector>

namespace spyglass {

enum class Layout { Coordinate, Array };
enum class Field { Real, Double, Integer, Complex, Pattern };
enum class Symmetry { General, Symmetric, SkewSymmetric, Hermitian };

const char* toString(Layout layout);
const char* toString(Field field);
const char* toString(Symmetry symmetry);

using Index = std::int32_t;  // row/column index; sizes up to 2^31-1 per dimension
using Count = std::int64_t;  // entry counts (can exceed 2^31)

struct Matrix {
    Layout layout = Layout::Coordinate;
    Field field = Field::Real;
    Symmetry symmetry = Symmetry::General;
    Index rows = 0;
    Index cols = 0;
    std::vector<std::string> comments;  // header comment lines without the leading '%'

    // Stored entries, 0-based, in file order. For Array layout they are listed column-major
    // (only the lower triangle for symmetric kinds, as the file stores them).
    std::vector<Index> rowIndex;
    std::vector<Index> colIndex;
    std::vector<double> real;  // empty for Pattern; integer values are exact up to 2^53
    std::vector<double> imag;  // only for Complex

    Count stored() const { return static_cast<Count>(rowIndex.size()); }
    bool isPattern() const { return field == Field::Pattern; }
    bool isComplex() const { return field == Field::Complex; }
    // Entries of the full matrix after symmetric expansion (the off-diagonal mirror of each
    // stored entry counts; a skew-symmetric diagonal is zero and is never stored).
    Count expandedEntries() const;
    // The same header (field, shape, comments) in the given layout, general symmetry, no entries:
    // where a conversion that writes every position of the full matrix starts.
    Matrix generalHeader(Layout layout) const;
    // True when every value is 1 (or the field is pattern): a binary matrix.
    bool isBinary() const;
};

// Typed containers. T is float, double, std::complex<float>, std::complex<double>,
// std::int64_t (integer) or std::uint8_t (pattern: values all 1).
template <typename T>
struct CooMatrix {
    Index rows = 0, cols = 0;
    std::vector<Index> rowIndex, colIndex;
    std::vector<T> values;
    Count nnz() const { return static_cast<Count>(values.size()); }
};

template <typename T>
struct CsrMatrix {
    Index rows = 0, cols = 0;
    std::vector<Count> rowPtr;  // rows + 1
    std::vector<Index> colIndex;
    std::vector<T> values;
    Count nnz() const { return static_cast<Count>(values.size()); }
};

// Column-major dense matrix (the layout of Matrix Market arrays, cuBLAS and LAPACK).
template <typename T>
struct DenseMatrix {
    Index rows = 0, cols = 0;
    std::vector<T> values;  // rows * cols, column-major
    T& operator()(Index i, Index j) { return values[static_cast<std::size_t>(j) * rows + i]; }
    const T& operator()(Index i, Index j) const { return values[static_cast<std::size_t>(j) * rows + i]; }
};

} // namespace spyglass
