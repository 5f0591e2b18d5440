#pragma once
// Beyond one GPU (docs/scale.md): SpMV and power iteration with the matrix's rows split over every
// GPU of a host, NCCL between them.
//
//   1. Plan: rows are cut into contiguous partitions of about equal *bytes of the chosen format*
//      (not equal rows), only where the format allows a cut (segment boundaries for segmented DIA,
//      rows no dense region crosses for the hybrid encoding). Each partition reads a span of x.
//   2. Every rank holds its rows in the format (columns stay global) and a full-length x. After each
//      multiply only the x entries other ranks read travel: either the spans each rank reads from
//      another (NCCL send/recv) or every rank's whole share (an all-gather, as grouped broadcasts
//      because shares differ in length), whichever moves fewer bytes for this matrix.
//   3. Power iteration y = A x, x <- y / |y|: the dot products of each rank's rows are summed by an
//      NCCL all-reduce (3 doubles), so x stays on the GPUs from the first iteration to the last.
//
// The same plan runs on the CPU reference (the oracle: partitions one after the other), on one GPU
// with several partitions (a single-rank NCCL communicator, halos copied on the device) and on N GPUs
// (one thread, stream and NCCL rank per GPU). Every mode gives the unpartitioned result up to the
// summation order of the dot products.
#include "spyglass/hybrid_regions.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/matrix.h"
#include "spyglass/segdia.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace spyglass {

enum class PartitionFormat { Csr, SegmentedDia, Hybrid };
enum class HaloExchange { Auto, AllGather, SendRecv };
enum class PartitionBackend { Reference, Cuda };
const char* toString(PartitionFormat format);
const char* toString(HaloExchange exchange);
const char* toString(PartitionBackend backend);

// What the planner knows of a matrix in a format, row by row.
struct RowCosts {
    std::vector<std::uint64_t> bytesBefore;  // rows + 1: the format's bytes of rows [0, r)
    std::vector<Index> colBegin, colEnd;     // per row: the columns of x the row reads (empty: begin >= end)
    std::vector<std::uint8_t> cutAllowed;    // rows + 1: 1 where a partition may begin
};
template <typename T> RowCosts csrRowCosts(const CsrMatrix<T>& a);
template <typename T> RowCosts segmentedDiaRowCosts(const SegmentedDiaMatrix<T>& a);
RowCosts hybridRowCosts(const HybridBinaryMatrix& a);

struct RowPartition {
    Index rowBegin = 0, rowEnd = 0;
    std::uint64_t bytes = 0;    // the format's bytes of these rows
    Index xBegin = 0, xEnd = 0; // the span of x these rows read (xBegin == xEnd: none)
    Index rows() const { return rowEnd - rowBegin; }
};

// x[begin, end), owned by rank `from` (its rows), read by rank `to`.
struct HaloTransfer {
    int from = 0, to = 0;
    Index begin = 0, end = 0;
};

struct PartitionPlan {
    Index rows = 0, cols = 0;
    PartitionFormat format = PartitionFormat::Csr;
    std::size_t elementBytes = 8;
    std::vector<RowPartition> parts;
    std::vector<HaloTransfer> halo;      // the send/recv exchange (square matrices only)
    HaloExchange exchange = HaloExchange::AllGather;  // the one that runs
    // Bytes that cross between ranks per iteration with each exchange.
    std::uint64_t sendRecvBytes() const;
    std::uint64_t allGatherBytes() const;
    std::uint64_t exchangeBytes() const { return exchange == HaloExchange::SendRecv ? sendRecvBytes() : allGatherBytes(); }
    // What partition p receives per iteration under the exchange that runs.
    std::uint64_t receivedBytes(int p) const;
    double imbalance() const;  // largest partition's bytes / mean (1 = perfect)
};

// Cuts `parts` partitions (fewer when the format allows fewer cuts; never an empty one unless the
// matrix has fewer rows than parts) and plans the exchange: `requested` Auto takes the one that moves
// fewer bytes. Throws InputError for parts < 1 or costs that do not describe `rows` rows.
PartitionPlan planRowPartitions(const RowCosts& costs, Index cols, int parts, PartitionFormat format,
                                std::size_t elementBytes, HaloExchange requested = HaloExchange::Auto);
// Plans the exchange of a plan whose parts' rows and x spans are set (planRowPartitions calls it; one
// process per GPU calls it once every rank's x span has been gathered): the halo spans, and the
// exchange that runs (Auto: the one that moves fewer bytes).
void planExchange(PartitionPlan& plan, HaloExchange requested);
// The rows of each rank when every rank reads its own rows of a file (one process per GPU): the
// cuts planRowPartitions makes for the CSR matrix whose row r holds entriesPerRow[r] entries (duplicates
// summed), with values of valueBytes. Returns ranks + 1 row numbers: rank p holds [starts[p],
// starts[p + 1]); ranks past the rows hold none.
std::vector<Index> csrRowBlocks(const std::vector<Count>& entriesPerRow, Index cols, int ranks, std::size_t valueBytes);
// The --stats text: one line per partition, the exchange and its volume.
std::string describePlan(const PartitionPlan& plan);

