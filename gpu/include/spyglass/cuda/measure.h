#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// The measurement engine (measurement.h) for GPU work: CUDA events on the work's stream.
#include "spyglass/measurement.h"

#include <cuda_runtime.h>

#include <functional>

namespace spyglass::cuda {

// Times `launch` (which enqueues the work on `stream` and does not synchronize) with CUDA events:
// a cold first call apart, timing.warmup untimed calls, timing.repeats timed ones. Before every
// call, outside the events: `restore` (re-make an input the work overwrites, e.g. cuBLAS getrf's
// matrices), then, with flushCache, a write over twice the L2 cache so that no call reads what the one
// before left in it (the benchmarks' batches are too large to stay there; a small tab's would not be).
// The results of the last call stay in the work's output buffers.
Measurement measureOnStream(cudaStream_t stream, const std::function<void()>& launch, const TimingOptions& timing,
                            const std::function<void()>& restore = {}, bool flushCache = true);

// Milliseconds of host work that enqueues on `stream` (a copy, a set-up), by CUDA events.
double timeOnStream(cudaStream_t stream, const std::function<void()>& enqueue);

// A batch streamed over several GPUs, each chunk's kernel timed once by events and the times summed
// over the GPUs: one run, no warm-up (the streamed path is measured end to end by bench_multigpu).
inline Measurement streamedMeasurement(double summedKernelMs, double setupMs) {
    Measurement m;
    m.clock = TimingClock::CudaEvents;
    m.medianMs = m.minMs = m.maxMs = summedKernelMs;
    m.repeats = 1;
    m.setupMs = setupMs;
    return m;
}

// A batch that runs in chunks (it does not fit the device at once): the first chunk is measured by
// measureOnStream, each later chunk by one warm run whose time is added to the median, min and max.
// Set-up, upload and download add up over the chunks.
class ChunkedMeasurement {
public:
    explicit ChunkedMeasurement(const TimingOptions& timing) : m_timing(timing) {}
    void measure(cudaStream_t stream, const std::function<void()>& launch, const std::function<void()>& restore = {});
    // Events around `enqueue` on `stream`; the milliseconds add to the step's total.
    void upload(cudaStream_t stream, const std::function<void()>& enqueue) { add(m_result.uploadMs, timeOnStream(stream, enqueue)); }
    void download(cudaStream_t stream, const std::function<void()>& enqueue) { add(m_result.downloadMs, timeOnStream(stream, enqueue)); }
    void addSetup(double ms) { add(m_result.setupMs, ms); }
    const Measurement& result() const { return m_result; }

private:
    static void add(double& total, double ms) { total = (total < 0 ? 0 : total) + ms; }
    TimingOptions m_timing;
    Measurement m_result;
    bool m_first = true;
};

} // namespace spyglass::cuda
