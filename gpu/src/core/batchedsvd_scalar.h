#pragma once
// Scalar helpers of the method C reference: conjugate and squared magnitude, beside the real/complex
// traits of all methods.
#include "core/scalar_traits.h"

namespace spyglass::svd_detail {

// Real, isComplex, Wide, isFiniteScalar and quietNaN are the same for every method.
using namespace scalar_detail;

template <typename T> inline T conjugate(const T& x) {
    if constexpr (isComplex<T>) return std::conj(x);
    else return x;
}
template <typename T> inline Real<T> squaredMagnitude(const T& x) {
    if constexpr (isComplex<T>) return x.real() * x.real() + x.imag() * x.imag();
    else return x * x;
}

} // namespace spyglass::svd_detail
