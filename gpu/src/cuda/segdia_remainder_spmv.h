#pragma once
// The row-blocks kernel of the segmented-DIA remainder (segdia_remainder_spmv.cu): y += R x over the
// row blocks of core/segdia_remainder_blocks.h (y = R x in the blocks that assign), on a stream, after
// the DIA pass. T is the host scalar; the device arrays hold its device form.
#include "spyglass/segdia_remainder_blocks.h"

#include <cuda_runtime.h>

namespace spyglass::cuda {

template <typename T>
void launchRemainderRowBlocks(const RemainderRowBlock* blocks, Index blockCount, const Index* rowStart,
                              const Index* columns, const T* values, const T* x, T* y, cudaStream_t stream);

} // namespace spyglass::cuda
