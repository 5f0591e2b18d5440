#include "batchedinverserank.h"

#include "batchrank.h"

namespace spyglass::app {

RankBatchedInverseOutcome runBatchedInverseAsRank(BatchedInverseRequest request, const RankPlace& place) {
    const ProcessGroup group = processGroupOf(place);
    const RankCommunicator communicator(group);  // this rank's GPU becomes current for the run
    RankBatchedInverseOutcome outcome;
    outcome.share = batchShare(request.batch, group.rank, group.worldSize);
    request.share = outcome.share;
    request.devices.clear();
    BatchedInverseResult& result = outcome.result;
    result = runAgreed(communicator, "invert its share of the batch", [&] { return runBatchedInverse(request); });

    const QString own = QStringLiteral("%1: matrices [%2, %3), %4, max residual %5\n")
                            .arg(rankName(group))
                            .arg(outcome.share.begin)
                            .arg(outcome.share.end)
                            .arg(timingText(result.timing))
                            .arg(result.maxResidual, 0, 'g', 4);
    // Every rank takes part in every gather, in the same order.
    const std::vector<double> worst = maxOverRanks(communicator, {result.maxResidual});
    const std::vector<double> sums = sumOverRanks(communicator, {double(result.batch), double(result.residualSampled),
                                                                 double(result.singularCount), double(result.nonFiniteCount)});
    const int slowest = takeSlowestRank(communicator, result);
    result.maxResidual = worst[0];
    result.batch = static_cast<qint64>(sums[0]);
    result.residualSampled = static_cast<qint64>(sums[1]);
    result.singularCount = static_cast<qint64>(sums[2]);
    result.nonFiniteCount = static_cast<qint64>(sums[3]);
    // Rank 0 holds only its own; the counts above are the batch's.
    result.failedIndices.clear();
    result.failedCodes.clear();
    result.residuals.clear();
    result.device = processesDevice(result.device, group.worldSize, slowest);
    if (group.rank != 0) outcome.line = own;
    return outcome;
}

} // namespace spyglass::app
