#pragma once
// One NCCL rank of a partitioned power iteration: its slice on its GPU and the per-iteration steps.
// Shared by the threads of one process (multigpu_run.cpp, ncclCommInitAll) and by one process per GPU
// (multiprocess_run.cpp, ncclCommInitRank), so the two differ only in how the communicator is made.
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/devicememory.h"
#include "spyglass/error.h"
#include "spyglass/multigpu.h"
#include "multigpu_kernels.h"
#include "multigpu_partoperator.h"
#include "multigpu_ranktimes.h"
#include "multigpu_streams.h"
#include "nccl_library.h"

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace spyglass::multigpu_detail {

template <typename T> constexpr ncclDataType_t ncclTypeOf() { return std::is_same_v<T, float> ? ncclFloat : ncclDouble; }

// How a rank runs its steps. Separate (always): multiply into y, a pass for the dot products, one that
// writes y / ||y|| into the rank's share of x.
// fuseStep, where the format allows it (segmented DIA without a remainder): one pass multiplies and
// forms the block's dot-product terms, the normalisation is applied when the next step reads x, and
// two full-length vectors take turns (step k reads one and writes its share of the other).
// overlapExchange, for CSR ranks that receive at least kHiddenExchangeShare of their bytes from other
// ranks each step: the exchange of step k runs on a stream of its own while step k + 1 multiplies the
// rank's own columns; the other columns follow once it is in.
// Partitions sharing one GPU (one stream) use neither.
struct RankOptions {
    bool fuseStep = false;
    bool overlapExchange = false;
};

// The smallest exchange, as a share of the rank's matrix bytes, that the rank hides behind its own
// columns' multiply. Split by column, every step makes a second pass over the rank's y (read and write,
// 16 bytes a row in f64) and one more launch: a halo of a few boundary planes (a stencil: 0.1 % of the
// bytes) gains nothing from hiding, and on 4 x H200 the split stencil ran 0.21x one GPU (send/recv
// exchange, cause not found) against 3.39x unsplit. A coupled operator (every rank reads all of x:
// 20-30 %) gains 1.67x against 1.48x on 2 GPUs and 1.52x against 1.44x on 4 (bench/results/multigpu*.md).
constexpr double kHiddenExchangeShare = 0.05;

// The bytes of x this part receives in each step's exchange.
template <typename T>
double exchangeBytesInto(const PartitionPlan& plan, int part) {
    double count = 0;
    if (plan.exchange == HaloExchange::SendRecv) {
        for (const HaloTransfer& t : plan.halo)
            if (t.to == part) count += double(t.end - t.begin);
    } else {
        for (std::size_t p = 0; p < plan.parts.size(); ++p)
            if (int(p) != part) count += double(plan.parts[p].rows());
    }
    return count * sizeof(T);
}

// One partition on one device: its matrix, its full-length x (and, fused, the second one), its y
// (separate steps only), the dot-product scratch and the events of every iteration.
template <typename T>
struct Rank {
    int device = 0, part = 0;
    Index rowBegin = 0, rows = 0;
    cudaStream_t stream = nullptr;
    bool fused = false, exchanges = false, overlapped = false;
    std::unique_ptr<Streams> exchangeStream;  // overlapped ranks only
    cuda::DeviceBuffer<T> x, y, xNext;
    cuda::DeviceBuffer<double> partial, dots, rayleigh, scale;
    std::unique_ptr<PartOperator<T>> op;
    std::unique_ptr<IterationEvents> events;
    std::size_t deviceBytes = 0;

    // The full-length vector step k reads (fused: they alternate; separate: always x).
    T* input(int k) { return fused && k % 2 == 1 ? xNext.data() : x.data(); }
    T* output(int k) { return fused ? input(k + 1) : x.data(); }
    cudaStream_t exchangeOn() const { return overlapped ? (*exchangeStream)[0] : stream; }
};

template <typename T>
std::unique_ptr<Rank<T>> makeRank(const PartitionedMatrix<T>& matrix, int part, int device, cudaStream_t stream,
                                  const std::vector<T>& x0, int iterations, RankOptions options = {}) {
    DeviceGuard guard(device);
    auto rank = std::make_unique<Rank<T>>();
    const RowPartition& p = matrix.plan.parts[static_cast<std::size_t>(part)];
    rank->device = device;
    rank->part = part;
    rank->rowBegin = p.rowBegin;
    rank->rows = p.rows();
    rank->stream = stream;
    rank->exchanges = matrix.plan.parts.size() > 1;
    const std::size_t before = deviceMemoryInUse();
    try {
        rank->x.upload(x0, stream);
        rank->dots.resize(3);
        rank->rayleigh.resize(std::max(1, iterations));
        rank->fused = options.fuseStep && matrix.plan.format == PartitionFormat::SegmentedDia &&
                      matrix.segmentedDia[static_cast<std::size_t>(part)].remainderValues.empty();
        if (!rank->fused) {
            rank->y.resize(std::max<std::size_t>(1, static_cast<std::size_t>(p.rows())));
            rank->partial.resize(3 * cuda::kPowerDotBlocks);
        }
        // A segmented-DIA operator binds no vector: fused, it has no y at all.
        const bool worthHiding = rank->exchanges && exchangeBytesInto<T>(matrix.plan, part) >=
                                                        kHiddenExchangeShare * double(matrix.partBytes(part));
        rank->op = std::make_unique<PartOperator<T>>(matrix, part, rank->x.data(), rank->fused ? nullptr : rank->y.data(), stream,
                                                     options.overlapExchange && worthHiding);
        rank->overlapped = rank->op->overlaps();
        if (rank->overlapped) rank->exchangeStream = std::make_unique<Streams>(std::vector<int>{device});
        if (rank->fused) {
            rank->xNext.resize(std::max<std::size_t>(1, x0.size()));
            rank->partial.resize(3 * static_cast<std::size_t>(std::max(1, rank->op->powerStepBlocks())));
            rank->scale.upload(std::vector<double>{1.0}, stream);  // step 0 reads x0 as given
        }
    } catch (const OutOfMemoryError& e) {
        throw OutOfMemoryError(std::string(e.what()) + " (partition " + std::to_string(part) + ": rows [" +
                                   std::to_string(p.rowBegin) + ", " + std::to_string(p.rowEnd) + ") on GPU " +
                                   std::to_string(device) + ")",
                               e.file(), e.line());
    }
    rank->events = std::make_unique<IterationEvents>(iterations);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    rank->deviceBytes = deviceMemoryInUse() - before;
    return rank;
}

// Enqueues the halo exchange of one rank among several (NCCL) on `on`, after its share of x is written.
template <typename T>
void exchangeNccl(const PartitionPlan& plan, const Rank<T>& rank, T* x, ncclComm_t comm, cudaStream_t on) {
    const auto& nccl = cuda::nccl();
    SPYGLASS_NCCL_CHECK(nccl.groupStart());
    if (plan.exchange == HaloExchange::SendRecv) {
        for (const HaloTransfer& t : plan.halo) {
            const std::size_t count = static_cast<std::size_t>(t.end - t.begin);
            if (t.from == rank.part) SPYGLASS_NCCL_CHECK(nccl.send(x + t.begin, count, ncclTypeOf<T>(), t.to, comm, on));
            if (t.to == rank.part) SPYGLASS_NCCL_CHECK(nccl.recv(x + t.begin, count, ncclTypeOf<T>(), t.from, comm, on));
        }
    } else {
        for (std::size_t root = 0; root < plan.parts.size(); ++root) {
            const RowPartition& p = plan.parts[root];
            if (p.rows() == 0) continue;
            SPYGLASS_NCCL_CHECK(nccl.broadcast(x + p.rowBegin, x + p.rowBegin, static_cast<std::size_t>(p.rows()), ncclTypeOf<T>(),
                                               static_cast<int>(root), comm, on));
        }
    }
    SPYGLASS_NCCL_CHECK(nccl.groupEnd());
}

// Step k's exchange of x (timed by its own events), on the exchange stream once the step's End is
// reached when it overlaps, else in line.
template <typename T>
void enqueueExchange(const PartitionPlan& plan, Rank<T>& r, T* x, ncclComm_t comm, int k) {
    const IterationEvents& e = *r.events;
    const cudaStream_t on = r.exchangeOn();
    if (r.overlapped) {
        SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::End), r.stream));
        SPYGLASS_CUDA_CHECK(cudaStreamWaitEvent(on, e(k, Mark::End), 0));
    }
    SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::ExchangeStart), on));
    exchangeNccl(plan, r, x, comm, on);
    SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::ExchangeDone), on));
}

