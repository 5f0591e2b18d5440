// Method A LU without pivoting, as the seed: expand to dense, Doolittle elimination, split into L and U.
// Unlike the seed, a zero or tiny pivot stops with an error naming the step instead of spreading NaNs.
#include "core/bitflag_internal.h"
#include "reference/bitflag_reference.h"

#include "spyglass/bitflag.h"
#include "spyglass/error.h"

#include <cmath>
#include <limits>
#include <sstream>

namespace spyglass {

using namespace bitflag_detail;

template <typename T>
double defaultPivotTolerance(Index n) {
    return double(n > 0 ? n : 1) * double(std::numeric_limits<T>::epsilon());
}

namespace {

template <typename T>
[[noreturn]] void pivotFailure(Index step, double pivot, double threshold) {
    std::ostringstream message;
    message.precision(6);
    message << "bit-flag LU: step " << step << ": pivot U(" << step << "," << step << ") = " << pivot
            << (pivot == 0 ? " is zero" : std::isfinite(pivot) ? " is tiny" : " is not finite")
            << " (threshold " << threshold << "); this LU does not pivot, reorder the matrix";
    throw BitFlagPivotError(step, pivot, message.str());
}

} // namespace

template double defaultPivotTolerance<float>(Index);
template double defaultPivotTolerance<double>(Index);

namespace bitflag_reference {

template <typename T>
BitFlagLu<T> lu(const BitFlagMatrix<T>& a, const BitFlagRunOptions& control) {
    double tolerance = control.tolerance;
    if (a.rows != a.cols)
        throw InputError("bit-flag LU: the matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                         ", LU needs a square matrix");
    const Index n = a.rows;
    if (double(n) * double(n) > 4e8)
        throw InputError("bit-flag LU: order " + std::to_string(n) + " is too large for the dense expansion");
    if (tolerance < 0) tolerance = defaultPivotTolerance<T>(n);
    std::vector<T> d(std::size_t(n) * std::size_t(n), T(0));  // row-major
    double maxAbs = 0;
    for (const LineEntry<T>& e : lineEntries(a)) {
        const Index i = a.order == BitFlagOrder::RowMajor ? e.line : e.pos;
        const Index j = a.order == BitFlagOrder::RowMajor ? e.pos : e.line;
        if (!std::isfinite(double(e.value)))
            throw InputError("bit-flag LU: entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is not finite");
        d[std::size_t(i) * n + j] = e.value;
        maxAbs = std::max(maxAbs, std::abs(double(e.value)));
    }
    const double threshold = tolerance * maxAbs;
    for (Index k = 0; k < n; ++k) {
        if (control.cancel && control.cancel->load()) throw CancelledError();
        // Step k updates an (n-k)^2 trailing block: the work done so far is 1 - ((n-k)/n)^3.
        if (control.progress) control.progress(1.0 - std::pow(double(n - k) / double(n), 3));
        const T pivot = d[std::size_t(k) * n + k];
        if (!(std::abs(double(pivot)) > threshold) || pivot == T(0)) pivotFailure<T>(k, double(pivot), threshold);
        for (Index i = k + 1; i < n; ++i) {
            T& lik = d[std::size_t(i) * n + k];
            if (lik == T(0)) continue;
            lik /= pivot;
            for (Index j = k + 1; j < n; ++j) {
                const T ukj = d[std::size_t(k) * n + j];
                if (ukj != T(0)) d[std::size_t(i) * n + j] -= lik * ukj;
            }
        }
    }
    std::vector<LineEntry<T>> lower, upper;
    for (Index i = 0; i < n; ++i) {
        lower.push_back({i, i, T(1)});
        for (Index j = 0; j < n; ++j) {
            const T v = d[std::size_t(i) * n + j];
            if (v == T(0)) continue;
            if (j < i) lower.push_back({i, j, v});
            else upper.push_back({i, j, v});
        }
    }
    BitFlagOptions options;
    options.prefixCounts = a.withPrefixCounts;
    BitFlagLu<T> result;
    result.lower = buildFromLineEntries(n, n, options, std::move(lower));
    result.upper = buildFromLineEntries(n, n, options, std::move(upper));
    return result;
}

template BitFlagLu<float> lu(const BitFlagMatrix<float>&, const BitFlagRunOptions&);
template BitFlagLu<double> lu(const BitFlagMatrix<double>&, const BitFlagRunOptions&);

} // namespace bitflag_reference

} // namespace spyglass
