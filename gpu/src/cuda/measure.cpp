// The measurement engine on the GPU (cuda/measure.h) and the copy-bandwidth ceiling it reads against.
#include "spyglass/cuda/measure.h"

#include "spyglass/backend.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/eventtimer.h"

#include <mutex>

namespace spyglass {

namespace cuda {

namespace {
// A scratch buffer twice the L2 size; none when the device cannot spare it (then the measurement says
// the cache was not flushed). Plain cudaMalloc: the memory cap simulates the user's data, not this.
class CacheFlush {
public:
    explicit CacheFlush(bool wanted) {
        if (!wanted) return;
        int device = 0, l2 = 0;
        SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
        SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
        m_bytes = 2 * static_cast<std::size_t>(l2);
        if (m_bytes == 0 || cudaMalloc(&m_data, m_bytes) != cudaSuccess) {
            cudaGetLastError();  // the failed allocation is not an error of the work
            m_data = nullptr;
        }
    }
    ~CacheFlush() {
        if (m_data) cudaFree(m_data);
    }
    CacheFlush(const CacheFlush&) = delete;
    CacheFlush& operator=(const CacheFlush&) = delete;
    bool active() const { return m_data != nullptr; }
    void enqueue(cudaStream_t stream) {
        if (m_data) SPYGLASS_CUDA_CHECK(cudaMemsetAsync(m_data, ++m_round, m_bytes, stream));
    }

private:
    void* m_data = nullptr;
    std::size_t m_bytes = 0;
    unsigned char m_round = 0;
};
} // namespace

Measurement measureOnStream(cudaStream_t stream, const std::function<void()>& launch, const TimingOptions& timing,
                            const std::function<void()>& restore, bool flushCache) {
    requireValidTiming("GPU measurement", timing);
    CacheFlush flush(flushCache);
    EventTimer timer(stream);
    Measurement m = measureRepeated(
        [&] {
            timer.start();
            launch();
            SPYGLASS_CUDA_CHECK(cudaGetLastError());
            return double(timer.stopMilliseconds());
        },
        timing,
        [&] {
            if (restore) restore();
            flush.enqueue(stream);
        });
    m.cacheFlushed = flush.active();
    return m;
}

double timeOnStream(cudaStream_t stream, const std::function<void()>& enqueue) {
    EventTimer timer(stream);
    timer.start();
    enqueue();
    return timer.stopMilliseconds();
}

void ChunkedMeasurement::measure(cudaStream_t stream, const std::function<void()>& launch, const std::function<void()>& restore) {
    if (m_first) {
        const Measurement first = measureOnStream(stream, launch, m_timing, restore);
        const double setup = m_result.setupMs, upload = m_result.uploadMs, download = m_result.downloadMs;
        m_result = first;
        m_result.setupMs = setup;
        m_result.uploadMs = upload;
        m_result.downloadMs = download;
        m_first = false;
        return;
    }
    const double ms = timeOnStream(stream, [&] {
        launch();
        SPYGLASS_CUDA_CHECK(cudaGetLastError());
    });
    m_result.medianMs += ms;
    m_result.minMs += ms;
    m_result.maxMs += ms;
}

} // namespace cuda

double deviceCopyBandwidthGBs() {
    static std::once_flag once;
    static double gbs = 0;
    std::call_once(once, [] {
        if (!cudaDeviceInfo().present) return;
        const std::size_t bytes = std::size_t(256) << 20;
        void *a = nullptr, *b = nullptr;
        if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) {
            cudaGetLastError();
            if (a) cudaFree(a);
            return;
        }
        cuda::CudaStream stream;
        SPYGLASS_CUDA_CHECK(cudaMemsetAsync(a, 1, bytes, stream.get()));
        const Measurement m = cuda::measureOnStream(
            stream.get(),
            [&] { SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice, stream.get())); },
            TimingOptions{3, 20}, {}, false);
        cudaFree(a);
        cudaFree(b);
        gbs = 2.0 * double(bytes) / (m.medianMs * 1e6);
    });
    return gbs;
}

} // namespace spyglass
