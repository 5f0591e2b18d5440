#pragma once
// The GPU half of the timed SpMV entries: defined in cuda/spmvtiming_run.cpp, or by the stubs in
// nocuda/spmvtiming_nocuda.cpp that report the missing backend. Arguments are validated.
#include "spyglass/spmvtiming.h"

namespace spyglass::spmvtiming_detail {

TimedSpmv timeHybridSpmvOnDevice(const HybridBinaryMatrix& hybrid, const std::vector<double>& x,
                                 const HybridSpmvOptions& options, const SpmvTiming& timing);
// The valued form for double and both complex types (spmvtiming.h's overloads).
template <typename T>
TimedSpmvOf<T> timeHybridSpmvOnDevice(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x,
                                      const HybridSpmvOptions& options, const SpmvTiming& timing);
template <typename T>
TimedSpmvOf<T> timeSpmvOnDevice(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options,
                                const SpmvTiming& timing);
template <typename T>
TimedSpmvOf<T> timeSpmvOnDevice(const CsrMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options,
                                const SpmvTiming& timing);

// Both definitions (CUDA and the stubs) instantiate SPYGLASS_FOR_EACH_TIMED_SPMV_SCALAR.
#define SPYGLASS_INSTANTIATE_TIMED_SPMV_DEVICE(T)                                                                      \
    template TimedSpmvOf<T> timeHybridSpmvOnDevice(const HybridValuedMatrix<T>&, const std::vector<T>&,             \
                                                   const HybridSpmvOptions&, const SpmvTiming&);                      \
    template TimedSpmvOf<T> timeSpmvOnDevice(const SegmentedDiaMatrix<T>&, const std::vector<T>&, const SpmvOptions&, \
                                             const SpmvTiming&);                                                      \
    template TimedSpmvOf<T> timeSpmvOnDevice(const CsrMatrix<T>&, const std::vector<T>&, const SpmvOptions&, const SpmvTiming&);

} // namespace spyglass::spmvtiming_detail
