// Without CUDA there is no process per GPU to run: the request reports the missing backend.
#include "core/multiprocess_device.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::multigpu_detail {

template <typename T>
RankPowerResult powerIterationAsRankOnDevice(CsrMatrix<T>, PartitionPlan, const ProcessGroup& group, const PartitionRunOptions&,
                                             HaloExchange, const std::vector<double>&) {
    // The rank names itself, as the CUDA build's errors do, so a job log says which process stopped.
    throw BackendUnavailableError("one process per GPU, rank " + std::to_string(group.rank) + " of " + std::to_string(group.worldSize) +
                                  ": this build has no CUDA backend");
}

SPYGLASS_INSTANTIATE_MULTIPROCESS_DEVICE_RUN(float)
SPYGLASS_INSTANTIATE_MULTIPROCESS_DEVICE_RUN(double)

} // namespace spyglass::multigpu_detail
