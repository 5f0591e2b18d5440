// Method C, variant RealEmbedding: the seed's treatment of complex matrices. A = X + iY (m x n) is
// replaced by the real M = [[X, -Y], [Y, X]] (2m x 2n), which has every singular value of A twice:
// M [p; q] = s [f; g] exactly when A (p + iq) = s (f + ig). The real Jacobi kernel (Auto) decomposes
// M; then one warp per matrix takes n complex right vectors v = p + iq from the 2n real ones in
// descending order, by complex Gram-Schmidt against those already taken: the second vector of
// each pair, i v up to rounding, leaves nothing and is skipped. The same combination is applied to
// the left vectors u = f + ig, so that A v = s u still holds inside clusters of equal values; U is
// then made orthonormal in the complex sense (columns of zero singular values, which the real
// kernel completed only in the real sense, are completed again like the reference).
// Cost: 4x the entries and 2x the columns: about 8x the rotations' work of native complex rotations.
#include "batchedsvd_block.cuh"
#include "spyglass/cuda/batchedsvd_device_api.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"

#include <algorithm>
#include <complex>
#include <string>

namespace spyglass::cuda {

using namespace svd;

namespace {

template <typename R>
__global__ void embedKernel(const SvdCx<R>* __restrict__ a, R* __restrict__ out, int m, int n, std::int64_t count) {
    const std::int64_t idx = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    const std::int64_t mn = static_cast<std::int64_t>(m) * n;
    if (idx >= count * mn) return;
    const std::int64_t b = idx / mn;
    const int col = static_cast<int>((idx % mn) / m), row = static_cast<int>(idx % m);
    const SvdCx<R> x = a[idx];
    R* mb = out + b * 4 * mn;  // 2m x 2n, column stride 2m
    const int ld = 2 * m;
    mb[col * ld + row] = x.re;
    mb[col * ld + m + row] = x.im;
    mb[(n + col) * ld + row] = -x.im;
    mb[(n + col) * ld + m + row] = x.re;
}

template <typename R> __device__ inline SvdCx<R> warpSum(SvdCx<R> x) {
    for (int mask = 16; mask > 0; mask /= 2) x = x + xorShuffle(x, mask);
    return x;
}
template <typename R> __device__ inline R warpSum(R x) {
    for (int mask = 16; mask > 0; mask /= 2) x += xorShuffle(x, mask);
    return x;
}

// The warp-wide pieces of complex Gram-Schmidt on vectors of `len` rows, each lane owning rows lane,
// lane+32, ...; every lane gets the warp's sums. Shared by projectOut and orthonormaliseColumn. The
// column of v starts at v[start] (int indexing, as the callers had it).
template <typename R>
__device__ __forceinline__ SvdCx<R> warpConjDot(const SvdCx<R>* v, int start, const SvdCx<R>* w, int len) {
    SvdCx<R> c = zero<SvdCx<R>>();
    for (int r = threadIdx.x; r < len; r += 32) accumulateConjProduct(c, v[start + r], w[r]);
    return warpSum(c);
}
// w -= c v
template <typename R>
__device__ __forceinline__ void subtractScaled(SvdCx<R>* w, SvdCx<R> c, const SvdCx<R>* v, int start, int len) {
    for (int r = threadIdx.x; r < len; r += 32) w[r] = w[r] - c * v[start + r];
}
template <typename R> __device__ __forceinline__ R warpSquaredNorm(const SvdCx<R>* w, int len) {
    R norm = 0;
    for (int r = threadIdx.x; r < len; r += 32) norm += squaredMagnitude(w[r]);
    return warpSum(norm);
}

// One warp: projects the candidate in w (n) / z (m) twice against the accepted columns 0..count-1
// of v / u (the same coefficients on both); returns ||w||^2 afterwards. Each lane owns rows
// lane, lane+32, ... of w, z and of the accepted columns, so no lane reads another's rows.
template <typename R>
__device__ R projectOut(SvdCx<R>* w, SvdCx<R>* z, const SvdCx<R>* v, const SvdCx<R>* u, int m, int n, int accepted) {
    using C = SvdCx<R>;
    for (int pass = 0; pass < 2; ++pass)
        for (int j = 0; j < accepted; ++j) {
            const C c = warpConjDot(v, j * n, w, n);
            subtractScaled(w, c, v, j * n, n);
            subtractScaled(z, c, u, j * m, m);
        }
    return warpSquaredNorm(w, n);
}

// Loads real candidate k of the 2n (right vector [p; q] of vr, left vector [f; g] of ur) as w = p + iq, z = f + ig.
template <typename R>
__device__ void loadCandidate(SvdCx<R>* w, SvdCx<R>* z, const R* vr, const R* ur, int m, int n, int k) {
    const int lane = threadIdx.x;
    for (int r = lane; r < n; r += 32) w[r] = {vr[k * 2 * n + r], vr[k * 2 * n + n + r]};
    for (int r = lane; r < m; r += 32) z[r] = {ur[k * 2 * m + r], ur[k * 2 * m + m + r]};
}

// Makes column k of `q` (rows x k+1, column stride rows) orthonormal against columns 0..k-1; when
// too little of it is left (a zero singular value: the real kernel's completion is orthogonal only
// in the real sense), it is replaced by the unit vector with the largest remainder, as the reference.
template <typename R> __device__ void orthonormaliseColumn(SvdCx<R>* q, int rows, int k) {
    using C = SvdCx<R>;
    const int lane = threadIdx.x;
    C* col = q + static_cast<std::size_t>(k) * rows;
    for (int attempt = 0; attempt < 2; ++attempt) {
        for (int pass = 0; pass < 2; ++pass)
            for (int j = 0; j < k; ++j) subtractScaled(col, warpConjDot(q, j * rows, col, rows), q, j * rows, rows);
        const R norm = warpSquaredNorm(col, rows);
        if (attempt == 0 && !(norm >= R(0.25))) {
            // remainder of unit vector e_r after projection on orthonormal columns: 1 - sum_j |q_rj|^2
            R best = -1;
            int bestRow = 0;
            for (int r = lane; r < rows; r += 32) {
                R kept = 1;
                for (int j = 0; j < k; ++j) kept -= squaredMagnitude(q[j * rows + r]);
                if (kept > best) {
                    best = kept;
                    bestRow = r;
                }
            }
            for (int mask = 16; mask > 0; mask /= 2) {
                const R otherBest = __shfl_xor_sync(0xffffffffu, best, mask);
                const int otherRow = __shfl_xor_sync(0xffffffffu, bestRow, mask);
                if (otherBest > best || (otherBest == best && otherRow < bestRow)) {
                    best = otherBest;
                    bestRow = otherRow;
                }
            }
            for (int r = lane; r < rows; r += 32) col[r] = r == bestRow ? one<C>() : zero<C>();
            continue;  // project the unit vector out, then normalise
        }
        const R scale = R(1) / sqrt(norm);
        for (int r = lane; r < rows; r += 32) col[r] = scaleBy(col[r], scale);
        return;
    }
}

template <typename R>
__global__ void extractKernel(const R* __restrict__ ur, const R* __restrict__ sr, const R* __restrict__ vr,
                              SvdCx<R>* __restrict__ u, R* __restrict__ sigma, SvdCx<R>* __restrict__ v,
                              const int* __restrict__ status, int m, int n) {
    using C = SvdCx<R>;
    extern __shared__ __align__(16) unsigned char smem[];
    C* w = reinterpret_cast<C*>(smem);  // candidate right vector (n)
    C* z = w + n;                       // candidate left vector (m)
    int* used = reinterpret_cast<int*>(z + m);  // 2n flags
    const std::size_t b = blockIdx.x;
    const int lane = threadIdx.x;
    C* ub = u + b * m * n;
    C* vb = v + b * n * n;
    R* sb = sigma + b * n;
    if (status[b] == static_cast<int>(SvdStatus::NonFiniteInput)) {
        for (int idx = lane; idx < m * n; idx += 32) ub[idx] = scalarNaN<C>();
        for (int idx = lane; idx < n * n; idx += 32) vb[idx] = scalarNaN<C>();
        for (int idx = lane; idx < n; idx += 32) sb[idx] = realNaN<R>();
        return;
    }
    const R* urb = ur + b * 4 * m * n;
    const R* vrb = vr + b * 4 * n * n;
    const R* srb = sr + b * 2 * n;
    for (int k = lane; k < 2 * n; k += 32) used[k] = 0;
    __syncwarp();

    // In descending order, keep each candidate that is not (nearly) i times one already kept.
    int accepted = 0;
    for (int k = 0; k < 2 * n && accepted < n; ++k) {
        loadCandidate(w, z, vrb, urb, m, n, k);
        const R left = projectOut(w, z, vb, ub, m, n, accepted);
        if (!(left >= R(0.5))) continue;
        const R scale = R(1) / sqrt(left);
        for (int r = lane; r < n; r += 32) vb[accepted * n + r] = scaleBy(w[r], scale);
        for (int r = lane; r < m; r += 32) ub[accepted * m + r] = scaleBy(z[r], scale);
        if (lane == 0) {
            sb[accepted] = srb[k];
            used[k] = 1;
        }
        __syncwarp();
        ++accepted;
    }
    // Large clusters of equal values can leave the greedy pass short: take the unused candidate with
    // the most left, one at a time, then restore the descending order.
    const bool refill = accepted < n;
    while (accepted < n) {
        R bestLeft = -1;
        int best = -1;
        for (int k = 0; k < 2 * n; ++k) {
            if (used[k]) continue;
            loadCandidate(w, z, vrb, urb, m, n, k);
            const R left = projectOut(w, z, vb, ub, m, n, accepted);
            if (left > bestLeft) {
                bestLeft = left;
                best = k;
            }
        }
        loadCandidate(w, z, vrb, urb, m, n, best);
        projectOut(w, z, vb, ub, m, n, accepted);
        for (int r = lane; r < n; r += 32) vb[accepted * n + r] = w[r];
        for (int r = lane; r < m; r += 32) ub[accepted * m + r] = z[r];
        __syncwarp();
        orthonormaliseColumn(vb, n, accepted);
        if (lane == 0) {
            sb[accepted] = srb[best];
            used[best] = 1;
        }
        __syncwarp();
        ++accepted;
    }
    if (refill) {
        for (int k = 0; k < n; ++k) {
            int top = k;
            for (int q = k + 1; q < n; ++q)
                if (sb[q] > sb[top]) top = q;
            __syncwarp();
            if (top == k) continue;
            for (int r = lane; r < n; r += 32) {
                const C t = vb[k * n + r];
                vb[k * n + r] = vb[top * n + r];
                vb[top * n + r] = t;
            }
            for (int r = lane; r < m; r += 32) {
                const C t = ub[k * m + r];
                ub[k * m + r] = ub[top * m + r];
                ub[top * m + r] = t;
            }
            __syncwarp();
            if (lane == 0) {
                const R t = sb[k];
                sb[k] = sb[top];
                sb[top] = t;
            }
            __syncwarp();
        }
    }
    for (int k = 0; k < n; ++k) orthonormaliseColumn(ub, m, k);
}

} // namespace

template <typename T>
struct RealEmbeddingSvd<T>::State : SvdWorkspaceShape {
    explicit State(const SvdWorkspaceShape& shape) : SvdWorkspaceShape(shape) {}
    DeviceBuffer<SvdReal<T>> a, u, v, sigma;  // the real 2m x 2n problem
};

template <typename T>
RealEmbeddingSvd<T>::RealEmbeddingSvd(int m, int n, std::int64_t capacity, cudaStream_t stream)
    : m_state(new State(SvdWorkspaceShape{m, n, capacity, stream})) {
    const std::size_t c = static_cast<std::size_t>(std::max<std::int64_t>(capacity, 1));
    m_state->a.resize(c * 4 * m * n);
    m_state->u.resize(c * 4 * m * n);
    m_state->v.resize(c * 4 * n * n);
    m_state->sigma.resize(c * 2 * n);
}

template <typename T> RealEmbeddingSvd<T>::~RealEmbeddingSvd() = default;

template <typename T>
std::size_t RealEmbeddingSvd<T>::extraBytesPerMatrix(int m, int n) {
    return (8 * static_cast<std::size_t>(m) * n + 4 * static_cast<std::size_t>(n) * n + 2 * n) * sizeof(SvdReal<T>);
}

template <typename T>
std::string RealEmbeddingSvd<T>::run(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps,
                                     SvdReal<T>* off, std::int64_t count, double tolerance, int maxSweeps,
                                     std::int64_t widthBatch) {
    using R = SvdReal<T>;
    using C = SvdCx<R>;
    State& st = *m_state;
    const int m = st.m, n = st.n;
    st.checkCount(count, "real embedding");
    if (count == 0) return autoJacobiSvdVariant(2 * m, 2 * n, sizeof(R), 0);
    const cudaStream_t stream = st.stream;
    constexpr int threads = 256;
    const std::int64_t mn = static_cast<std::int64_t>(m) * n;
    // Grids hold at most 2^31-1 blocks: whole matrices go in slices.
    const std::int64_t matricesPerLaunch = static_cast<std::int64_t>(0x7fffffff) * threads / mn;
    for (std::int64_t b0 = 0; b0 < count; b0 += matricesPerLaunch) {
        const std::int64_t matrices = std::min(matricesPerLaunch, count - b0);
        const std::int64_t blocks = (matrices * mn + threads - 1) / threads;
        embedKernel<R><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(reinterpret_cast<const C*>(a) + b0 * mn,
                                                                              st.a.data() + b0 * 4 * mn, m, n, matrices);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
    const std::string kernel = launchJacobiSvdAuto<R>(st.a.data(), st.u.data(), st.sigma.data(), st.v.data(), status, sweeps,
                                                      off, 2 * m, 2 * n, count, tolerance, maxSweeps, stream, widthBatch);
    const std::size_t shared = static_cast<std::size_t>(n + m) * sizeof(C) + 2 * static_cast<std::size_t>(n) * sizeof(int);
    const std::int64_t maxBlocks = 0x7fffffff;
    for (std::int64_t first = 0; first < count; first += maxBlocks) {
        const std::int64_t here = std::min(maxBlocks, count - first);
        extractKernel<R><<<static_cast<unsigned>(here), 32, shared, stream>>>(
            st.u.data() + first * 4 * m * n, st.sigma.data() + first * 2 * n, st.v.data() + first * 4 * n * n,
            reinterpret_cast<C*>(u) + first * m * n, sigma + first * n, reinterpret_cast<C*>(v) + first * n * n,
            status + first, m, n);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
    return kernel;
}

template class RealEmbeddingSvd<std::complex<float>>;
template class RealEmbeddingSvd<std::complex<double>>;

} // namespace spyglass::cuda
