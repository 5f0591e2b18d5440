#pragma once
// A matrix cut into row partitions in the chosen format (spyglass/multigpu.h), the input of
// `spyglass-cli power` and `spmv --partitions/--gpus`: CSR, segmented DIA, or the hybrid encoding of
// a binary matrix (its dense regions detected as the hybrid tab does, hybriddetectionjob.h).
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrix.h"
#include "spyglass/multigpu.h"

#include <QString>

namespace spyglass::app {

struct PartitionRequest {
    PartitionFormat format = PartitionFormat::Csr;
    Index threshold = 1024;  // segmented DIA: rows per segment
    int parts = 1;
    HaloExchange exchange = HaloExchange::Auto;
    DetectionOptions detection;  // hybrid: how dense regions are found
};

// Throws InputError naming `source` for a hybrid request on a matrix that is not binary.
template <typename T>
PartitionedMatrix<T> buildPartitionedMatrix(const Matrix& matrix, const QString& source, const PartitionRequest& request);

} // namespace spyglass::app
