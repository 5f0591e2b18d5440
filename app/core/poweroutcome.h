#pragma once
// The report of a finished power iteration, as text and as JSON (parsePowerReport reads it back):
// one writer for the single-process run and for rank 0 of one process per GPU, so both read alike.
#include "powercheck.h"
#include "powerrun.h"

#include <QString>

namespace spyglass::app {

struct PowerFacts {
    QString source;           // the matrix file
    Index rows = 0;
    bool singlePrecision = false;
    PartitionBackend backend = PartitionBackend::Reference;
    int iterations = 0;
    int rank = 0, processes = 1;  // one process per GPU: this process and their number (1: one process)
};

PowerRunOutcome powerOutcome(const PowerFacts& facts, const PowerIterationResult& result, const PartitionPlan& plan,
                             const PowerCheck& verdict);

} // namespace spyglass::app
