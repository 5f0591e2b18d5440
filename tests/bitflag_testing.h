#pragma once
// Shared by the bit-flag suites: seeded random integer-valued matrices and dense comparisons.
#include "spyglass/bitflag.h"
#include "spyglass/convert.h"

#include <random>
#include <vector>

namespace bitflag_testing {

using spyglass::Index;

// Row-major dense with integer values in [-9, 9] \ {0} at the given density.
inline std::vector<double> randomDense(Index rows, Index cols, double density, std::mt19937& rng) {
    std::vector<double> d(std::size_t(rows) * std::size_t(cols), 0.0);
    std::uniform_real_distribution<double> u(0, 1);
    std::uniform_int_distribution<int> v(1, 9);
    for (double& x : d)
        if (u(rng) < density) x = (u(rng) < 0.5 ? -1 : 1) * v(rng);
    return d;
}

template <typename T>
spyglass::CooMatrix<T> cooOf(const std::vector<double>& d, Index rows, Index cols) {
    spyglass::CooMatrix<T> coo;
    coo.rows = rows;
    coo.cols = cols;
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < cols; ++j)
            if (d[std::size_t(i) * cols + j] != 0) {
                coo.rowIndex.push_back(i);
                coo.colIndex.push_back(j);
                coo.values.push_back(T(d[std::size_t(i) * cols + j]));
            }
    return coo;
}

// Row-major dense of a bit-flag matrix, through the public element access only.
template <typename T>
std::vector<double> denseOf(const spyglass::BitFlagMatrix<T>& m) {
    std::vector<double> d(std::size_t(m.rows) * std::size_t(m.cols));
    for (Index i = 0; i < m.rows; ++i)
        for (Index j = 0; j < m.cols; ++j) d[std::size_t(i) * m.cols + j] = double(spyglass::bitFlagGet(m, i, j));
    return d;
}

inline std::vector<double> denseProduct(const std::vector<double>& a, const std::vector<double>& b, Index n, Index k, Index m) {
    std::vector<double> c(std::size_t(n) * std::size_t(m), 0.0);
    for (Index i = 0; i < n; ++i)
        for (Index p = 0; p < k; ++p)
            if (const double x = a[std::size_t(i) * k + p]; x != 0)
                for (Index j = 0; j < m; ++j) c[std::size_t(i) * m + j] += x * b[std::size_t(p) * m + j];
    return c;
}

// A = L0 U0 with unit lower L0 and upper U0 whose diagonal is +-1: LU without pivoting must give back
// L0 and U0 exactly (every division is by +-1, every value an integer).
struct ExactLuCase {
    std::vector<double> a, lower, upper;
};
inline ExactLuCase exactLuCase(Index n, double density, std::mt19937& rng) {
    ExactLuCase c;
    c.lower = randomDense(n, n, density, rng);
    c.upper = randomDense(n, n, density, rng);
    std::uniform_int_distribution<int> sign(0, 1);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j) {
            if (j > i) c.lower[std::size_t(i) * n + j] = 0;
            if (j < i) c.upper[std::size_t(i) * n + j] = 0;
            if (i == j) {
                c.lower[std::size_t(i) * n + j] = 1;
                c.upper[std::size_t(i) * n + j] = sign(rng) ? 1 : -1;
            }
        }
    c.a = denseProduct(c.lower, c.upper, n, n, n);
    return c;
}

} // namespace bitflag_testing
