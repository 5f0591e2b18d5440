#pragma once
// Helpers of the method C test suites (CPU and GPU): precision-derived bounds, matrices with known
// singular values, and one call that runs svdBatched and checks a whole batch.
#include "spyglass/batchedsvd.h"

#include <QString>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <vector>

namespace svdtest {

using namespace spyglass;

template <typename T> double epsOf() { return std::numeric_limits<SvdReal<T>>::epsilon(); }

// Rounding bounds. Each sweep gives every column n-1 rotations of a few eps each, so the
// factorisation and V lose at most about sweeps*n*eps; U is orthogonal to the tolerance the
// iteration stopped at plus the rounding of an m-term dot product.
template <typename T> double factorisationBound(int n, int sweeps) { return 4.0 * std::max(sweeps, 1) * n * epsOf<T>(); }
template <typename T> double uOrthogonalityBound(int m, double tolerance) { return tolerance + 4.0 * m * epsOf<T>(); }

// Q (rows x cols) with orthonormal columns, in double, from Gram-Schmidt (twice) on random data.
template <typename T> std::vector<std::complex<double>> randomOrthonormal(int rows, int cols, std::mt19937_64& rng) {
    constexpr bool complex = !std::is_same_v<T, SvdReal<T>>;
    std::uniform_real_distribution<double> uniform(-1, 1);
    std::vector<std::complex<double>> q(static_cast<std::size_t>(rows) * cols);
    for (auto& x : q) x = {uniform(rng), complex ? uniform(rng) : 0.0};
    for (int j = 0; j < cols; ++j) {
        auto* qj = q.data() + static_cast<std::size_t>(j) * rows;
        for (int pass = 0; pass < 2; ++pass)
            for (int k = 0; k < j; ++k) {
                const auto* qk = q.data() + static_cast<std::size_t>(k) * rows;
                std::complex<double> dot = 0;
                for (int r = 0; r < rows; ++r) dot += std::conj(qk[r]) * qj[r];
                for (int r = 0; r < rows; ++r) qj[r] -= dot * qk[r];
            }
        double norm = 0;
        for (int r = 0; r < rows; ++r) norm += std::norm(qj[r]);
        for (int r = 0; r < rows; ++r) qj[r] /= std::sqrt(norm);
    }
    return q;
}

template <typename T> T fromComplex(std::complex<double> x) {
    if constexpr (std::is_same_v<T, SvdReal<T>>) return static_cast<T>(x.real());
    else return T(static_cast<SvdReal<T>>(x.real()), static_cast<SvdReal<T>>(x.imag()));
}

// A = P diag(s) Q^H with random P (m x n) and Q (n x n) of orthonormal columns: singular values s.
template <typename T> std::vector<T> withSingularValues(int m, const std::vector<double>& s, std::mt19937_64& rng) {
    const int n = static_cast<int>(s.size());
    const auto p = randomOrthonormal<T>(m, n, rng);
    const auto q = randomOrthonormal<T>(n, n, rng);
    std::vector<T> a(static_cast<std::size_t>(m) * n);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            std::complex<double> x = 0;
            for (int k = 0; k < n; ++k) x += p[static_cast<std::size_t>(k) * m + i] * s[k] * std::conj(q[static_cast<std::size_t>(k) * n + j]);
            a[static_cast<std::size_t>(j) * m + i] = fromComplex<T>(x);
        }
    return a;
}

template <typename T> struct Decomposition {
    std::vector<T> u, v;
    std::vector<SvdReal<T>> sigma;
    SvdRunInfo run;
};

template <typename T>
Decomposition<T> decompose(const std::vector<T>& a, int m, int n, std::int64_t count, const SvdOptions& options = {}) {
    Decomposition<T> d;
    d.u.assign(static_cast<std::size_t>(count) * m * n, fromComplex<T>({12345, 0}));  // poison: all must be written
    d.v.assign(static_cast<std::size_t>(count) * n * n, fromComplex<T>({12345, 0}));
    d.sigma.assign(static_cast<std::size_t>(count) * n, SvdReal<T>(-1));
    d.run = svdBatched(a.data(), d.u.data(), d.sigma.data(), d.v.data(), m, n, count, options);
    return d;
}

// Empty when the batch is a valid SVD within the precision-derived bounds, else what failed.
// boundRows/boundColumns: the shape the iteration rotated, when it was not m x n (the real 2m x 2n
// embedding of a complex matrix); the bounds follow the rotations and dot products actually done.
// A run stopped after one sweep: every matrix counted as not converged, with one sweep and an
// off-orthogonality still above the tolerance.
template <typename T> void verifyStoppedAfterOneSweep(const Decomposition<T>& d, int count) {
    QCOMPARE(d.run.notConvergedCount(), std::int64_t(count));
    for (int b = 0; b < count; ++b) {
        QCOMPARE(d.run.sweeps[b], 1);
        QVERIFY(d.run.offOrthogonality[b] > d.run.tolerance);
    }
}

// The same values, NaN where the other has NaN: what a chunked run must give against a whole one.
template <typename R> bool sameOrBothNaN(const std::vector<R>& x, const std::vector<R>& y) {
    return x.size() <= y.size() &&
           std::equal(x.begin(), x.end(), y.begin(), [](R a, R b) { return a == b || (std::isnan(a) && std::isnan(b)); });
}

template <typename T>
QString checkFactorisation(const std::vector<T>& a, const Decomposition<T>& d, int m, int n, std::int64_t count,
                           int boundRows = 0, int boundColumns = 0) {
    int worstSweeps = 1;
    for (std::int64_t b = 0; b < count; ++b)
        if (d.run.status[b] != SvdStatus::NonFiniteInput) worstSweeps = std::max(worstSweeps, d.run.sweeps[b]);
    const SvdAccuracy acc = svdAccuracy(a.data(), d.u.data(), d.sigma.data(), d.v.data(), m, n, count, &d.run.status);
    const double fBound = factorisationBound<T>(boundColumns > 0 ? boundColumns : n, worstSweeps);
    const double uBound = uOrthogonalityBound<T>(boundRows > 0 ? boundRows : m, d.run.tolerance);
    if (!(acc.reconstruction <= fBound))
        return QString("%1x%2: ||A-USV^H||/||A|| = %3 > %4").arg(m).arg(n).arg(acc.reconstruction).arg(fBound);
    if (!(acc.vOrthogonality <= fBound))
        return QString("%1x%2: |V^H V - I| = %3 > %4").arg(m).arg(n).arg(acc.vOrthogonality).arg(fBound);
    if (!(acc.uOrthogonality <= uBound))
        return QString("%1x%2: |U^H U - I| = %3 > %4").arg(m).arg(n).arg(acc.uOrthogonality).arg(uBound);
    if (acc.unsortedOrNegative != 0)
        return QString("%1x%2: %3 matrices with sigma not descending or negative").arg(m).arg(n).arg(acc.unsortedOrNegative);
    return {};
}

} // namespace svdtest
