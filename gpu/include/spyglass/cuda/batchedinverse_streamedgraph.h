#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// The engine under StreamedBatchedInverse (batchedinverse_streamed.h): device buffers, streams,
// events and an instantiated CUDA graph for one batch shape and one set of page-locked host arrays.
// launch() takes a stream, so a benchmark can bracket it with its own CUDA events.
#include "spyglass/batchedinverse.h"
#include "spyglass/batchedinverse_streamed.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <vector>

namespace spyglass::cuda {

template <typename T>
class StreamedInverseGraph {
public:
    // hostInput/hostOutput (count*n*n) and hostInfo (count) must be page-locked (cudaMallocHost or
    // cudaHostRegister; InputError otherwise) and outlive the object: the graph's copy nodes hold
    // these addresses. chunks, transfer: as planStreamedInverse (0 = the default rule). Builds on the
    // current GPU: one uncaptured launch of the kernel first (module load and the launchers'
    // per-thread set-up must not happen inside the capture), then the capture and the instantiation.
    // Zero-copy: the graph is one kernel node on the host arrays' device addresses (InputError if a
    // host array is not mapped into the GPU's address space).
    StreamedInverseGraph(const T* hostInput, T* hostOutput, int* hostInfo, int n, std::int64_t count, int chunks = 0,
                         InverseKernel kernel = InverseKernel::Auto, StreamedTransfer transfer = StreamedTransfer::Automatic);
    ~StreamedInverseGraph();
    StreamedInverseGraph(const StreamedInverseGraph&) = delete;
    StreamedInverseGraph& operator=(const StreamedInverseGraph&) = delete;

    // Enqueues the whole pipeline on `stream` (asynchronous; later work on the stream waits for all
    // of it). One launch at a time: launches share the buffers.
    void launch(cudaStream_t stream);

    int chunks() const { return m_zeroCopy ? 1 : static_cast<int>(m_chunks.size()); }
    bool zeroCopy() const { return m_zeroCopy; }
    std::int64_t chunkSize() const { return m_chunkSize; }
    InverseKernel kernelUsed() const { return m_kernel; }

private:
    struct Chunk {
        std::int64_t first = 0, count = 0;
        DeviceBuffer<T> input, output;  // a chunk's own allocations: aligned as a whole batch's are
        DeviceBuffer<int> info;
        CudaStream stream;
        CudaEvent uploaded, done;
    };
    void capture(const T* hostInput, T* hostOutput, int* hostInfo);
    void captureZeroCopy(const T* hostInput, T* hostOutput, int* hostInfo);
    void instantiate();

    int m_n = 0;
    std::int64_t m_count = 0, m_chunkSize = 0;
    bool m_zeroCopy = false;
    InverseKernel m_kernel = InverseKernel::Auto;
    std::vector<std::unique_ptr<Chunk>> m_chunks;
    CudaStream m_captureStream;  // the capture's origin; it carries the uploads, in chunk order
    cudaGraph_t m_graph = nullptr;
    cudaGraphExec_t m_exec = nullptr;
};

} // namespace spyglass::cuda
