#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// Device-to-device copy bandwidth, the roofline SpMV timings are read against (the format comparison
// and the SpMV benchmarks measure it the same way).
#include "spyglass/benchmark.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"

#include <cstddef>

namespace spyglass::cuda {

// GB/s read + write of one cudaMemcpyAsync of `bytes` on the current device: median of `repeats`
// timed copies after `warmup` untimed ones. Throws OutOfMemoryError when the two buffers do not fit.
inline double copyBandwidthGBs(std::size_t bytes, int warmup, int repeats) {
    DeviceBuffer<unsigned char> a(bytes), b(bytes);
    SPYGLASS_CUDA_CHECK(cudaMemset(a.data(), 1, bytes));
    EventTimer timer;
    const auto t = bench::measure([&] {
        timer.start();
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice));
        return double(timer.stopMilliseconds());
    }, warmup, repeats);
    return 2.0 * double(bytes) / (t.medianMs * 1e6);
}

} // namespace spyglass::cuda
