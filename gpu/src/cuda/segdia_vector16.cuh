#pragma once
// The 16-byte loads of the segmented-DIA kernels (segdia_spmv.cu, segdia_powerstep.cu).
#include "device_scalar.cuh"

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

} // namespace spyglass::cuda