// Enqueues iterations [first, last) of one rank among several: multiply, dot products, all-reduce,
// scale into its share of x, exchange.
// Fused: the step's pass, the sum of its blocks' terms, and with several ranks the all-reduce, the new
// scale and the exchange; a single rank finishes in the summing kernel and has no collective at all.
// Overlapped: the own columns first, then wait for the previous step's exchange, then the other
// columns. The round ends by joining its last exchange, so nothing of it is left in flight when the
// host looks at the cancel flag or reads x. The one NCCL communicator is used from two streams, but
// never by two operations at once: each waits for the one before it (exchange k ends before the
// all-reduce of step k + 1 starts, which ends before exchange k + 1).
template <typename T>
void enqueueIterations(const PartitionPlan& plan, Rank<T>& r, ncclComm_t comm, int first, int last) {
    const IterationEvents& e = *r.events;
    for (int k = first; k < last; ++k) {
        SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::Start), r.stream));
        if (r.fused) {
            T* const in = r.input(k);
            T* const out = r.output(k);
            r.op->powerStep(in, in + r.rowBegin, out + r.rowBegin, r.scale.data(), r.partial.data(), r.stream);
            double* const finishedScale = r.exchanges ? nullptr : r.scale.data();
            cuda::launchSumDots(r.partial.data(), r.op->powerStepBlocks(), r.dots.data(), finishedScale,
                                r.exchanges ? nullptr : r.rayleigh.data() + k, r.stream);
            SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::DotsDone), r.stream));
            if (r.exchanges) {
                SPYGLASS_NCCL_CHECK(cuda::nccl().allReduce(r.dots.data(), r.dots.data(), 3, ncclDouble, ncclSum, comm, r.stream));
                cuda::launchPowerFinish(r.dots.data(), r.scale.data(), r.rayleigh.data() + k, r.stream);
                enqueueExchange(plan, r, out, comm, k);
            }
            SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::End), r.stream));
            continue;
        }
        if (r.overlapped) {
            r.op->multiplyOwn(r.stream);
            if (k > first) SPYGLASS_CUDA_CHECK(cudaStreamWaitEvent(r.stream, e(k - 1, Mark::ExchangeDone), 0));
            r.op->multiplyOthers(r.stream);
        } else {
            r.op->multiply(r.stream);
        }
        cuda::launchPowerDots(r.y.data(), r.x.data() + r.rowBegin, r.rows, r.partial.data(), r.dots.data(), r.stream);
        SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::DotsDone), r.stream));
        SPYGLASS_NCCL_CHECK(cuda::nccl().allReduce(r.dots.data(), r.dots.data(), 3, ncclDouble, ncclSum, comm, r.stream));
        cuda::launchPowerScale(r.y.data(), r.x.data() + r.rowBegin, r.rows, r.dots.data(), r.rayleigh.data() + k, r.stream);
        if (r.exchanges) enqueueExchange(plan, r, r.x.data(), comm, k);
        if (!r.overlapped) SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::End), r.stream));
    }
    if (r.overlapped && last > first) SPYGLASS_CUDA_CHECK(cudaStreamWaitEvent(r.stream, e(last - 1, Mark::ExchangeDone), 0));
}

