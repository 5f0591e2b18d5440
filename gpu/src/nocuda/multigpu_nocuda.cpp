// Without CUDA the partitioned runs use the CPU reference; the GPU modes report the missing backend.
#include "core/multigpu_device.h"
#include "spyglass/error.h"

namespace spyglass::multigpu_detail {

template <typename T>
PowerIterationResult powerIterationOnDevices(const PartitionedMatrix<T>&, const PartitionRunOptions&, const std::vector<double>&) {
    throw BackendUnavailableError("partitioned power iteration on CUDA: this build has no CUDA backend");
}
template <typename T>
std::vector<T> partitionedSpmvOnDevices(const PartitionedMatrix<T>&, const std::vector<T>&, const PartitionRunOptions&) {
    throw BackendUnavailableError("partitioned SpMV on CUDA: this build has no CUDA backend");
}
int deviceCount() { return 0; }

SPYGLASS_INSTANTIATE_MULTIGPU_DEVICE_RUNS(float)
SPYGLASS_INSTANTIATE_MULTIGPU_DEVICE_RUNS(double)

} // namespace spyglass::multigpu_detail

namespace spyglass {
AllGatherFloor measureNcclAllGather(const std::vector<int>&, std::size_t, int) {
    throw BackendUnavailableError("NCCL all-gather: this build has no CUDA backend");
}
} // namespace spyglass
