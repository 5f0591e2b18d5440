// The chunk rule of the streamed batched inverse and its argument checks (batchedinverse_streamed.h).
#include "core/batchedinverse_streamed_plan.h"

#include "spyglass/batchedinverse_streamed.h"
#include "spyglass/error.h"

#include <algorithm>
#include <string>

namespace spyglass {

int streamedInverseChunkCount(int n, std::size_t elementBytes, std::int64_t count) {
    if (n < 1 || count < 1 || elementBytes == 0) return 1;
    // A chunk's copy has a fixed cost (a graph node, a DMA set-up: about 2 us on the H100's PCIe
    // link) and its kernel a latency that does not shrink with fewer matrices (one thread per
    // matrix: 1200 8x8 c64 take 16 us, 300 nearly as long). So chunks must be large enough that
    // their bytes, not that fixed cost, set their copy time (128 KiB is 2.4 us at 55 GB/s), and more
    // than a few only shorten the last chunk's download, which is all the overlap can still save.
    const std::int64_t matrixBytes = static_cast<std::int64_t>(n) * n * static_cast<std::int64_t>(elementBytes);
    const std::int64_t minChunk =
        std::max<std::int64_t>(kStreamedInverseMinChunkMatrices,
                               (static_cast<std::int64_t>(kStreamedInverseMinChunkBytes) + matrixBytes - 1) / matrixBytes);
    return static_cast<int>(std::clamp<std::int64_t>(count / minChunk, 1, kStreamedInverseMaxChunks));
}

bool streamedInverseZeroCopyFits(int n, std::size_t elementBytes, std::int64_t count) {
    return n >= 1 && n <= 8 && count >= 1 && count <= kStreamedInverseZeroCopyMaxMatrices &&
           static_cast<std::size_t>(count) * n * n * elementBytes <= kStreamedInverseZeroCopyMaxBytes;
}

} // namespace spyglass

namespace spyglass::inverse_detail {

StreamedInversePlan planStreamedInverse(int n, std::size_t elementBytes, std::int64_t count, int chunks, InverseKernel kernel,
                                        StreamedTransfer transfer) {
    if (n < 1 || n > kMaxGpuInverseOrder)
        throw InputError("streamed batched inverse: order " + std::to_string(n) + " is outside 1.." +
                         std::to_string(kMaxGpuInverseOrder));
    if (count < 1) throw InputError("streamed batched inverse: the batch needs at least one matrix, got " + std::to_string(count));
    // Each chunk has its own stream and buffers: past 64, more chunks buy nothing and cost streams.
    if (chunks < 0 || chunks > 64)
        throw InputError("streamed batched inverse: chunks must be 0 (automatic) or 1..64, got " + std::to_string(chunks));
    if (kernel == InverseKernel::CublasGetrfGetri || kernel == InverseKernel::CublasMatinv)
        throw InputError(std::string("streamed batched inverse: ") + toString(kernel) + " is not a Spyglass kernel");
    if (!inverseKernelSupports(kernel, n))
        throw InputError(std::string("streamed batched inverse: kernel ") + toString(kernel) + " does not support order " +
                         std::to_string(n));
    if (transfer == StreamedTransfer::ZeroCopy && chunks > 1)
        throw InputError("streamed batched inverse: zero-copy runs the batch as one chunk, got " + std::to_string(chunks) +
                         " chunks");
    StreamedInversePlan plan;
    plan.kernel = kernel;
    plan.zeroCopy = transfer == StreamedTransfer::ZeroCopy ||
                    (transfer == StreamedTransfer::Automatic && chunks == 0 && streamedInverseZeroCopyFits(n, elementBytes, count) &&
                     (kernel == InverseKernel::Auto || kernel == InverseKernel::LaneEntries));
    if (plan.zeroCopy) {
        if (kernel == InverseKernel::Auto && n <= 8) plan.kernel = InverseKernel::LaneEntries;
        plan.chunkSize = count;
        plan.chunks = 1;
        return plan;
    }
    const std::int64_t wanted = chunks == 0 ? streamedInverseChunkCount(n, elementBytes, count) : std::min<std::int64_t>(chunks, count);
    plan.chunkSize = (count + wanted - 1) / wanted;
    // 10 matrices in 4 chunks are 3+3+3+1; 10 in 6 would be 2+2+2+2+2, i.e. 5 chunks: count what remains.
    plan.chunks = static_cast<int>((count + plan.chunkSize - 1) / plan.chunkSize);
    return plan;
}

} // namespace spyglass::inverse_detail
