#pragma once
// One process per GPU, on one host or several (docs/scale.md), as torchrun or srun start them: each
// process owns one GPU and holds only its block of rows (readMatrixMarketRows). The ranks meet once
// through a rendezvous (spyglass/rendezvous.h), where rank 0 shares its ncclUniqueId; every rank then
// joins the communicator with ncclCommInitRank, gathers the other ranks' x spans to plan the exchange,
// and runs the same per-rank steps as the threads of a single-process run (spyglass/multigpu.h), so
// both give the same result for the same row blocks.
#include "spyglass/matrixmarket_rows.h"
#include "spyglass/multigpu.h"
#include "spyglass/rendezvous.h"

#include <chrono>
#include <vector>

namespace spyglass {

// Where this process stands in a run of one process per GPU.
struct ProcessGroup {
    int rank = 0, worldSize = 1;
    int device = 0;                               // the GPU this process uses (deviceForLocalRank)
    RendezvousSpec rendezvous;                    // where rank 0's ncclUniqueId is shared
    std::chrono::milliseconds timeout{300000};    // how long the ranks wait for each other there
};

// The GPU of a process with this local rank (its number among the ranks of its host): the local rank
// modulo the GPUs the process sees, so that CUDA_VISIBLE_DEVICES set to one GPU per task also works.
// 0 where there is no GPU (the run then fails naming the missing backend).
int deviceForLocalRank(int localRank);

// This rank's rows as CSR with global columns (row i is row rows.rowBegin + i), duplicates summed,
// columns sorted within each row: the slice the single-process plan cuts from the whole matrix.
template <typename T> CsrMatrix<T> rankCsrSlice(const RankRows& rows);

// The plan as rank `rank` sees it before the ranks meet: every rank's rows (from the blocks), its own
// bytes and x span (from its slice); the other ranks' bytes and spans stay 0 until they are gathered,
// after which planExchange completes it. InputError when the slice's rows are not the rank's block.
template <typename T>
PartitionPlan rankPartialPlan(const CsrMatrix<T>& slice, const std::vector<Index>& blockStarts, int rank);

struct RankPowerResult {
    // x: the whole last iterate, on every rank; rayleigh: every iteration's (all ranks agree); times:
    // the slowest rank's; device: this rank's GPU; deviceBytes: every rank's.
    PowerIterationResult result;
    PartitionPlan plan;  // every rank's rows, bytes and x span, and the exchange that ran
};

// Power iteration with this process as one rank of `group`: every rank of the run calls it at about
// the same time, each with its own slice of the same square matrix (rows: rankCsrSlice of
// readMatrixMarketRows). options.iterations, warmup and cancel apply (the backend and devices do not:
// the group's device runs). InputError for a group or slice that does not fit the blocks (rank outside
// 0..worldSize-1, blocks of another world size, a slice of other rows, a non-square matrix);
// rendezvous errors as exchangeThroughRendezvous gives them; BackendUnavailableError without a GPU or
// NCCL; DeviceError naming the rank when NCCL fails.
template <typename T>
RankPowerResult powerIterationAsRank(CsrMatrix<T> slice, const std::vector<Index>& blockStarts, const ProcessGroup& group,
                                     const PartitionRunOptions& options, HaloExchange exchange = HaloExchange::Auto);

} // namespace spyglass
