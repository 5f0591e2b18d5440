// The streamed batched inverse as one CUDA graph (batchedinverse_streamedgraph.h).
//
// The graph's shape: the uploads form one chain in chunk order (they share the host-to-device copy
// engine anyway; the chain makes chunk 0 go first, so its kernel can start after a quarter of the
// bytes). Each chunk's kernel waits only for its own upload, and its download for its kernel, so
// chunk k+1 uploads while chunk k inverts and chunk k-1 comes back. The kernels are not chained: a
// chunk of one-thread-per-matrix work takes nearly as long as the whole batch (latency, not
// throughput), so chunks must be free to invert side by side.
//
// Zero-copy form: one kernel node on the host arrays' device addresses. On the H200 host the copy
// engines moved the LTE slot's 614 KB in 16 us and back in 15 us (a 4 KB copy alone: 4-5 us), and
// a copy kernel over page-locked memory both ways in 24-28 us: each copy's fixed cost is gone, and
// the two directions share the link.
#include "spyglass/cuda/batchedinverse_streamedgraph.h"

#include "core/batchedinverse_streamed_plan.h"
#include "core/instantiate.h"
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::cuda {

namespace {
cudaPointerAttributes attributesOf(const void* host) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
        cudaGetLastError();  // an unknown pointer is an answer ("not pinned"), not an error to keep
        attributes.type = cudaMemoryTypeUnregistered;
    }
    return attributes;
}
bool pageLocked(const void* host) { return attributesOf(host).type == cudaMemoryTypeHost; }

// Ends a capture that failed half-way: leaves the stream usable; the first error is the one thrown.
void abandonCapture(cudaStream_t origin) {
    cudaGraph_t broken = nullptr;
    cudaStreamEndCapture(origin, &broken);
    if (broken) cudaGraphDestroy(broken);
    cudaGetLastError();
}

// The address under which the GPU sees a page-locked host array (unified addressing: usually the
// same one); InputError when it is not mapped (cudaHostRegister without cudaHostRegisterMapped on a
// system that does not map by default).
template <typename P> P* mappedAddress(P* host) {
    void* device = attributesOf(host).devicePointer;
    if (!device)
        throw InputError("streamed batched inverse: zero-copy needs host arrays mapped into the GPU's address space "
                         "(cudaMallocHost, or cudaHostRegister with cudaHostRegisterMapped)");
    return static_cast<P*>(device);
}
} // namespace

template <typename T>
StreamedInverseGraph<T>::StreamedInverseGraph(const T* hostInput, T* hostOutput, int* hostInfo, int n, std::int64_t count,
                                              int chunks, InverseKernel kernel, StreamedTransfer transfer)
    : m_n(n), m_count(count) {
    const inverse_detail::StreamedInversePlan plan =
        inverse_detail::planStreamedInverse(n, sizeof(T), count, chunks, kernel, transfer);
    if (!pageLocked(hostInput) || !pageLocked(hostOutput) || !pageLocked(hostInfo))
        throw InputError("streamed batched inverse: the host arrays must be page-locked (cudaMallocHost or cudaHostRegister)");
    m_chunkSize = plan.chunkSize;
    m_zeroCopy = plan.zeroCopy;
    // Zero-copy: the kernel runs on the mapped host arrays, where a TMA request runs the pipelined
    // kernel; that is the one to warm up and to report.
    m_kernel = inverseKernelThatRuns(plan.kernel, n, sizeof(T), plan.chunkSize, m_zeroCopy);
    if (m_zeroCopy) {
        // The warm-up runs on one matrix of device scratch: the caller's arrays are not touched
        // before the first launch.
        const std::size_t size = static_cast<std::size_t>(n) * n;
        DeviceBuffer<T> in(size), out(size);
        DeviceBuffer<int> info(1);
        SPYGLASS_CUDA_CHECK(cudaMemsetAsync(in.data(), 0, size * sizeof(T), m_captureStream.get()));
        launchInverseKernel(m_kernel, in.data(), out.data(), info.data(), n, 1, 0, m_captureStream.get());
        m_captureStream.synchronize();
        captureZeroCopy(mappedAddress(hostInput), mappedAddress(hostOutput), mappedAddress(hostInfo));
        return;
    }
    const std::size_t size = static_cast<std::size_t>(n) * n;
    for (std::int64_t first = 0; first < count; first += m_chunkSize) {
        auto chunk = std::make_unique<Chunk>();
        chunk->first = first;
        chunk->count = std::min(m_chunkSize, count - first);
        chunk->input.resize(static_cast<std::size_t>(chunk->count) * size);
        chunk->output.resize(static_cast<std::size_t>(chunk->count) * size);
        chunk->info.resize(static_cast<std::size_t>(chunk->count));
        m_chunks.push_back(std::move(chunk));
    }
    // Uncaptured warm-up on whatever the fresh buffers hold (the results are thrown away): loads the
    // kernel's module and fills the pipelined launcher's per-thread occupancy cache, whose
    // cudaFuncSetAttribute is not a call to make while a stream is capturing.
    Chunk& first = *m_chunks.front();
    launchInverseKernel(m_kernel, first.input.data(), first.output.data(), first.info.data(), n, first.count, 0,
                        m_captureStream.get());
    m_captureStream.synchronize();
    capture(hostInput, hostOutput, hostInfo);
}

