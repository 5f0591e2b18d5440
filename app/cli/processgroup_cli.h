#pragma once
// Where this process stands in a run of one process per GPU (docs/scale.md): --rank, --world-size,
// --rendezvous, --run-id, --rendezvous-timeout, or what the launcher put in the environment.
#include "cliargs.h"

#include "core/rankrun.h"

#include <QString>

namespace spyglass::cli::processgroup {

struct Args {
    int rank = 0, worldSize = 1;
    int localRank = 0;          // LOCAL_RANK or SLURM_LOCALID; the rank itself without either
    QString rendezvous;         // empty: not given
    QString runId;              // empty: SLURM_JOB_ID (read by the rendezvous)
    int timeoutSeconds = 300;
    QString origin;             // where rank and world size came from, for the messages
    bool multiProcess() const { return worldSize > 1; }
    // What app/core takes: rank, world size, local rank, rendezvous, run id and timeout.
    app::RankPlace place() const;
};

// The options, else torchrun's RANK / WORLD_SIZE / LOCAL_RANK, else (only with a rendezvous: every
// process of a Slurm batch script sees SLURM_NTASKS, even one that srun did not start) Slurm's
// SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID. UsageError for a world size below 1, a rank outside
// 0..worldSize-1, a world size above 1 without a rendezvous, or a rendezvous written wrong.
Args takeArgs(ArgParser& parser);

// The usage error of an option that one process per GPU does not take: "one process per GPU
// (--world-size 2) <why>".
UsageError refused(const Args& group, const QString& why);

} // namespace spyglass::cli::processgroup
