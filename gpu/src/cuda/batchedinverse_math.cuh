#pragma once
// Device scalar arithmetic for the batched-inverse kernels: one code path for float, double and
// their complex forms (Cx<R>, the DeviceComplex<R> of device_scalar.cuh).
#include "device_scalar.cuh"
#include "spyglass/batchedinverse.h"

#include <cfloat>
#include <complex>
#include <cuda_runtime.h>

namespace spyglass::cuda::inverse {

template <typename R> using Cx = DeviceComplex<R>;

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

// Pivot magnitude: |x| for real, |x|^2 for complex (same order, no square root). The complex one is
// made of rounded operations that the compiler may not contract into a fused multiply-add, so every
// evaluation of one entry gives the same bits: the tiled kernels' search finds the pivot column by
// equality with a maximum taken earlier.
__device__ inline float magnitude(float x) { return fabsf(x); }
__device__ inline double magnitude(double x) { return fabs(x); }
__device__ inline float sumOfSquares(float a, float b) { return __fadd_rn(__fmul_rn(a, a), __fmul_rn(b, b)); }
__device__ inline double sumOfSquares(double a, double b) { return __dadd_rn(__dmul_rn(a, a), __dmul_rn(b, b)); }
template <typename R> __device__ inline R magnitude(Cx<R> x) { return sumOfSquares(x.re, x.im); }

// acc + x * 0: acc for a finite x, NaN for an infinite or NaN one. Summed over a matrix, it tests
// finiteness with fused multiply-adds (FMA pipe) instead of a compare and a logical and per entry
// (ALU pipe, which the pivot search keeps busiest).
__device__ inline float addZeroTimes(float x, float acc) { return fmaf(x, 0.0f, acc); }
__device__ inline double addZeroTimes(double x, double acc) { return fma(x, 0.0, acc); }
template <typename R> __device__ inline R addZeroTimes(Cx<R> x, R acc) { return addZeroTimes(x.im, addZeroTimes(x.re, acc)); }

// The larger of two magnitudes; NaN loses (fmax returns the other operand).
__device__ inline float largerOf(float a, float b) { return fmaxf(a, b); }
__device__ inline double largerOf(double a, double b) { return fmax(a, b); }

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
