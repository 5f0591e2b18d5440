#pragma once
// What the batched commands (svd, invert) do alike as one process per GPU (batchedsvdrank.cpp,
// batchedinverserank.cpp): the run's times are the slowest rank's, and the device names the processes.
#include "batchrunfigures.h"
#include "rankrun.h"

namespace spyglass::app {

// Replaces run's timing, compute, set-up and wall times, chunks and bytes moved with those of the rank
// whose median is the largest (on every rank); returns that rank.
int takeSlowestRank(const RankCommunicator& communicator, BatchRunFigures& run);

// "NVIDIA H200 (auto: ...), 2 processes (one GPU each), times of rank 1 (the slowest)".
QString processesDevice(const QString& device, int worldSize, int slowest);

} // namespace spyglass::app
