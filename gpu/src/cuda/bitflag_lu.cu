// Method A LU on the GPU as the seed describes: one block expands the bit-flag matrix into a dense D in
// shared memory and eliminates without pivoting, synchronising after every step. Past the seed, each
// step checks its pivot and stops the whole block on a zero or tiny one, recording the step.
#include "spyglass/cuda/bitflag_device_api.h"

#include <cmath>

namespace spyglass::cuda {

namespace {

constexpr std::size_t kLuSharedBytes = 48 * 1024;

template <typename T>
__global__ void bitFlagLuKernel(BitFlagView<T> a, bool rowMajor, double threshold, T* dense, int* failedStep,
                                T* failedPivot) {
    extern __shared__ unsigned char sharedBytes[];
    T* d = reinterpret_cast<T*>(sharedBytes);
    const Index n = a.rows;
    for (Count k = threadIdx.x; k < Count(n) * n; k += blockDim.x) d[k] = T(0);
    __syncthreads();
    // One thread per line scatters its flagged values into D.
    for (Index line = threadIdx.x; line < a.lines; line += blockDim.x) {
        Count v = a.lineStart[line];
        for (Index w = 0; w < a.wordsPerLine; ++w) {
            std::uint64_t word = a.flags[Count(line) * a.wordsPerLine + w];
            while (word) {
                const int bit = __ffsll(static_cast<long long>(word)) - 1;
                word &= word - 1;
                const Index pos = w * 64 + bit;
                d[rowMajor ? Count(line) * n + pos : Count(pos) * n + line] = a.values[v++];
            }
        }
    }
    __syncthreads();
    for (Index k = 0; k < n; ++k) {
        const T pivot = d[Count(k) * n + k];
        // Every thread sees the same pivot, so the whole block leaves together.
        if (!(fabs(double(pivot)) > threshold) || pivot == T(0)) {
            if (threadIdx.x == 0) {
                *failedStep = k;
                *failedPivot = pivot;
            }
            return;
        }
        for (Index i = k + 1 + threadIdx.x; i < n; i += blockDim.x) d[Count(i) * n + k] /= pivot;
        __syncthreads();
        const Index rest = n - k - 1;
        for (Count t = threadIdx.x; t < Count(rest) * rest; t += blockDim.x) {
            const Index i = k + 1 + Index(t / rest), j = k + 1 + Index(t % rest);
            const T l = d[Count(i) * n + k], u = d[Count(k) * n + j];
            if (l != T(0) && u != T(0)) d[Count(i) * n + j] -= l * u;
        }
        __syncthreads();
    }
    for (Count k = threadIdx.x; k < Count(n) * n; k += blockDim.x) dense[k] = d[k];
}

} // namespace

template <typename T>
Index luMaxOrder() {
    return Index(std::sqrt(double(kLuSharedBytes / sizeof(T))));
}

// Runs the kernel; returns the failed step (-1 when none) and its pivot; dense is row-major n x n.
template <typename T>
int bitFlagLuDevice(const DeviceBitFlag<T>& a, BitFlagOrder order, double threshold, DeviceBuffer<T>& dense,
                    T* failedPivot, cudaStream_t stream) {
    const Index n = a.rows;
    dense.resize(std::max<std::size_t>(std::size_t(n) * std::size_t(n), 1));
    DeviceBuffer<int> step(1);
    DeviceBuffer<T> pivot(1);
    const int minusOne = -1;
    step.upload(&minusOne, 1, stream);
    bitFlagLuKernel<<<1, 256, std::size_t(n) * n * sizeof(T), stream>>>(a.view(), order == BitFlagOrder::RowMajor,
                                                                          threshold, dense.data(), step.data(), pivot.data());
    SPYGLASS_CUDA_CHECK_LAUNCH();
    int failed = -1;
    step.download(&failed, 1, stream);
    pivot.download(failedPivot, 1, stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return failed;
}

template Index luMaxOrder<float>();
template Index luMaxOrder<double>();
template int bitFlagLuDevice(const DeviceBitFlag<float>&, BitFlagOrder, double, DeviceBuffer<float>&, float*, cudaStream_t);
template int bitFlagLuDevice(const DeviceBitFlag<double>&, BitFlagOrder, double, DeviceBuffer<double>&, double*, cudaStream_t);

} // namespace spyglass::cuda
