// Dot products and scaling of the partitioned power iteration (see multigpu_kernels.h).
#include "spyglass/cuda/cudacheck.h"
#include "multigpu_kernels.h"

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 256;

template <int Count>
__device__ void blockSum(double (&values)[Count], double (*shared)[kThreads]) {
    for (int c = 0; c < Count; ++c) shared[c][threadIdx.x] = values[c];
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride)
            for (int c = 0; c < Count; ++c) shared[c][threadIdx.x] += shared[c][threadIdx.x + stride];
        __syncthreads();
    }
    for (int c = 0; c < Count; ++c) values[c] = shared[c][0];
}

template <typename T>
__global__ void powerDotsPartial(const T* __restrict__ y, const T* __restrict__ x, Index n, double* __restrict__ partial) {
    __shared__ double shared[3][kThreads];
    double sums[3] = {0, 0, 0};
    for (Index i = blockIdx.x * kThreads + threadIdx.x; i < n; i += gridDim.x * kThreads) {
        const double yi = static_cast<double>(y[i]), xi = static_cast<double>(x[i]);
        sums[0] += yi * yi;
        sums[1] += xi * yi;
        sums[2] += xi * xi;
    }
    blockSum(sums, shared);
    if (threadIdx.x == 0)
        for (int c = 0; c < 3; ++c) partial[3 * blockIdx.x + c] = sums[c];
}

// One block: thread t sums partials t, t + kThreads, ... then the tree; the same order every run.
__global__ void sumTriplesKernel(const double* __restrict__ triples, int count, double* __restrict__ total) {
    __shared__ double shared[3][kThreads];
    double sums[3] = {0, 0, 0};
    for (int i = threadIdx.x; i < count; i += kThreads)
        for (int c = 0; c < 3; ++c) sums[c] += triples[3 * i + c];
    blockSum(sums, shared);
    if (threadIdx.x == 0)
        for (int c = 0; c < 3; ++c) total[c] = sums[c];
}

// The fused step's blocks can be tens of thousands: 1024 threads, each summing a strided share in
// order, then the tree; the same order every run.
constexpr int kSumThreads = 1024;
__device__ void finishPowerStep(const double* dots, double* scale, double* rayleigh) {
    *scale = 1.0 / sqrt(dots[0]);
    *rayleigh = dots[1] / dots[2];
}

__global__ void __launch_bounds__(kSumThreads)
    sumDotsKernel(const double* __restrict__ blockDots, int blocks, double* __restrict__ dots, double* scale, double* rayleigh) {
    __shared__ double shared[3][kSumThreads];
    double sums[3] = {0, 0, 0};
    for (int b = threadIdx.x; b < blocks; b += kSumThreads)
        for (int c = 0; c < 3; ++c) sums[c] += blockDots[3 * b + c];
    for (int c = 0; c < 3; ++c) shared[c][threadIdx.x] = sums[c];
    __syncthreads();
    for (int stride = kSumThreads / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride)
            for (int c = 0; c < 3; ++c) shared[c][threadIdx.x] += shared[c][threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        for (int c = 0; c < 3; ++c) dots[c] = shared[c][0];
        if (scale) finishPowerStep(dots, scale, rayleigh);
    }
}

__global__ void powerFinishKernel(const double* dots, double* scale, double* rayleigh) { finishPowerStep(dots, scale, rayleigh); }

template <typename T>
__global__ void powerScaleKernel(const T* __restrict__ y, T* __restrict__ x, Index n, const double* __restrict__ dots,
                                 double* rayleigh) {
    const double scale = 1.0 / sqrt(dots[0]);
    const Index i = blockIdx.x * kThreads + threadIdx.x;
    if (i < n) x[i] = static_cast<T>(static_cast<double>(y[i]) * scale);
    if (i == 0 && rayleigh) *rayleigh = dots[1] / dots[2];
}

} // namespace

template <typename T>
void launchPowerDots(const T* y, const T* x, Index n, double* partial, double* dots, cudaStream_t stream) {
    powerDotsPartial<<<kPowerDotBlocks, kThreads, 0, stream>>>(y, x, n, partial);
    SPYGLASS_CUDA_CHECK_LAUNCH();
    sumTriplesKernel<<<1, kThreads, 0, stream>>>(partial, kPowerDotBlocks, dots);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

void launchSumTriples(const double* triples, int parts, double* total, cudaStream_t stream) {
    sumTriplesKernel<<<1, kThreads, 0, stream>>>(triples, parts, total);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

void launchSumDots(const double* blockDots, int blocks, double* dots, double* scale, double* rayleigh, cudaStream_t stream) {
    sumDotsKernel<<<1, kSumThreads, 0, stream>>>(blockDots, blocks, dots, scale, rayleigh);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

void launchPowerFinish(const double* dots, double* scale, double* rayleigh, cudaStream_t stream) {
    powerFinishKernel<<<1, 1, 0, stream>>>(dots, scale, rayleigh);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launchPowerScale(const T* y, T* x, Index n, const double* dots, double* rayleigh, cudaStream_t stream) {
    const Index blocks = n > 0 ? (n + kThreads - 1) / kThreads : 1;
    powerScaleKernel<<<blocks, kThreads, 0, stream>>>(y, x, n, dots, rayleigh);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template void launchPowerDots<float>(const float*, const float*, Index, double*, double*, cudaStream_t);
template void launchPowerDots<double>(const double*, const double*, Index, double*, double*, cudaStream_t);
template void launchPowerScale<float>(const float*, float*, Index, const double*, double*, cudaStream_t);
template void launchPowerScale<double>(const double*, double*, Index, const double*, double*, cudaStream_t);

} // namespace spyglass::cuda
