#pragma once
// The device form of the host scalar types, shared by the batched kernels (SVD, inverse): float and
// double as they are, std::complex<R> as DeviceComplex<R>, which has its layout (two R, real first),
// so that host buffers are reinterpreted without a copy; the arithmetic both methods use is here,
// each method's math header adds what only its kernels need.
#include <complex>
#include <cuda_runtime.h>

namespace spyglass::cuda {

template <typename R> struct alignas(2 * sizeof(R)) DeviceComplex {
    R re, im;
};

template <typename T> struct DeviceScalar { using type = T; };
template <> struct DeviceScalar<std::complex<float>> { using type = DeviceComplex<float>; };
template <> struct DeviceScalar<std::complex<double>> { using type = DeviceComplex<double>; };

// A host array seen as the device scalars it holds (the layouts are the same: no copy).
template <typename T> inline const typename DeviceScalar<T>::type* asDeviceScalars(const T* host) {
    static_assert(sizeof(typename DeviceScalar<T>::type) == sizeof(T), "device and host scalars share a layout");
    return reinterpret_cast<const typename DeviceScalar<T>::type*>(host);
}
template <typename T> inline typename DeviceScalar<T>::type* asDeviceScalars(T* host) {
    static_assert(sizeof(typename DeviceScalar<T>::type) == sizeof(T), "device and host scalars share a layout");
    return reinterpret_cast<typename DeviceScalar<T>::type*>(host);
}

template <typename T> struct RealPart { using type = T; };
template <typename R> struct RealPart<DeviceComplex<R>> { using type = R; };
template <typename T> using RealOf = typename RealPart<T>::type;

template <typename R> __host__ __device__ inline DeviceComplex<R> operator+(DeviceComplex<R> a, DeviceComplex<R> b) {
    return {a.re + b.re, a.im + b.im};
}
template <typename R> __host__ __device__ inline DeviceComplex<R> operator-(DeviceComplex<R> a, DeviceComplex<R> b) {
    return {a.re - b.re, a.im - b.im};
}
template <typename R> __host__ __device__ inline DeviceComplex<R> operator-(DeviceComplex<R> a) { return {-a.re, -a.im}; }
template <typename R> __host__ __device__ inline DeviceComplex<R>& operator+=(DeviceComplex<R>& a, DeviceComplex<R> b) {
    a.re += b.re;
    a.im += b.im;
    return a;
}
template <typename R> __host__ __device__ inline DeviceComplex<R> operator*(DeviceComplex<R> a, DeviceComplex<R> b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

__device__ inline bool finiteScalar(float x) { return isfinite(x); }
__device__ inline bool finiteScalar(double x) { return isfinite(x); }
template <typename R> __device__ inline bool finiteScalar(DeviceComplex<R> x) { return isfinite(x.re) && isfinite(x.im); }

// Quiet NaN with a fixed bit pattern (every NaN output of the kernels is the same).
template <typename R> __device__ inline R realNaN();
template <> __device__ inline float realNaN<float>() { return __int_as_float(0x7fc00000); }
template <> __device__ inline double realNaN<double>() { return __longlong_as_double(0x7ff8000000000000LL); }
template <typename T> __device__ inline T scalarNaN() { return realNaN<T>(); }
template <> __device__ inline DeviceComplex<float> scalarNaN<DeviceComplex<float>>() { return {realNaN<float>(), realNaN<float>()}; }
template <> __device__ inline DeviceComplex<double> scalarNaN<DeviceComplex<double>>() {
    return {realNaN<double>(), realNaN<double>()};
}

} // namespace spyglass::cuda
