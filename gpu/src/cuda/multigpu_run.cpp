// Partitioned SpMV and power iteration on GPUs (see spyglass/multigpu.h and docs/scale.md).
//
// N GPUs: one host thread, stream and NCCL rank per partition (ncclCommInitAll over the local GPUs).
// Each rank holds its rows in the format with global columns and a full-length x; per iteration it
// multiplies, forms its three dot products, all-reduces them (3 doubles), scales its y into its
// share of x and exchanges what the plan says: send/recv of the spans others read, or grouped
// broadcasts of every share (an all-gather of unequal shares). Nothing returns to the host between
// iterations. Host threads enqueue iterations in rounds of kRound so that a cancel request is read
// at the same iteration by every rank (a rank that stopped alone would leave the others waiting
// in a collective).
//
// Where the format allows it (segmented DIA without a remainder) a rank's step is one fused pass
// (multigpu_rank.h: PowerStep), and a single rank then needs no collective at all.
//
// One GPU, P partitions: the same steps for every partition on one stream, halos copied on the
// device, the partitions' dot products summed on the device and passed through a single-rank
// all-reduce, as a real rank would.
//
// The per-rank steps live in multigpu_rank.h, shared with one process per GPU (multiprocess_run.cpp).
#include "multigpu_rank.h"
#include "spyglass/cuda/eventtimer.h"
#include "core/multigpu_device.h"
#include "spyglass/backend.h"

#include <chrono>
#include <cmath>
#include <exception>
#include <thread>

namespace spyglass::multigpu_detail {

namespace {

using Clock = std::chrono::steady_clock;
// Runs fn(i) for i in [0, n) on n threads (or inline for one) and rethrows the first failure.
template <typename F>
void onThreads(int n, F fn) {
    if (n == 1) {
        fn(0);
        return;
    }
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i)
        threads.emplace_back([&, i] {
            try {
                fn(i);
            } catch (...) {
                errors[static_cast<std::size_t>(i)] = std::current_exception();
            }
        });
    for (auto& t : threads) t.join();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

class Communicators {
public:
    explicit Communicators(const std::vector<int>& devices) : m_comms(devices.size(), nullptr) {
        SPYGLASS_NCCL_CHECK(cuda::nccl().commInitAll(m_comms.data(), static_cast<int>(devices.size()), devices.data()));
    }
    ~Communicators() {
        for (auto c : m_comms)
            if (c) cuda::nccl().commDestroy(c);
    }
    Communicators(const Communicators&) = delete;
    Communicators& operator=(const Communicators&) = delete;
    ncclComm_t operator[](std::size_t i) const { return m_comms[i]; }

private:
    std::vector<ncclComm_t> m_comms;
};

std::vector<int> checkedDevices(const PartitionPlan& plan, const PartitionRunOptions& options) {
    const DeviceInfo info = cudaDeviceInfo();
    if (!info.present) throw BackendUnavailableError("partitioned run on CUDA: " + info.reason);
    const int available = deviceCount();
    std::vector<int> devices = options.devices;
    if (devices.empty()) {
        int current = 0;
        SPYGLASS_CUDA_CHECK(cudaGetDevice(&current));
        devices.assign(1, current);
    }
    for (int d : devices)
        if (d < 0 || d >= available)
            throw InputError("partitioned run: GPU " + std::to_string(d) + " does not exist (this machine has " +
                             std::to_string(available) + ")");
    for (std::size_t i = 0; i < devices.size(); ++i)
        for (std::size_t j = i + 1; j < devices.size(); ++j)
            if (devices[i] == devices[j]) throw InputError("partitioned run: GPU " + std::to_string(devices[i]) + " is named twice");
    if (devices.size() > 1 && devices.size() != plan.parts.size())
        throw InputError("partitioned run: " + std::to_string(plan.parts.size()) + " partitions for " +
                         std::to_string(devices.size()) + " GPUs (one partition per GPU)");
    return devices;
}

std::string deviceNames(const std::vector<int>& devices) {
    std::string names;
    for (int d : devices) {
        cudaDeviceProp prop{};
        SPYGLASS_CUDA_CHECK(cudaGetDeviceProperties(&prop, d));
        names += (names.empty() ? "" : " + ") + std::string(prop.name) + " (GPU " + std::to_string(d) + ")";
    }
    return names;
}

// The same exchange between partitions that share one GPU: device-to-device copies.
template <typename T>
void exchangeOnDevice(const PartitionPlan& plan, std::vector<std::unique_ptr<Rank<T>>>& ranks, cudaStream_t stream) {
    auto copy = [&](int from, int to, Index begin, Index end) {
        if (end <= begin) return;
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(ranks[to]->x.data() + begin, ranks[from]->x.data() + begin,
                                            static_cast<std::size_t>(end - begin) * sizeof(T), cudaMemcpyDeviceToDevice, stream));
    };
    if (plan.exchange == HaloExchange::SendRecv) {
        for (const HaloTransfer& t : plan.halo) copy(t.from, t.to, t.begin, t.end);
    } else {
        for (std::size_t from = 0; from < plan.parts.size(); ++from)
            for (std::size_t to = 0; to < plan.parts.size(); ++to)
                if (to != from) copy(int(from), int(to), plan.parts[from].rowBegin, plan.parts[from].rowEnd);
    }
}

} // namespace

