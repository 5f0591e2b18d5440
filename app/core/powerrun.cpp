#include "powerrun.h"

#include "checkedwrite.h"
#include "poweroutcome.h"

#include "spyglass/error.h"

#include <algorithm>
#include <string>

namespace spyglass::app {
namespace {

// Matrices up to this size are checked against the CPU reference unless --no-check.
constexpr Count kAutoCheckEntries = 4'000'000;

template <typename T>
PowerRunOutcome runTyped(const Matrix& matrix, const PowerRunRequest& request) {
    const PartitionedMatrix<T> partitioned = buildPartitionedMatrix<T>(matrix, request.source, request.partitions);
    PartitionRunOptions options = request.run;
    const int iterations = options.iterations;
    options.warmup = std::min(options.warmup, iterations - 1);
    if (request.planReady) request.planReady(describePlan(partitioned.plan));
    const PowerIterationResult result = powerIteration(partitioned, options);

    const bool check = request.check > 0 || (request.check == 0 && matrix.expandedEntries() <= kAutoCheckEntries);
    const PowerCheck verdict = check ? checkAgainstReference<T>(matrix, result, options) : PowerCheck{};

    PowerFacts facts;
    facts.source = request.source;
    facts.rows = matrix.rows;
    facts.singlePrecision = sizeof(T) == 4;
    facts.backend = options.backend;
    facts.iterations = iterations;
    return powerOutcome(facts, result, partitioned.plan, verdict);
}

} // namespace

PowerRunOutcome runPowerIteration(const PowerRunRequest& request) {
    if (!request.matrix) throw InputError("power iteration: no matrix");
    const Matrix& matrix = *request.matrix;
    const std::string path = localPath(request.source);
    if (matrix.isComplex()) throw InputError(path + ": complex matrices have no real power iteration here");
    if (matrix.rows != matrix.cols)
        throw InputError(path + ": power iteration needs a square matrix (this one is " + std::to_string(matrix.rows) + " x " +
                         std::to_string(matrix.cols) + ")");
    return request.singlePrecision ? runTyped<float>(matrix, request) : runTyped<double>(matrix, request);
}

} // namespace spyglass::app
