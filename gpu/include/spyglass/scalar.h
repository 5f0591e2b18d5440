#pragma once
// The value types a numeric format holds (float, double, std::complex<float>, std::complex<double>)
// and what generic code needs to know of them: whether a type is complex, its real part's type, the
// wider type a reference sums in, and its short name in tables ("f32", "f64", "c64", "c128").
#include <complex>
#include <type_traits>

namespace spyglass {

template <typename T> struct IsComplexScalar : std::false_type {};
template <typename R> struct IsComplexScalar<std::complex<R>> : std::true_type {};
template <typename T> inline constexpr bool isComplexScalar = IsComplexScalar<T>::value;

// float for float and std::complex<float>, double for double and std::complex<double>.
template <typename T> struct RealPart { using type = T; };
template <typename R> struct RealPart<std::complex<R>> { using type = R; };
template <typename T> using RealOf = typename RealPart<T>::type;

// double for real types, std::complex<double> for complex ones: the CPU references sum in it.
template <typename T> using WideOf = std::conditional_t<isComplexScalar<T>, std::complex<double>, double>;

// Widens a value for a reference sum.
template <typename T> WideOf<T> widen(const T& value) { return WideOf<T>(value); }

template <typename T> constexpr const char* scalarName() {
    if constexpr (std::is_same_v<T, float>) return "f32";
    else if constexpr (std::is_same_v<T, double>) return "f64";
    else if constexpr (std::is_same_v<T, std::complex<float>>) return "c64";
    else if constexpr (std::is_same_v<T, std::complex<double>>) return "c128";
    else return "?";
}

} // namespace spyglass
