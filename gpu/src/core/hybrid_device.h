#pragma once
// The GPU half of hybridSpmv: defined in cuda/hybrid_run.cpp, or by the stubs in
// nocuda/hybrid_nocuda.cpp that report the missing backend. Arguments are validated.
#include "spyglass/hybrid_spmv.h"

namespace spyglass::hybrid_detail {

template <typename T>
std::vector<T> hybridSpmvOnDevice(const HybridBinaryMatrix& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options);
template <typename T>
std::vector<T> hybridSpmvOnDevice(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x,
                                  const HybridSpmvOptions& options);

// Both definitions (CUDA and the stubs) instantiate the same set: float and double.
#define SPYGLASS_INSTANTIATE_HYBRID_DEVICE(T)                                                                              \
    template std::vector<T> hybridSpmvOnDevice(const HybridBinaryMatrix&, const std::vector<T>&, const HybridSpmvOptions&); \
    template std::vector<T> hybridSpmvOnDevice(const HybridValuedMatrix<T>&, const std::vector<T>&, const HybridSpmvOptions&);

} // namespace spyglass::hybrid_detail
