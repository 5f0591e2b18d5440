#pragma once
// Scalar helpers of the method C reference: one code path for real and complex T.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

namespace spyglass::svd_detail {

template <typename T> struct RealOf { using type = T; };
template <typename R> struct RealOf<std::complex<R>> { using type = R; };
template <typename T> using Real = typename RealOf<T>::type;
template <typename T> constexpr bool isComplex = !std::is_same_v<T, Real<T>>;
template <typename T> using Wide = std::conditional_t<isComplex<T>, std::complex<double>, double>;

template <typename T> inline T conjugate(const T& x) {
    if constexpr (isComplex<T>) return std::conj(x);
    else return x;
}
template <typename T> inline Real<T> squaredMagnitude(const T& x) {
    if constexpr (isComplex<T>) return x.real() * x.real() + x.imag() * x.imag();
    else return x * x;
}
template <typename T> inline bool isFiniteScalar(const T& x) {
    if constexpr (isComplex<T>) return std::isfinite(x.real()) && std::isfinite(x.imag());
    else return std::isfinite(x);
}
template <typename T> inline T quietNaN() {
    const Real<T> nan = std::numeric_limits<Real<T>>::quiet_NaN();
    if constexpr (isComplex<T>) return T(nan, nan);
    else return nan;
}

} // namespace spyglass::svd_detail
