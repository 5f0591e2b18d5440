#pragma once
// The CUDA handles a partitioned run holds per GPU: the current-device guard, events and streams, each
// destroyed with its own GPU current.
#include "spyglass/cuda/cudacheck.h"

#include <vector>

namespace spyglass::multigpu_detail {

struct DeviceGuard {
    explicit DeviceGuard(int device) { SPYGLASS_CUDA_CHECK(cudaSetDevice(device)); }
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

} // namespace spyglass::multigpu_detail
