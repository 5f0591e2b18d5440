#pragma once
// `spyglass-cli svd` as one rank of a run with one process per GPU (docs/scale.md): this process
// decomposes its contiguous share of the generated batch (batchShare) on its GPU, and the ranks
// combine their figures so that rank 0 holds the report one process gives for the whole batch: the
// same worst errors (maxima over matrices), the counts summed, the slowest rank's times.
#include "batchedsvdjob.h"
#include "rankrun.h"

namespace spyglass::app {

struct RankBatchedSvdOutcome {
    // Rank 0: the whole batch's figures (batch, errors, counts; timing, set-up, wall time and bytes
    // of the slowest rank; device says how many processes ran); other ranks: their share's own.
    BatchedSvdResult result;
    BatchShare share;  // this rank's matrices
    QString line;      // the line a rank other than 0 prints
};

// request: a generated batch on a GPU backend, no devices, no files (its share is set here). Every
// rank of the run calls this at about the same time with the same request. Errors as runBatchedSvd
// and RankCommunicator give them; a rank whose own work fails throws its error, the others one naming it.
RankBatchedSvdOutcome runBatchedSvdAsRank(BatchedSvdRequest request, const RankPlace& place);

} // namespace spyglass::app
