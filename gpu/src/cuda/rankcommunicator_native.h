#pragma once
// What a RankCommunicator (spyglass/rankcommunicator.h) holds, and the one all-gather every rank-level
// collective of the library goes through: the power iteration (multiprocess_run.cpp) uses both on its
// own stream, the communicator's gathers on the communicator's stream.
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/rankcommunicator.h"
#include "nccl_library.h"

#include <vector>

namespace spyglass {

struct RankCommunicator::Native {
    ProcessGroup group;
    ncclComm_t comm = nullptr;
    cudaStream_t stream = nullptr;  // the gathers' stream, on group.device
};

namespace multigpu_detail {

// Every rank's `values` (the same count on each), in rank order.
template <typename V>
std::vector<V> allGather(const std::vector<V>& values, ncclDataType_t type, int worldSize, ncclComm_t comm, cudaStream_t stream) {
    cuda::DeviceBuffer<V> mine, all;
    mine.upload(values, stream);
    all.resize(values.size() * static_cast<std::size_t>(worldSize));
    SPYGLASS_NCCL_CHECK(cuda::nccl().allGather(mine.data(), all.data(), values.size(), type, comm, stream));
    std::vector<V> gathered(all.size());
    all.download(gathered.data(), gathered.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return gathered;
}

} // namespace multigpu_detail
} // namespace spyglass
