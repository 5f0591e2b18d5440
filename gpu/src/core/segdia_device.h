#pragma once
// The GPU half of spmv: defined in cuda/segdia_run.cpp, or by the stubs in nocuda/segdia_nocuda.cpp
// that report the missing backend. Arguments are validated (x's size, the backend's fit, the variant).
#include "spyglass/segdia_spmv.h"

namespace spyglass::segdia_detail {

template <typename T>
std::vector<T> spmvOnDevice(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options);
template <typename T>
std::vector<T> spmvOnDevice(const DiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options);
template <typename T>
std::vector<T> spmvOnDevice(const CsrMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options);

// Both definitions (CUDA and the stubs) instantiate the same set: SPYGLASS_FOR_EACH_SCALAR.
#define SPYGLASS_INSTANTIATE_SPMV_DEVICE(T)                                                                         \
    template std::vector<T> spmvOnDevice(const SegmentedDiaMatrix<T>&, const std::vector<T>&, const SpmvOptions&); \
    template std::vector<T> spmvOnDevice(const DiaMatrix<T>&, const std::vector<T>&, const SpmvOptions&);          \
    template std::vector<T> spmvOnDevice(const CsrMatrix<T>&, const std::vector<T>&, const SpmvOptions&);

} // namespace spyglass::segdia_detail