template <typename T>
void StreamedInverseGraph<T>::capture(const T* hostInput, T* hostOutput, int* hostInfo) {
    const std::size_t size = static_cast<std::size_t>(m_n) * m_n;
    const cudaStream_t origin = m_captureStream.get();
    // Thread-local mode: another thread's unrelated CUDA calls cannot break this capture.
    SPYGLASS_CUDA_CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeThreadLocal));
    try {
        for (auto& chunk : m_chunks) {
            const std::size_t elements = static_cast<std::size_t>(chunk->count) * size;
            chunk->input.upload(hostInput + chunk->first * size, elements, origin);
            chunk->uploaded.record(origin);
            const cudaStream_t own = chunk->stream.get();
            SPYGLASS_CUDA_CHECK(cudaStreamWaitEvent(own, chunk->uploaded.get(), 0));
            launchInverseKernel(m_kernel, chunk->input.data(), chunk->output.data(), chunk->info.data(), m_n, chunk->count, 0, own);
            chunk->output.download(hostOutput + chunk->first * size, elements, own);
            chunk->info.download(hostInfo + chunk->first, static_cast<std::size_t>(chunk->count), own);
            chunk->done.record(own);
        }
        // Join every chunk's stream back into the origin: a capture must end where it began.
        for (auto& chunk : m_chunks) SPYGLASS_CUDA_CHECK(cudaStreamWaitEvent(origin, chunk->done.get(), 0));
    } catch (...) {
        abandonCapture(origin);
        throw;
    }
    SPYGLASS_CUDA_CHECK(cudaStreamEndCapture(origin, &m_graph));
    instantiate();
}

template <typename T>
void StreamedInverseGraph<T>::captureZeroCopy(const T* input, T* output, int* info) {
    const cudaStream_t origin = m_captureStream.get();
    SPYGLASS_CUDA_CHECK(cudaStreamBeginCapture(origin, cudaStreamCaptureModeThreadLocal));
    try {
        launchInverseKernel(m_kernel, input, output, info, m_n, m_count, 0, origin);
    } catch (...) {
        abandonCapture(origin);
        throw;
    }
    SPYGLASS_CUDA_CHECK(cudaStreamEndCapture(origin, &m_graph));
    instantiate();
}

template <typename T>
void StreamedInverseGraph<T>::instantiate() {
    const cudaStream_t origin = m_captureStream.get();
    try {
        SPYGLASS_CUDA_CHECK(cudaGraphInstantiate(&m_exec, m_graph, 0));
        // Uploads the executable graph now, so that the first launch is as cheap as the others.
        SPYGLASS_CUDA_CHECK(cudaGraphUpload(m_exec, origin));
        m_captureStream.synchronize();
    } catch (...) {
        // Thrown from the constructor: the destructor will not run, so the graphs go here.
        if (m_exec) cudaGraphExecDestroy(m_exec);
        cudaGraphDestroy(m_graph);
        m_exec = nullptr;
        m_graph = nullptr;
        throw;
    }
}

template <typename T>
StreamedInverseGraph<T>::~StreamedInverseGraph() {
    if (m_exec) cudaGraphExecDestroy(m_exec);
    if (m_graph) cudaGraphDestroy(m_graph);
}

template <typename T>
void StreamedInverseGraph<T>::launch(cudaStream_t stream) {
    SPYGLASS_CUDA_CHECK(cudaGraphLaunch(m_exec, stream));
}

#define SPYGLASS_INSTANTIATE_STREAMED_GRAPH(T) template class StreamedInverseGraph<T>;
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_STREAMED_GRAPH)

} // namespace spyglass::cuda
