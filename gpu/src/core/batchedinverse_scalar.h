#pragma once
// Scalar helpers shared by the CPU reference, the residual and the generators of method E: the
// pivot magnitude (|x| for real, |x|^2 for complex, which orders pivots the same way without a
// square root) and the matching "tiny pivot" bound, beside the real/complex traits of all methods.
#include "core/scalar_traits.h"

namespace spyglass::inverse_detail {

// Real, isComplex, Wide, isFiniteScalar and quietNaN are the same for every method.
using namespace scalar_detail;

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

} // namespace spyglass::inverse_detail