int deviceCount() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

template <typename T>
PowerIterationResult powerIterationOnDevices(const PartitionedMatrix<T>& matrix, const PartitionRunOptions& options,
                                             const std::vector<double>& x0) {
    const PartitionPlan& plan = matrix.plan;
    const std::vector<int> devices = checkedDevices(plan, options);
    const bool shared = devices.size() == 1 && plan.parts.size() > 1;  // partitions emulated on one GPU
    const int parts = static_cast<int>(plan.parts.size());
    const int iterations = options.iterations;
    const std::vector<T> start(x0.begin(), x0.end());

    const auto setupStart = Clock::now();
    const std::vector<int> rankDevices = shared ? std::vector<int>(static_cast<std::size_t>(parts), devices[0]) : devices;
    Streams streams(devices);
    Communicators comms(devices);
    std::vector<std::unique_ptr<Rank<T>>> ranks(static_cast<std::size_t>(parts));
    cuda::DeviceBuffer<double> triples, total;  // shared mode: the partitions' dot products
    struct Release {  // device buffers go back with their own GPU current
        std::vector<std::unique_ptr<Rank<T>>>& ranks;
        ~Release() {
            for (auto& r : ranks)
                if (r) {
                    cudaSetDevice(r->device);
                    r.reset();
                }
        }
    } release{ranks};
    onThreads(shared ? 1 : parts, [&](int i) {
        if (shared) {
            for (int p = 0; p < parts; ++p) ranks[p] = makeRank(matrix, p, devices[0], streams[0], start, iterations);
        } else {
            ranks[i] = makeRank(matrix, i, devices[i], streams[i], start, iterations, RankOptions{true, true});
        }
    });
    if (shared) {
        DeviceGuard guard(devices[0]);
        triples.resize(3 * static_cast<std::size_t>(parts));
        total.resize(3);
    }
    PowerIterationResult result;
    result.setupMs = std::chrono::duration<double, std::milli>(Clock::now() - setupStart).count();
    result.ranks = static_cast<int>(devices.size());
    result.device = deviceNames(devices) + (shared ? ", " + std::to_string(parts) + " partitions" : "") + ", NCCL " +
                    cuda::ncclVersionText();
    for (const auto& r : ranks) result.deviceBytes.push_back(r->deviceBytes);
    result.fusedStep = std::all_of(ranks.begin(), ranks.end(), [](const auto& r) { return r->fused; });
    result.overlappedExchange = std::any_of(ranks.begin(), ranks.end(), [](const auto& r) { return r->overlapped; });

    for (int first = 0; first < iterations; first += kRound) {
        if (options.cancel && options.cancel->load()) throw CancelledError();
        const int last = std::min(iterations, first + kRound);
        if (shared) {
            DeviceGuard guard(devices[0]);
            const cudaStream_t s = streams[0];
            const IterationEvents& e = *ranks[0]->events;
            for (int k = first; k < last; ++k) {
                SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::Start), s));
                for (auto& r : ranks) r->op->multiply(s);
                for (int p = 0; p < parts; ++p) {
                    Rank<T>& r = *ranks[p];
                    cuda::launchPowerDots(r.y.data(), r.x.data() + r.rowBegin, r.rows, r.partial.data(), triples.data() + 3 * p, s);
                }
                SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::DotsDone), s));
                cuda::launchSumTriples(triples.data(), parts, total.data(), s);
                SPYGLASS_NCCL_CHECK(cuda::nccl().allReduce(total.data(), total.data(), 3, ncclDouble, ncclSum, comms[0], s));
                for (int p = 0; p < parts; ++p) {
                    Rank<T>& r = *ranks[p];
                    cuda::launchPowerScale(r.y.data(), r.x.data() + r.rowBegin, r.rows, total.data(),
                                           p == 0 ? r.rayleigh.data() + k : nullptr, s);
                }
                SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::ExchangeStart), s));
                exchangeOnDevice(plan, ranks, s);
                SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::ExchangeDone), s));
                SPYGLASS_CUDA_CHECK(cudaEventRecord(e(k, Mark::End), s));
            }
            SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(s));
        } else {
            onThreads(parts, [&](int i) {
                Rank<T>& r = *ranks[i];
                DeviceGuard guard(r.device);
                enqueueIterations(plan, r, comms[i], first, last);
                SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(r.stream));
            });
        }
    }

    const int warmup = std::min(options.warmup, iterations - 1);
    std::vector<RankTimes> times;
    for (int r = 0; r < (shared ? 1 : parts); ++r) times.push_back(rankTimes(*ranks[r], warmup, iterations));
    takeSlowest(times, result);
    // The result: every rank's share of the last x, and the Rayleigh quotients (rank 0's; all agree).
    result.x.assign(static_cast<std::size_t>(plan.rows), 0.0);
    for (auto& r : ranks) downloadShare(*r, iterations, result.x);
    result.rayleigh = downloadRayleigh(*ranks[0], iterations);
    return result;
}

