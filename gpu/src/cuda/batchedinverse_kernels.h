#pragma once
// Launchers of the batched-inverse kernels (device pointers, host scalar types) and the cuBLAS
// baseline. Used by batchedinverse_run.cpp and by bench_batched_inverse. Every launch is checked.
#include "spyglass/batchedinverse.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace spyglass::cuda {

// K for the seed kernel: about 256 threads per block within 48 KiB of shared memory.
int seedMatricesPerBlock(int n, std::size_t elementBytes);
// What Auto means for this order and element type.
InverseKernel resolveAutoInverseKernel(int n, std::size_t elementBytes);

template <typename T>
void launchSeedInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock, cudaStream_t stream);
// matricesPerBlock: 32 or 64 for smaller blocks, anything else for the default.
template <typename T>
void launchThreadPerMatrixInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock,
                                  cudaStream_t stream);
// Thread per matrix in persistent blocks, tiles double-buffered through shared memory by cp.async
// (orders 1..8; misaligned pointers fall back to launchThreadPerMatrixInverse). matricesPerBlock:
// 32 or 64 for smaller tiles, anything else for the default.
template <typename T>
void launchPipelinedInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock,
                            cudaStream_t stream);
template <typename T>
void launchLaneGroupInverse(const T* in, T* out, int* info, int n, std::int64_t count, cudaStream_t stream);

// Any of Spyglass's kernels (Auto resolved here).
template <typename T>
void launchInverseKernel(InverseKernel kernel, const T* in, T* out, int* info, int n, std::int64_t count,
                         int matricesPerBlock, cudaStream_t stream);

// cuBLAS getrf+getri or matinv on a fixed batch of device matrices. Holds the handle, the pointer
// arrays and the pivots, so that repeated runs time the library calls alone.
template <typename T>
class CublasBatchedInverse {
public:
    CublasBatchedInverse(int n, std::int64_t count, cudaStream_t stream);
    ~CublasBatchedInverse();
    CublasBatchedInverse(const CublasBatchedInverse&) = delete;
    CublasBatchedInverse& operator=(const CublasBatchedInverse&) = delete;
    // getrf works in place: `work` (count*n*n) is overwritten by the LU factors; for matinv it is
    // only read. Inverses go to `out`, status codes to `info` (device, count ints).
    void run(InverseKernel kernel, T* work, T* out, int* info);
    // Device bytes the helper itself needs per matrix (pointer arrays, pivots, second info array).
    static std::size_t extraBytesPerMatrix(int n);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace spyglass::cuda
