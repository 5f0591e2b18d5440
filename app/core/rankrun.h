#pragma once
// What every command that runs as one process per GPU shares (power, spmv, svd, invert; docs/scale.md):
// where the process stands (RankPlace, from the command line or the launcher's variables), the
// ProcessGroup made from it, work that every rank must finish before the next collective (a rank that
// stopped alone would leave the others waiting), and the small gathers after which rank 0 prints what
// one process prints. The NCCL communicator itself is the library's (spyglass/rankcommunicator.h).
#include "spyglass/measurement.h"
#include "spyglass/multiprocess.h"
#include "spyglass/rankcommunicator.h"

#include <QString>

#include <exception>
#include <vector>

namespace spyglass::app {

struct RankPlace {
    int rank = 0, worldSize = 1;
    int localRank = 0;          // picks the GPU: the local rank modulo the GPUs this process sees
    QString rendezvous;         // "file:PATH" or "tcp:HOST:PORT"
    QString runId;              // empty: Slurm's SLURM_JOB_ID
    int timeoutSeconds = 300;   // how long the ranks wait for each other at the rendezvous
};

// What is wrong with a rendezvous as written, or with the run id (empty when nothing is): the command
// line is checked before any rank waits for the others.
QString rendezvousProblem(const QString& spec, const QString& runId);

// The group of this place: its GPU (deviceForLocalRank) and the parsed rendezvous. InputError for a
// rendezvous written wrong.
ProcessGroup processGroupOf(const RankPlace& place);

// "rank 1 of 4 (GPU 1)", how a rank names itself in its line and its errors.
QString rankName(const ProcessGroup& group);

// Runs this rank's `work`, then learns whether every rank's succeeded (RankCommunicator::agree): the
// failed rank rethrows its own error, every other one stops with an error naming it. `what` completes
// "rank R could not ...". Work returns a default-constructible value.
template <typename Work>
auto runAgreed(const RankCommunicator& communicator, const char* what, Work work) -> decltype(work()) {
    decltype(work()) result{};
    std::exception_ptr error;
    try {
        result = work();
    } catch (...) {
        error = std::current_exception();
    }
    communicator.agree(error, what);
    return result;
}

// The rank with the largest `ms` (the lowest of equal ones), the same on every rank: the ranks run at
// once, so the run takes as long as its slowest rank.
int slowestRank(const RankCommunicator& communicator, double ms);
// Rank `rank`'s `mine`, on every rank (each passes the same count).
std::vector<double> figuresOf(const RankCommunicator& communicator, int rank, const std::vector<double>& mine);
// Rank `rank`'s measurement, on every rank.
Measurement measurementOf(const RankCommunicator& communicator, int rank, const Measurement& mine);
// Field by field over the ranks (each passes the same count): the largest, a NaN where any rank has
// one (a figure not measured stays so); the sum.
std::vector<double> maxOverRanks(const RankCommunicator& communicator, const std::vector<double>& mine);
std::vector<double> sumOverRanks(const RankCommunicator& communicator, const std::vector<double>& mine);

} // namespace spyglass::app
