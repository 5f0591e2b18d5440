#pragma once
// The GPU half of the partitioned runs: defined in cuda/multigpu_run.cpp (NCCL), or by the stubs in
// nocuda/multigpu_nocuda.cpp that report the missing backend. Arguments are validated before.
#include "spyglass/multigpu.h"

namespace spyglass::multigpu_detail {

template <typename T>
PowerIterationResult powerIterationOnDevices(const PartitionedMatrix<T>& matrix, const PartitionRunOptions& options,
                                             const std::vector<double>& x0);
template <typename T>
std::vector<T> partitionedSpmvOnDevices(const PartitionedMatrix<T>& matrix, const std::vector<T>& x,
                                        const PartitionRunOptions& options);
int deviceCount();

} // namespace spyglass::multigpu_detail
