#pragma once
// The fp64 accumulation both hybrid SpMV kernels (binary and valued) share: the accumulator of each
// device scalar (device_scalar.cuh), the widening into it, the reductions that end a row and the one
// rounding back. Real values (float, double) accumulate in double; complex ones (c64, c128) in
// DeviceComplex<double>, both parts shuffled and summed alike: the same arithmetic as the CPU
// reference's std::complex<double> (hybrid_reference_valued.cpp). For float and double every
// function here is the plain double operation it always was.
#include "device_scalar_access.cuh"

#include <cstdint>

namespace spyglass::cuda::hybrid_reduce {

template <typename D> struct Fp64Accumulator { using type = double; };
template <typename R> struct Fp64Accumulator<DeviceComplex<R>> { using type = DeviceComplex<double>; };
// What a row of device scalars D is summed in.
template <typename D> using AccumulatorOf = typename Fp64Accumulator<D>::type;

__device__ __forceinline__ double widen(float v) { return static_cast<double>(v); }
__device__ __forceinline__ double widen(double v) { return v; }
template <typename R> __device__ __forceinline__ DeviceComplex<double> widen(DeviceComplex<R> v) {
    return {static_cast<double>(v.re), static_cast<double>(v.im)};
}

// The single rounding of a row's sum to the output's type.
__device__ __forceinline__ float roundTo(float*, double sum) { return static_cast<float>(sum); }
__device__ __forceinline__ double roundTo(double*, double sum) { return sum; }
template <typename R> __device__ __forceinline__ DeviceComplex<R> roundTo(DeviceComplex<R>*, DeviceComplex<double> sum) {
    return {static_cast<R>(sum.re), static_cast<R>(sum.im)};
}
template <typename D, typename Acc> __device__ __forceinline__ void storeRounded(D* y, std::int32_t row, Acc sum) {
    y[row] = roundTo(static_cast<D*>(nullptr), sum);
}

// The warp's sum, complete in lane 0 (a complex value part by part).
template <typename Acc> __device__ __forceinline__ Acc warpSum(Acc v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += shuffleDown(v, offset);
    return v;
}

// One row summed by the whole block of Warps warps: each thread's acc is added up through `partial`
// (Warps accumulators of shared memory) and thread 0 stores the sum, rounded once, to y[row].
template <int Warps, typename Acc, typename D>
__device__ __forceinline__ void storeBlockSum(Acc acc, Acc* partial, D* y, std::int32_t row) {
    acc = warpSum(acc);
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        Acc sum{};
        for (int w = 0; w < Warps; ++w) sum += partial[w];
        storeRounded(y, row, sum);
    }
}

} // namespace spyglass::cuda::hybrid_reduce
