#pragma once
// The NCCL communicator of one process per GPU (spyglass/multiprocess.h, docs/scale.md): every rank
// of a ProcessGroup makes one, at about the same time; rank 0's ncclUniqueId travels through the
// group's rendezvous and every rank joins with ncclCommInitRank. The power iteration runs its
// iterations on it; the other commands that run one process per GPU (spmv, svd, invert) compute with
// the library's single-GPU entries and use it only for the small gathers below, so that rank 0 can
// print what one process prints. No CUDA or NCCL type appears here: the handle stays in gpu/src.
#include "spyglass/multiprocess.h"

#include <exception>
#include <memory>
#include <vector>

namespace spyglass {

class RankCommunicator {
public:
    // Meets the other ranks at group.rendezvous and joins the communicator on group.device, which
    // becomes this process's current GPU: the library's single-GPU entries called afterwards (spmv,
    // svdBatched, invertBatched with no devices named) run on it. BackendUnavailableError without a
    // GPU or NCCL; InputError for a GPU this process does not see, or as exchangeThroughRendezvous
    // gives it; DeviceError naming the rank when NCCL fails.
    explicit RankCommunicator(const ProcessGroup& group);
    ~RankCommunicator();
    RankCommunicator(const RankCommunicator&) = delete;
    RankCommunicator& operator=(const RankCommunicator&) = delete;

    const ProcessGroup& group() const;

    // Every rank's `values` in rank order; every rank passes the same count.
    std::vector<double> allGather(const std::vector<double>& values) const;
    // Rank 0: every rank's `values` one after the other in rank order (the counts may differ);
    // the other ranks: empty. Doubles carry f32 values and indices below 2^53 exactly.
    std::vector<double> gatherToRoot(const std::vector<double>& values) const;
    // Every rank says whether its own work failed (`error` set), so that no rank waits in a later
    // collective for one that stopped: the failed rank rethrows its error, the others throw a
    // DeviceError naming the failed ranks ("what" says what they were doing). Returns when none failed.
    void agree(const std::exception_ptr& error, const char* what) const;

    // The library's own handle (gpu/src/cuda/rankcommunicator_native.h), for the device code that
    // enqueues on the communicator itself (the power iteration).
    struct Native;
    const Native& native() const;

private:
    std::unique_ptr<Native> m_native;
};

} // namespace spyglass
