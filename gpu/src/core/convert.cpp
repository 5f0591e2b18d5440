// Conversions between the file form and the typed containers. Plain sequential code: it is the
// CPU path and the oracle the GPU formats are tested against.
#include "spyglass/convert.h"
#include "array_positions.h"

#include "spyglass/error.h"

#include <cmath>
#include <complex>
#include <cstdint>
#include <new>
#include <string>
#include <type_traits>

namespace spyglass {
namespace {

template <typename T> struct IsComplex : std::false_type {};
template <typename T> struct IsComplex<std::complex<T>> : std::true_type {};

// uint8 is the pattern type: a stored entry is a 1, and duplicates stay 1 (structure, not counts).
template <typename T> constexpr bool kIsPatternType = std::is_same_v<T, std::uint8_t>;

template <typename T> void accumulate(T& target, const T& value) {
    if constexpr (kIsPatternType<T>) {
        target = 1;
    } else {
        target += value;
    }
}

std::string position(Index row, Index col) {
    return "(" + std::to_string(row + 1) + "," + std::to_string(col + 1) + ")";
}

void validate(const Matrix& m) {
    if (m.rows < 0 || m.cols < 0) {
        throw InputError("matrix has negative size " + std::to_string(m.rows) + " x " + std::to_string(m.cols));
    }
    const std::size_t n = m.rowIndex.size();
    if (m.colIndex.size() != n) {
        throw InputError("matrix has " + std::to_string(n) + " row indices but " + std::to_string(m.colIndex.size()) +
                         " column indices");
    }
    if (m.field != Field::Pattern && m.real.size() != n) {
        throw InputError("matrix has " + std::to_string(n) + " entries but " + std::to_string(m.real.size()) +
                         " values");
    }
    if (m.field == Field::Complex && m.imag.size() != n) {
        throw InputError("complex matrix has " + std::to_string(n) + " entries but " +
                         std::to_string(m.imag.size()) + " imaginary parts");
    }
    if (m.symmetry != Symmetry::General && m.rows != m.cols) {
        throw InputError(std::string(toString(m.symmetry)) + " matrix is not square");
    }
    for (std::size_t k = 0; k < n; ++k) {
        if (m.rowIndex[k] < 0 || m.rowIndex[k] >= m.rows || m.colIndex[k] < 0 || m.colIndex[k] >= m.cols) {
            throw InputError("entry " + std::to_string(k) + " at " + position(m.rowIndex[k], m.colIndex[k]) +
                             " lies outside the " + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                             " matrix");
        }
    }
}

template <typename T> T valueOf(const Matrix& m, std::size_t k) {
    if constexpr (kIsPatternType<T>) {
        (void)m;
        (void)k;
        return T(1);
    } else if constexpr (IsComplex<T>::value) {
        using R = typename T::value_type;
        if (m.field == Field::Pattern) {
            return T(R(1), R(0));
        }
        return T(static_cast<R>(m.real[k]), m.field == Field::Complex ? static_cast<R>(m.imag[k]) : R(0));
    } else {
        if (m.field == Field::Pattern) {
            return T(1);
        }
        if constexpr (std::is_integral_v<T>) {
            const double v = m.real[k];
            if (!(std::floor(v) == v) || std::fabs(v) > 9.2e18) {
                throw InputError("value " + std::to_string(v) + " at " + position(m.rowIndex[k], m.colIndex[k]) +
                                 " is not an integer");
            }
            return static_cast<T>(v);
        } else {
            return static_cast<T>(m.real[k]);
        }
    }
}

template <typename T> T mirrorOf(const T& value, Symmetry symmetry) {
    if constexpr (kIsPatternType<T>) {
        (void)symmetry;
        return value;
    } else {
        if (symmetry == Symmetry::SkewSymmetric) {
            return -value;
        }
        if constexpr (IsComplex<T>::value) {
            if (symmetry == Symmetry::Hermitian) {
                return std::conj(value);
            }
        }
        return value;
    }
}

template <typename T> void requireRealTargetFits(const Matrix& m) {
    if constexpr (!IsComplex<T>::value && !kIsPatternType<T>) {
        if (m.field == Field::Complex) {
            throw InputError("a complex matrix cannot be converted to a real type; use a complex type");
        }
    }
}

template <typename T> Field fieldFor() {
    if constexpr (kIsPatternType<T>) {
        return Field::Pattern;
    } else if constexpr (IsComplex<T>::value) {
        return Field::Complex;
    } else if constexpr (std::is_integral_v<T>) {
        return Field::Integer;
    } else {
        return Field::Real;
    }
}

template <typename T> void appendValue(Matrix& m, const T& value) {
    if constexpr (kIsPatternType<T>) {
        (void)m;
        (void)value;
    } else if constexpr (IsComplex<T>::value) {
        m.real.push_back(static_cast<double>(value.real()));
        m.imag.push_back(static_cast<double>(value.imag()));
    } else {
        m.real.push_back(static_cast<double>(value));
    }
}

template <typename T> bool isExactZero(const T& value) {
    return value == T(0);
}

template <typename T> std::vector<T> allocateDense(Index rows, Index cols) {
    const std::size_t count = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
    try {
        return std::vector<T>(count, T(0));
    } catch (const std::bad_alloc&) {
        throw OutOfMemoryError("dense " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix needs " +
                                   std::to_string(count * sizeof(T)) + " bytes of host memory",
                               __FILE__, __LINE__);
    }
}

} // namespace

Matrix expandSymmetry(const Matrix& matrix) {
    validate(matrix);
    Matrix out = matrix.generalHeader(Layout::Coordinate);
    const auto total = static_cast<std::size_t>(matrix.expandedEntries());
    out.rowIndex.reserve(total);
    out.colIndex.reserve(total);
    const bool hasReal = matrix.field != Field::Pattern;
    const bool hasImag = matrix.field == Field::Complex;
    if (hasReal) {
        out.real.reserve(total);
    }
    if (hasImag) {
        out.imag.reserve(total);
    }
    const bool mirror = matrix.symmetry != Symmetry::General;
    for (std::size_t k = 0; k < matrix.rowIndex.size(); ++k) {
        const Index i = matrix.rowIndex[k];
        const Index j = matrix.colIndex[k];
        out.rowIndex.push_back(i);
        out.colIndex.push_back(j);
        if (hasReal) {
            out.real.push_back(matrix.real[k]);
        }
        if (hasImag) {
            out.imag.push_back(matrix.imag[k]);
        }
        if (mirror && i != j) {
            out.rowIndex.push_back(j);
            out.colIndex.push_back(i);
            if (hasReal) {
                out.real.push_back(matrix.symmetry == Symmetry::SkewSymmetric ? -matrix.real[k] : matrix.real[k]);
            }
            if (hasImag) {
                const bool negate = matrix.symmetry == Symmetry::SkewSymmetric || matrix.symmetry == Symmetry::Hermitian;
                out.imag.push_back(negate ? -matrix.imag[k] : matrix.imag[k]);
            }
        }
    }
    return out;
}

template <typename T> CooMatrix<T> toCoo(const Matrix& matrix) {
    validate(matrix);
    requireRealTargetFits<T>(matrix);
    CooMatrix<T> coo;
    coo.rows = matrix.rows;
    coo.cols = matrix.cols;
    const auto total = static_cast<std::size_t>(matrix.expandedEntries());
    coo.rowIndex.reserve(total);
    coo.colIndex.reserve(total);
    coo.values.reserve(total);
    const bool mirror = matrix.symmetry != Symmetry::General;
    for (std::size_t k = 0; k < matrix.rowIndex.size(); ++k) {
        const Index i = matrix.rowIndex[k];
        const Index j = matrix.colIndex[k];
        const T value = valueOf<T>(matrix, k);
        coo.rowIndex.push_back(i);
        coo.colIndex.push_back(j);
        coo.values.push_back(value);
        if (mirror && i != j) {
            coo.rowIndex.push_back(j);
            coo.colIndex.push_back(i);
            coo.values.push_back(mirrorOf(value, matrix.symmetry));
        }
    }
    return coo;
}

namespace {

// One stable counting sort: entryAt(0), entryAt(1), ... (indices into keys, each once) ordered by
// keys[entry] in [0, keyCount), in O(entries + keyCount).
template <typename EntryAt>
std::vector<std::size_t> countingSortBy(const std::vector<Index>& keys, Index keyCount, EntryAt entryAt) {
    const std::size_t n = keys.size();
    std::vector<Count> start(static_cast<std::size_t>(keyCount) + 1, 0);
    for (std::size_t k = 0; k < n; ++k) {
        ++start[static_cast<std::size_t>(keys[k]) + 1];
    }
    for (std::size_t key = 0; key < static_cast<std::size_t>(keyCount); ++key) {
        start[key + 1] += start[key];
    }
    std::vector<std::size_t> sorted(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t k = entryAt(i);
        sorted[static_cast<std::size_t>(start[static_cast<std::size_t>(keys[k])]++)] = k;
    }
    return sorted;
}

} // namespace

template <typename T> CsrMatrix<T> cooToCsr(const CooMatrix<T>& coo) {
    const std::size_t n = coo.values.size();
    if (coo.rowIndex.size() != n || coo.colIndex.size() != n || coo.rows < 0 || coo.cols < 0) {
        throw InputError("COO matrix has inconsistent sizes");
    }
    for (std::size_t k = 0; k < n; ++k) {
        if (coo.rowIndex[k] < 0 || coo.rowIndex[k] >= coo.rows || coo.colIndex[k] < 0 || coo.colIndex[k] >= coo.cols) {
            throw InputError("COO entry " + std::to_string(k) + " at " + position(coo.rowIndex[k], coo.colIndex[k]) +
                             " lies outside the " + std::to_string(coo.rows) + " x " + std::to_string(coo.cols) +
                             " matrix");
        }
    }
    // Two stable counting sorts (by column, then by row) give row-major order with sorted columns
    // in O(nnz + rows + cols), after which duplicates are adjacent and summed.
    const std::vector<std::size_t> byColumn = countingSortBy(coo.colIndex, coo.cols, [](std::size_t k) { return k; });
    const std::vector<std::size_t> order = countingSortBy(coo.rowIndex, coo.rows, [&](std::size_t k) { return byColumn[k]; });

    CsrMatrix<T> csr;
    csr.rows = coo.rows;
    csr.cols = coo.cols;
    csr.rowPtr.assign(static_cast<std::size_t>(coo.rows) + 1, 0);
    csr.colIndex.reserve(n);
    csr.values.reserve(n);
    std::size_t k = 0;
    for (Index r = 0; r < coo.rows; ++r) {
        Index lastColumn = -1;
        while (k < n && coo.rowIndex[order[k]] == r) {
            const std::size_t e = order[k++];
            if (coo.colIndex[e] == lastColumn) {
                accumulate(csr.values.back(), coo.values[e]);
            } else {
                lastColumn = coo.colIndex[e];
                csr.colIndex.push_back(lastColumn);
                csr.values.push_back(coo.values[e]);
            }
        }
        csr.rowPtr[static_cast<std::size_t>(r) + 1] = static_cast<Count>(csr.values.size());
    }
    return csr;
}

template <typename T> CsrMatrix<T> toCsr(const Matrix& matrix) {
    return cooToCsr(toCoo<T>(matrix));
}

template <typename T> DenseMatrix<T> toDense(const Matrix& matrix) {
    const CooMatrix<T> coo = toCoo<T>(matrix);
    DenseMatrix<T> dense;
    dense.rows = coo.rows;
    dense.cols = coo.cols;
    dense.values = allocateDense<T>(coo.rows, coo.cols);
    for (std::size_t k = 0; k < coo.values.size(); ++k) {
        accumulate(dense(coo.rowIndex[k], coo.colIndex[k]), coo.values[k]);
    }
    return dense;
}

template <typename T> CooMatrix<T> csrToCoo(const CsrMatrix<T>& csr) {
    if (csr.rows < 0 || csr.rowPtr.size() != static_cast<std::size_t>(csr.rows) + 1 ||
        csr.colIndex.size() != csr.values.size() || csr.rowPtr.back() != static_cast<Count>(csr.values.size())) {
        throw InputError("CSR matrix has inconsistent sizes");
    }
    // Row r's entries are rowPtr[r]..rowPtr[r+1]: a first pointer other than 0 would leave entries
    // before it (or past the end) in no row.
    if (csr.rowPtr.front() != 0) {
        throw InputError("CSR row pointer starts at " + std::to_string(csr.rowPtr.front()) + ", not 0");
    }
    CooMatrix<T> coo;
    coo.rows = csr.rows;
    coo.cols = csr.cols;
    coo.colIndex = csr.colIndex;
    coo.values = csr.values;
    coo.rowIndex.reserve(csr.values.size());
    for (Index r = 0; r < csr.rows; ++r) {
        const Count begin = csr.rowPtr[static_cast<std::size_t>(r)];
        const Count end = csr.rowPtr[static_cast<std::size_t>(r) + 1];
        if (end < begin) {
            throw InputError("CSR row pointer decreases at row " + std::to_string(r));
        }
        coo.rowIndex.insert(coo.rowIndex.end(), static_cast<std::size_t>(end - begin), r);
    }
    return coo;
}

template <typename T> DenseMatrix<T> csrToDense(const CsrMatrix<T>& csr) {
    const CooMatrix<T> coo = csrToCoo(csr);
    DenseMatrix<T> dense;
    dense.rows = coo.rows;
    dense.cols = coo.cols;
    dense.values = allocateDense<T>(coo.rows, coo.cols);
    for (std::size_t k = 0; k < coo.values.size(); ++k) {
        if (coo.colIndex[k] < 0 || coo.colIndex[k] >= coo.cols) {
            throw InputError("CSR column index " + std::to_string(coo.colIndex[k]) + " outside 0.." +
                             std::to_string(coo.cols - 1));
        }
        accumulate(dense(coo.rowIndex[k], coo.colIndex[k]), coo.values[k]);
    }
    return dense;
}

template <typename T> CsrMatrix<T> denseToCsr(const DenseMatrix<T>& dense) {
    if (dense.rows < 0 || dense.cols < 0 ||
        dense.values.size() != static_cast<std::size_t>(dense.rows) * static_cast<std::size_t>(dense.cols)) {
        throw InputError("dense matrix holds " + std::to_string(dense.values.size()) + " values, not " +
                         std::to_string(dense.rows) + " x " + std::to_string(dense.cols));
    }
    CsrMatrix<T> csr;
    csr.rows = dense.rows;
    csr.cols = dense.cols;
    csr.rowPtr.assign(static_cast<std::size_t>(dense.rows) + 1, 0);
    for (Index i = 0; i < dense.rows; ++i) {
        for (Index j = 0; j < dense.cols; ++j) {
            const T& value = dense(i, j);
            if (!isExactZero(value)) {
                csr.colIndex.push_back(j);
                csr.values.push_back(value);
            }
        }
        csr.rowPtr[static_cast<std::size_t>(i) + 1] = static_cast<Count>(csr.values.size());
    }
    return csr;
}

template <typename T> Matrix fromCsr(const CsrMatrix<T>& csr) {
    const CooMatrix<T> coo = csrToCoo(csr);
    Matrix m;
    m.layout = Layout::Coordinate;
    m.field = fieldFor<T>();
    m.symmetry = Symmetry::General;
    m.rows = csr.rows;
    m.cols = csr.cols;
    m.rowIndex = coo.rowIndex;
    m.colIndex = coo.colIndex;
    for (const T& value : coo.values) {
        appendValue(m, value);
    }
    return m;
}

template <typename T> Matrix fromDense(const DenseMatrix<T>& dense) {
    if (dense.rows < 0 || dense.cols < 0 ||
        dense.values.size() != static_cast<std::size_t>(dense.rows) * static_cast<std::size_t>(dense.cols)) {
        throw InputError("dense matrix holds " + std::to_string(dense.values.size()) + " values, not " +
                         std::to_string(dense.rows) + " x " + std::to_string(dense.cols));
    }
    Matrix m;
    m.layout = Layout::Array;
    // The array format has no pattern field; a binary dense matrix is written as integers.
    m.field = kIsPatternType<T> ? Field::Integer : fieldFor<T>();
    m.symmetry = Symmetry::General;
    m.rows = dense.rows;
    m.cols = dense.cols;
    arraylayout::appendArrayPositions(m);
    m.real.reserve(dense.values.size());
    for (Index j = 0; j < dense.cols; ++j) {
        for (Index i = 0; i < dense.rows; ++i) {
            const T& value = dense(i, j);
            if constexpr (kIsPatternType<T>) {
                m.real.push_back(static_cast<double>(value));
            } else {
                appendValue(m, value);
            }
        }
    }
    return m;
}

#define SPYGLASS_INSTANTIATE_CONVERSIONS(T)                                                                           \
    template CooMatrix<T> toCoo<T>(const Matrix&);                                                                    \
    template CsrMatrix<T> toCsr<T>(const Matrix&);                                                                    \
    template DenseMatrix<T> toDense<T>(const Matrix&);                                                                \
    template CsrMatrix<T> cooToCsr<T>(const CooMatrix<T>&);                                                           \
    template CooMatrix<T> csrToCoo<T>(const CsrMatrix<T>&);                                                           \
    template DenseMatrix<T> csrToDense<T>(const CsrMatrix<T>&);                                                       \
    template CsrMatrix<T> denseToCsr<T>(const DenseMatrix<T>&);                                                       \
    template Matrix fromCsr<T>(const CsrMatrix<T>&);                                                                  \
    template Matrix fromDense<T>(const DenseMatrix<T>&);

SPYGLASS_INSTANTIATE_CONVERSIONS(float)
SPYGLASS_INSTANTIATE_CONVERSIONS(double)
SPYGLASS_INSTANTIATE_CONVERSIONS(std::complex<float>)
SPYGLASS_INSTANTIATE_CONVERSIONS(std::complex<double>)
SPYGLASS_INSTANTIATE_CONVERSIONS(std::int64_t)
SPYGLASS_INSTANTIATE_CONVERSIONS(std::uint8_t)

#undef SPYGLASS_INSTANTIATE_CONVERSIONS

} // namespace spyglass
