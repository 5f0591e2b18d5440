// One thread per matrix, the whole matrix in registers (orders 1..8, unrolled on the order).
// Full pivoting needs run-time pivot positions; registers take only compile-time indices, so every
// swap is written as predicated selects over the unrolled positions (no local memory). The block
// stages its matrices through padded shared memory so that global loads and stores stay coalesced.
#include "batchedinverse_instances.h"
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "batchedinverse_registerelimination.cuh"
#include "spyglass/cuda/cudacheck.h"

#include <string>

namespace spyglass::cuda {

namespace {
using namespace inverse;

// B matrices (threads) per block; the default keeps the padded staging area near 40 KiB.
template <typename T, int N, int Requested = 0> struct ThreadPerMatrixShape {
    static constexpr int kElements = N * N;
    // An odd stride (in elements) keeps the threads of a warp on different banks.
    static constexpr int kStride = kElements | 1;
    static constexpr int kBudget = 40 * 1024;
    static constexpr int kRaw = kBudget / (kStride * static_cast<int>(sizeof(T)));
    static constexpr int kDefault = kRaw >= 128 ? 128 : kRaw >= 64 ? 64 : 32;
    static constexpr int kThreads = Requested > 0 && Requested < kDefault ? Requested : kDefault;
};

// One elimination step per template instance: the step index is a compile-time constant, so every
// register index below is too (a plain unrolled loop over k was too large for the unroller from
// n = 5 on and left the matrix in local memory).
template <typename T, int N, int K>
__device__ __forceinline__ void eliminationStep(T (&a)[N][N], int (&pivotRow)[N], int (&pivotCol)[N], RealOf<T>& bound,
                                                int& status) {
    if constexpr (K < N) {
        using R = RealOf<T>;
        R best = -1;
        int p = K, q = K;
#pragma unroll
        for (int i = K; i < N; ++i)
#pragma unroll
            for (int j = K; j < N; ++j) {
                const R v = magnitude(a[i][j]);
                if (v > best) { best = v; p = i; q = j; }
            }
        if (K == 0) bound = tinyPivotBound(best, T{});
        if (status == 0 && !(best > bound)) status = K + 1;
        pivotRow[K] = p;
        pivotCol[K] = q;
        pivotAndEliminate<T, N, K>(a, p, q);
        eliminationStep<T, N, K + 1>(a, pivotRow, pivotCol, bound, status);
    }
}

// Undo the pivoting in reverse order: the column pivot of step K as a row swap, the row pivot as a
// column swap.
template <typename T, int N, int K>
__device__ __forceinline__ void undoSwaps(T (&a)[N][N], const int (&pivotRow)[N], const int (&pivotCol)[N]) {
    if constexpr (K >= 0) {
        swapIntoPlace<T, N, K>(a, pivotCol[K], pivotRow[K]);
        undoSwaps<T, N, K - 1>(a, pivotRow, pivotCol);
    }
}

template <typename T, int N, int Requested>
__global__ void __launch_bounds__(ThreadPerMatrixShape<T, N, Requested>::kThreads)
threadPerMatrixKernel(const T* __restrict__ in, T* __restrict__ out, int* __restrict__ info, long long count) {
    using Shape = ThreadPerMatrixShape<T, N, Requested>;
    constexpr int NN = Shape::kElements, S = Shape::kStride, B = Shape::kThreads;
    __shared__ T stage[B * S];
    const int t = threadIdx.x;
    const long long first = static_cast<long long>(blockIdx.x) * B;
    const int here = static_cast<int>(min(static_cast<long long>(B), count - first));
    const long long base = first * NN;
    for (int e = t; e < here * NN; e += B) stage[(e / NN) * S + e % NN] = in[base + e];
    __syncthreads();

    T a[N][N];
    int status = 0;
    if (t < here) {
#pragma unroll
        for (int j = 0; j < N; ++j)
#pragma unroll
            for (int i = 0; i < N; ++i) a[i][j] = stage[t * S + j * N + i];
        bool finite = true;
#pragma unroll
        for (int i = 0; i < N; ++i)
#pragma unroll
            for (int j = 0; j < N; ++j) finite &= finiteScalar(a[i][j]);
        if (!finite) status = kInverseNonFiniteInput;

        int pivotRow[N], pivotCol[N];
        RealOf<T> bound = 0;
        eliminationStep<T, N, 0>(a, pivotRow, pivotCol, bound, status);
        undoSwaps<T, N, N - 1>(a, pivotRow, pivotCol);
        const T nan = scalarNaN<T>();
#pragma unroll
        for (int j = 0; j < N; ++j)
#pragma unroll
            for (int i = 0; i < N; ++i) stage[t * S + j * N + i] = status == 0 ? a[i][j] : nan;
        info[first + t] = status;
    }
    __syncthreads();
    for (int e = t; e < here * NN; e += B) out[base + e] = stage[(e / NN) * S + e % NN];
}

template <typename D, int N, int Requested>
void launchShaped(const D* in, D* out, int* info, long long count, cudaStream_t stream) {
    constexpr int B = ThreadPerMatrixShape<D, N, Requested>::kThreads;
    const long long blocks = (count + B - 1) / B;
    threadPerMatrixKernel<D, N, Requested><<<static_cast<unsigned>(blocks), B, 0, stream>>>(in, out, info, count);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

} // namespace

template <typename T>
void launchThreadPerMatrixInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock,
                                  cudaStream_t stream) {
    if (count <= 0) return;
    using D = typename DeviceScalar<T>::type;
    const D* din = reinterpret_cast<const D*>(in);
    D* dout = reinterpret_cast<D*>(out);
    if (n < 1 || n > 8) throw InputError("thread-per-matrix inverse: order " + std::to_string(n) + " is above 8");
    launchInstance(n, matricesPerBlock, [&](auto order, auto requested) {
        launchShaped<D, decltype(order)::value, decltype(requested)::value>(din, dout, info, count, stream);
    });
}

template void launchThreadPerMatrixInverse<float>(const float*, float*, int*, int, std::int64_t, int, cudaStream_t);
template void launchThreadPerMatrixInverse<double>(const double*, double*, int*, int, std::int64_t, int, cudaStream_t);
template void launchThreadPerMatrixInverse<std::complex<float>>(const std::complex<float>*, std::complex<float>*, int*,
                                                                int, std::int64_t, int, cudaStream_t);
template void launchThreadPerMatrixInverse<std::complex<double>>(const std::complex<double>*, std::complex<double>*,
                                                                 int*, int, std::int64_t, int, cudaStream_t);

} // namespace spyglass::cuda
