#pragma once
// Scalar helpers shared by the CPU reference, the residual and the generators of method E: the
// pivot magnitude (|x| for real, |x|^2 for complex, which orders pivots the same way without a
// square root) and the matching "tiny pivot" bound.
#include <cmath>
#include <complex>
#include <limits>
#include <type_traits>

namespace spyglass::inverse_detail {

template <typename T> struct RealOf { using type = T; };
template <typename R> struct RealOf<std::complex<R>> { using type = R; };
template <typename T> using Real = typename RealOf<T>::type;

template <typename T> constexpr bool isComplex = !std::is_same_v<T, Real<T>>;

// The scalar of double precision used for residuals and generators (double or complex<double>).
template <typename T> using Wide = std::conditional_t<isComplex<T>, std::complex<double>, double>;

template <typename T> inline Real<T> pivotMagnitude(const T& x) {
    if constexpr (isComplex<T>) return std::norm(x);
    else return std::fabs(x);
}

// A pivot is tiny when |pivot| <= eps * max|a_ij|; the first full pivot is max|a_ij|. In squared
// magnitudes (complex) the bound is eps^2.
template <typename T> inline Real<T> tinyPivotBound(Real<T> firstPivotMagnitude) {
    const Real<T> eps = std::numeric_limits<Real<T>>::epsilon();
    if constexpr (isComplex<T>) return eps * eps * firstPivotMagnitude;
    else return eps * firstPivotMagnitude;
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

} // namespace spyglass::inverse_detail
