#pragma once
// One NCCL rank of a partitioned power iteration: its slice on its GPU, the per-iteration steps and
// its timing. Shared by the threads of one process (multigpu_run.cpp, ncclCommInitAll) and by one
// process per GPU (multiprocess_run.cpp, ncclCommInitRank), so the two differ only in how the
// communicator is made.
#include "spyglass/measurement.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/hybrid_device_api.h"
#include "spyglass/cuda/segdia_device_api.h"
#include "spyglass/devicememory.h"
#include "spyglass/error.h"
#include "spyglass/multigpu.h"
#include "multigpu_kernels.h"
#include "nccl_library.h"

#include <algorithm>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace spyglass::multigpu_detail {

// Iterations enqueued between two looks at the cancel flag: every rank reads it at the same iteration
// (a rank that stopped alone would leave the others waiting in a collective).
constexpr int kRound = 16;

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

// One non-blocking stream per GPU, each created and destroyed with its GPU current.
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


// Enqueues iterations [first, last) of one rank among several: multiply, dot products, all-reduce,
// scale into its share of x, exchange. Events: start, after the dot products, after the exchange.
template <typename T>
void enqueueIterations(const PartitionPlan& plan, Rank<T>& r, ncclComm_t comm, int first, int last) {
    const Events& e = *r.events;
    for (int k = first; k < last; ++k) {
        SPYGLASS_CUDA_CHECK(cudaEventRecord(e[3 * k], r.stream));
        r.op->multiply(r.stream);
        cuda::launchPowerDots(r.y.data(), r.x.data() + r.rowBegin, r.rows, r.partial.data(), r.dots.data(), r.stream);
        SPYGLASS_CUDA_CHECK(cudaEventRecord(e[3 * k + 1], r.stream));
        SPYGLASS_NCCL_CHECK(cuda::nccl().allReduce(r.dots.data(), r.dots.data(), 3, ncclDouble, ncclSum, comm, r.stream));
        cuda::launchPowerScale(r.y.data(), r.x.data() + r.rowBegin, r.rows, r.dots.data(), r.rayleigh.data() + k, r.stream);
        if (plan.parts.size() > 1) exchangeNccl(plan, r, comm);
        SPYGLASS_CUDA_CHECK(cudaEventRecord(e[3 * k + 2], r.stream));
    }
}

// One rank's timed iterations: medians of the whole iteration, of the compute part and of the rest.
struct RankTimes {
    double iterationMs = 0, iterationMinMs = 0, iterationMaxMs = 0, computeMs = 0, communicationMs = 0;
};

template <typename T>
RankTimes rankTimes(const Rank<T>& rank, int warmup, int iterations) {
    const Events& e = *rank.events;
    std::vector<double> total, compute, communication;
    for (int k = warmup; k < iterations; ++k) {
        float t = 0, c = 0;
        SPYGLASS_CUDA_CHECK(cudaEventElapsedTime(&t, e[3 * k], e[3 * k + 2]));
        SPYGLASS_CUDA_CHECK(cudaEventElapsedTime(&c, e[3 * k], e[3 * k + 1]));
        total.push_back(t);
        compute.push_back(c);
        communication.push_back(double(t) - double(c));
    }
    RankTimes times;
    times.iterationMs = spyglass::medianOf(total);  // the measurement engine's median
    times.iterationMinMs = total.empty() ? 0 : *std::min_element(total.begin(), total.end());
    times.iterationMaxMs = total.empty() ? 0 : *std::max_element(total.begin(), total.end());
    times.computeMs = spyglass::medianOf(compute);
    times.communicationMs = spyglass::medianOf(communication);
    return times;
}

// The slowest rank sets the pace (the all-reduce makes every rank wait for it): its times are the run's.
inline void takeSlowest(const std::vector<RankTimes>& ranks, int warmup, int iterations, PowerIterationResult& result) {
    for (const RankTimes& t : ranks)
        if (t.iterationMs >= result.iterationMs) {
            result.iterationMs = t.iterationMs;
            result.iterationMinMs = t.iterationMinMs;
            result.iterationMaxMs = t.iterationMaxMs;
            result.computeMs = t.computeMs;
            result.communicationMs = t.communicationMs;
        }
    result.timedIterations = iterations - warmup;
}

// The rank's own share of its full-length x (the other entries are its copies of the halo), into x.
template <typename T>
void downloadShare(Rank<T>& r, std::vector<double>& x) {
    DeviceGuard guard(r.device);
    std::vector<T> share(static_cast<std::size_t>(r.rows));
    if (!share.empty())
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(share.data(), r.x.data() + r.rowBegin, share.size() * sizeof(T), cudaMemcpyDeviceToHost,
                                            r.stream));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(r.stream));
    std::copy(share.begin(), share.end(), x.begin() + r.rowBegin);
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
