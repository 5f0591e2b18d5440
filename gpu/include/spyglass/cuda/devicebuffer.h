#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// RAII device memory. Allocation honours setDeviceMemoryCap() so that tests can simulate a small GPU.
#include "spyglass/cuda/cudacheck.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace spyglass::cuda {

// Raw allocation with the cap applied; throws OutOfMemoryError naming the size asked for.
// Before refusing (the cap, or cudaMalloc out of memory) it frees the device memory kept for reuse
// (registerKeptMemoryRelease) and tries once more: memory kept to make a later run faster must never
// make a run fail that would have run without it.
void* deviceAllocate(std::size_t bytes, const char* file, int line);
void deviceFree(void* pointer, std::size_t bytes) noexcept;
// A function that frees every device allocation its owner keeps for reuse (cuda/streamslotpool.h).
void registerKeptMemoryRelease(void (*release)());

template <typename T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t count) { resize(count); }
    ~DeviceBuffer() { release(); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept { swap(other); }
    DeviceBuffer& operator=(DeviceBuffer&& other) noexcept { swap(other); return *this; }

    void resize(std::size_t count) {
        release();
        if (count == 0) return;
        m_data = static_cast<T*>(deviceAllocate(count * sizeof(T), __FILE__, __LINE__));
        m_count = count;
    }
    void release() noexcept {
        if (m_data) deviceFree(m_data, m_count * sizeof(T));
        m_data = nullptr;
        m_count = 0;
    }
    void upload(const T* host, std::size_t count, cudaStream_t stream = nullptr) {
        if (count > m_count) resize(count);
        if (count) SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(m_data, host, count * sizeof(T), cudaMemcpyHostToDevice, stream));
    }
    void upload(const std::vector<T>& host, cudaStream_t stream = nullptr) { upload(host.data(), host.size(), stream); }
    void download(T* host, std::size_t count, cudaStream_t stream = nullptr) const {
        if (count) SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(host, m_data, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
    }
    std::vector<T> toHost(cudaStream_t stream = nullptr) const {
        std::vector<T> host(m_count);
        download(host.data(), m_count, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        return host;
    }
    T* data() { return m_data; }
    const T* data() const { return m_data; }
    std::size_t size() const { return m_count; }
    std::size_t bytes() const { return m_count * sizeof(T); }

private:
    void swap(DeviceBuffer& other) noexcept {
        std::swap(m_data, other.m_data);
        std::swap(m_count, other.m_count);
    }
    T* m_data = nullptr;
    std::size_t m_count = 0;
};

} // namespace spyglass::cuda
