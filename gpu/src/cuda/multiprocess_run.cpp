// One process per GPU (spyglass/multiprocess.h): this process is one NCCL rank of the communicator
// every rank joins through the rendezvous (RankCommunicator, rankcommunicator.cpp); from there the
// rank runs the steps of a single-process rank (multigpu_rank.h). What a single process knows from
// the whole matrix, every rank's bytes and x span, is gathered once over NCCL before the exchange is
// planned; after the last iteration one all-gather gives every rank the whole x, and one gathers the
// ranks' times so that the slowest rank's are reported, as the single-process run reports them.
#include "multigpu_rank.h"
#include "rankcommunicator_native.h"
#include "core/multigpu_device.h"
#include "core/multiprocess_device.h"

#include "spyglass/backend.h"

#include <chrono>
#include <cstdint>
#include <exception>
#include <string>
#include <utility>

namespace spyglass::multigpu_detail {

namespace {

using Clock = std::chrono::steady_clock;

std::string rankName(const ProcessGroup& group) {
    return "rank " + std::to_string(group.rank) + " of " + std::to_string(group.worldSize) + " (GPU " + std::to_string(group.device) + ")";
}

// A device error's text without the file and line it begins with (a new error puts them back in front).
std::string withoutLocation(const DeviceError& e) {
    std::string what = e.what();
    const std::string where = std::string(e.file()) + ":" + std::to_string(e.line()) + ": ";
    if (what.rfind(where, 0) == 0) what.erase(0, where.size());
    return what;
}

// The parts' bytes and x spans from every rank, then the exchange they call for.
void completePlan(PartitionPlan& plan, const ProcessGroup& group, HaloExchange exchange, ncclComm_t comm, cudaStream_t stream) {
    const RowPartition& own = plan.parts[std::size_t(group.rank)];
    const std::vector<std::int64_t> spans =
        allGather<std::int64_t>({own.xBegin, own.xEnd, std::int64_t(own.bytes)}, ncclInt64, group.worldSize, comm, stream);
    for (std::size_t p = 0; p < plan.parts.size(); ++p) {
        plan.parts[p].xBegin = static_cast<Index>(spans[3 * p]);
        plan.parts[p].xEnd = static_cast<Index>(spans[3 * p + 1]);
        plan.parts[p].bytes = static_cast<std::uint64_t>(spans[3 * p + 2]);
    }
    planExchange(plan, exchange);
}

// Every rank's times and device bytes; the slowest rank's times become the run's.
template <typename T>
void gatherTimes(const Rank<T>& rank, const ProcessGroup& group, int warmup, int iterations, ncclComm_t comm, PowerIterationResult& result) {
    const RankTimes t = rankTimes(rank, warmup, iterations);
    constexpr int kFields = 9;
    const std::vector<double> all = allGather<double>({t.iterationMs, t.iterationMinMs, t.iterationMaxMs, t.computeMs, t.communicationMs,
                                                       t.exchangeMs, t.hiddenExchangeMs, double(t.samples), double(rank.deviceBytes)},
                                                      ncclDouble, group.worldSize, comm, rank.stream);
    std::vector<RankTimes> times;
    for (int r = 0; r < group.worldSize; ++r) {
        const double* v = all.data() + kFields * r;
        times.push_back({v[0], v[1], v[2], v[3], v[4], v[5], v[6], static_cast<int>(v[7])});
        result.deviceBytes.push_back(static_cast<std::size_t>(v[8]));
    }
    takeSlowest(times, result);
    result.overlappedExchange = rank.overlapped;
}

template <typename T>
RankPowerResult runRank(CsrMatrix<T> slice, PartitionPlan plan, const ProcessGroup& group, const PartitionRunOptions& options,
                        HaloExchange exchange, const std::vector<double>& x0) {
    DeviceGuard guard(group.device);
    const auto setupStart = Clock::now();
    const int iterations = options.iterations;
    Streams streams({group.device});
    const cudaStream_t stream = streams[0];
    const RankCommunicator communicator(group);
    const ncclComm_t comm = communicator.native().comm;
    completePlan(plan, group, exchange, comm, stream);

    // The rank's view of the partitioned matrix: the plan of every rank, the slice of its own.
    PartitionedMatrix<T> view;
    view.plan = plan;
    view.csr.resize(plan.parts.size());
    view.csr[std::size_t(group.rank)] = std::move(slice);
    std::unique_ptr<Rank<T>> rank;
    std::exception_ptr setupError;
    try {
        rank = makeRank(view, group.rank, group.device, stream, std::vector<T>(x0.begin(), x0.end()), iterations, RankOptions{true, true});
    } catch (...) {  // host memory too: whatever stops this rank must reach the others
        setupError = std::current_exception();
    }
    view.csr[std::size_t(group.rank)] = CsrMatrix<T>{};  // on the device now
    // A rank that failed alone would leave the others waiting in the first all-reduce.
    communicator.agree(setupError, "set up its slice");

    RankPowerResult run;
    PowerIterationResult& result = run.result;
    result.setupMs = std::chrono::duration<double, std::milli>(Clock::now() - setupStart).count();
    result.ranks = group.worldSize;
    cudaDeviceProp prop{};
    SPYGLASS_CUDA_CHECK(cudaGetDeviceProperties(&prop, group.device));
    result.device = std::string(prop.name) + " (GPU " + std::to_string(group.device) + "), rank " + std::to_string(group.rank) + " of " +
                    std::to_string(group.worldSize) + " processes, NCCL " + cuda::ncclVersionText();

    // Rounds as in the single-process run; the cancel flag is not read: a process that stopped alone
    // would leave the others waiting in a collective, and there is no channel to tell them.
    for (int first = 0; first < iterations; first += kRound) {
        enqueueIterations(plan, *rank, comm, first, std::min(iterations, first + kRound));
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    const int warmup = std::min(options.warmup, iterations - 1);
    gatherTimes(*rank, group, warmup, iterations, comm, result);

    // Every rank's share to every rank (outside the timing), so that each holds the whole last x.
    PartitionPlan everything = plan;
    everything.exchange = HaloExchange::AllGather;
    if (plan.parts.size() > 1) exchangeNccl(everything, *rank, rank->x.data(), comm, stream);
    std::vector<T> x(static_cast<std::size_t>(plan.rows));
    rank->x.download(x.data(), x.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    result.x.assign(x.begin(), x.end());
    result.rayleigh = downloadRayleigh(*rank, iterations);
    run.plan = std::move(plan);
    return run;
}

} // namespace

template <typename T>
RankPowerResult powerIterationAsRankOnDevice(CsrMatrix<T> slice, PartitionPlan plan, const ProcessGroup& group,
                                             const PartitionRunOptions& options, HaloExchange exchange, const std::vector<double>& x0) {
    const DeviceInfo info = cudaDeviceInfo();
    if (!info.present) throw BackendUnavailableError("one process per GPU, " + rankName(group) + ": " + info.reason);
    const int available = deviceCount();
    if (group.device < 0 || group.device >= available)
        throw InputError("one process per GPU, " + rankName(group) + ": GPU " + std::to_string(group.device) +
                         " does not exist (this process sees " + std::to_string(available) + ")");
    // Failures name the rank: in a run of many processes, the one that failed is what matters.
    try {
        return runRank(std::move(slice), std::move(plan), group, options, exchange, x0);
    } catch (const OutOfMemoryError& e) {
        throw OutOfMemoryError(rankName(group) + ": " + withoutLocation(e), e.file(), e.line());
    } catch (const DeviceError& e) {
        throw DeviceError(rankName(group) + ": " + withoutLocation(e), e.file(), e.line());
    } catch (const BackendUnavailableError& e) {
        throw BackendUnavailableError(rankName(group) + ": " + e.what());
    }
}

SPYGLASS_INSTANTIATE_MULTIPROCESS_DEVICE_RUN(float)
SPYGLASS_INSTANTIATE_MULTIPROCESS_DEVICE_RUN(double)

} // namespace spyglass::multigpu_detail
