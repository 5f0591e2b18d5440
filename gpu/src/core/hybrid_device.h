#pragma once
// The GPU half of hybridSpmv: defined in cuda/hybrid_run.cpp, or by the stubs in
// nocuda/hybrid_nocuda.cpp that report the missing backend. Arguments are validated.
#include "spyglass/hybrid_spmv.h"

#include <complex>

namespace spyglass::hybrid_detail {

template <typename T>
std::vector<T> hybridSpmvOnDevice(const HybridBinaryMatrix& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options);
template <typename T>
std::vector<T> hybridSpmvOnDevice(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x,
                                  const HybridSpmvOptions& options);

// Both definitions (CUDA and the stubs) instantiate the same set: both forms for float and double,
// the valued form alone for std::complex<float> and std::complex<double> (a binary pattern multiplies
// real x).
#define SPYGLASS_INSTANTIATE_VALUED_HYBRID_DEVICE(T) \
    template std::vector<T> hybridSpmvOnDevice(const HybridValuedMatrix<T>&, const std::vector<T>&, const HybridSpmvOptions&);
#define SPYGLASS_INSTANTIATE_HYBRID_DEVICE(T)                                                                              \
    template std::vector<T> hybridSpmvOnDevice(const HybridBinaryMatrix&, const std::vector<T>&, const HybridSpmvOptions&); \
    SPYGLASS_INSTANTIATE_VALUED_HYBRID_DEVICE(T)
#define SPYGLASS_INSTANTIATE_EVERY_HYBRID_DEVICE()                  \
    SPYGLASS_INSTANTIATE_HYBRID_DEVICE(float)                       \
    SPYGLASS_INSTANTIATE_HYBRID_DEVICE(double)                      \
    SPYGLASS_INSTANTIATE_VALUED_HYBRID_DEVICE(std::complex<float>)  \
    SPYGLASS_INSTANTIATE_VALUED_HYBRID_DEVICE(std::complex<double>)

} // namespace spyglass::hybrid_detail
