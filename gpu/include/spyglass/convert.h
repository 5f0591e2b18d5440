#pragma once
// Conversions between the file form (Matrix) and the typed containers. Symmetric, skew-symmetric
// and Hermitian matrices are expanded to the full matrix. Pattern entries become 1.
#include "spyglass/matrix.h"

namespace spyglass {

// The full matrix as general coordinate entries (mirrors added, layout Coordinate, array zeros kept
// only when keepExplicitZeros).
Matrix expandSymmetry(const Matrix& matrix);

// T: float, double, std::complex<float>, std::complex<double>, std::int64_t, std::uint8_t.
// Converting complex data to a real T throws InputError; duplicates are summed in CSR/dense.
template <typename T> CooMatrix<T> toCoo(const Matrix& matrix);
template <typename T> CsrMatrix<T> toCsr(const Matrix& matrix);  // sorted columns within each row
template <typename T> DenseMatrix<T> toDense(const Matrix& matrix);
template <typename T> CsrMatrix<T> cooToCsr(const CooMatrix<T>& coo);
template <typename T> CooMatrix<T> csrToCoo(const CsrMatrix<T>& csr);
template <typename T> DenseMatrix<T> csrToDense(const CsrMatrix<T>& csr);
template <typename T> CsrMatrix<T> denseToCsr(const DenseMatrix<T>& dense);  // drops exact zeros
// Back to the file form (general, coordinate; field chosen from T).
template <typename T> Matrix fromCsr(const CsrMatrix<T>& csr);
template <typename T> Matrix fromDense(const DenseMatrix<T>& dense);  // array layout

// The same entries with each value converted to To (fp64 <-> fp32 for a vendor baseline or a
// benchmark precision); the structure is copied as it is.
template <typename To, typename From> CooMatrix<To> convertValues(const CooMatrix<From>& m) {
    return {m.rows, m.cols, m.rowIndex, m.colIndex, std::vector<To>(m.values.begin(), m.values.end())};
}
template <typename To, typename From> CsrMatrix<To> convertValues(const CsrMatrix<From>& m) {
    return {m.rows, m.cols, m.rowPtr, m.colIndex, std::vector<To>(m.values.begin(), m.values.end())};
}

} // namespace spyglass
