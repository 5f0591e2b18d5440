#pragma once
// `spyglass-cli power`: power iteration y = A x, x <- y / |y| with the matrix's rows split over GPUs
// or partitions (spyglass/multigpu.h), checked against the unpartitioned CPU reference on small
// matrices, and the report the Scale tab reads back (scalereport.h).
#include "partitionedmatrix.h"

#include <QJsonObject>
#include <QString>

#include <functional>
#include <memory>
#include <string>

namespace spyglass::app {

struct PowerRunRequest {
    std::shared_ptr<const Matrix> matrix;  // real and square (InputError naming source otherwise)
    QString source;
    PartitionRequest partitions;
    PartitionRunOptions run;               // backend, devices, iterations, warmup
    bool singlePrecision = false;
    int check = 0;                         // 1: always against the CPU reference, -1: never, 0: small matrices
    std::function<void(const std::string&)> planReady;  // the partition plan in words, before the run
};

struct PowerRunOutcome {
    QString text;        // device, iterations and times, exchange, set-up, Rayleigh quotient, the check
    QJsonObject report;  // the same as JSON (parsePowerReport reads it)
    bool checked = false;
    bool agrees = true;  // the check passed (or did not run)
};

PowerRunOutcome runPowerIteration(const PowerRunRequest& request);

} // namespace spyglass::app
