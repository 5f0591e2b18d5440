#pragma once
// The oracle of the complex SpMV tests: y = A x from a matrix file's own entries, independent of the
// library's conversions and formats (every stored entry (row, col, re, im), its mirror added by hand
// for a symmetric or Hermitian file, conjugated for Hermitian), summed in long double; and the worst
// difference from it relative to its largest entry. And the tests' random complex x.
#include "spyglass/matrix.h"

#include <algorithm>
#include <complex>
#include <random>
#include <vector>

namespace complexoracle {

using spyglass::Index;
using spyglass::Matrix;
using spyglass::Symmetry;

// x of n entries with both parts uniform in [-1, 1), each exact in C's precision (std::complex<float>
// or std::complex<double>); the same seed gives the same x.
template <typename C>
std::vector<C> randomComplexX(Index n, unsigned seed = 5) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    std::vector<C> x(static_cast<std::size_t>(n));
    for (C& v : x) {
        const double re = uniform(rng);
        v = C(typename C::value_type(re), typename C::value_type(uniform(rng)));
    }
    return x;
}

// conjugate: multiply by conj(A) instead (what a kernel that loses the sign of the imaginary part
// computes), so that a test can show its check sees it.
inline std::vector<std::complex<long double>> directProduct(const Matrix& m, const std::vector<std::complex<double>>& x,
                                                            bool conjugate = false) {
    std::vector<std::complex<long double>> y(static_cast<std::size_t>(m.rows));
    for (std::size_t k = 0; k < m.real.size(); ++k) {
        const Index i = m.rowIndex[k], j = m.colIndex[k];
        std::complex<long double> a(m.real[k], m.imag.empty() ? 0.0 : m.imag[k]);
        if (conjugate) a = std::conj(a);
        y[std::size_t(i)] += a * std::complex<long double>(x[std::size_t(j)]);
        if (i != j && m.symmetry == Symmetry::Hermitian) y[std::size_t(j)] += std::conj(a) * std::complex<long double>(x[std::size_t(i)]);
        if (i != j && m.symmetry == Symmetry::Symmetric) y[std::size_t(j)] += a * std::complex<long double>(x[std::size_t(i)]);
    }
    return y;
}

// max_i |got_i - want_i| / max_i |want_i|; a size mismatch is infinitely wrong.
inline double worstRelativeError(const std::vector<std::complex<double>>& got, const std::vector<std::complex<long double>>& want) {
    if (got.size() != want.size()) return 1e300;
    long double scale = 0, worst = 0;
    for (const auto& w : want) scale = std::max(scale, std::abs(w));
    for (std::size_t i = 0; i < got.size(); ++i) {
        const long double difference = std::abs(std::complex<long double>(got[i]) - want[i]);
        if (difference != difference) return 1e300;  // NaN
        worst = std::max(worst, difference);
    }
    return double(scale > 0 ? worst / scale : worst);
}

} // namespace complexoracle
