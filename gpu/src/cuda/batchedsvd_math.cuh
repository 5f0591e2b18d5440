#pragma once
// Device scalar arithmetic of the batched SVD kernel: one code path for float, double and their
// complex forms (SvdCx<R>, the DeviceComplex<R> of device_scalar.cuh).
#include "device_scalar.cuh"

#include <complex>
#include <cuda_runtime.h>

namespace spyglass::cuda::svd {

template <typename R> using SvdCx = DeviceComplex<R>;

template <typename T> __device__ inline T zero() { return T(0); }
template <> __device__ inline SvdCx<float> zero<SvdCx<float>>() { return {0.f, 0.f}; }
template <> __device__ inline SvdCx<double> zero<SvdCx<double>>() { return {0., 0.}; }
template <typename T> __device__ inline T one() { return T(1); }
template <> __device__ inline SvdCx<float> one<SvdCx<float>>() { return {1.f, 0.f}; }
template <> __device__ inline SvdCx<double> one<SvdCx<double>>() { return {1., 0.}; }

__device__ inline float squaredMagnitude(float x) { return x * x; }
__device__ inline double squaredMagnitude(double x) { return x * x; }
template <typename R> __device__ inline R squaredMagnitude(SvdCx<R> x) { return x.re * x.re + x.im * x.im; }

__device__ inline float mulAdd(float a, float b, float c) { return fmaf(a, b, c); }
__device__ inline double mulAdd(double a, double b, double c) { return fma(a, b, c); }

// acc += |x|^2 as fused multiply-adds into the sum (two per complex entry instead of a multiply, a
// fused multiply-add and an add: the register kernels' sums are issue-bound at 32x32 complex).
template <typename R> __device__ inline void accumulateSquaredMagnitude(R& acc, R x) { acc = mulAdd(x, x, acc); }
template <typename R> __device__ inline void accumulateSquaredMagnitude(R& acc, SvdCx<R> x) {
    acc = mulAdd(x.im, x.im, mulAdd(x.re, x.re, acc));
}

// acc += conj(x) * y (complex: four fused multiply-adds into the sum)
template <typename R> __device__ inline void accumulateConjProduct(R& acc, R x, R y) { acc = mulAdd(x, y, acc); }
template <typename R> __device__ inline void accumulateConjProduct(SvdCx<R>& acc, SvdCx<R> x, SvdCx<R> y) {
    acc.re = mulAdd(x.im, y.im, mulAdd(x.re, y.re, acc.re));
    acc.im = mulAdd(-x.im, y.re, mulAdd(x.re, y.im, acc.im));
}

__device__ inline float magnitude(float x) { return fabsf(x); }
__device__ inline double magnitude(double x) { return fabs(x); }
template <typename R> __device__ inline R magnitude(SvdCx<R> x) { return hypot(x.re, x.im); }

// 1 / sqrt(x), x > 0 finite: the special-function unit's estimate (float: rsqrtf, 2 ulp, subnormals
// kept; double: rsqrt) and one Newton step on the residual 1 - (x y) y, to about an ulp and without
// the estimate's one-sided error. About six instructions where 1 / sqrt(x) in IEEE float is a
// division and a square root, each a dozen with a branch to a slow path; x y = sqrt(x) cannot overflow.
__device__ inline float reciprocalRootEstimate(float x) { return rsqrtf(x); }
__device__ inline double reciprocalRootEstimate(double x) { return rsqrt(x); }
template <typename R> __device__ inline R refinedReciprocalRoot(R x) {
    const R y = reciprocalRootEstimate(x);
    const R residual = mulAdd(-(x * y), y, R(1));
    return mulAdd(R(0.5) * y, residual, y);
}

template <typename R> __device__ inline R scaleBy(R x, R s) { return x * s; }
template <typename R> __device__ inline SvdCx<R> scaleBy(SvdCx<R> x, R s) { return {x.re * s, x.im * s}; }

// The 2x2 unitary [[cs, sn*e], [-sn*conj(e), cs]] applied to (x, y) from the right:
// x' = cs x - sn conj(e) y, y' = sn e x + cs y, with e = c / |c| (the sign of c for real data).
template <typename R> __device__ inline void rotate(R& x, R& y, R cs, R sn, R e) {
    const R nx = cs * x - sn * e * y;
    const R ny = sn * e * x + cs * y;
    x = nx;
    y = ny;
}
// Complex: x' = cs x - sn conj(e) y, y' = sn e x + cs y with f = sn e formed once per pair (it is the
// same for all of a lane's rows): three operations per real part instead of four.
template <typename R> __device__ inline void rotate(SvdCx<R>& x, SvdCx<R>& y, R cs, R sn, SvdCx<R> e) {
    const R fr = sn * e.re, fi = sn * e.im;
    const SvdCx<R> nx = {mulAdd(-fr, y.re, mulAdd(-fi, y.im, cs * x.re)), mulAdd(-fr, y.im, mulAdd(fi, y.re, cs * x.im))};
    const SvdCx<R> ny = {mulAdd(fr, x.re, mulAdd(-fi, x.im, cs * y.re)), mulAdd(fr, x.im, mulAdd(fi, x.re, cs * y.im))};
    x = nx;
    y = ny;
}

__device__ inline float xorShuffle(float v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }
__device__ inline double xorShuffle(double v, int mask) { return __shfl_xor_sync(0xffffffffu, v, mask); }
template <typename R> __device__ inline SvdCx<R> xorShuffle(SvdCx<R> v, int mask) {
    return {xorShuffle(v.re, mask), xorShuffle(v.im, mask)};
}
// The same within groups of `width` lanes (width a power of two up to 32).
__device__ inline float groupXorShuffle(float v, int mask, int width) { return __shfl_xor_sync(0xffffffffu, v, mask, width); }
__device__ inline double groupXorShuffle(double v, int mask, int width) { return __shfl_xor_sync(0xffffffffu, v, mask, width); }
template <typename R> __device__ inline SvdCx<R> groupXorShuffle(SvdCx<R> v, int mask, int width) {
    return {groupXorShuffle(v.re, mask, width), groupXorShuffle(v.im, mask, width)};
}
__device__ inline float groupShuffle(float v, int lane, int width) { return __shfl_sync(0xffffffffu, v, lane, width); }
__device__ inline double groupShuffle(double v, int lane, int width) { return __shfl_sync(0xffffffffu, v, lane, width); }
template <typename R> __device__ inline SvdCx<R> groupShuffle(SvdCx<R> v, int lane, int width) {
    return {groupShuffle(v.re, lane, width), groupShuffle(v.im, lane, width)};
}
__device__ inline float conjugate(float x) { return x; }
__device__ inline double conjugate(double x) { return x; }
template <typename R> __device__ inline SvdCx<R> conjugate(SvdCx<R> x) { return {x.re, -x.im}; }

// Real and imaginary parts and back, for code that stores a scalar as separate reals.
__device__ inline float realPart(float x) { return x; }
__device__ inline double realPart(double x) { return x; }
template <typename R> __device__ inline R realPart(SvdCx<R> x) { return x.re; }
__device__ inline float imagPart(float) { return 0.f; }
__device__ inline double imagPart(double) { return 0.; }
template <typename R> __device__ inline R imagPart(SvdCx<R> x) { return x.im; }
template <typename S> struct FromParts {
    __device__ static S make(S re, S) { return re; }
};
template <typename R> struct FromParts<SvdCx<R>> {
    __device__ static SvdCx<R> make(R re, R im) { return {re, im}; }
};

// A non-negative real as an unsigned 64-bit key with the same order (for atomicMax).
__device__ inline unsigned long long orderedBits(float x) { return __float_as_uint(x); }
__device__ inline unsigned long long orderedBits(double x) { return static_cast<unsigned long long>(__double_as_longlong(x)); }
template <typename R> __device__ inline R fromOrderedBits(unsigned long long bits);
template <> __device__ inline float fromOrderedBits<float>(unsigned long long bits) {
    return __uint_as_float(static_cast<unsigned>(bits));
}
template <> __device__ inline double fromOrderedBits<double>(unsigned long long bits) {
    return __longlong_as_double(static_cast<long long>(bits));
}

} // namespace spyglass::cuda::svd
