#pragma once
// y = A x for the diagonal formats of method B and the CSR baseline, on every backend.
//   spmvReference: plain C++ (the CPU path and the test oracle), always available.
//   spmvCuda:      Spyglass's kernels (segmented DIA, HDIA, plain DIA).
//   spmvCusparse:  cuSPARSE's generic cusparseSpMV on CSR, the vendor baseline.
// The GPU functions upload, run once and download; they throw BackendUnavailableError in a build
// or on a machine without CUDA. Sizes are validated before dispatch (InputError).
#include "spyglass/matrix.h"
#include "spyglass/segdia.h"

#include <vector>

namespace spyglass {

template <typename T> std::vector<T> spmvReference(const CsrMatrix<T>& a, const std::vector<T>& x);
template <typename T> std::vector<T> spmvReference(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x);
template <typename T> std::vector<T> spmvReference(const DiaMatrix<T>& a, const std::vector<T>& x);

template <typename T> std::vector<T> spmvCuda(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x);
template <typename T> std::vector<T> spmvCuda(const DiaMatrix<T>& a, const std::vector<T>& x);
template <typename T> std::vector<T> spmvCusparse(const CsrMatrix<T>& a, const std::vector<T>& x);

} // namespace spyglass
