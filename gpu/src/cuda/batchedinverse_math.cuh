#pragma once
// Device scalar arithmetic for the batched-inverse kernels: one code path for float, double and
// their complex forms. Host std::complex<R> is layout-compatible with Cx<R> (two R, real first).
#include "spyglass/batchedinverse.h"

#include <cfloat>
#include <complex>
#include <cuda_runtime.h>

namespace spyglass::cuda::inverse {

template <typename R> struct alignas(2 * sizeof(R)) Cx {
    R re, im;
};

template <typename T> struct DeviceScalar { using type = T; };
template <> struct DeviceScalar<std::complex<float>> { using type = Cx<float>; };
template <> struct DeviceScalar<std::complex<double>> { using type = Cx<double>; };

template <typename T> struct RealPart { using type = T; };
template <typename R> struct RealPart<Cx<R>> { using type = R; };
template <typename T> using RealOf = typename RealPart<T>::type;

template <typename R> __host__ __device__ inline Cx<R> operator*(Cx<R> a, Cx<R> b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
template <typename R> __host__ __device__ inline Cx<R> operator-(Cx<R> a, Cx<R> b) { return {a.re - b.re, a.im - b.im}; }
template <typename R> __host__ __device__ inline Cx<R> operator-(Cx<R> a) { return {-a.re, -a.im}; }

// a - b*c, the update of Gauss-Jordan elimination, as fused multiply-adds.
__device__ inline float mulSub(float a, float b, float c) { return fmaf(-b, c, a); }
__device__ inline double mulSub(double a, double b, double c) { return fma(-b, c, a); }
template <typename R> __device__ inline Cx<R> mulSub(Cx<R> a, Cx<R> b, Cx<R> c) {
    const R re = mulSub(mulSub(a.re, b.re, c.re), -b.im, c.im);
    const R im = mulSub(mulSub(a.im, b.re, c.im), b.im, c.re);
    return {re, im};
}

__device__ inline float reciprocal(float x) { return 1.0f / x; }
__device__ inline double reciprocal(double x) { return 1.0 / x; }
template <typename R> __device__ inline Cx<R> reciprocal(Cx<R> x) {
    const R d = x.re * x.re + x.im * x.im;
    return {x.re / d, -x.im / d};
}

// Pivot magnitude: |x| for real, |x|^2 for complex (same order, no square root).
__device__ inline float magnitude(float x) { return fabsf(x); }
__device__ inline double magnitude(double x) { return fabs(x); }
template <typename R> __device__ inline R magnitude(Cx<R> x) { return x.re * x.re + x.im * x.im; }

__device__ inline bool finiteScalar(float x) { return isfinite(x); }
__device__ inline bool finiteScalar(double x) { return isfinite(x); }
template <typename R> __device__ inline bool finiteScalar(Cx<R> x) { return isfinite(x.re) && isfinite(x.im); }

template <typename T> __device__ inline T notANumber();
template <> __device__ inline float notANumber<float>() { return __int_as_float(0x7fc00000); }
template <> __device__ inline double notANumber<double>() { return __longlong_as_double(0x7ff8000000000000LL); }
template <> __device__ inline Cx<float> notANumber<Cx<float>>() { return {notANumber<float>(), notANumber<float>()}; }
template <> __device__ inline Cx<double> notANumber<Cx<double>>() { return {notANumber<double>(), notANumber<double>()}; }

// |pivot| <= eps * max|a_ij| marks a (numerically) singular matrix; squared for complex magnitudes.
__device__ inline float tinyPivotBound(float first, float) { return FLT_EPSILON * first; }
__device__ inline double tinyPivotBound(double first, double) { return DBL_EPSILON * first; }
__device__ inline float tinyPivotBound(float first, Cx<float>) { return FLT_EPSILON * FLT_EPSILON * first; }
__device__ inline double tinyPivotBound(double first, Cx<double>) { return DBL_EPSILON * DBL_EPSILON * first; }

template <typename T> __device__ inline T shuffle(T v, int lane, int width) { return __shfl_sync(0xffffffffu, v, lane, width); }
template <typename R> __device__ inline Cx<R> shuffle(Cx<R> v, int lane, int width) {
    return {__shfl_sync(0xffffffffu, v.re, lane, width), __shfl_sync(0xffffffffu, v.im, lane, width)};
}

template <typename T> __device__ inline void swapValues(T& a, T& b) {
    const T t = a;
    a = b;
    b = t;
}

} // namespace spyglass::cuda::inverse
