// Device self-checks: thin wrappers over the RAII buffers, the capped allocator and EventTimer.
#include "spyglass/devicecheck.h"

#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/cuda/measure.h"

#include <algorithm>
#include <cstdint>

namespace spyglass::devicecheck {

namespace {

__device__ std::uint64_t globalTimerNs() {
    std::uint64_t now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    return now;
}

// The global timer ticks in nanoseconds on every architecture since Pascal; it does not depend on
// the SM clock, which boosts and throttles.
__global__ void spinKernel(std::uint64_t nanoseconds, int* sink) {
    const std::uint64_t start = globalTimerNs();
    int spins = 0;
    while (globalTimerNs() - start < nanoseconds) ++spins;
    if (threadIdx.x == 0 && spins < 0) *sink = spins;  // keeps the loop from being removed
}

template <typename T>
std::vector<T> roundTrip(const std::vector<T>& values) {
    cuda::DeviceBuffer<T> first;
    first.upload(values);
    cuda::DeviceBuffer<T> second(values.size());
    if (!values.empty())
        SPYGLASS_CUDA_CHECK(cudaMemcpy(second.data(), first.data(), values.size() * sizeof(T), cudaMemcpyDeviceToDevice));
    std::vector<T> result(values.size());
    second.download(result.data(), result.size());
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    return result;
}

} // namespace

std::vector<float> roundTripThroughDevice(const std::vector<float>& values) { return roundTrip(values); }
std::vector<double> roundTripThroughDevice(const std::vector<double>& values) { return roundTrip(values); }

double timeSpinKernelMs(double milliseconds) {
    cuda::DeviceBuffer<int> sink(1);
    cuda::EventTimer timer;
    timer.start();
    spinKernel<<<1, 32>>>(static_cast<std::uint64_t>(milliseconds * 1e6), sink.data());
    SPYGLASS_CUDA_CHECK_LAUNCH();
    return timer.stopMilliseconds();
}

Measurement measureSpinWithSlowFirstLaunch(double firstMs, double laterMs, const TimingOptions& timing) {
    cuda::DeviceBuffer<int> sink(1);
    cuda::CudaStream stream;
    int launches = 0;
    return cuda::measureOnStream(stream.get(), [&] {
        const double ms = launches++ == 0 ? firstMs : laterMs;
        spinKernel<<<1, 32, 0, stream.get()>>>(static_cast<std::uint64_t>(ms * 1e6), sink.data());
    }, timing);
}

double timeDeviceCopyMs(std::size_t bytes) {
    cuda::DeviceBuffer<unsigned char> source(bytes), target(bytes);
    SPYGLASS_CUDA_CHECK(cudaMemset(source.data(), 1, bytes));
    cuda::EventTimer timer;
    std::vector<double> times;
    for (int i = 0; i < 6; ++i) {
        timer.start();
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice));
        const double ms = timer.stopMilliseconds();
        if (i > 0) times.push_back(ms);  // the first copy pays for page mapping
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

void allocateAndTouch(std::size_t bytes) {
    cuda::DeviceBuffer<unsigned char> buffer(bytes);
    SPYGLASS_CUDA_CHECK(cudaMemset(buffer.data(), 0, bytes));
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
}

} // namespace spyglass::devicecheck
