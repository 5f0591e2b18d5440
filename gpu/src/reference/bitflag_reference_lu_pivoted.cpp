// Method A LU with partial pivoting, the reference (and the oracle of the GPU's blocked LU): dense
// expansion, right-looking elimination choosing at each step the row with the largest |a(i,k)|. The
// seed does not pivot; this is what large n needs, where the factors fill in to dense anyway.
#include "core/bitflag_internal.h"
#include "reference/bitflag_reference.h"

#include "spyglass/bitflag.h"
#include "spyglass/error.h"

#include <cmath>
#include <numeric>
#include <sstream>

namespace spyglass {

using namespace bitflag_detail;

namespace {

// Row-major dense of a square bit-flag matrix; refuses non-finite values and returns max|A|.
template <typename T>
std::vector<T> denseSquare(const BitFlagMatrix<T>& a, const char* what, double& maxAbs) {
    if (a.rows != a.cols)
        throw InputError(std::string(what) + ": the matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                         ", LU needs a square matrix");
    const Index n = a.rows;
    if (double(n) * double(n) > 4e8)
        throw InputError(std::string(what) + ": order " + std::to_string(n) + " is too large for the dense expansion");
    std::vector<T> d(std::size_t(n) * std::size_t(n), T(0));
    maxAbs = 0;
    for (const LineEntry<T>& e : lineEntries(a)) {
        const Index i = a.order == BitFlagOrder::RowMajor ? e.line : e.pos;
        const Index j = a.order == BitFlagOrder::RowMajor ? e.pos : e.line;
        if (!std::isfinite(double(e.value)))
            throw InputError(std::string(what) + ": entry (" + std::to_string(i) + ", " + std::to_string(j) +
                             ") is not finite");
        d[std::size_t(i) * n + j] = e.value;
        maxAbs = std::max(maxAbs, std::abs(double(e.value)));
    }
    return d;
}

template <typename T>
std::vector<double> denseOfFactor(const BitFlagMatrix<T>& m) {
    std::vector<double> d(std::size_t(m.rows) * std::size_t(m.cols), 0.0);
    for (const LineEntry<T>& e : lineEntries(m)) {
        const Index i = m.order == BitFlagOrder::RowMajor ? e.line : e.pos;
        const Index j = m.order == BitFlagOrder::RowMajor ? e.pos : e.line;
        d[std::size_t(i) * m.cols + j] = double(e.value);
    }
    return d;
}

} // namespace

namespace bitflag_reference {

template <typename T>
BitFlagPivotedLu<T> luPivoted(const BitFlagMatrix<T>& a, double tolerance) {
    double maxAbs = 0;
    std::vector<T> d = denseSquare(a, "bit-flag LU with partial pivoting", maxAbs);
    const Index n = a.rows;
    if (tolerance < 0) tolerance = defaultPivotTolerance<T>(n);
    const double threshold = tolerance * maxAbs;
    std::vector<Index> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), Index(0));
    const auto at = [&](Index i, Index j) -> T& { return d[std::size_t(i) * n + j]; };
    for (Index k = 0; k < n; ++k) {
        Index p = k;
        for (Index i = k + 1; i < n; ++i)
            if (std::abs(at(i, k)) > std::abs(at(p, k))) p = i;
        const T pivot = at(p, k);
        if (!(std::abs(double(pivot)) > threshold) || pivot == T(0)) {
            std::ostringstream message;
            message.precision(6);
            message << "bit-flag LU with partial pivoting: step " << k << ": the largest candidate pivot |A(" << p << ","
                    << k << ")| = " << std::abs(double(pivot)) << (pivot == T(0) ? " is zero" : " is tiny")
                    << " (threshold " << threshold << "): the matrix is singular to working precision";
            throw BitFlagPivotError(k, double(pivot), message.str());
        }
        if (p != k) {
            std::swap_ranges(d.begin() + std::ptrdiff_t(k) * n, d.begin() + std::ptrdiff_t(k + 1) * n,
                             d.begin() + std::ptrdiff_t(p) * n);
            std::swap(order[std::size_t(k)], order[std::size_t(p)]);
        }
        for (Index i = k + 1; i < n; ++i) {
            T& lik = at(i, k);
            if (lik == T(0)) continue;
            lik /= pivot;
            for (Index j = k + 1; j < n; ++j) at(i, j) -= lik * at(k, j);
        }
    }
    std::vector<LineEntry<T>> lower, upper;
    for (Index i = 0; i < n; ++i) {
        lower.push_back({i, i, T(1)});
        for (Index j = 0; j < n; ++j) {
            const T v = at(i, j);
            if (v == T(0)) continue;
            (j < i ? lower : upper).push_back({i, j, v});
        }
    }
    BitFlagOptions options;
    options.prefixCounts = a.withPrefixCounts;
    BitFlagPivotedLu<T> result;
    result.lower = buildFromLineEntries(n, n, options, std::move(lower));
    result.upper = buildFromLineEntries(n, n, options, std::move(upper));
    result.rowOrder = std::move(order);
    return result;
}

template BitFlagPivotedLu<float> luPivoted(const BitFlagMatrix<float>&, double);
template BitFlagPivotedLu<double> luPivoted(const BitFlagMatrix<double>&, double);

} // namespace bitflag_reference

template <typename T>
double bitFlagLuResidual(const BitFlagMatrix<T>& a, const BitFlagPivotedLu<T>& lu) {
    const Index n = a.rows;
    if (a.cols != n || lu.lower.rows != n || lu.lower.cols != n || lu.upper.rows != n || lu.upper.cols != n ||
        lu.rowOrder.size() != std::size_t(n))
        throw InputError("bit-flag LU residual: A, L, U and the row order differ in size");
    const std::vector<double> da = denseOfFactor(a), l = denseOfFactor(lu.lower), u = denseOfFactor(lu.upper);
    double diff2 = 0, norm2 = 0;
    std::vector<double> row(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) {
        const Index source = lu.rowOrder[std::size_t(i)];
        if (source < 0 || source >= n) throw InputError("bit-flag LU residual: row order entry " + std::to_string(i) + " is out of range");
        std::fill(row.begin(), row.end(), 0.0);
        for (Index k = 0; k < n; ++k)
            if (const double x = l[std::size_t(i) * n + k]; x != 0)
                for (Index j = 0; j < n; ++j) row[std::size_t(j)] += x * u[std::size_t(k) * n + j];
        for (Index j = 0; j < n; ++j) {
            const double want = da[std::size_t(source) * n + j];
            diff2 += (want - row[std::size_t(j)]) * (want - row[std::size_t(j)]);
            norm2 += want * want;
        }
    }
    return norm2 > 0 ? std::sqrt(diff2 / norm2) : std::sqrt(diff2);
}

template double bitFlagLuResidual(const BitFlagMatrix<float>&, const BitFlagPivotedLu<float>&);
template double bitFlagLuResidual(const BitFlagMatrix<double>&, const BitFlagPivotedLu<double>&);

} // namespace spyglass
