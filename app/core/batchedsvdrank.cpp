#include "batchedsvdrank.h"

#include "batchrank.h"

namespace spyglass::app {

RankBatchedSvdOutcome runBatchedSvdAsRank(BatchedSvdRequest request, const RankPlace& place) {
    const ProcessGroup group = processGroupOf(place);
    const RankCommunicator communicator(group);  // this rank's GPU becomes current for the run
    RankBatchedSvdOutcome outcome;
    outcome.share = batchShare(request.batch, group.rank, group.worldSize);
    request.share = outcome.share;
    request.devices.clear();
    request.detailMatrices = 0;  // the report is totals; the detail of a share would be misread as the batch's
    BatchedSvdResult& result = outcome.result;
    result = runAgreed(communicator, "decompose its share of the batch", [&] { return runBatchedSvd(request); });

    const QString own = QStringLiteral("%1: matrices [%2, %3), %4, max ||A-USV^H||/||A|| %5\n")
                            .arg(rankName(group))
                            .arg(outcome.share.begin)
                            .arg(outcome.share.end)
                            .arg(timingText(result.timing))
                            .arg(result.reconstruction, 0, 'g', 3);
    // Every rank takes part in every gather, in the same order.
    const std::vector<double> worst = maxOverRanks(communicator, {result.reconstruction, result.uOrthogonality, result.vOrthogonality,
                                                                  result.vendorResidual, double(result.maxSweepsUsed),
                                                                  result.maxOffOrthogonality});
    const std::vector<double> sums = sumOverRanks(communicator, {double(result.batch), double(result.accuracySampled),
                                                                 double(result.unsortedOrNegative), double(result.notConvergedCount),
                                                                 double(result.nonFiniteCount)});
    const int slowest = takeSlowestRank(communicator, result);
    result.reconstruction = worst[0];
    result.uOrthogonality = worst[1];
    result.vOrthogonality = worst[2];
    result.vendorResidual = worst[3];
    result.maxSweepsUsed = static_cast<int>(worst[4]);
    result.maxOffOrthogonality = worst[5];
    result.batch = static_cast<qint64>(sums[0]);
    result.accuracySampled = static_cast<qint64>(sums[1]);
    result.unsortedOrNegative = static_cast<qint64>(sums[2]);
    result.notConvergedCount = static_cast<qint64>(sums[3]);
    result.nonFiniteCount = static_cast<qint64>(sums[4]);
    result.flaggedIndices.clear();  // rank 0 knows only its own; the counts above are the batch's
    result.flaggedStatus.clear();
    result.device = processesDevice(result.device, group.worldSize, slowest);
    if (group.rank != 0) outcome.line = own;
    return outcome;
}

} // namespace spyglass::app
