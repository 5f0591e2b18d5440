// StreamedBatchedInverse with CUDA: its page-locked staging, its stream and the graph engine
// (cuda/batchedinverse_streamedgraph.h) built on that staging.
#include "spyglass/batchedinverse_streamed.h"

#include "core/batchedinverse_streamed_plan.h"
#include "core/instantiate.h"
#include "cuda/pinnedhostarray.h"
#include "spyglass/backend.h"
#include "spyglass/cuda/batchedinverse_streamedgraph.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/error.h"

#include <algorithm>
#include <cstring>

namespace spyglass {

template <typename T>
struct StreamedBatchedInverse<T>::Impl {
    int n;
    std::int64_t count;
    std::size_t elements;
    cuda::PinnedHostArray<T> input, output;
    cuda::PinnedHostArray<int> info;
    cuda::CudaStream stream;
    std::unique_ptr<cuda::StreamedInverseGraph<T>> graph;

    Impl(int order, std::int64_t matrices)
        : n(order), count(matrices), elements(static_cast<std::size_t>(matrices) * order * order), input(elements),
          output(elements), info(static_cast<std::size_t>(matrices)) {
        // Defined contents before the first run: zeros in, statuses 0 out.
        std::memset(static_cast<void*>(input.data()), 0, elements * sizeof(T));
        std::memset(static_cast<void*>(output.data()), 0, elements * sizeof(T));
        std::memset(info.data(), 0, static_cast<std::size_t>(count) * sizeof(int));
    }
};

template <typename T>
StreamedBatchedInverse<T>::StreamedBatchedInverse(int n, std::int64_t count, int chunks, InverseKernel kernel,
                                                  StreamedTransfer transfer) {
    inverse_detail::planStreamedInverse(n, sizeof(T), count, chunks, kernel, transfer);  // arguments before the device
    const DeviceInfo device = cudaDeviceInfo();
    if (!device.present)
        throw BackendUnavailableError("streamed batched inverse: needs a GPU: " + device.reason);
    m_impl = std::make_unique<Impl>(n, count);
    m_impl->graph = std::make_unique<cuda::StreamedInverseGraph<T>>(m_impl->input.data(), m_impl->output.data(),
                                                                    m_impl->info.data(), n, count, chunks, kernel, transfer);
}

template <typename T> StreamedBatchedInverse<T>::~StreamedBatchedInverse() = default;
template <typename T> StreamedBatchedInverse<T>::StreamedBatchedInverse(StreamedBatchedInverse&&) noexcept = default;
template <typename T>
StreamedBatchedInverse<T>& StreamedBatchedInverse<T>::operator=(StreamedBatchedInverse&&) noexcept = default;

template <typename T> int StreamedBatchedInverse<T>::order() const { return m_impl->n; }
template <typename T> std::int64_t StreamedBatchedInverse<T>::count() const { return m_impl->count; }
template <typename T> int StreamedBatchedInverse<T>::chunks() const { return m_impl->graph->chunks(); }
template <typename T> std::int64_t StreamedBatchedInverse<T>::chunkSize() const { return m_impl->graph->chunkSize(); }
template <typename T> InverseKernel StreamedBatchedInverse<T>::kernelUsed() const { return m_impl->graph->kernelUsed(); }
template <typename T> bool StreamedBatchedInverse<T>::zeroCopy() const { return m_impl->graph->zeroCopy(); }
template <typename T> T* StreamedBatchedInverse<T>::input() { return m_impl->input.data(); }
template <typename T> const T* StreamedBatchedInverse<T>::output() const { return m_impl->output.data(); }
template <typename T> const int* StreamedBatchedInverse<T>::info() const { return m_impl->info.data(); }

template <typename T> void StreamedBatchedInverse<T>::run() {
    m_impl->graph->launch(m_impl->stream.get());
    m_impl->stream.synchronize();
}

template <typename T> void StreamedBatchedInverse<T>::run(const T* input, T* output, int* info) {
    if (!input || !output) throw InputError("streamed batched inverse: null input or output");
    Impl& impl = *m_impl;
    if (input != impl.input.data()) std::copy_n(input, impl.elements, impl.input.data());
    run();
    if (output != impl.output.data()) std::copy_n(impl.output.data(), impl.elements, output);
    if (info && info != impl.info.data()) std::copy_n(impl.info.data(), static_cast<std::size_t>(impl.count), info);
}

#define SPYGLASS_INSTANTIATE_STREAMED(T) template class StreamedBatchedInverse<T>;
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_STREAMED)

} // namespace spyglass
