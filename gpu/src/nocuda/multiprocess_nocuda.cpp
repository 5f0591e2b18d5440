// Without CUDA there is no process per GPU to run: the request reports the missing backend.
#include "core/multiprocess_device.h"
#include "spyglass/error.h"

namespace spyglass::multigpu_detail {

template <typename T>
RankPowerResult powerIterationAsRankOnDevice(CsrMatrix<T>, PartitionPlan, const ProcessGroup&, const PartitionRunOptions&,
                                             HaloExchange, const std::vector<double>&) {
    throw BackendUnavailableError("one process per GPU: this build has no CUDA backend");
}

SPYGLASS_INSTANTIATE_MULTIPROCESS_DEVICE_RUN(float)
SPYGLASS_INSTANTIATE_MULTIPROCESS_DEVICE_RUN(double)

} // namespace spyglass::multigpu_detail
