// The CPU reference of method C: the seed's one-sided Jacobi, pair by pair in Brent-Luk order.
// Written plainly (one matrix at a time, no blocking) because it is also the oracle of the GPU tests.
#include "core/batchedsvd_scalar.h"
#include "spyglass/batchedsvd.h"
#include "spyglass/error.h"

#include <algorithm>
#include <numeric>

namespace spyglass {

using namespace svd_detail;

namespace {

// Rotates columns i and j of `w` (rows entries each, stride `ld`) and of `v` so that they become
// orthogonal. Returns |c| / sqrt(ab), the off-orthogonality before the rotation (0 for a zero column).
template <typename T>
Real<T> orthogonalisePair(T* w, int rows, T* v, int n, int i, int j, Real<T> tolerance) {
    using R = Real<T>;
    R a = 0, b = 0;
    T c = T(0);
    T* wi = w + static_cast<std::size_t>(i) * rows;
    T* wj = w + static_cast<std::size_t>(j) * rows;
    for (int r = 0; r < rows; ++r) {
        a += squaredMagnitude(wi[r]);
        b += squaredMagnitude(wj[r]);
        c += conjugate(wi[r]) * wj[r];
    }
    const R absC = std::abs(c);
    if (a == R(0) || b == R(0) || absC == R(0)) return 0;
    const R off = absC / std::sqrt(a) / std::sqrt(b);
    if (!(off > tolerance)) return off;
    // tan of the angle that zeroes the off-diagonal of the 2x2 Gram matrix [[a, |c|], [|c|, b]]:
    // the smaller root of t^2 + 2 zeta t - 1 = 0, so the rotation is at most 45 degrees.
    const R zeta = (b - a) / (R(2) * absC);
    const R t = std::copysign(R(1), zeta) / (std::fabs(zeta) + std::sqrt(R(1) + zeta * zeta));
    const R cs = R(1) / std::sqrt(R(1) + t * t);
    const R sn = cs * t;
    // Complex: the phase e = c/|c| is moved onto column j first, which makes the 2x2 problem real.
    const T phase = c / absC;
    const T snPhase = T(sn) * phase;
    const T snPhaseConj = T(sn) * conjugate(phase);
    for (int r = 0; r < rows; ++r) {
        const T x = wi[r], y = wj[r];
        wi[r] = cs * x - snPhaseConj * y;
        wj[r] = snPhase * x + cs * y;
    }
    T* vi = v + static_cast<std::size_t>(i) * n;
    T* vj = v + static_cast<std::size_t>(j) * n;
    for (int r = 0; r < n; ++r) {
        const T x = vi[r], y = vj[r];
        vi[r] = cs * x - snPhaseConj * y;
        vj[r] = snPhase * x + cs * y;
    }
    return off;
}

// A zero singular value leaves its column of U undetermined: complete U with the unit vector that
// keeps most of its length after projection against the other columns (twice, for orthogonality).
template <typename T>
void completeColumn(T* u, int m, int n, int column, const std::vector<bool>& defined) {
    std::vector<T> best, candidate(m);
    double bestNorm = -1;
    for (int k = 0; k < m; ++k) {
        std::fill(candidate.begin(), candidate.end(), T(0));
        candidate[k] = T(1);
        for (int pass = 0; pass < 2; ++pass)
            for (int q = 0; q < n; ++q) {
                if (!defined[q]) continue;
                const T* uq = u + static_cast<std::size_t>(q) * m;
                T dot = T(0);
                for (int r = 0; r < m; ++r) dot += conjugate(uq[r]) * candidate[r];
                for (int r = 0; r < m; ++r) candidate[r] -= dot * uq[r];
            }
        double norm = 0;
        for (int r = 0; r < m; ++r) norm += squaredMagnitude(candidate[r]);
        if (norm > bestNorm) {
            bestNorm = norm;
            best = candidate;
        }
    }
    const Real<T> scale = Real<T>(1) / std::sqrt(static_cast<Real<T>>(bestNorm));
    T* target = u + static_cast<std::size_t>(column) * m;
    for (int r = 0; r < m; ++r) target[r] = best[r] * scale;
}

template <typename T>
void decomposeOne(const T* a, T* u, Real<T>* sigma, T* v, int m, int n, Real<T> tolerance, int maxSweeps,
                  const BrentLukOrdering& order, SvdStatus& status, int& sweeps, double& off,
                  std::vector<double>* history) {
    using R = Real<T>;
    const std::size_t size = static_cast<std::size_t>(m) * n;
    if (!std::all_of(a, a + size, [](const T& x) { return isFiniteScalar(x); })) {
        std::fill(u, u + size, quietNaN<T>());
        std::fill(sigma, sigma + n, std::numeric_limits<R>::quiet_NaN());
        std::fill(v, v + static_cast<std::size_t>(n) * n, quietNaN<T>());
        status = SvdStatus::NonFiniteInput;
        sweeps = 0;
        off = std::numeric_limits<double>::quiet_NaN();
        return;
    }
    if (history) history->clear();
    std::vector<T> w(a, a + size), vw(static_cast<std::size_t>(n) * n, T(0));
    for (int k = 0; k < n; ++k) vw[static_cast<std::size_t>(k) * n + k] = T(1);
    status = SvdStatus::NotConverged;
    sweeps = 0;
    R sweepMax = 0;
    const int perStep = order.pairsPerStep();
    const auto& pairs = order.pairs();
    while (sweeps < maxSweeps) {
        ++sweeps;
        sweepMax = 0;
        for (int step = 0; step < order.steps(); ++step)
            for (int p = 0; p < perStep; ++p) {
                const int i = pairs[2 * (step * perStep + p)], j = pairs[2 * (step * perStep + p) + 1];
                if (j >= n) continue;  // the phantom column of an odd n
                sweepMax = std::max(sweepMax, orthogonalisePair(w.data(), m, vw.data(), n, i, j, tolerance));
            }
        if (history) history->push_back(static_cast<double>(sweepMax));
        if (sweepMax <= tolerance) {
            status = SvdStatus::Converged;
            break;
        }
    }
    off = sweepMax;

    std::vector<R> norms(n);
    for (int k = 0; k < n; ++k) {
        R s = 0;
        for (int r = 0; r < m; ++r) s += squaredMagnitude(w[static_cast<std::size_t>(k) * m + r]);
        norms[k] = std::sqrt(s);
    }
    std::vector<int> rank(n);
    std::iota(rank.begin(), rank.end(), 0);
    std::stable_sort(rank.begin(), rank.end(), [&](int x, int y) { return norms[x] > norms[y]; });
    std::vector<bool> defined(n, false);
    for (int k = 0; k < n; ++k) {
        const int src = rank[k];
        sigma[k] = norms[src];
        std::copy(vw.begin() + static_cast<std::ptrdiff_t>(src) * n, vw.begin() + static_cast<std::ptrdiff_t>(src + 1) * n,
                  v + static_cast<std::size_t>(k) * n);
        T* uk = u + static_cast<std::size_t>(k) * m;
        if (norms[src] > R(0)) {
            const R inv = R(1) / norms[src];
            for (int r = 0; r < m; ++r) uk[r] = w[static_cast<std::size_t>(src) * m + r] * inv;
            defined[k] = std::all_of(uk, uk + m, [](const T& x) { return isFiniteScalar(x); });
        }
    }
    for (int k = 0; k < n; ++k)
        if (!defined[k]) {
            completeColumn(u, m, n, k, defined);
            defined[k] = true;
        }
}

} // namespace

template <typename T>
void svdBatchedReference(const T* a, T* u, SvdReal<T>* sigma, T* v, int m, int n, std::int64_t count, double tolerance,
                         int maxSweeps, SvdStatus* status, int* sweeps, double* offOrthogonality,
                         const std::atomic<bool>* cancel, std::vector<std::vector<double>>* sweepHistory) {
    if (!(tolerance > 0)) throw InputError("batched SVD: the tolerance must be positive");
    const BrentLukOrdering order(n);
    const std::size_t size = static_cast<std::size_t>(m) * n;
    for (std::int64_t b = 0; b < count; ++b) {
        if (cancel && b % 256 == 0 && cancel->load()) throw CancelledError();
        decomposeOne(a + b * size, u + b * size, sigma + b * n, v + b * static_cast<std::size_t>(n) * n, m, n,
                     static_cast<Real<T>>(tolerance), maxSweeps, order, status[b], sweeps[b], offOrthogonality[b],
                     sweepHistory && b < static_cast<std::int64_t>(sweepHistory->size()) ? &(*sweepHistory)[b] : nullptr);
    }
}

#define SPYGLASS_INSTANTIATE_SVD_REFERENCE(T)                                                                         \
    template void svdBatchedReference<T>(const T*, T*, SvdReal<T>*, T*, int, int, std::int64_t, double, int,         \
                                         SvdStatus*, int*, double*, const std::atomic<bool>*,                  \
                                         std::vector<std::vector<double>>*);
SPYGLASS_INSTANTIATE_SVD_REFERENCE(float)
SPYGLASS_INSTANTIATE_SVD_REFERENCE(double)
SPYGLASS_INSTANTIATE_SVD_REFERENCE(std::complex<float>)
SPYGLASS_INSTANTIATE_SVD_REFERENCE(std::complex<double>)

} // namespace spyglass