// Row slices that keep global columns (what one rank holds).
template <typename T> CsrMatrix<T> sliceRows(const CsrMatrix<T>& a, Index rowBegin, Index rowEnd);
// Whole segments: rowBegin/rowEnd must be segment boundaries. Diagonal offsets are shifted so that
// local row i still reads global column rowBegin + i + offset; the slice's blocks are merged again.
template <typename T> SegmentedDiaMatrix<T> sliceSegments(const SegmentedDiaMatrix<T>& a, Index rowBegin, Index rowEnd);
// No region may cross rowBegin or rowEnd (InputError otherwise).
HybridBinaryMatrix sliceHybridRows(const HybridBinaryMatrix& a, Index rowBegin, Index rowEnd);

// A matrix cut by a plan: one slice per partition, in the plan's format.
template <typename T>
struct PartitionedMatrix {
    PartitionPlan plan;
    std::vector<CsrMatrix<T>> csr;
    std::vector<SegmentedDiaMatrix<T>> segmentedDia;
    std::vector<HybridBinaryMatrix> hybrid;
    std::size_t partBytes(int p) const;  // the slice's arrays
};
template <typename T>
PartitionedMatrix<T> partitionMatrix(const CsrMatrix<T>& a, int parts, HaloExchange exchange = HaloExchange::Auto);
template <typename T>
PartitionedMatrix<T> partitionMatrix(const SegmentedDiaMatrix<T>& a, int parts, HaloExchange exchange = HaloExchange::Auto);
template <typename T>
PartitionedMatrix<T> partitionMatrix(const HybridBinaryMatrix& a, int parts, HaloExchange exchange = HaloExchange::Auto);

struct PartitionRunOptions {
    PartitionBackend backend = PartitionBackend::Reference;
    // Cuda: the GPUs, one partition each (their number must equal the partitions'). Empty: every
    // partition on the current GPU (a single-rank communicator; halos copied on the device).
    std::vector<int> devices;
    int iterations = 20;  // power iteration only
    int warmup = 3;       // iterations left out of the timing figures (still part of the result)
    const std::atomic<bool>* cancel = nullptr;  // checked between iterations (CancelledError)
};

struct PowerIterationResult {
    std::vector<double> x;         // the last iterate (unit 2-norm), as double
    std::vector<double> rayleigh;  // per iteration k: x_k' A x_k / x_k' x_k
    // Timing (GPU: CUDA events on every rank, medians over the timed iterations, the slowest rank's;
    // CPU: host clock). Communication is the all-reduce, the scaling and the halo exchange, waiting
    // for the slowest rank included.
    double iterationMs = 0, computeMs = 0, communicationMs = 0;
    double iterationMinMs = 0, iterationMaxMs = 0;  // spread of the slowest rank's timed iterations
    // The halo exchange alone (median, 0 without one) and how much of it ran while the next step
    // multiplied the rank's own columns (overlappedExchange: CSR ranks that read others' x).
    double exchangeMs = 0, hiddenExchangeMs = 0;
    bool overlappedExchange = false;
    double communicationShare() const { return iterationMs > 0 ? communicationMs / iterationMs : 0; }
    double setupMs = 0;           // uploads, communicators, streams (host clock)
    int timedIterations = 0;
    int ranks = 0;                // GPUs (or 1 for the CPU and the single-GPU partitions)
    std::string device;           // "CPU reference", or the GPU names
    std::vector<std::size_t> deviceBytes;  // per rank: matrix, x and y on the device
    // Every rank ran each step as one pass (GPU, segmented DIA without a CSR remainder): the multiply
    // forms the dot products and the normalisation is applied as x is read. Otherwise the multiply,
    // the dot products and the scaling are passes of their own.
    bool fusedStep = false;
};

// Power iteration from a fixed start vector (x0: seeded, positive, normalised; the same for every
// backend and partitioning). Square matrices only (InputError). BackendUnavailableError without a
// GPU on the Cuda backend; OutOfMemoryError naming the rank when a partition does not fit its GPU.
template <typename T>
PowerIterationResult powerIteration(const PartitionedMatrix<T>& matrix, const PartitionRunOptions& options);
// One y = A x through the partitions (x: cols entries).
template <typename T>
std::vector<T> partitionedSpmv(const PartitionedMatrix<T>& matrix, const std::vector<T>& x, const PartitionRunOptions& options);

// The start vector of powerIteration.
std::vector<double> powerStartVector(Index n);

// The GPUs of this machine (0 without CUDA or a device).
int cudaDeviceCount();

// NCCL's own all-gather on these GPUs (one rank each, one process): the floor a partitioned run's
// exchange is measured against. Median of `repeats` CUDA-event timings after warm-up, each rank
// contributing bytesPerRank; busGBs is NCCL's bus bandwidth, (ranks - 1) / ranks x total bytes / time.
struct AllGatherFloor {
    double ms = 0, busGBs = 0;
};
AllGatherFloor measureNcclAllGather(const std::vector<int>& devices, std::size_t bytesPerRank, int repeats = 20);

} // namespace spyglass
