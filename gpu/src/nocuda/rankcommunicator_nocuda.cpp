// Without CUDA there is no communicator to join: making one reports the missing backend, naming the
// rank as the CUDA build's errors do, so that a job log says which process stopped.
#include "spyglass/error.h"
#include "spyglass/rankcommunicator.h"

#include <string>

namespace spyglass {

struct RankCommunicator::Native {
    ProcessGroup group;
};

RankCommunicator::RankCommunicator(const ProcessGroup& group) {
    throw BackendUnavailableError("one process per GPU, rank " + std::to_string(group.rank) + " of " + std::to_string(group.worldSize) +
                                  ": this build has no CUDA backend");
}

RankCommunicator::~RankCommunicator() = default;
const ProcessGroup& RankCommunicator::group() const { return m_native->group; }
const RankCommunicator::Native& RankCommunicator::native() const { return *m_native; }
// Not reached: no communicator exists in this build.
std::vector<double> RankCommunicator::allGather(const std::vector<double>& values) const { return values; }
std::vector<double> RankCommunicator::gatherToRoot(const std::vector<double>& values) const { return values; }
void RankCommunicator::agree(const std::exception_ptr& error, const char*) const {
    if (error) std::rethrow_exception(error);
}

} // namespace spyglass
