#pragma once
// Page-locked host memory owned for an object's lifetime (cudaMallocHost): for copies that must run
// asynchronously, or that a CUDA graph's copy nodes address for as long as the graph lives.
#include "spyglass/cuda/cudacheck.h"

#include <cstddef>

namespace spyglass::cuda {

template <typename T>
class PinnedHostArray {
public:
    explicit PinnedHostArray(std::size_t count) {
        if (count) SPYGLASS_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&m_data), count * sizeof(T)));
    }
    ~PinnedHostArray() {
        if (m_data) cudaFreeHost(m_data);
    }
    PinnedHostArray(const PinnedHostArray&) = delete;
    PinnedHostArray& operator=(const PinnedHostArray&) = delete;
    T* data() { return m_data; }
    const T* data() const { return m_data; }
    const T& operator[](std::size_t i) const { return m_data[i]; }

private:
    T* m_data = nullptr;
};

} // namespace spyglass::cuda
