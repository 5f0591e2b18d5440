// invertBatched on the GPU: host batch -> device in chunks that fit -> kernel or cuBLAS -> host.
// One GPU: the kernel measured by the measurement engine (cuda/measure.h), copies by events apart;
// several GPUs (streamed): kernel times by events summed, end-to-end time by the host clock.
#include "core/instantiate.h"
#include "cuda/batchedsvd_streaming.h"
#include "cuda/streamsetup.h"
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/cuda/measure.h"
#include "core/batchedinverse_device.h"
#include "core/batchedinverse_scalar.h"
#include "spyglass/backend.h"
#include "spyglass/batchedinverse_status.h"
#include "spyglass/error.h"

#include <algorithm>
#include <chrono>
#include <complex>
#include <mutex>
#include <vector>

namespace spyglass::inverse_detail {

namespace {
template <typename T>
struct ChunkBuffers {
    cuda::DeviceBuffer<T> input, output;
    cuda::DeviceBuffer<int> info;
    std::unique_ptr<cuda::CublasBatchedInverse<T>> cublas;
};

template <typename T>
ChunkBuffers<T> allocateChunk(int n, std::int64_t chunk, bool vendor, cudaStream_t stream) {
    const std::size_t elements = static_cast<std::size_t>(chunk) * n * n;
    ChunkBuffers<T> buffers;
    buffers.input.resize(elements);
    buffers.output.resize(elements);
    buffers.info.resize(static_cast<std::size_t>(chunk));
    if (vendor) {
        buffers.cublas = std::make_unique<cuda::CublasBatchedInverse<T>>(n, chunk, stream);
        buffers.cublas->reservePivotDiagonals();  // for the status rule, see invertBatchedOnDevice
    }
    return buffers;
}
} // namespace

// The batch over options.devices, streamed (batchedsvd_streaming.h): Spyglass's kernels only.
template <typename T>
InverseRunInfo invertBatchedStreamed(const T* input, T* output, int n, std::int64_t count, const InverseOptions& options,
                                     const DeviceInfo& device) {
    cuda::checkStreamedRun(options.backend == InverseBackend::Cuda, toString(options.backend), options.devices,
                           "batched inverse");
    const auto start = std::chrono::steady_clock::now();
    InverseRunInfo run;
    run.device = std::to_string(options.devices.size()) + " x " + device.name;
    run.info.assign(static_cast<std::size_t>(count), 0);
    run.kernelUsed = cuda::inverseKernelThatRuns(options.kernel, n, sizeof(T), count);
    if (count == 0) return run;
    const std::size_t size = static_cast<std::size_t>(n) * n;
    const std::size_t perMatrix = 2 * size * sizeof(T) + sizeof(int);
    const std::string key = "inverse " + std::to_string(sizeof(T)) + "-byte " + (isComplex<T> ? "complex " : "") +
                            std::to_string(n) + "x" + std::to_string(n) + " " + toString(run.kernelUsed);
    const cuda::StreamSetup setup = cuda::planStreamedRun(key, options.devices, count, options.streamChunk, size * sizeof(T),
                                                          size * sizeof(T) + sizeof(int), perMatrix, device.freeMemory);
    const std::int64_t chunk = setup.chunk;
    run.kernelUsed = cuda::inverseKernelThatRuns(options.kernel, n, sizeof(T), chunk);  // Auto picks per launch
    run.chunks = setup.chunks;
    run.streamNote = setup.note;
    run.device = std::to_string(setup.devices.size()) + " x " + device.name;
    // The statuses go straight into run.info, page-locked with the caller's arrays: no per-slot
    // page-locked scratch, whose cudaMallocHost and cudaFreeHost were slow host calls inside the
    // streaming time, on every GPU's thread.
    cuda::PinnedRange pinIn(input, count * size * sizeof(T)), pinOut(output, count * size * sizeof(T)),
        pinInfo(run.info.data(), run.info.size() * sizeof(int));
    run.setupMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    struct Slot {
        ChunkBuffers<T> buffers;
        cuda::CudaEvent begin, end;
    };
    std::mutex mutex;
    const cuda::StreamTimes times = cuda::streamBatch<Slot>(
        setup.devices, count, chunk,
        [&](int, cudaStream_t stream) {
            auto slot = std::make_unique<Slot>();
            slot->buffers = allocateChunk<T>(n, chunk, false, stream);
            return slot;
        },
        [&](Slot& slot, const cuda::StreamedChunk& c, cudaStream_t stream) {
            const std::size_t h = static_cast<std::size_t>(c.count);
            slot.buffers.input.upload(input + c.first * size, h * size, stream);
            slot.begin.record(stream);
            cuda::launchInverseKernel(options.kernel, slot.buffers.input.data(), slot.buffers.output.data(), slot.buffers.info.data(), n,
                                      c.count, options.matricesPerBlock, stream);
            slot.end.record(stream);
            slot.buffers.output.download(output + c.first * size, h * size, stream);
            slot.buffers.info.download(run.info.data() + c.first, h, stream);
        },
        [&](Slot& slot, const cuda::StreamedChunk&) {
            float ms = 0;
            SPYGLASS_CUDA_CHECK(cudaEventElapsedTime(&ms, slot.begin.get(), slot.end.get()));
            std::lock_guard<std::mutex> lock(mutex);
            run.computeMs += ms;  // summed over the GPUs (they overlap in wall time)
        },
        options.cancel, "inverse " + std::to_string(n) + "x" + std::to_string(n) + ", chunks of " + std::to_string(chunk));
    run.totalMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    run.timing = cuda::streamedMeasurement(run.computeMs, run.setupMs);
    run.streamNote += cuda::describeStreamTimes(times);
    cuda::recordStreamedRun(key, setup, count, run.totalMs - run.setupMs, run.computeMs);
    return run;
}

template <typename T>
InverseRunInfo invertBatchedOnDevice(const T* input, T* output, int n, std::int64_t count, const InverseOptions& options) {
    const DeviceInfo device = cudaDeviceInfo();
    if (!device.present)
        throw BackendUnavailableError(std::string("batched inverse: the ") + toString(options.backend) +
                                      " backend needs a GPU: " + device.reason);
    if (!options.devices.empty()) return invertBatchedStreamed(input, output, n, count, options, device);
    const auto start = std::chrono::steady_clock::now();
    InverseRunInfo run;
    run.device = device.name;
    run.info.assign(static_cast<std::size_t>(count), 0);
    const bool vendor = options.backend == InverseBackend::Cublas;
    run.kernelUsed = cuda::inverseKernelThatRuns(options.kernel, n, sizeof(T), count);
    if (count == 0) return run;

    // Chunk size: what 80 % of the free memory (or the configured cap) holds, halved until the
    // allocation succeeds; one matrix that does not fit is an OutOfMemoryError for the caller.
    const std::size_t perMatrix = 2 * static_cast<std::size_t>(n) * n * sizeof(T) + sizeof(int) +
                                  (vendor ? cuda::CublasBatchedInverse<T>::extraBytesPerMatrix(n) + n * sizeof(T) : 0);
    const std::size_t cap = deviceMemoryCap();
    const std::size_t budget = cap ? cap : device.freeMemory / 10 * 8;
    std::int64_t chunk = std::max<std::int64_t>(1, std::min<std::int64_t>(count, static_cast<std::int64_t>(budget / perMatrix)));
    if (vendor) chunk = std::min<std::int64_t>(chunk, 0x7fffffff);
    cuda::CudaStream stream;
    ChunkBuffers<T> buffers;
    for (;;) {
        try {
            buffers = allocateChunk<T>(n, chunk, vendor, stream.get());
            break;
        } catch (const OutOfMemoryError&) {
            buffers = ChunkBuffers<T>{};
            if (chunk == 1) throw;
            chunk = (chunk + 1) / 2;
        }
    }
    run.chunks = static_cast<int>((count + chunk - 1) / chunk);
    if (!vendor) run.kernelUsed = cuda::inverseKernelThatRuns(options.kernel, n, sizeof(T), chunk);  // Auto picks per launch
    // The cuBLAS handle and its pointer arrays are made once, here, outside the timed region (a
    // short last chunk reuses them); their cost is reported as set-up, not as compute.
    if (vendor) buffers.cublas->bind(buffers.input.data(), buffers.output.data());
    run.setupMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();

    cuda::ChunkedMeasurement timing(options.timing);
    timing.addSetup(run.setupMs);  // host work (allocation, handle, pointer arrays): the host clock
    const std::size_t size = static_cast<std::size_t>(n) * n;
    std::vector<T> pivots(vendor ? static_cast<std::size_t>(count) * n : 0);
    for (std::int64_t first = 0; first < count; first += chunk) {
        if (options.cancel && options.cancel->load()) throw CancelledError();
        const std::int64_t here = std::min(chunk, count - first);
        const std::size_t elements = static_cast<std::size_t>(here) * size;
        auto uploadInput = [&] { buffers.input.upload(input + first * size, elements, stream.get()); };
        timing.upload(stream.get(), uploadInput);
        auto launch = [&] {
            if (vendor) buffers.cublas->run(options.kernel, buffers.input.data(), buffers.output.data(), buffers.info.data(), here);
            else
                cuda::launchInverseKernel(options.kernel, buffers.input.data(), buffers.output.data(), buffers.info.data(), n,
                                          here, options.matricesPerBlock, stream.get());
        };
        // cuBLAS's getrf factors the input in place: every timed call gets the matrices back first.
        timing.measure(stream.get(), launch, vendor ? std::function<void()>(uploadInput) : std::function<void()>());
        if (vendor) {
            // The status verdict comes from cuBLAS's own LU pivots (getrf left them in the input
            // buffer; matinv keeps its factors to itself, so getrf runs once more, untimed).
            if (options.kernel == InverseKernel::CublasMatinv)
                buffers.cublas->factorize(buffers.input.data(), here);
            buffers.cublas->downloadPivotDiagonals(buffers.input.data(), pivots.data() + first * n, here);
        }
        timing.download(stream.get(), [&] {
            buffers.output.download(output + first * size, elements, stream.get());
            buffers.info.download(run.info.data() + first, static_cast<std::size_t>(here), stream.get());
        });
        stream.synchronize();
    }
    run.timing = timing.result();
    run.computeMs = run.timing.medianMs;
    if (vendor) applyInverseStatusRule(input, pivots.data(), output, n, count, run.info.data());
    run.totalMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return run;
}

#define SPYGLASS_INSTANTIATE_DEVICE(T) \
    template InverseRunInfo invertBatchedOnDevice<T>(const T*, T*, int, std::int64_t, const InverseOptions&);
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_DEVICE)

} // namespace spyglass::inverse_detail
