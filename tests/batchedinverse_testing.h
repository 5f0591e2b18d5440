#pragma once
// Helpers of the method E test suites (CPU and GPU): the forward error of an inverse against a
// long-double one, matrices whose smallest pivot is a chosen nonzero value, and a partial-pivot LU
// like cuBLAS getrf (for the status rule that the Cublas backend applies to cuBLAS's pivots).
#include "spyglass/batchedinverse_generators.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace inversetest {

// `count` n x n matrices of `kind` from `seed` (the kind's other settings at their defaults).
inline spyglass::BatchSpec batchSpec(spyglass::BatchKind kind, int n, std::int64_t count, std::uint64_t seed) {
    return spyglass::BatchSpec{kind, n, count, seed};
}

// `count` random n x n matrices (BatchKind::Random) from `seed`.
template <typename T> std::vector<T> randomBatch(int n, std::int64_t count, std::uint64_t seed) {
    return spyglass::generateBatch<T>(batchSpec(spyglass::BatchKind::Random, n, count, seed));
}

template <typename T> struct Traits {
    using Real = T;
    using Long = long double;
};
template <typename R> struct Traits<std::complex<R>> {
    using Real = R;
    using Long = std::complex<long double>;
};
template <typename T> using RealOf = typename Traits<T>::Real;
template <typename T> using LongOf = typename Traits<T>::Long;
template <typename T> double epsOf() { return std::numeric_limits<RealOf<T>>::epsilon(); }

// |x| (real) or |x|^2 (complex): the kernels' pivot magnitude.
template <typename T> RealOf<T> pivotMagnitude(const T& x) {
    if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
    else return std::norm(x);
}

// Inverse of a column-major n x n matrix in long double (Gauss-Jordan, partial pivoting): about
// three more digits than double on x86, far more than float; the "true" inverse for forward errors.
template <typename T> std::vector<LongOf<T>> longInverse(const T* a, int n) {
    using L = LongOf<T>;
    std::vector<L> m(a, a + static_cast<std::size_t>(n) * n), x(m.size(), L(0));
    auto at = [n](std::vector<L>& v, int i, int j) -> L& { return v[static_cast<std::size_t>(j) * n + i]; };
    for (int i = 0; i < n; ++i) at(x, i, i) = L(1);
    for (int k = 0; k < n; ++k) {
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (std::abs(at(m, i, k)) > std::abs(at(m, p, k))) p = i;
        for (int j = 0; j < n; ++j) {
            std::swap(at(m, k, j), at(m, p, j));
            std::swap(at(x, k, j), at(x, p, j));
        }
        const L r = L(1) / at(m, k, k);
        for (int j = 0; j < n; ++j) {
            at(m, k, j) *= r;
            at(x, k, j) *= r;
        }
        for (int i = 0; i < n; ++i) {
            const L f = at(m, i, k);
            if (i == k || f == L(0)) continue;
            for (int j = 0; j < n; ++j) {
                at(m, i, j) -= f * at(m, k, j);
                at(x, i, j) -= f * at(x, k, j);
            }
        }
    }
    return x;
}

// ||M||_2 by power iteration on M^H M. A lower bound that converges from below; 40 steps are ample
// for the separated top singular values these tests meet.
template <typename L> long double spectralNorm(const std::vector<L>& m, int n) {
    std::vector<L> v(n), w(n);
    for (int i = 0; i < n; ++i) v[i] = L(1.0L + 0.37L * i);
    long double sigma = 0;
    for (int step = 0; step < 40; ++step) {
        for (int i = 0; i < n; ++i) {
            L s(0);
            for (int j = 0; j < n; ++j) s += m[static_cast<std::size_t>(j) * n + i] * v[j];
            w[i] = s;
        }
        long double norm = 0;
        for (int j = 0; j < n; ++j) {
            L s(0);
            for (int i = 0; i < n; ++i) {
                L c = m[static_cast<std::size_t>(j) * n + i];
                if constexpr (!std::is_floating_point_v<L>) c = std::conj(c);
                s += c * w[i];
            }
            v[j] = s;
            norm += std::norm(s);
        }
        norm = std::sqrt(norm);
        if (!(norm > 0)) return 0;
        sigma = std::sqrt(norm);
        for (L& e : v) e /= norm;
    }
    return sigma;
}

