// Kernel choice for the batched inverse: Auto picks by order and element size (figures in
// docs/method-e-batched-inverse.md), the others launch what they name.
#include "batchedinverse_kernels.h"
#include "spyglass/error.h"

#include <complex>

namespace spyglass::cuda {

InverseKernel resolveAutoInverseKernel(int n, std::size_t elementBytes) {
    // One thread per matrix while the matrix fits in about 128 32-bit registers; past that the
    // register file spills and the lane groups win. Up to 256 bytes a matrix the pipelined form
    // (two 16-byte-aligned tile buffers, about 540 bytes of shared memory a thread) still keeps
    // 12 or more warps on an SM; above that its tiles crowd shared memory and the plain one is kept.
    const std::size_t bytes = static_cast<std::size_t>(n) * n * elementBytes;
    if (n <= 8 && bytes <= 256) return InverseKernel::ThreadPerMatrixPipelined;
    if (n <= 8 && bytes <= 512) return InverseKernel::ThreadPerMatrix;
    return InverseKernel::LaneGroupRows;
}

template <typename T>
void launchInverseKernel(InverseKernel kernel, const T* in, T* out, int* info, int n, std::int64_t count,
                         int matricesPerBlock, cudaStream_t stream) {
    if (kernel == InverseKernel::Auto) kernel = resolveAutoInverseKernel(n, sizeof(T));
    switch (kernel) {
    case InverseKernel::SeedSharedMemory: launchSeedInverse(in, out, info, n, count, matricesPerBlock, stream); return;
    case InverseKernel::ThreadPerMatrix: launchThreadPerMatrixInverse(in, out, info, n, count, matricesPerBlock, stream); return;
    case InverseKernel::ThreadPerMatrixPipelined:
        launchPipelinedInverse(in, out, info, n, count, matricesPerBlock, stream);
        return;
    case InverseKernel::LaneGroupRows: launchLaneGroupInverse(in, out, info, n, count, stream); return;
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
