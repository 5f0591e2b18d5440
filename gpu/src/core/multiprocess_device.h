#pragma once
// The GPU half of one process per GPU: defined in cuda/multiprocess_run.cpp (NCCL), or by the stub in
// nocuda/multiprocess_nocuda.cpp that reports the missing backend. Arguments are validated before.
#include "spyglass/multiprocess.h"

namespace spyglass::multigpu_detail {

// plan: every part's rows set, and this rank's bytes and x span; the other ranks' come from them.
template <typename T>
RankPowerResult powerIterationAsRankOnDevice(CsrMatrix<T> slice, PartitionPlan plan, const ProcessGroup& group,
                                             const PartitionRunOptions& options, HaloExchange exchange,
                                             const std::vector<double>& x0);

} // namespace spyglass::multigpu_detail

#define SPYGLASS_INSTANTIATE_MULTIPROCESS_DEVICE_RUN(T)                                                                      \
    template RankPowerResult powerIterationAsRankOnDevice<T>(CsrMatrix<T>, PartitionPlan, const ProcessGroup&,         \
                                                             const PartitionRunOptions&, HaloExchange, const std::vector<double>&);
