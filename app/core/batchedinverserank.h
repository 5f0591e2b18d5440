#pragma once
// `spyglass-cli invert` as one rank of a run with one process per GPU (docs/scale.md): this process
// inverts its contiguous share of the generated batch (batchShare) on its GPU, and the ranks combine
// their figures so that rank 0 holds the report one process gives for the whole batch: the same worst
// residual (a maximum over the sampled matrices), the counts summed, the slowest rank's times.
#include "batchedinversejob.h"
#include "rankrun.h"

namespace spyglass::app {

struct RankBatchedInverseOutcome {
    // Rank 0: the whole batch's figures (batch, worst residual, counts; timing, set-up, wall time and
    // bytes of the slowest rank; device says how many processes ran); other ranks: their share's own.
    BatchedInverseResult result;
    BatchShare share;  // this rank's matrices
    QString line;      // the line a rank other than 0 prints
};

// request: a generated batch on a GPU backend, no devices, no files (its share is set here). Every
// rank of the run calls this at about the same time with the same request. Errors as
// runBatchedInverse and RankCommunicator give them; a rank whose own work fails throws its error, the
// others one naming it.
RankBatchedInverseOutcome runBatchedInverseAsRank(BatchedInverseRequest request, const RankPlace& place);

} // namespace spyglass::app
