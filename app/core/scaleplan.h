#pragma once
// The row partitions `spyglass-cli power` would cut for the open matrix (spyglass/multigpu.h), for
// the Scale tab's picture and table. Runs off the GUI thread (a large matrix takes seconds).
#include "spyglass/matrix.h"
#include "spyglass/multigpu.h"

#include <QString>

namespace spyglass::app {

struct ScalePlanRequest {
    PartitionFormat format = PartitionFormat::Csr;
    int partitions = 2;
    Index threshold = 1024;  // segmented DIA rows per segment
};

// Throws InputError for a matrix the format cannot hold (complex values, a hybrid request).
PartitionPlan planScale(const Matrix& matrix, const ScalePlanRequest& request);

} // namespace spyglass::app
