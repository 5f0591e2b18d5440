// Kernel choice for the batched inverse: Auto picks by order and element size (figures in
// docs/method-e-batchedinverse.md), the others launch what they name.
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/error.h"

#include <complex>

namespace spyglass::cuda {

InverseKernel resolveAutoInverseKernel(int n, std::size_t elementBytes, std::int64_t count) {
    // One thread per matrix while the matrix fits in about 128 32-bit registers; past that the
    // register file spills and the lane groups win. The pipelined form beat the plain one on the
    // H100 from 4x4 f32 to 8x8 c64 (8x8 f32 at 1e6: 0.206 vs 0.301 ms); for matrices of 32 bytes
    // or less (2x2) the padding to 16-byte chunks and the tile loop cost as much as they save
    // (2x2 c64 at 1e6: 0.034 vs 0.029 ms), so those stay with the plain kernel.
    // Where two buffers of 128 matrices do not fit the tiled kernels' budget (from 288 bytes a
    // matrix: 6x6 to 8x8 complex64 and f64, 5x5 complex128), the pipelined kernel's tiles
    // shrink to 64 matrices and only six warps share an SM; the staged kernel's one buffer lets twice
    // as many blocks in (H200, 10^6 x 8x8 c64: 0.4590 ms staged against 0.5380 ms pipelined,
    // bench/results/batched_inverse.md; 6x6 and 7x7 in h200/batched_inverse_c64_orders.md).
    // Matrices of 256 and 512 bytes that the TMA kernel takes (8x8 f32, f64 and complex64, 4x4
    // complex128) run on it, whose warps wait for no other warp, from kTmaAutoMinBatch matrices (H200,
    // 10^6: 8x8 f32 0.1469 against the pipelined kernel's 0.1600 ms, c64 0.4006 against the staged
    // kernel's 0.4590 ms, bench/results/batched_inverse.md; f64 0.3956 against staged 0.4052 ms,
    // 4x4 c128 0.1368 against pipelined 0.1457 ms, bench/results/h200/batched_inverse_tma_crossover_f64.md
    // and batched_inverse_c128_4x4.md). Below that its one block per SM has too few tiles for its warps
    // to overlap and the tiled kernels are as fast or faster (f32: 0.0406 against 0.0407 ms at 200000,
    // 0.0528 against 0.0563 at 300000; c64: 0.0632 against staged 0.0577 at 100000, 0.1003 against
    // 0.1053 at 200000; f64: 0.0592 against staged 0.0539 at 100000, 0.0955 against 0.0945 at 200000,
    // 0.1702 against 0.1761 at 400000; bench/results/h200/batched_inverse_tma_crossover_*.md). Not
    // taken for 128-byte matrices, where it was measured slower: 4x4 complex64 (0.0835 against
    // pipelined 0.0772 ms at 10^6).
    const std::size_t bytes = static_cast<std::size_t>(n) * n * elementBytes;
    if (n <= 8 && bytes <= 32) return InverseKernel::ThreadPerMatrix;
    constexpr std::int64_t kTmaAutoMinBatch = 200000;
    if (bytes >= 256 && count >= kTmaAutoMinBatch && tmaInverseSupports(n, elementBytes)) return InverseKernel::ThreadPerMatrixTma;
    if (n <= 8 && bytes <= 512)
        return tiledInverseMatricesPerTile(n, elementBytes) < 128 ? InverseKernel::ThreadPerMatrixStaged
                                                                   : InverseKernel::ThreadPerMatrixPipelined;
    return InverseKernel::LaneGroupRows;
}

InverseKernel inverseKernelThatRuns(InverseKernel kernel, int n, std::size_t elementBytes, std::int64_t count,
                                    bool hostMemory) {
    if (kernel == InverseKernel::Auto) kernel = resolveAutoInverseKernel(n, elementBytes, count);
    if (kernel == InverseKernel::ThreadPerMatrixTma && (hostMemory || !tmaInverseRunsOnCurrentDevice(n, elementBytes)))
        return InverseKernel::ThreadPerMatrixPipelined;  // what launchTmaInverse falls back to
    return kernel;
}

template <typename T>
void launchInverseKernel(InverseKernel kernel, const T* in, T* out, int* info, int n, std::int64_t count,
                         int matricesPerBlock, cudaStream_t stream) {
    if (kernel == InverseKernel::Auto) kernel = resolveAutoInverseKernel(n, sizeof(T), count);
    switch (kernel) {
    case InverseKernel::SeedSharedMemory: launchSeedInverse(in, out, info, n, count, matricesPerBlock, stream); return;
    case InverseKernel::ThreadPerMatrix: launchThreadPerMatrixInverse(in, out, info, n, count, matricesPerBlock, stream); return;
    case InverseKernel::ThreadPerMatrixPipelined:
        launchPipelinedInverse(in, out, info, n, count, matricesPerBlock, stream);
        return;
    case InverseKernel::ThreadPerMatrixStaged: launchStagedInverse(in, out, info, n, count, matricesPerBlock, stream); return;
    case InverseKernel::ThreadPerMatrixTma: launchTmaInverse(in, out, info, n, count, stream); return;
    case InverseKernel::LaneGroupRows: launchLaneGroupInverse(in, out, info, n, count, stream); return;
    case InverseKernel::LaneEntries: launchLaneEntriesInverse(in, out, info, n, count, stream); return;
    default: throw InputError(std::string("batched inverse: ") + toString(kernel) + " is not a Spyglass kernel");
    }
}

template void launchInverseKernel<float>(InverseKernel, const float*, float*, int*, int, std::int64_t, int, cudaStream_t);
template void launchInverseKernel<double>(InverseKernel, const double*, double*, int*, int, std::int64_t, int, cudaStream_t);
template void launchInverseKernel<std::complex<float>>(InverseKernel, const std::complex<float>*, std::complex<float>*,
                                                       int*, int, std::int64_t, int, cudaStream_t);
template void launchInverseKernel<std::complex<double>>(InverseKernel, const std::complex<double>*,
                                                        std::complex<double>*, int*, int, std::int64_t, int, cudaStream_t);

} // namespace spyglass::cuda
