#pragma once
// The host side of the block-per-matrix Jacobi kernels (BlockPerMatrix, RegisterGroups): both take
// the same arguments and run one block per matrix over the whole batch.
#include "spyglass/cuda/batchedsvd_device_api.h"
#include "batchedsvd_math.cuh"
#include "spyglass/cuda/cudacheck.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace spyglass::cuda::svd {

template <typename S>
using BlockJacobiKernel = void (*)(const S*, S*, RealOf<S>*, S*, int*, int*, RealOf<S>*, int, int, int, RealOf<S>, int);

// Allows the kernel its dynamic shared memory, checks that the compiled kernel takes `threads` per
// block (there is no __launch_bounds__: it made ptxas spill the complex<double> kernel), else refuses
// by `name`, and launches one block per matrix in slices of at most 2^31-1 blocks (the grid limit in x).
template <typename S>
void launchBlockJacobi(BlockJacobiKernel<S> kernel, const char* name, int threads, const S* a, S* u, RealOf<S>* sigma,
                       S* v, int* status, int* sweeps, RealOf<S>* off, int m, int n, std::int64_t count, int width,
                       RealOf<S> tol, int maxSweeps, cudaStream_t stream) {
    const std::size_t shared = jacobiSvdSharedBytes(m, n, sizeof(S), sizeof(RealOf<S>));
    if (shared > 48 * 1024)
        SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(shared)));
    cudaFuncAttributes attributes{};
    SPYGLASS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    if (threads > attributes.maxThreadsPerBlock)
        throw DeviceError(std::string(name) + ": " + std::to_string(threads) +
                              " threads per block requested, the compiled kernel allows " +
                              std::to_string(attributes.maxThreadsPerBlock),
                          __FILE__, __LINE__);
    const std::int64_t maxBlocks = 0x7fffffff;
    const std::size_t mn = static_cast<std::size_t>(m) * n, nn = static_cast<std::size_t>(n) * n;
    for (std::int64_t first = 0; first < count; first += maxBlocks) {
        const std::int64_t here = std::min(maxBlocks, count - first);
        kernel<<<static_cast<unsigned>(here), threads, shared, stream>>>(a + first * mn, u + first * mn, sigma + first * n,
                                                                         v + first * nn, status + first, sweeps + first,
                                                                         off + first, m, n, width, tol, maxSweeps);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
}

} // namespace spyglass::cuda::svd
