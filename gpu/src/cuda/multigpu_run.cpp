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
// One GPU, P partitions: the same steps for every partition on one stream, halos copied on the
// device, the partitions' dot products summed on the device and passed through a single-rank
// all-reduce, as a real rank would.
#include "spyglass/measurement.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/cuda/hybrid_device_api.h"
#include "multigpu_kernels.h"
#include "nccl_library.h"
#include "core/multigpu_device.h"
#include "spyglass/cuda/segdia_device_api.h"
#include "spyglass/backend.h"
#include "spyglass/devicememory.h"
#include "spyglass/error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>

namespace spyglass::multigpu_detail {

namespace {

using Clock = std::chrono::steady_clock;
constexpr int kRound = 16;  // iterations enqueued between two looks at the cancel flag

template <typename T> constexpr ncclDataType_t ncclTypeOf() { return std::is_same_v<T, float> ? ncclFloat : ncclDouble; }

struct DeviceGuard {
    explicit DeviceGuard(int device) { SPYGLASS_CUDA_CHECK(cudaSetDevice(device)); }
};

// One partition's multiply on its device: y (its rows) = A_p x (full length), x and y bound once.
template <typename T>
class PartOperator {
public:
    PartOperator(const PartitionedMatrix<T>& matrix, int p, const T* x, T* y, cudaStream_t stream)
        : m_format(matrix.plan.format), m_x(x), m_y(y) {
        switch (m_format) {
        case PartitionFormat::Csr: m_csr = std::make_unique<cuda::CusparseCsrSpmv<T>>(matrix.csr[p], x, y, stream); break;
        case PartitionFormat::SegmentedDia:
            m_segdia = std::make_unique<cuda::DeviceSegmentedDia<T>>(matrix.segmentedDia[p], stream);
            break;
        case PartitionFormat::Hybrid:
            m_hybrid = std::make_unique<cuda::HybridDeviceMatrix>();
            m_hybrid->upload(matrix.hybrid[p], stream);
            break;
        }
    }
    void multiply(cudaStream_t stream) {
        switch (m_format) {
        case PartitionFormat::Csr: m_csr->multiply(stream); break;
        case PartitionFormat::SegmentedDia: m_segdia->multiply(m_x, m_y, stream); break;
        case PartitionFormat::Hybrid: m_hybrid->multiply<T>(m_x, m_y, stream); break;
        }
    }

private:
    PartitionFormat m_format;
    const T* m_x;
    T* m_y;
    std::unique_ptr<cuda::CusparseCsrSpmv<T>> m_csr;
    std::unique_ptr<cuda::DeviceSegmentedDia<T>> m_segdia;
    std::unique_ptr<cuda::HybridDeviceMatrix> m_hybrid;
};

class Events {
public:
    explicit Events(int count) : m_events(static_cast<std::size_t>(count)) {
        for (auto& e : m_events) SPYGLASS_CUDA_CHECK(cudaEventCreate(&e));
    }
    ~Events() {
        for (auto& e : m_events) cudaEventDestroy(e);
    }
    Events(const Events&) = delete;
    Events& operator=(const Events&) = delete;
    cudaEvent_t operator[](int i) const { return m_events[static_cast<std::size_t>(i)]; }

private:
    std::vector<cudaEvent_t> m_events;
};

// One partition on one device: its matrix, its full-length x, its y, the dot-product scratch and, per
// iteration, three events (start, after the dot products, after the exchange).
template <typename T>
struct Rank {
    int device = 0, part = 0;
    Index rowBegin = 0, rows = 0;
    cudaStream_t stream = nullptr;
    cuda::DeviceBuffer<T> x, y;
    cuda::DeviceBuffer<double> partial, dots, rayleigh;
    std::unique_ptr<PartOperator<T>> op;
    std::unique_ptr<Events> events;
    std::size_t deviceBytes = 0;
};

template <typename T>
std::unique_ptr<Rank<T>> makeRank(const PartitionedMatrix<T>& matrix, int part, int device, cudaStream_t stream,
                                  const std::vector<T>& x0, int iterations) {
    DeviceGuard guard(device);
    auto rank = std::make_unique<Rank<T>>();
    const RowPartition& p = matrix.plan.parts[static_cast<std::size_t>(part)];
    rank->device = device;
    rank->part = part;
    rank->rowBegin = p.rowBegin;
    rank->rows = p.rows();
    rank->stream = stream;
    const std::size_t before = deviceMemoryInUse();
    try {
        rank->x.upload(x0, stream);
        rank->y.resize(std::max<std::size_t>(1, static_cast<std::size_t>(p.rows())));
        rank->partial.resize(3 * cuda::kPowerDotBlocks);
        rank->dots.resize(3);
        rank->rayleigh.resize(std::max(1, iterations));
        rank->op = std::make_unique<PartOperator<T>>(matrix, part, rank->x.data(), rank->y.data(), stream);
    } catch (const OutOfMemoryError& e) {
        throw OutOfMemoryError(std::string(e.what()) + " (partition " + std::to_string(part) + ": rows [" +
                                   std::to_string(p.rowBegin) + ", " + std::to_string(p.rowEnd) + ") on GPU " +
                                   std::to_string(device) + ")",
                               e.file(), e.line());
    }
    rank->events = std::make_unique<Events>(3 * std::max(1, iterations));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    rank->deviceBytes = deviceMemoryInUse() - before;
    return rank;
}

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

class Streams {
public:
    explicit Streams(const std::vector<int>& devices) {
        for (int d : devices) {
            DeviceGuard guard(d);
            cudaStream_t s = nullptr;
            SPYGLASS_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
            m_streams.push_back(s);
        }
    }
    ~Streams() {
        for (auto s : m_streams) cudaStreamDestroy(s);
    }
    Streams(const Streams&) = delete;
    Streams& operator=(const Streams&) = delete;
    cudaStream_t operator[](std::size_t i) const { return m_streams[i]; }

private:
    std::vector<cudaStream_t> m_streams;
};

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

// Enqueues the halo exchange of one rank among several (NCCL) after its share of x is written.
template <typename T>
void exchangeNccl(const PartitionPlan& plan, Rank<T>& rank, ncclComm_t comm) {
    const auto& nccl = cuda::nccl();
    T* x = rank.x.data();
    SPYGLASS_NCCL_CHECK(nccl.groupStart());
    if (plan.exchange == HaloExchange::SendRecv) {
        for (const HaloTransfer& t : plan.halo) {
            const std::size_t count = static_cast<std::size_t>(t.end - t.begin);
            if (t.from == rank.part) SPYGLASS_NCCL_CHECK(nccl.send(x + t.begin, count, ncclTypeOf<T>(), t.to, comm, rank.stream));
            if (t.to == rank.part) SPYGLASS_NCCL_CHECK(nccl.recv(x + t.begin, count, ncclTypeOf<T>(), t.from, comm, rank.stream));
        }
    } else {
        for (std::size_t root = 0; root < plan.parts.size(); ++root) {
            const RowPartition& p = plan.parts[root];
            if (p.rows() == 0) continue;
            SPYGLASS_NCCL_CHECK(nccl.broadcast(x + p.rowBegin, x + p.rowBegin, static_cast<std::size_t>(p.rows()), ncclTypeOf<T>(),
                                               static_cast<int>(root), comm, rank.stream));
        }
    }
    SPYGLASS_NCCL_CHECK(nccl.groupEnd());
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

template <typename T>
void collectTimes(const std::vector<std::unique_ptr<Rank<T>>>& ranks, int ranksWithEvents, int warmup, int iterations,
                  PowerIterationResult& result) {
    for (int r = 0; r < ranksWithEvents; ++r) {
        const Events& e = *ranks[r]->events;
        std::vector<double> total, compute, communication;
        for (int k = warmup; k < iterations; ++k) {
            float t = 0, c = 0;
            SPYGLASS_CUDA_CHECK(cudaEventElapsedTime(&t, e[3 * k], e[3 * k + 2]));
            SPYGLASS_CUDA_CHECK(cudaEventElapsedTime(&c, e[3 * k], e[3 * k + 1]));
            total.push_back(t);
            compute.push_back(c);
            communication.push_back(double(t) - double(c));
        }
        // The slowest rank sets the pace (the all-reduce makes every rank wait for it).
        const double it = spyglass::medianOf(total);  // the measurement engine's median
        if (it >= result.iterationMs) {
            result.iterationMs = it;
            result.iterationMinMs = total.empty() ? 0 : *std::min_element(total.begin(), total.end());
            result.iterationMaxMs = total.empty() ? 0 : *std::max_element(total.begin(), total.end());
            result.computeMs = spyglass::medianOf(compute);
            result.communicationMs = spyglass::medianOf(communication);
        }
    }
    result.timedIterations = iterations - warmup;
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
            ranks[i] = makeRank(matrix, i, devices[i], streams[i], start, iterations);
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

    for (int first = 0; first < iterations; first += kRound) {
        if (options.cancel && options.cancel->load()) throw CancelledError();
        const int last = std::min(iterations, first + kRound);
        if (shared) {
            DeviceGuard guard(devices[0]);
            const cudaStream_t s = streams[0];
            const Events& e = *ranks[0]->events;
            for (int k = first; k < last; ++k) {
                SPYGLASS_CUDA_CHECK(cudaEventRecord(e[3 * k], s));
                for (auto& r : ranks) r->op->multiply(s);
                for (int p = 0; p < parts; ++p) {
                    Rank<T>& r = *ranks[p];
                    cuda::launchPowerDots(r.y.data(), r.x.data() + r.rowBegin, r.rows, r.partial.data(), triples.data() + 3 * p, s);
                }
                SPYGLASS_CUDA_CHECK(cudaEventRecord(e[3 * k + 1], s));
                cuda::launchSumTriples(triples.data(), parts, total.data(), s);
                SPYGLASS_NCCL_CHECK(cuda::nccl().allReduce(total.data(), total.data(), 3, ncclDouble, ncclSum, comms[0], s));
                for (int p = 0; p < parts; ++p) {
                    Rank<T>& r = *ranks[p];
                    cuda::launchPowerScale(r.y.data(), r.x.data() + r.rowBegin, r.rows, total.data(),
                                           p == 0 ? r.rayleigh.data() + k : nullptr, s);
                }
                exchangeOnDevice(plan, ranks, s);
                SPYGLASS_CUDA_CHECK(cudaEventRecord(e[3 * k + 2], s));
            }
            SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(s));
        } else {
            onThreads(parts, [&](int i) {
                Rank<T>& r = *ranks[i];
                DeviceGuard guard(r.device);
                const Events& e = *r.events;
                for (int k = first; k < last; ++k) {
                    SPYGLASS_CUDA_CHECK(cudaEventRecord(e[3 * k], r.stream));
                    r.op->multiply(r.stream);
                    cuda::launchPowerDots(r.y.data(), r.x.data() + r.rowBegin, r.rows, r.partial.data(), r.dots.data(), r.stream);
                    SPYGLASS_CUDA_CHECK(cudaEventRecord(e[3 * k + 1], r.stream));
                    SPYGLASS_NCCL_CHECK(cuda::nccl().allReduce(r.dots.data(), r.dots.data(), 3, ncclDouble, ncclSum, comms[i], r.stream));
                    cuda::launchPowerScale(r.y.data(), r.x.data() + r.rowBegin, r.rows, r.dots.data(), r.rayleigh.data() + k, r.stream);
                    if (parts > 1) exchangeNccl(plan, r, comms[i]);
                    SPYGLASS_CUDA_CHECK(cudaEventRecord(e[3 * k + 2], r.stream));
                }
                SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(r.stream));
            });
        }
    }

    collectTimes(ranks, shared ? 1 : parts, std::min(options.warmup, iterations - 1), iterations, result);
    // The result: every rank's share of the last x, and the Rayleigh quotients (rank 0's; all agree).
    result.x.assign(static_cast<std::size_t>(plan.rows), 0.0);
    for (auto& r : ranks) {
        DeviceGuard guard(r->device);
        // The rank's own share of its full-length x (the other entries are its copies of the halo).
        std::vector<T> share(static_cast<std::size_t>(r->rows));
        if (!share.empty())
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(share.data(), r->x.data() + r->rowBegin, share.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                                r->stream));
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(r->stream));
        std::copy(share.begin(), share.end(), result.x.begin() + r->rowBegin);
    }
    {
        DeviceGuard guard(ranks[0]->device);
        std::vector<double> history(static_cast<std::size_t>(iterations));
        ranks[0]->rayleigh.download(history.data(), history.size(), ranks[0]->stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(ranks[0]->stream));
        result.rayleigh = std::move(history);
    }
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
