#pragma once
// Loads and warp shuffles for every device scalar (device_scalar.cuh), so that one SpMV kernel body
// serves float, double and both complex types: the CUDA intrinsics exist for float2 and double2, not
// for DeviceComplex, whose layout is theirs (a complex value is one 8- or 16-byte load, never two).
#include "device_scalar.cuh"

namespace spyglass::cuda {

template <typename R> struct PairVector;
template <> struct PairVector<float> { using type = float2; };
template <> struct PairVector<double> { using type = double2; };

// Read-only data cache (__ldg): x and the remainder's values, which neighbouring rows reuse.
__device__ __forceinline__ float cachedLoad(const float* p) { return __ldg(p); }
__device__ __forceinline__ double cachedLoad(const double* p) { return __ldg(p); }
template <typename R> __device__ __forceinline__ DeviceComplex<R> cachedLoad(const DeviceComplex<R>* p) {
    const auto v = __ldg(reinterpret_cast<const typename PairVector<R>::type*>(p));
    return {v.x, v.y};
}

// Streamed past the cache (__ldcs): values read once, so that L2 keeps x.
__device__ __forceinline__ float streamedLoad(const float* p) { return __ldcs(p); }
__device__ __forceinline__ double streamedLoad(const double* p) { return __ldcs(p); }
template <typename R> __device__ __forceinline__ DeviceComplex<R> streamedLoad(const DeviceComplex<R>* p) {
    const auto v = __ldcs(reinterpret_cast<const typename PairVector<R>::type*>(p));
    return {v.x, v.y};
}

// __shfl_down_sync over all 32 lanes, part by part for a complex value.
__device__ __forceinline__ float shuffleDown(float v, int delta, int width = 32) {
    return __shfl_down_sync(0xffffffffu, v, delta, width);
}
__device__ __forceinline__ double shuffleDown(double v, int delta, int width = 32) {
    return __shfl_down_sync(0xffffffffu, v, delta, width);
}
template <typename R> __device__ __forceinline__ DeviceComplex<R> shuffleDown(DeviceComplex<R> v, int delta, int width = 32) {
    return {shuffleDown(v.re, delta, width), shuffleDown(v.im, delta, width)};
}

} // namespace spyglass::cuda
