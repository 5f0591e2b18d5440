#pragma once
// How StreamedBatchedInverse cuts its batch, with the argument checks that come before any device
// work; shared by the CUDA object and the stub of a build without CUDA, so both refuse the same input.
#include "spyglass/batchedinverse.h"
#include "spyglass/batchedinverse_streamed.h"

#include <cstddef>
#include <cstdint>

namespace spyglass::inverse_detail {

struct StreamedInversePlan {
    InverseKernel kernel = InverseKernel::Auto;  // as asked (Auto resolved by the CUDA side), or LaneEntries for zero-copy Auto
    bool zeroCopy = false;
    int chunks = 1;
    std::int64_t chunkSize = 0;  // ceil(count / chunks); the last chunk holds the rest
};

// Throws InputError for n outside 1..32, count < 1, chunks outside 0..64 (0..1 for ZeroCopy), or a
// kernel that is not one of Spyglass's or does not support n.
StreamedInversePlan planStreamedInverse(int n, std::size_t elementBytes, std::int64_t count, int chunks, InverseKernel kernel,
                                        StreamedTransfer transfer);

} // namespace spyglass::inverse_detail
