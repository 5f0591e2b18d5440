// NCCL's all-gather measured on the GPUs a partitioned run uses (see spyglass/multigpu.h): the floor
// for the run's exchange, taken in the same process and on the same links.
#include "multigpu_streams.h"
#include "nccl_library.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/measurement.h"
#include "spyglass/multigpu.h"

#include <algorithm>
#include <memory>

namespace spyglass {

AllGatherFloor measureNcclAllGather(const std::vector<int>& devices, std::size_t bytesPerRank, int repeats) {
    using namespace multigpu_detail;
    const int ranks = static_cast<int>(devices.size());
    if (ranks < 2) throw InputError("NCCL all-gather: needs two GPUs or more");
    const auto& nccl = cuda::nccl();
    std::vector<ncclComm_t> comms(devices.size(), nullptr);
    SPYGLASS_NCCL_CHECK(nccl.commInitAll(comms.data(), ranks, devices.data()));
    struct Release {
        std::vector<ncclComm_t>& comms;
        ~Release() {
            for (auto c : comms)
                if (c) cuda::nccl().commDestroy(c);
        }
    } release{comms};
    Streams streams(devices);
    const std::size_t count = (bytesPerRank + 7) / 8;  // as doubles
    std::vector<std::unique_ptr<cuda::DeviceBuffer<double>>> buffers;
    std::vector<std::unique_ptr<Events>> events;
    for (int r = 0; r < ranks; ++r) {
        DeviceGuard guard(devices[std::size_t(r)]);
        buffers.push_back(std::make_unique<cuda::DeviceBuffer<double>>());
        buffers.back()->resize(count * std::size_t(ranks));
        events.push_back(std::make_unique<Events>(2 * (repeats + 3)));
    }
    // One group call over every rank (one process owns all the communicators); 3 untimed first.
    for (int k = 0; k < repeats + 3; ++k) {
        for (int r = 0; r < ranks; ++r) {
            DeviceGuard guard(devices[std::size_t(r)]);
            SPYGLASS_CUDA_CHECK(cudaEventRecord((*events[std::size_t(r)])[2 * k], streams[std::size_t(r)]));
        }
        SPYGLASS_NCCL_CHECK(nccl.groupStart());
        for (int r = 0; r < ranks; ++r) {
            double* all = buffers[std::size_t(r)]->data();
            SPYGLASS_NCCL_CHECK(nccl.allGather(all + count * std::size_t(r), all, count, ncclDouble, comms[std::size_t(r)],
                                               streams[std::size_t(r)]));
        }
        SPYGLASS_NCCL_CHECK(nccl.groupEnd());
        for (int r = 0; r < ranks; ++r) {
            DeviceGuard guard(devices[std::size_t(r)]);
            SPYGLASS_CUDA_CHECK(cudaEventRecord((*events[std::size_t(r)])[2 * k + 1], streams[std::size_t(r)]));
        }
    }
    std::vector<double> times;
    for (int k = 3; k < repeats + 3; ++k) {
        double slowest = 0;
        for (int r = 0; r < ranks; ++r) {
            DeviceGuard guard(devices[std::size_t(r)]);
            SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(streams[std::size_t(r)]));
            float ms = 0;
            SPYGLASS_CUDA_CHECK(cudaEventElapsedTime(&ms, (*events[std::size_t(r)])[2 * k], (*events[std::size_t(r)])[2 * k + 1]));
            slowest = std::max(slowest, double(ms));
        }
        times.push_back(slowest);
    }
    for (int r = 0; r < ranks; ++r) {  // device buffers go back with their own GPU current
        DeviceGuard guard(devices[std::size_t(r)]);
        buffers[std::size_t(r)].reset();
        events[std::size_t(r)].reset();
    }
    AllGatherFloor floor;
    floor.ms = medianOf(times);
    const double total = double(count) * 8.0 * ranks;
    floor.busGBs = floor.ms > 0 ? (ranks - 1.0) / ranks * total / (floor.ms * 1e6) : 0;
    return floor;
}

} // namespace spyglass
