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

// The instantiations each backend of the two functions above provides (CUDA or the no-CUDA stub).
#define SPYGLASS_INSTANTIATE_MULTIGPU_DEVICE_RUNS(T)                                                                  \
    template PowerIterationResult powerIterationOnDevices<T>(const PartitionedMatrix<T>&, const PartitionRunOptions&, \
                                                             const std::vector<double>&);                             \
    template std::vector<T> partitionedSpmvOnDevices<T>(const PartitionedMatrix<T>&, const std::vector<T>&,          \
                                                        const PartitionRunOptions&);
