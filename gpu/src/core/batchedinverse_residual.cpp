// Accuracy of batched inverses: ||A X - I||_1 / (||A||_1 ||X||_1 eps), in double precision.
#include "core/batchedinverse_scalar.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/error.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

namespace spyglass {

namespace {
using namespace inverse_detail;

template <typename T>
double oneNorm(const T* m, int n) {
    double best = 0;
    for (int j = 0; j < n; ++j) {
        double column = 0;
        for (int i = 0; i < n; ++i) column += std::abs(Wide<T>(m[static_cast<std::size_t>(j) * n + i]));
        best = std::max(best, column);
    }
    return best;
}

template <typename T>
double residualOfOne(const T* a, const T* x, int n) {
    double worstColumn = 0;
    for (int j = 0; j < n; ++j) {  // column j of A*X - I
        double column = 0;
        for (int i = 0; i < n; ++i) {
            Wide<T> sum = (i == j) ? Wide<T>(-1) : Wide<T>(0);
            for (int l = 0; l < n; ++l)
                sum += Wide<T>(a[static_cast<std::size_t>(l) * n + i]) * Wide<T>(x[static_cast<std::size_t>(j) * n + l]);
            column += std::abs(sum);
        }
        worstColumn = std::max(worstColumn, column);
    }
    const double scale = oneNorm(a, n) * oneNorm(x, n) * std::numeric_limits<Real<T>>::epsilon();
    if (!(scale > 0)) return std::numeric_limits<double>::infinity();
    const double residual = worstColumn / scale;
    // A NaN in an inverse reported as good must not vanish from the maximum.
    return std::isnan(residual) ? std::numeric_limits<double>::infinity() : residual;
}
} // namespace

template <typename T>
std::vector<double> inverseResiduals(const T* a, const T* inverse, const int* info, int n, std::int64_t count) {
    if (n < 1 || count < 0) throw InputError("inverse residuals: bad shape");
    const std::size_t size = static_cast<std::size_t>(n) * n;
    std::vector<double> residuals(static_cast<std::size_t>(count));
    for (std::int64_t b = 0; b < count; ++b)
        residuals[b] = (info && info[b] != 0) ? std::numeric_limits<double>::quiet_NaN()
                                              : residualOfOne(a + b * size, inverse + b * size, n);
    return residuals;
}

template <typename T>
double maxInverseResidual(const T* a, const T* inverse, const int* info, int n, std::int64_t count) {
    double worst = 0;
    for (double r : inverseResiduals(a, inverse, info, n, count))
        if (!std::isnan(r)) worst = std::max(worst, r);
    return worst;
}

#define SPYGLASS_INSTANTIATE_RESIDUAL(T)                                                                    \
    template std::vector<double> inverseResiduals<T>(const T*, const T*, const int*, int, std::int64_t); \
    template double maxInverseResidual<T>(const T*, const T*, const int*, int, std::int64_t);
SPYGLASS_INSTANTIATE_RESIDUAL(float)
SPYGLASS_INSTANTIATE_RESIDUAL(double)
SPYGLASS_INSTANTIATE_RESIDUAL(std::complex<float>)
SPYGLASS_INSTANTIATE_RESIDUAL(std::complex<double>)

} // namespace spyglass
