#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// GPU time with CUDA events: record around the work on one stream, read the elapsed milliseconds.
#include "spyglass/cuda/cudacheck.h"

namespace spyglass::cuda {

class CudaEvent {
public:
    CudaEvent() { SPYGLASS_CUDA_CHECK(cudaEventCreate(&m_event)); }
    ~CudaEvent() { cudaEventDestroy(m_event); }
    CudaEvent(const CudaEvent&) = delete;
    CudaEvent& operator=(const CudaEvent&) = delete;
    void record(cudaStream_t stream = nullptr) { SPYGLASS_CUDA_CHECK(cudaEventRecord(m_event, stream)); }
    void synchronize() { SPYGLASS_CUDA_CHECK(cudaEventSynchronize(m_event)); }
    cudaEvent_t get() const { return m_event; }

private:
    cudaEvent_t m_event = nullptr;
};

class EventTimer {
public:
    explicit EventTimer(cudaStream_t stream = nullptr) : m_stream(stream) {}
    void start() { m_start.record(m_stream); }
    // Records the stop event, waits for it and returns the milliseconds since start().
    float stopMilliseconds() {
        m_stop.record(m_stream);
        m_stop.synchronize();
        float ms = 0.0f;
        SPYGLASS_CUDA_CHECK(cudaEventElapsedTime(&ms, m_start.get(), m_stop.get()));
        return ms;
    }

private:
    cudaStream_t m_stream;
    CudaEvent m_start, m_stop;
};

class CudaStream {
public:
    CudaStream() { SPYGLASS_CUDA_CHECK(cudaStreamCreateWithFlags(&m_stream, cudaStreamNonBlocking)); }
    ~CudaStream() { cudaStreamDestroy(m_stream); }
    CudaStream(const CudaStream&) = delete;
    CudaStream& operator=(const CudaStream&) = delete;
    cudaStream_t get() const { return m_stream; }
    void synchronize() { SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(m_stream)); }

private:
    cudaStream_t m_stream = nullptr;
};

} // namespace spyglass::cuda
