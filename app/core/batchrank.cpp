#include "batchrank.h"

namespace spyglass::app {

int takeSlowestRank(const RankCommunicator& communicator, BatchRunFigures& run) {
    const int slowest = slowestRank(communicator, run.timing.medianMs);
    run.timing = measurementOf(communicator, slowest, run.timing);
    const std::vector<double> figures =
        figuresOf(communicator, slowest, {run.computeMs, run.setupMs, run.totalMs, double(run.chunks), run.bytesMoved});
    run.computeMs = figures[0];
    run.setupMs = figures[1];
    run.totalMs = figures[2];
    run.chunks = static_cast<int>(figures[3]);
    // The slowest rank's bytes with its time: the bandwidth line reads one GPU against its ceiling.
    run.bytesMoved = figures[4];
    return slowest;
}

QString processesDevice(const QString& device, int worldSize, int slowest) {
    return QStringLiteral("%1, %2 processes (one GPU each), times of rank %3 (the slowest)").arg(device).arg(worldSize).arg(slowest);
}

} // namespace spyglass::app