template <typename T>
std::vector<T> partitionedSpmvOnDevices(const PartitionedMatrix<T>& matrix, const std::vector<T>& x, const PartitionRunOptions& options) {
    const PartitionPlan& plan = matrix.plan;
    const std::vector<int> devices = checkedDevices(plan, options);
    const bool shared = devices.size() == 1 && plan.parts.size() > 1;
    const int parts = static_cast<int>(plan.parts.size());
    Streams streams(devices);
    std::vector<T> y(static_cast<std::size_t>(plan.rows));
    onThreads(shared ? 1 : parts, [&](int i) {
        for (int p = shared ? 0 : i; p < (shared ? parts : i + 1); ++p) {
            const int device = devices[shared ? 0 : i];
            const cudaStream_t stream = streams[shared ? 0 : i];
            std::unique_ptr<Rank<T>> rank = makeRank(matrix, p, device, stream, x, 1);
            DeviceGuard guard(device);
            rank->op->multiply(stream);
            rank->y.download(y.data() + rank->rowBegin, static_cast<std::size_t>(rank->rows), stream);
            SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        }
    });
    return y;
}

SPYGLASS_INSTANTIATE_MULTIGPU_DEVICE_RUNS(float)
SPYGLASS_INSTANTIATE_MULTIGPU_DEVICE_RUNS(double)

} // namespace spyglass::multigpu_detail
