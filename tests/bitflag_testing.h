#pragma once
// Shared by the bit-flag suites: seeded random integer-valued matrices, dense and CSR comparisons.
#include "spyglass/bitflag.h"
#include "spyglass/convert.h"

#include <algorithm>
#include <cmath>
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

// P A = L0 U0 for a known row order, built so that partial pivoting has one clear choice per step:
// L0 unit lower with at most two entries per row from {+-1/4, +-1/2}, U0 integer upper whose diagonal
// outweighs its row (|u_kk| = 1 + sum of the others). The candidates of step k are l_ik u_kk, at most
// half of the pivot u_kk, so the pivot row is always the row holding row k of L0 U0. Every value met
// on the way is a multiple of 1/4 well inside the mantissa, so exact arithmetic gives L0, U0 and the
// row order back exactly.
struct ExactPivotedLuCase {
    std::vector<double> a, lower, upper;
    std::vector<Index> rowOrder;  // row i of P A is row rowOrder[i] of A
};
inline ExactPivotedLuCase exactPivotedLuCase(Index n, double density, std::mt19937& rng) {
    ExactPivotedLuCase c;
    const std::size_t size = std::size_t(n) * std::size_t(n);
    c.lower.assign(size, 0.0);
    c.upper = randomDense(n, n, density, rng);
    std::uniform_int_distribution<Index> column(0, n > 0 ? n - 1 : 0);
    std::uniform_int_distribution<int> pick(0, 3);
    const double steps[4] = {0.25, -0.25, 0.5, -0.5};
    for (Index i = 0; i < n; ++i) {
        c.lower[std::size_t(i) * n + i] = 1;
        for (int e = 0; e < 2 && i > 0; ++e) c.lower[std::size_t(i) * n + column(rng) % i] = steps[pick(rng)];
        double offDiagonal = 0;
        for (Index j = 0; j < n; ++j) {
            double& u = c.upper[std::size_t(i) * n + j];
            if (j < i) u = 0;
            if (j > i) offDiagonal += std::abs(u);
        }
        c.upper[std::size_t(i) * n + i] = (pick(rng) % 2 ? 1 : -1) * (1 + offDiagonal);
    }
    const std::vector<double> product = denseProduct(c.lower, c.upper, n, n, n);
    c.rowOrder.resize(std::size_t(n));
    for (Index i = 0; i < n; ++i) c.rowOrder[std::size_t(i)] = i;
    std::shuffle(c.rowOrder.begin(), c.rowOrder.end(), rng);
    c.a.assign(size, 0.0);
    for (Index i = 0; i < n; ++i)
        std::copy(product.begin() + std::ptrdiff_t(i) * n, product.begin() + std::ptrdiff_t(i + 1) * n,
                  c.a.begin() + std::ptrdiff_t(c.rowOrder[std::size_t(i)]) * n);
    return c;
}

// Random integer matrix that needs row exchanges: density d in [-9, 9] plus +-10..19 on a random
// permutation (so no row or column is empty and the large entries sit off the diagonal).
inline std::vector<double> randomPivotingDense(Index n, double density, std::mt19937& rng) {
    std::vector<double> d = randomDense(n, n, density, rng);
    std::vector<Index> where(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) where[std::size_t(i)] = i;
    std::shuffle(where.begin(), where.end(), rng);
    std::uniform_int_distribution<int> big(10, 19), sign(0, 1);
    for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + where[std::size_t(i)]] = (sign(rng) ? 1 : -1) * big(rng);
    return d;
}

// Largest |x - y| over two dense arrays of the same size.
inline double maxDifference(const std::vector<double>& x, const std::vector<double>& y) {
    double worst = 0;
    for (std::size_t k = 0; k < x.size() && k < y.size(); ++k) worst = std::max(worst, std::abs(x[k] - y[k]));
    return x.size() == y.size() ? worst : INFINITY;
}

// Same shape, structure and values, entry for entry.
template <typename T>
bool sameCsr(const spyglass::CsrMatrix<T>& x, const spyglass::CsrMatrix<T>& y) {
    return x.rows == y.rows && x.cols == y.cols && x.rowPtr == y.rowPtr && x.colIndex == y.colIndex && x.values == y.values;
}

// The four layouts a bit-flag matrix can be stored in: row- then column-major, each without and
// with prefix counts (the order the suites' loops have always run them in).
inline std::vector<spyglass::BitFlagOptions> everyBitFlagLayout() {
    std::vector<spyglass::BitFlagOptions> layouts;
    for (spyglass::BitFlagOrder order : {spyglass::BitFlagOrder::RowMajor, spyglass::BitFlagOrder::ColumnMajor})
        for (bool prefix : {false, true}) {
            spyglass::BitFlagOptions options;
            options.order = order;
            options.prefixCounts = prefix;
            layouts.push_back(options);
        }
    return layouts;
}

// The entries with stored zeros dropped: what the seed's bit-flag form holds.
inline spyglass::CsrMatrix<double> withoutZeros(const spyglass::CsrMatrix<double>& csr) {
    spyglass::CsrMatrix<double> out;
    out.rows = csr.rows;
    out.cols = csr.cols;
    out.rowPtr.push_back(0);
    for (Index i = 0; i < csr.rows; ++i) {
        for (spyglass::Count k = csr.rowPtr[std::size_t(i)]; k < csr.rowPtr[std::size_t(i) + 1]; ++k)
            if (csr.values[std::size_t(k)] != 0) {
                out.colIndex.push_back(csr.colIndex[std::size_t(k)]);
                out.values.push_back(csr.values[std::size_t(k)]);
            }
        out.rowPtr.push_back(spyglass::Count(out.values.size()));
    }
    return out;
}

// Options that run an entry on the GPU kernels (optionally a batched-LU layout) or the vendor library.
inline spyglass::BitFlagRunOptions cudaOptions(spyglass::BitFlagBatchedLuLayout layout = spyglass::BitFlagBatchedLuLayout::Auto) {
    spyglass::BitFlagRunOptions options;
    options.backend = spyglass::BitFlagBackend::Cuda;
    options.layout = layout;
    return options;
}
inline spyglass::BitFlagRunOptions vendorOptions() {
    spyglass::BitFlagRunOptions options;
    options.backend = spyglass::BitFlagBackend::Vendor;
    return options;
}
// The batch set on the GPU as a value: the matrix with the writes applied.
template <typename T>
spyglass::BitFlagMatrix<T> setBatchOnCuda(spyglass::BitFlagMatrix<T> m, const std::vector<spyglass::Index>& rowsQ,
                                          const std::vector<spyglass::Index>& colsQ, const std::vector<T>& values) {
    spyglass::bitFlagSetBatch(m, rowsQ, colsQ, values, cudaOptions());
    return m;
}

} // namespace bitflag_testing
