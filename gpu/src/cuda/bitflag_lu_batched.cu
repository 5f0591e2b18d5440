// The seed's shared-memory LU on a batch of small matrices: one block per matrix expands its part of
// the stacked bit-flag matrix into a dense n x n in shared memory (flag bit, prefix count, popcount:
// one thread per element), takes max|A| for the pivot threshold and eliminates without pivoting,
// synchronising after the column scaling and after the trailing update of every step. A bad pivot
// stops that block only, recording the step and value.
#include "bitflag_device.h"

#include <algorithm>

namespace spyglass::cuda {

namespace {

constexpr unsigned kFull = 0xffffffffu;

int threadsFor(Index n) { return n <= 16 ? 64 : n <= 32 ? 128 : 256; }
int strideFor(Index n) { return n | 1; }  // odd: a column's elements fall in different banks

template <typename T>
__global__ void batchedLuKernel(BitFlagView<T> stacked, Index n, int stride, double tolerance, T* dense, int* failedStep,
                                T* failedPivot) {
    extern __shared__ __align__(16) unsigned char batchShared[];
    __shared__ double warpMax[32];
    __shared__ double threshold;
    T* d = reinterpret_cast<T*>(batchShared);
    const Count matrix = blockIdx.x;
    const Count firstLine = matrix * n;
    const int elements = int(n) * int(n);
    double localMax = 0;
    for (int e = threadIdx.x; e < elements; e += blockDim.x) {
        const int i = e / int(n), j = e % int(n);
        const Count line = firstLine + i;
        const Count k = line * stacked.wordsPerLine + (j >> 6);
        const int bit = j & 63;
        const std::uint64_t word = stacked.flags[k];
        T v(0);
        if ((word >> bit) & 1u)
            v = stacked.values[stacked.lineStart[line] + stacked.prefix[k] + __popcll(word & ((std::uint64_t(1) << bit) - 1))];
        d[i * stride + j] = v;
        localMax = fmax(localMax, fabs(double(v)));
    }
    for (int offset = 16; offset > 0; offset >>= 1) localMax = fmax(localMax, __shfl_xor_sync(kFull, localMax, offset));
    if ((threadIdx.x & 31) == 0) warpMax[threadIdx.x >> 5] = localMax;
    __syncthreads();
    if (threadIdx.x == 0) {
        double maxAbs = 0;
        for (int w = 0; w < int(blockDim.x >> 5); ++w) maxAbs = fmax(maxAbs, warpMax[w]);
        threshold = tolerance * maxAbs;
    }
    __syncthreads();
    for (int k = 0; k < int(n); ++k) {
        const T pivot = d[k * stride + k];
        // Every thread reads the same pivot, so the whole block leaves together.
        if (!(fabs(double(pivot)) > threshold) || pivot == T(0)) {
            if (threadIdx.x == 0) {
                failedStep[matrix] = k;
                failedPivot[matrix] = pivot;
            }
            return;
        }
        for (int i = k + 1 + threadIdx.x; i < int(n); i += blockDim.x) d[i * stride + k] /= pivot;
        __syncthreads();
        const int rest = int(n) - k - 1;
        for (int t = threadIdx.x; t < rest * rest; t += blockDim.x) {
            const int i = k + 1 + t / rest, j = k + 1 + t % rest;
            const T l = d[i * stride + k], u = d[k * stride + j];
            if (l != T(0) && u != T(0)) d[i * stride + j] -= l * u;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) failedStep[matrix] = -1;
    T* out = dense + matrix * elements;
    for (int e = threadIdx.x; e < elements; e += blockDim.x) out[e] = d[(e / int(n)) * stride + e % int(n)];
}

} // namespace

template <typename T>
void bitFlagLuBatchedDevice(const DeviceBitFlag<T>& stacked, Index n, double tolerance, DeviceBuffer<T>& dense,
                            DeviceBuffer<int>& failedStep, DeviceBuffer<T>& failedPivot, cudaStream_t stream) {
    const Count batch = n > 0 ? stacked.rows / n : 0;
    reserveAtLeast(dense, std::max<std::size_t>(std::size_t(batch) * std::size_t(n) * std::size_t(n), 1));
    reserveAtLeast(failedStep, std::max<std::size_t>(std::size_t(batch), 1));
    reserveAtLeast(failedPivot, std::max<std::size_t>(std::size_t(batch), 1));
    if (batch == 0) return;
    const int stride = strideFor(n);
    const std::size_t bytes = std::size_t(n) * std::size_t(stride) * sizeof(T);
    if (bytes > 48 * 1024)
        SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(batchedLuKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    batchedLuKernel<T><<<unsigned(batch), threadsFor(n), bytes, stream>>>(stacked.view(), n, stride, tolerance, dense.data(),
                                                                          failedStep.data(), failedPivot.data());
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template void bitFlagLuBatchedDevice(const DeviceBitFlag<float>&, Index, double, DeviceBuffer<float>&, DeviceBuffer<int>&,
                                     DeviceBuffer<float>&, cudaStream_t);
template void bitFlagLuBatchedDevice(const DeviceBitFlag<double>&, Index, double, DeviceBuffer<double>&, DeviceBuffer<int>&,
                                     DeviceBuffer<double>&, cudaStream_t);

} // namespace spyglass::cuda
