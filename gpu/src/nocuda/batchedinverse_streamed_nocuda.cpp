// Built without CUDA: a streamed batched inverse checks its arguments like the CUDA one, then
// reports the missing backend; nothing else can be reached without an object.
#include "spyglass/batchedinverse_streamed.h"

#include "core/batchedinverse_streamed_plan.h"
#include "core/instantiate.h"
#include "nocuda/backend_unavailable.h"

namespace spyglass {

template <typename T> struct StreamedBatchedInverse<T>::Impl {};

template <typename T>
StreamedBatchedInverse<T>::StreamedBatchedInverse(int n, std::int64_t count, int chunks, InverseKernel kernel,
                                                  StreamedTransfer transfer) {
    inverse_detail::planStreamedInverse(n, sizeof(T), count, chunks, kernel, transfer);
    nocuda::backendUnavailable("streamed batched inverse", "cuda", "");
}

template <typename T> StreamedBatchedInverse<T>::~StreamedBatchedInverse() = default;
template <typename T> StreamedBatchedInverse<T>::StreamedBatchedInverse(StreamedBatchedInverse&&) noexcept = default;
template <typename T>
StreamedBatchedInverse<T>& StreamedBatchedInverse<T>::operator=(StreamedBatchedInverse&&) noexcept = default;
template <typename T> int StreamedBatchedInverse<T>::order() const { return 0; }
template <typename T> std::int64_t StreamedBatchedInverse<T>::count() const { return 0; }
template <typename T> int StreamedBatchedInverse<T>::chunks() const { return 0; }
template <typename T> std::int64_t StreamedBatchedInverse<T>::chunkSize() const { return 0; }
template <typename T> bool StreamedBatchedInverse<T>::zeroCopy() const { return false; }
template <typename T> InverseKernel StreamedBatchedInverse<T>::kernelUsed() const { return InverseKernel::Auto; }
template <typename T> T* StreamedBatchedInverse<T>::input() { return nullptr; }
template <typename T> const T* StreamedBatchedInverse<T>::output() const { return nullptr; }
template <typename T> const int* StreamedBatchedInverse<T>::info() const { return nullptr; }
template <typename T> void StreamedBatchedInverse<T>::run() {}
template <typename T> void StreamedBatchedInverse<T>::run(const T*, T*, int*) {}

#define SPYGLASS_INSTANTIATE_STREAMED(T) template class StreamedBatchedInverse<T>;
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_STREAMED)

} // namespace spyglass
