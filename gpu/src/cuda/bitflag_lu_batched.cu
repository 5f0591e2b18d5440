// The seed's shared-memory LU on a batch of small matrices: each matrix's part of the stacked bit-flag
// matrix is expanded into a dense n x n in shared memory (flag bit, prefix count, popcount), max|A|
// gives the pivot threshold, and the elimination runs without pivoting, synchronising after every
// step. A bad pivot stops that matrix only, recording the step and value. Two layouts here (the third,
// register rows, is bitflag_lu_registerrows.cu; Auto picks it where it applies):
//   block per matrix: the seed's, all threads of a block on one matrix, two block barriers a step;
//   warp per matrix:  a lane owns rows (lane, lane + 32, ...), scales them and updates them with the
//                     pivot row; one __syncwarp a step and no block barrier, several matrices a block.
#include "spyglass/cuda/bitflag_device_api.h"

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

template <typename T>
__global__ void batchedLuWarpKernel(BitFlagView<T> stacked, Index n, int stride, Count batch, double tolerance, T* dense,
                                    int* failedStep, T* failedPivot) {
    extern __shared__ __align__(16) unsigned char warpShared[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const Count matrix = Count(blockIdx.x) * (blockDim.x >> 5) + warp;
    if (matrix >= batch) return;  // the whole warp; nothing below waits for other warps
    const int size = int(n);
    T* d = reinterpret_cast<T*>(warpShared) + std::size_t(warp) * std::size_t(size) * std::size_t(stride);
    double localMax = 0;
    for (int i = 0; i < size; ++i) {
        const Count line = matrix * size + i;
        const Count base = stacked.lineStart[line];
        const std::uint64_t* words = stacked.flags + line * stacked.wordsPerLine;
        const std::uint32_t* prefix = stacked.prefix + line * stacked.wordsPerLine;
        for (int j = lane; j < size; j += 32) {
            const std::uint64_t word = words[j >> 6];
            const int bit = j & 63;
            T v(0);
            if ((word >> bit) & 1u) v = stacked.values[base + prefix[j >> 6] + __popcll(word & ((std::uint64_t(1) << bit) - 1))];
            d[i * stride + j] = v;
            localMax = fmax(localMax, fabs(double(v)));
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1) localMax = fmax(localMax, __shfl_xor_sync(kFull, localMax, offset));
    const double threshold = tolerance * localMax;
    __syncwarp();
    for (int k = 0; k < size; ++k) {
        const T pivot = d[k * stride + k];
        // Every lane reads the same pivot, so the whole warp leaves together.
        if (!(fabs(double(pivot)) > threshold) || pivot == T(0)) {
            if (lane == 0) {
                failedStep[matrix] = k;
                failedPivot[matrix] = pivot;
            }
            return;
        }
        const T* pivotRow = d + k * stride;
        for (int i = k + 1 + lane; i < size; i += 32) {
            T* row = d + i * stride;
            const T l = row[k] / pivot;
            row[k] = l;
            if (l != T(0))
                for (int j = k + 1; j < size; ++j) {
                    const T u = pivotRow[j];
                    if (u != T(0)) row[j] -= l * u;
                }
        }
        __syncwarp();  // row k + 1, the next pivot row, is final
    }
    if (lane == 0) failedStep[matrix] = -1;
    T* out = dense + matrix * Count(size) * size;
    for (int i = 0; i < size; ++i)
        for (int j = lane; j < size; j += 32) out[i * size + j] = d[i * stride + j];
}

} // namespace

template <typename T>
void bitFlagLuBatchedDevice(const DeviceBitFlag<T>& stacked, Index n, double tolerance, DeviceBuffer<T>& dense,
                            DeviceBuffer<int>& failedStep, DeviceBuffer<T>& failedPivot, cudaStream_t stream,
                            BatchedLuLayout layout) {
    const Count batch = n > 0 ? stacked.rows / n : 0;
    reserveAtLeast(dense, std::max<std::size_t>(std::size_t(batch) * std::size_t(n) * std::size_t(n), 1));
    reserveAtLeast(failedStep, std::max<std::size_t>(std::size_t(batch), 1));
    reserveAtLeast(failedPivot, std::max<std::size_t>(std::size_t(batch), 1));
    if (batch == 0) return;
    if (layout == BatchedLuLayout::Auto)
        layout = n <= registerRowsLuMaxOrder<T>() ? BatchedLuLayout::RegisterRows : BatchedLuLayout::WarpPerMatrix;
    if (layout == BatchedLuLayout::RegisterRows) {
        launchRegisterRowsLu(stacked, n, batch, tolerance, false, dense.data(), nullptr, failedStep.data(), failedPivot.data(),
                             stream);
        return;
    }
    const int stride = strideFor(n);
    const std::size_t perMatrix = std::size_t(n) * std::size_t(stride) * sizeof(T);
    if (layout == BatchedLuLayout::WarpPerMatrix) {
        // Up to four matrices a block while they fit the default 48 KiB; one (opt-in size) beyond.
        const int warps = perMatrix * 4 <= 48 * 1024 ? 4 : perMatrix * 2 <= 48 * 1024 ? 2 : 1;
        const std::size_t bytes = perMatrix * std::size_t(warps);
        if (bytes > 48 * 1024)
            SPYGLASS_CUDA_CHECK(
                cudaFuncSetAttribute(batchedLuWarpKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
        const unsigned blocks = unsigned((batch + warps - 1) / warps);
        batchedLuWarpKernel<T><<<blocks, 32 * warps, bytes, stream>>>(stacked.view(), n, stride, batch, tolerance, dense.data(),
                                                                      failedStep.data(), failedPivot.data());
        SPYGLASS_CUDA_CHECK_LAUNCH();
        return;
    }
    const std::size_t bytes = perMatrix;
    if (bytes > 48 * 1024)
        SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(batchedLuKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    batchedLuKernel<T><<<unsigned(batch), threadsFor(n), bytes, stream>>>(stacked.view(), n, stride, tolerance, dense.data(),
                                                                          failedStep.data(), failedPivot.data());
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template void bitFlagLuBatchedDevice(const DeviceBitFlag<float>&, Index, double, DeviceBuffer<float>&, DeviceBuffer<int>&,
                                     DeviceBuffer<float>&, cudaStream_t, BatchedLuLayout);
template void bitFlagLuBatchedDevice(const DeviceBitFlag<double>&, Index, double, DeviceBuffer<double>&, DeviceBuffer<int>&,
                                     DeviceBuffer<double>&, cudaStream_t, BatchedLuLayout);

} // namespace spyglass::cuda
