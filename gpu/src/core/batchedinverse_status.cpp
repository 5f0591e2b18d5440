// The status contract of method E for results of other libraries (cuBLAS): the same relative
// tiny-pivot rule as the reference and the kernels (core/batchedinverse_scalar.h), applied to
// the library's LU pivots, so that every backend flags the same matrices.
#include "spyglass/batchedinverse_status.h"

#include "core/batchedinverse_scalar.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/error.h"

#include <algorithm>
#include <complex>

namespace spyglass {

template <typename T>
std::int64_t applyInverseStatusRule(const T* input, const T* luPivots, T* output, int n, std::int64_t count, int* info) {
    using namespace inverse_detail;
    if (n < 1 || count < 0) throw InputError("inverse status rule: bad shape");
    if (count > 0 && (!input || !output || !info)) throw InputError("inverse status rule: null buffer");
    const std::size_t size = static_cast<std::size_t>(n) * n;
    std::int64_t changed = 0;
    for (std::int64_t b = 0; b < count; ++b) {
        const T* a = input + b * size;
        const int before = info[b];
        Real<T> largest = 0;
        bool finite = true;
        for (std::size_t e = 0; e < size; ++e) {
            finite = finite && isFiniteScalar(a[e]);
            largest = std::max(largest, pivotMagnitude(a[e]));
        }
        if (!finite) info[b] = kInverseNonFiniteInput;
        else if (info[b] == 0 && luPivots) {
            // The same bound as the kernels: eps * max|a_ij| (the first full pivot is that maximum).
            const Real<T> bound = tinyPivotBound<T>(largest);
            const T* pivots = luPivots + b * n;
            for (int k = 0; k < n; ++k)
                if (!(pivotMagnitude(pivots[k]) > bound)) {
                    info[b] = k + 1;
                    break;
                }
        }
        if (before == 0 && info[b] != 0) ++changed;
        if (info[b] != 0) std::fill(output + b * size, output + (b + 1) * size, quietNaN<T>());
    }
    return changed;
}

#define SPYGLASS_INSTANTIATE_STATUS(T) \
    template std::int64_t applyInverseStatusRule<T>(const T*, const T*, T*, int, std::int64_t, int*);
SPYGLASS_INSTANTIATE_STATUS(float)
SPYGLASS_INSTANTIATE_STATUS(double)
SPYGLASS_INSTANTIATE_STATUS(std::complex<float>)
SPYGLASS_INSTANTIATE_STATUS(std::complex<double>)

} // namespace spyglass
