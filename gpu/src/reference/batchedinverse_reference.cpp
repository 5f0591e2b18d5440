// CPU reference of method E: the seed's Gauss-Jordan with full pivoting, one matrix at a time.
// It is both the CPU backend and the oracle every GPU kernel is compared with.
#include "core/batchedinverse_scalar.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/error.h"

#include <complex>
#include <utility>
#include <vector>

namespace spyglass {

namespace {
using namespace inverse_detail;

// In place on one column-major matrix; returns the info code (0 = inverted).
template <typename T>
int gaussJordanFullPivot(T* a, int n, std::vector<int>& pivotRow, std::vector<int>& pivotCol) {
    auto at = [a, n](int i, int j) -> T& { return a[static_cast<std::size_t>(j) * n + i]; };
    for (int e = 0; e < n * n; ++e)
        if (!isFiniteScalar(a[e])) return kInverseNonFiniteInput;

    Real<T> bound = 0;
    for (int k = 0; k < n; ++k) {
        // Row-major scan with a strict '>' so that ties go to the first entry, as in the kernels.
        Real<T> best = -1;
        int p = k, q = k;
        for (int i = k; i < n; ++i)
            for (int j = k; j < n; ++j) {
                const Real<T> m = pivotMagnitude(at(i, j));
                if (m > best) { best = m; p = i; q = j; }
            }
        if (k == 0) bound = tinyPivotBound<T>(best);
        if (!(best > bound)) return k + 1;  // also catches an all-zero matrix (0 > 0 is false)
        pivotRow[k] = p;
        pivotCol[k] = q;
        if (p != k)
            for (int j = 0; j < n; ++j) std::swap(at(k, j), at(p, j));
        if (q != k)
            for (int i = 0; i < n; ++i) std::swap(at(i, k), at(i, q));

        const T r = T(1) / at(k, k);
        at(k, k) = r;
        for (int j = 0; j < n; ++j)
            if (j != k) at(k, j) *= r;
        for (int j = 0; j < n; ++j) {
            if (j == k) continue;
            const T akj = at(k, j);
            for (int i = 0; i < n; ++i)
                if (i != k) at(i, j) -= at(i, k) * akj;
        }
        for (int i = 0; i < n; ++i)
            if (i != k) at(i, k) = -at(i, k) * r;
    }
    // Swapping rows of A by P and columns by Q means we hold (P A Q)^-1 = Q^T A^-1 P^T: undo in
    // reverse order, the column pivot as a row swap and the row pivot as a column swap.
    for (int k = n - 1; k >= 0; --k) {
        if (pivotCol[k] != k)
            for (int j = 0; j < n; ++j) std::swap(at(k, j), at(pivotCol[k], j));
        if (pivotRow[k] != k)
            for (int i = 0; i < n; ++i) std::swap(at(i, k), at(i, pivotRow[k]));
    }
    return 0;
}
} // namespace

template <typename T>
void invertBatchedReference(const T* input, T* output, int* info, int n, std::int64_t count,
                            const std::atomic<bool>* cancel) {
    if (n < 1) throw InputError("batched inverse: the order n must be at least 1 (got " + std::to_string(n) + ")");
    if (count < 0) throw InputError("batched inverse: negative batch size " + std::to_string(count));
    if (count > 0 && (!input || !output || !info)) throw InputError("batched inverse: null buffer");
    const std::size_t size = static_cast<std::size_t>(n) * n;
    std::vector<int> pivotRow(n), pivotCol(n);
    for (std::int64_t b = 0; b < count; ++b) {
        if (cancel && (b & 4095) == 0 && cancel->load()) throw CancelledError();
        T* out = output + b * size;
        const T* in = input + b * size;
        if (out != in) std::copy(in, in + size, out);
        info[b] = gaussJordanFullPivot(out, n, pivotRow, pivotCol);
        if (info[b] != 0) std::fill(out, out + size, quietNaN<T>());
    }
}

std::int64_t InverseRunInfo::failedCount() const {
    std::int64_t failed = 0;
    for (int code : info) failed += code != 0;
    return failed;
}

std::int64_t InverseRunInfo::nonFiniteCount() const {
    std::int64_t bad = 0;
    for (int code : info) bad += code == kInverseNonFiniteInput;
    return bad;
}

#define SPYGLASS_INSTANTIATE_REFERENCE(T) \
    template void invertBatchedReference<T>(const T*, T*, int*, int, std::int64_t, const std::atomic<bool>*);
SPYGLASS_INSTANTIATE_REFERENCE(float)
SPYGLASS_INSTANTIATE_REFERENCE(double)
SPYGLASS_INSTANTIATE_REFERENCE(std::complex<float>)
SPYGLASS_INSTANTIATE_REFERENCE(std::complex<double>)

} // namespace spyglass