template <typename T>
RankTimes rankTimes(const Rank<T>& rank, int warmup, int iterations) {
    return rankTimes(*rank.events, rank.exchanges, rank.overlapped, warmup, iterations);
}

// The rank's own share of the last x after `iterations` steps (the other entries of the full-length
// vector are its copies of the halo), into x. Fused, the share still holds the last raw y: it is
// scaled here exactly as the separate path's kernel scales it on the device.
template <typename T>
void downloadShare(Rank<T>& r, int iterations, std::vector<double>& x) {
    DeviceGuard guard(r.device);
    std::vector<T> share(static_cast<std::size_t>(r.rows));
    if (!share.empty())
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(share.data(), r.input(iterations) + r.rowBegin, share.size() * sizeof(T),
                                            cudaMemcpyDeviceToHost, r.stream));
    double scale = 1;
    if (r.fused) r.scale.download(&scale, 1, r.stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(r.stream));
    for (std::size_t i = 0; i < share.size(); ++i)
        x[static_cast<std::size_t>(r.rowBegin) + i] = r.fused ? static_cast<double>(static_cast<T>(static_cast<double>(share[i]) * scale))
                                                              : static_cast<double>(share[i]);
}

// The Rayleigh quotient of every iteration, as the rank holds them (every rank holds the same).
template <typename T>
std::vector<double> downloadRayleigh(Rank<T>& r, int iterations) {
    DeviceGuard guard(r.device);
    std::vector<double> history(static_cast<std::size_t>(iterations));
    r.rayleigh.download(history.data(), history.size(), r.stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(r.stream));
    return history;
}

} // namespace spyglass::multigpu_detail
