#pragma once
// `spyglass-cli power` as one rank of a run with one process per GPU (spyglass/multiprocess.h,
// docs/scale.md): this process reads only its block of rows of a Matrix Market file, meets the other
// ranks through the rendezvous and computes on one GPU. Rank 0 gets the report the single-process run
// gives; every other rank a one-line summary.
#include "powerrun.h"

#include "spyglass/multigpu.h"

#include <QString>

#include <functional>
#include <string>

namespace spyglass::app {

struct RankPowerRequest {
    QString source;             // a Matrix Market file, at the same path for every rank
    int rank = 0, worldSize = 1;
    int localRank = 0;          // picks the GPU: the local rank modulo the GPUs this process sees
    QString rendezvous;         // "file:PATH" or "tcp:HOST:PORT"
    QString runId;              // empty: Slurm's SLURM_JOB_ID
    int timeoutSeconds = 300;   // how long the ranks wait for each other at the rendezvous
    HaloExchange exchange = HaloExchange::Auto;
    PartitionRunOptions run;    // iterations and warmup (the backend is CUDA, the GPU the local rank's)
    bool singlePrecision = false;
    bool check = false;         // rank 0 also reads the whole matrix and checks against the CPU reference
    std::function<void(const std::string&)> planReady;  // rank 0: the plan in words, once the ranks met
};

// What is wrong with a rendezvous as written, or with the run id (empty when nothing is): the command
// line is checked before any rank waits for the others.
QString rendezvousProblem(const QString& spec, const QString& runId);

// Rank 0: the report (text and JSON); other ranks: text is one line naming the rank, its rows, its GPU
// and the Rayleigh quotient, report the same JSON as rank 0's with their own rank.
PowerRunOutcome runPowerIterationAsRank(const RankPowerRequest& request);

} // namespace spyglass::app
