#pragma once
// `spyglass-cli power` as one rank of a run with one process per GPU (spyglass/multiprocess.h,
// docs/scale.md): this process reads only its block of rows of a Matrix Market file, meets the other
// ranks through the rendezvous and computes on one GPU. Rank 0 gets the report the single-process run
// gives; every other rank a one-line summary.
#include "powerrun.h"
#include "rankrun.h"

#include "spyglass/multigpu.h"

#include <QString>

#include <functional>
#include <string>

namespace spyglass::app {

struct RankPowerRequest {
    QString source;             // a Matrix Market file, at the same path for every rank
    RankPlace place;            // this process's rank, GPU and rendezvous (rankrun.h)
    HaloExchange exchange = HaloExchange::Auto;
    PartitionRunOptions run;    // iterations and warmup (the backend is CUDA, the GPU the local rank's)
    bool singlePrecision = false;
    bool check = false;         // rank 0 also reads the whole matrix and checks against the CPU reference
    std::function<void(const std::string&)> planReady;  // rank 0: the plan in words, once the ranks met
};

// Rank 0: the report (text and JSON); other ranks: text is one line naming the rank, its rows, its GPU
// and the Rayleigh quotient, report the same JSON as rank 0's with their own rank.
PowerRunOutcome runPowerIterationAsRank(const RankPowerRequest& request);

} // namespace spyglass::app
