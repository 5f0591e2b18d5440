#pragma once
// The 16-byte loads of the segmented-DIA kernels (segdia_spmv.cu, segdia_powerstep.cu).
#include "device_scalar.cuh"
#include "spyglass/matrix.h"

namespace spyglass::cuda {

// 16-byte vectors: the widest load one thread can issue. float4 carries four rows, double2 two; for
// complex values float4 carries two rows (c64) and double2 one (c128), real part first as stored.
template <typename T> struct Vector16;
template <> struct Vector16<float> {
    using Type = float4;
    static constexpr int lanes = 4;
    __device__ static void unpack(const float4& v, float (&a)[4]) { a[0] = v.x; a[1] = v.y; a[2] = v.z; a[3] = v.w; }
    __device__ static float4 pack(const float (&a)[4]) { return float4{a[0], a[1], a[2], a[3]}; }
};
template <> struct Vector16<double> {
    using Type = double2;
    static constexpr int lanes = 2;
    __device__ static void unpack(const double2& v, double (&a)[2]) { a[0] = v.x; a[1] = v.y; }
    __device__ static double2 pack(const double (&a)[2]) { return double2{a[0], a[1]}; }
};
template <> struct Vector16<DeviceComplex<float>> {
    using Type = float4;
    static constexpr int lanes = 2;
    __device__ static void unpack(const float4& v, DeviceComplex<float> (&a)[2]) { a[0] = {v.x, v.y}; a[1] = {v.z, v.w}; }
    __device__ static float4 pack(const DeviceComplex<float> (&a)[2]) { return float4{a[0].re, a[0].im, a[1].re, a[1].im}; }
};
template <> struct Vector16<DeviceComplex<double>> {
    using Type = double2;
    static constexpr int lanes = 1;
    __device__ static void unpack(const double2& v, DeviceComplex<double> (&a)[1]) { a[0] = {v.x, v.y}; }
    __device__ static double2 pack(const DeviceComplex<double> (&a)[1]) { return double2{a[0].re, a[0].im}; }
};

// x[col], ..., x[col + lanes - 1] of one diagonal, read as 16-byte vectors: the aligned vector at
// col - shift and, unless shift is 0, the next one (shift = col mod lanes, the same for every thread
// of a diagonal, so the branch below never diverges). Four scalar loads of x per diagonal and float4
// of values were two thirds of the f32 kernel's load instructions, and their issue, not DRAM, held
// the 2-D Laplacian at 84 % of copy bandwidth. Returns false, loading nothing, where the lanes or
// the vectors would leave x's `cols` entries (the caller then loads each lane on its own, in
// bounds); x must be 16-byte aligned.
template <int S, typename T, int L> __device__ __forceinline__ void takeShifted(const T (&low)[L], const T (&high)[L], T (&out)[L]) {
#pragma unroll
    for (int e = 0; e < L; ++e) out[e] = e + S < L ? low[e + S] : high[e + S - L];
}

template <typename T>
__device__ __forceinline__ bool loadVectorOfX(const T* __restrict__ x, Index col, Index cols, T (&out)[Vector16<T>::lanes]) {
    using Lanes = Vector16<T>;
    using V = typename Lanes::Type;
    constexpr int L = Lanes::lanes;
    const int shift = col & (L - 1);
    const Index first = col - shift;  // a multiple of L
    if (first < 0 || first + (shift == 0 ? L : 2 * L) > cols) return false;
    const V* vectors = reinterpret_cast<const V*>(x + first);
    if (shift == 0) {
        Lanes::unpack(__ldg(vectors), out);
        return true;
    }
    T low[L], high[L];
    Lanes::unpack(__ldg(vectors), low);
    Lanes::unpack(__ldg(vectors + 1), high);
    if constexpr (L == 4) {
        if (shift == 1) takeShifted<1>(low, high, out);
        else if (shift == 2) takeShifted<2>(low, high, out);
        else takeShifted<3>(low, high, out);
    } else if constexpr (L == 2) {
        takeShifted<1>(low, high, out);
    }
    return true;
}

} // namespace spyglass::cuda
