#pragma once
// The fp64 reductions both hybrid SpMV kernels (binary and valued) end their rows with.
#include <cstdint>

namespace spyglass::cuda::hybrid_reduce {

// The warp's sum, complete in lane 0.
__device__ __forceinline__ double warpSum(double v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// One row summed by the whole block of Warps warps: each thread's acc is added up through `partial`
// (Warps doubles of shared memory) and thread 0 stores the sum, rounded once, to y[row].
template <int Warps, typename T>
__device__ __forceinline__ void storeBlockSum(double acc, double* partial, T* y, std::int32_t row) {
    acc = warpSum(acc);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        double sum = 0.0;
        for (int w = 0; w < Warps; ++w) sum += partial[w];
        y[row] = static_cast<T>(sum);
    }
}

} // namespace spyglass::cuda::hybrid_reduce
