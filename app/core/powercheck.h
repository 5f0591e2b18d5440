#pragma once
// A power iteration's result against the unpartitioned CPU reference: what `spyglass-cli power`
// checks itself with (on small matrices, or with --check; with one process per GPU, rank 0 with
// --check).
#include "spyglass/matrix.h"
#include "spyglass/multigpu.h"

namespace spyglass::app {

struct PowerCheck {
    bool ran = false;
    double rayleigh = 0, rayleighDifference = 0, xDifference = 0, bound = 0;
    bool agrees() const { return rayleighDifference <= bound && xDifference <= bound; }
};

// The CPU reference with the same iterations, and how far `result` is from it.
template <typename T>
PowerCheck checkAgainstReference(const Matrix& matrix, const PowerIterationResult& result, const PartitionRunOptions& options);

} // namespace spyglass::app
