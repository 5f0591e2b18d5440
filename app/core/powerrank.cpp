#include "powerrank.h"

#include "checkedwrite.h"
#include "powercheck.h"
#include "poweroutcome.h"

#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/matrixmarket_rows.h"
#include "spyglass/multiprocess.h"

#include <string>
#include <utility>

namespace spyglass::app {
namespace {

template <typename T>
PowerRunOutcome runTyped(const RankPowerRequest& request, const ProcessGroup& group) {
    const std::string path = localPath(request.source);
    RankRows rows = readMatrixMarketRows(path, group.rank, group.worldSize, sizeof(T));
    if (rows.entries.isComplex()) throw InputError(path + ": complex matrices have no real power iteration here");
    if (rows.entries.rows != rows.entries.cols)
        throw InputError(path + ": power iteration needs a square matrix (this one is " + std::to_string(rows.entries.rows) + " x " +
                         std::to_string(rows.entries.cols) + ")");
    const Index matrixRows = rows.entries.rows;
    const Index rowBegin = rows.rowBegin, rowEnd = rows.rowEnd;
    CsrMatrix<T> slice = rankCsrSlice<T>(rows);
    const std::vector<Index> blocks = std::move(rows.blockStarts);
    rows = RankRows{};  // the slice holds what is needed

    PartitionRunOptions options = request.run;
    options.backend = PartitionBackend::Cuda;
    options.warmup = std::min(options.warmup, options.iterations - 1);
    const RankPowerResult run = powerIterationAsRank(std::move(slice), blocks, group, options, request.exchange);
    if (group.rank == 0 && request.planReady) request.planReady(describePlan(run.plan));

    // The check needs the whole matrix: rank 0 reads it only when asked.
    PowerCheck verdict;
    if (request.check && group.rank == 0) verdict = checkAgainstReference<T>(readMatrixMarket(path), run.result, options);

    PowerFacts facts;
    facts.source = request.source;
    facts.rows = matrixRows;
    facts.singlePrecision = sizeof(T) == 4;
    facts.backend = PartitionBackend::Cuda;
    facts.iterations = options.iterations;
    facts.rank = group.rank;
    facts.processes = group.worldSize;
    PowerRunOutcome outcome = powerOutcome(facts, run.result, run.plan, verdict);
    if (group.rank != 0)
        outcome.text = QStringLiteral("rank %1 of %2: rows [%3, %4) on GPU %5, rayleigh %6\n")
                           .arg(group.rank)
                           .arg(group.worldSize)
                           .arg(rowBegin)
                           .arg(rowEnd)
                           .arg(group.device)
                           .arg(run.result.rayleigh.back(), 0, 'g', 17);
    return outcome;
}

} // namespace

PowerRunOutcome runPowerIterationAsRank(const RankPowerRequest& request) {
    const ProcessGroup group = processGroupOf(request.place);
    return request.singlePrecision ? runTyped<float>(request, group) : runTyped<double>(request, group);
}

} // namespace spyglass::app