// Forward error of a computed inverse X of A in units of the conditioning:
//   ||X - A^-1||_2 / ||A^-1||_2 / (kappa_2(A) eps(T)),  A^-1 from longInverse.
// A correct inverse stays below about 1 (measured on the reference: at most 0.83, n = 1..32,
// random, LTE and cond-1e6 batches, all four types); a wrong one such as 0.5 A^-1 at cond 1e6 in
// f32 gives 0.5 / (1e6 * 1.19e-7) = 4.2, which neither the residual bound (4n) nor a difference
// to the reference of 8n * cond * eps can tell from rounding.
template <typename T> double forwardErrorRatio(const T* a, const T* x, int n) {
    using L = LongOf<T>;
    const std::vector<L> exact = longInverse(a, n);
    std::vector<L> difference(exact.size()), matrix(a, a + exact.size());
    for (std::size_t e = 0; e < exact.size(); ++e) difference[e] = L(x[e]) - exact[e];
    const long double inverseNorm = spectralNorm(exact, n);
    const long double kappa = spectralNorm(matrix, n) * inverseNorm;
    return static_cast<double>(spectralNorm(difference, n) / inverseNorm / (kappa * epsOf<T>()));
}
// The bound the suites apply to forwardErrorRatio (cuBLAS gets 3: its LU + getri is not ours).
constexpr double kForwardErrorBound = 2.0;
constexpr double kVendorForwardErrorBound = 3.0;

// Makes matrix `a` (order n >= 2, column-major) block-isolated: a random row r and column c are
// zeroed except a(r,c) = delta = factor * eps(T) * max|a_ij| of the rest. No elimination step touches
// that entry (every update multiplies an exact zero), so Gauss-Jordan with full pivoting meets it
// unchanged as its last pivot, and cuBLAS's partial-pivot LU meets it unchanged as a pivot: the
// tiny-pivot rule (|pivot| <= eps * max|a_ij|) flags it for factor < 1 and not for factor > 1 in
// every backend, whatever their rounding. Returns delta.
template <typename T> RealOf<T> isolateTinyPivot(T* a, int n, double factor, std::mt19937_64& rng) {
    const int r = static_cast<int>(rng() % n), c = static_cast<int>(rng() % n);
    for (int j = 0; j < n; ++j) a[static_cast<std::size_t>(j) * n + r] = T(0);
    for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(c) * n + i] = T(0);
    RealOf<T> largest = 0;
    for (int e = 0; e < n * n; ++e) largest = std::max(largest, std::abs(a[e]));
    const RealOf<T> delta = static_cast<RealOf<T>>(factor * epsOf<T>() * largest);
    a[static_cast<std::size_t>(c) * n + r] = T(delta);
    return delta;
}

// U's diagonal of a right-looking LU with partial pivoting (LAPACK getf2, the algorithm of cuBLAS
// getrfBatched), and the first exactly zero pivot (1-based, 0 if none) as getrf's info reports it.
template <typename T> int luPivots(const T* a, int n, T* pivots) {
    std::vector<T> m(a, a + static_cast<std::size_t>(n) * n);
    auto at = [&m, n](int i, int j) -> T& { return m[static_cast<std::size_t>(j) * n + i]; };
    auto size1 = [](const T& x) {
        if constexpr (std::is_floating_point_v<T>) return std::fabs(x);
        else return std::fabs(x.real()) + std::fabs(x.imag());
    };
    int info = 0;
    for (int k = 0; k < n; ++k) {
        int p = k;
        for (int i = k + 1; i < n; ++i)
            if (size1(at(i, k)) > size1(at(p, k))) p = i;
        for (int j = 0; j < n; ++j) std::swap(at(k, j), at(p, j));
        pivots[k] = at(k, k);
        if (at(k, k) == T(0)) {
            if (!info) info = k + 1;
            continue;
        }
        for (int i = k + 1; i < n; ++i) at(i, k) /= at(k, k);
        for (int j = k + 1; j < n; ++j)
            for (int i = k + 1; i < n; ++i) at(i, j) -= at(i, k) * at(k, j);
    }
    return info;
}

} // namespace inversetest
