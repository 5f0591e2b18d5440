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

template PowerIterationResult powerIterationOnDevices<float>(const PartitionedMatrix<float>&, const PartitionRunOptions&,
                                                             const std::vector<double>&);
template PowerIterationResult powerIterationOnDevices<double>(const PartitionedMatrix<double>&, const PartitionRunOptions&,
                                                              const std::vector<double>&);
template std::vector<float> partitionedSpmvOnDevices<float>(const PartitionedMatrix<float>&, const std::vector<float>&,
                                                            const PartitionRunOptions&);
template std::vector<double> partitionedSpmvOnDevices<double>(const PartitionedMatrix<double>&, const std::vector<double>&,
                                                              const PartitionRunOptions&);

} // namespace spyglass::multigpu_detail
