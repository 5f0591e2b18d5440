#pragma once
// The GPU half of the timed SpMV entries: defined in cuda/spmvtiming_run.cpp, or by the stubs in
// nocuda/spmvtiming_nocuda.cpp that report the missing backend. Arguments are validated.
#include "spyglass/spmvtiming.h"

namespace spyglass::spmvtiming_detail {

TimedSpmv timeHybridSpmvOnDevice(const HybridBinaryMatrix& hybrid, const std::vector<double>& x,
                                 const HybridSpmvOptions& options, const SpmvTiming& timing);
TimedSpmv timeHybridSpmvOnDevice(const HybridValuedMatrix<double>& hybrid, const std::vector<double>& x,
                                 const HybridSpmvOptions& options, const SpmvTiming& timing);
TimedSpmv timeSpmvOnDevice(const SegmentedDiaMatrix<double>& a, const std::vector<double>& x, const SpmvOptions& options,
                           const SpmvTiming& timing);
TimedSpmv timeSpmvOnDevice(const CsrMatrix<double>& a, const std::vector<double>& x, const SpmvOptions& options,
                           const SpmvTiming& timing);

} // namespace spyglass::spmvtiming_detail
