// The streamed batched inverse as one CUDA graph (batchedinverse_streamedgraph.h).
//
// The graph's shape: the uploads form one chain in chunk order (they share the host-to-device copy
// engine anyway; the chain makes chunk 0 go first, so its kernel can start after a quarter of the
// bytes). Each chunk's kernel waits only for its own upload, and its download for its kernel, so
// chunk k+1 uploads while chunk k inverts and chunk k-1 comes back. The kernels are not chained: a
// chunk of one-thread-per-matrix work takes nearly as long as the whole batch (latency, not
// throughput), so chunks must be free to invert side by side.
#include "spyglass/cuda/batchedinverse_streamedgraph.h"

#include "core/batchedinverse_streamed_plan.h"
#include "core/instantiate.h"
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::cuda {

namespace {
bool pageLocked(const void* host) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, host) != cudaSuccess) {
        cudaGetLastError();  // an unknown pointer is an answer ("not pinned"), not an error to keep
        return false;
    }
    return attributes.type == cudaMemoryTypeHost;
}
} // namespace

template <typename T>
StreamedInverseGraph<T>::StreamedInverseGraph(const T* hostInput, T* hostOutput, int* hostInfo, int n, std::int64_t count,
                                              int chunks, InverseKernel kernel)
    : m_n(n) {
    const inverse_detail::StreamedInversePlan plan = inverse_detail::planStreamedInverse(n, sizeof(T), count, chunks, kernel);
    if (!pageLocked(hostInput) || !pageLocked(hostOutput) || !pageLocked(hostInfo))
        throw InputError("streamed batched inverse: the host arrays must be page-locked (cudaMallocHost or cudaHostRegister)");
    m_kernel = plan.kernel == InverseKernel::Auto ? resolveAutoInverseKernel(n, sizeof(T)) : plan.kernel;
    m_chunkSize = plan.chunkSize;
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
        cudaGraph_t broken = nullptr;
        cudaStreamEndCapture(origin, &broken);  // leaves the stream usable; the first error is the one thrown
        if (broken) cudaGraphDestroy(broken);
        cudaGetLastError();
        throw;
    }
    SPYGLASS_CUDA_CHECK(cudaStreamEndCapture(origin, &m_graph));
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
