#pragma once
// A rank's share of a batch when one process per GPU runs a batched command (svd, invert;
// docs/scale.md): contiguous, in rank order, so that matrix i keeps its place and the ranks' figures
// combine into the one-process run's.
#include <QtGlobal>

namespace spyglass::app {

struct BatchShare {
    qint64 begin = 0, end = -1;  // matrices [begin, end) of the batch; end -1: the whole batch
    bool whole() const { return end < 0; }
    qint64 count() const { return end - begin; }
};

// [B r / W, B (r + 1) / W): the shares of ranks 0..W-1 cover 0..B-1 once each, in order, and differ in
// size by at most one. Computed without forming B r, which could overflow for large batches.
// Requires batch >= 0 and 0 <= rank < worldSize.
BatchShare batchShare(qint64 batch, int rank, int worldSize);

} // namespace spyglass::app
