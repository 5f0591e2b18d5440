#pragma once
// Scalar helpers shared by the CPU references, checks and generators of the batched methods (SVD,
// inverse): one code path for real and complex T.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

namespace spyglass::scalar_detail {

template <typename T> struct RealOf { using type = T; };
template <typename R> struct RealOf<std::complex<R>> { using type = R; };
template <typename T> using Real = typename RealOf<T>::type;

template <typename T> constexpr bool isComplex = !std::is_same_v<T, Real<T>>;

// The scalar of double precision used for residuals and generators (double or complex<double>).
template <typename T> using Wide = std::conditional_t<isComplex<T>, std::complex<double>, double>;

template <typename T> inline bool isFiniteScalar(const T& x) {
    if constexpr (isComplex<T>) return std::isfinite(x.real()) && std::isfinite(x.imag());
    else return std::isfinite(x);
}

template <typename T> inline T quietNaN() {
    const Real<T> nan = std::numeric_limits<Real<T>>::quiet_NaN();
    if constexpr (isComplex<T>) return T(nan, nan);
    else return nan;
}

} // namespace spyglass::scalar_detail
