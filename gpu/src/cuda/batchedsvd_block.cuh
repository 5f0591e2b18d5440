#pragma once
// Device code shared by the block-per-matrix Jacobi kernels (and by the final pass of the
// block-per-pair mapping): the shared-memory layout of one matrix, loading it with the NaN/Inf
// check, and the finish (singular values, sorting, U, completion of U for zero singular values,
// outputs). Every function is called by all threads of the block.
#include "batchedsvd_math.cuh"
#include "spyglass/batchedsvd.h"

#include <cstddef>

namespace spyglass::cuda::svd {

// One matrix in dynamic shared memory: W (m x np, column-major, the phantom column of an odd n
// zero), V (n x np), per-group maxima (np/2), column norms (np), sorted order (np).
template <typename S> struct BlockMatrix {
    S* sa;
    S* sv;
    RealOf<S>* groupMax;
    RealOf<S>* norms;
    int* order;
};

template <typename S> __device__ inline BlockMatrix<S> carveBlockMatrix(unsigned char* smem, int m, int n) {
    using R = RealOf<S>;
    const int np = n + (n & 1);
    BlockMatrix<S> s;
    s.sa = reinterpret_cast<S*>(smem);
    s.sv = s.sa + m * np;
    s.groupMax = reinterpret_cast<R*>(s.sv + n * np);
    s.norms = s.groupMax + np / 2;
    s.order = reinterpret_cast<int*>(s.norms + np);
    return s;
}

// Copies W (m x n, column stride m, from global memory) into s.sa with a zero phantom column and,
// when `vIn` is null, sets V = I, else copies V (n x n) from vIn. Returns true (in every thread)
// when W holds a NaN or Inf. `flag` is a __shared__ int of the caller.
template <typename S>
__device__ inline bool loadBlockMatrix(const S* __restrict__ w, const S* __restrict__ vIn, BlockMatrix<S> s, int m,
                                       int n, int* flag) {
    const int np = n + (n & 1);
    const int tid = threadIdx.x;
    if (tid == 0) *flag = 0;
    __syncthreads();
    for (int idx = tid; idx < m * np; idx += blockDim.x) {
        const int col = idx / m;
        S x = zero<S>();
        if (col < n) {
            x = w[idx];
            if (!finiteScalar(x)) *flag = 1;
        }
        s.sa[idx] = x;
    }
    for (int idx = tid; idx < n * np; idx += blockDim.x) {
        const int col = idx / n;
        if (vIn) s.sv[idx] = col < n ? vIn[idx] : zero<S>();
        else s.sv[idx] = (col == idx % n) ? one<S>() : zero<S>();
    }
    __syncthreads();
    const bool bad = *flag != 0;
    __syncthreads();  // the flag is reused by the finish
    return bad;
}

// Where a thread of a block-per-matrix kernel works: column pair `pair` of every Brent-Luk step of
// the padded n (np - 1 steps of np / 2 pairs), as lane `lane` of the pair's `width` lanes.
struct PairLanes {
    int np, pairsPerStep, pair, lane;
    bool active;  // false for the threads past the last pair (blocks are whole warps)
};

__device__ __forceinline__ PairLanes pairLanesOf(int n, int width) {
    PairLanes g;
    g.np = n + (n & 1);
    g.pairsPerStep = g.np / 2;
    g.pair = threadIdx.x / width;
    g.lane = threadIdx.x % width;
    g.active = g.pair < g.pairsPerStep;
    return g;
}

// Matrix b had NaN/Inf: every output NaN, status NonFiniteInput, no sweeps.
template <typename S>
__device__ inline void writeNonFinite(std::size_t b, S* u, RealOf<S>* sigma, S* v, int* status, int* sweepsOut,
                                      RealOf<S>* offOut, int m, int n) {
    using R = RealOf<S>;
    const int tid = threadIdx.x;
    for (int idx = tid; idx < m * n; idx += blockDim.x) u[b * m * n + idx] = scalarNaN<S>();
    for (int idx = tid; idx < n * n; idx += blockDim.x) v[b * n * n + idx] = scalarNaN<S>();
    for (int idx = tid; idx < n; idx += blockDim.x) sigma[b * n + idx] = realNaN<R>();
    if (tid == 0) {
        status[b] = static_cast<int>(SvdStatus::NonFiniteInput);
        sweepsOut[b] = 0;
        offOut[b] = realNaN<R>();
    }
}

// Loads matrix b of `a` with V = I; when it holds NaN/Inf, writes its NaN outputs instead and
// returns false (in every thread).
template <typename S>
__device__ __forceinline__ bool loadOrWriteNonFinite(const S* __restrict__ a, BlockMatrix<S> s, std::size_t b, S* u,
                                                     RealOf<S>* sigma, S* v, int* status, int* sweepsOut,
                                                     RealOf<S>* offOut, int m, int n, int* flag) {
    if (!loadBlockMatrix<S>(a + b * m * n, nullptr, s, m, n, flag)) return true;
    writeNonFinite(b, u, sigma, v, status, sweepsOut, offOut, m, n);
    return false;
}

// After the sweeps: sigma = column norms of W in descending, index-stable order (the reference sorts
// the same way), U = W diag(1/sigma), U completed where sigma is zero, V reordered alike; status,
// sweeps and the last sweep's off-orthogonality written. `flag` is a __shared__ int of the caller.
template <typename S>
__device__ inline void finishBlockMatrix(BlockMatrix<S> s, std::size_t b, S* __restrict__ u, RealOf<S>* __restrict__ sigma,
                                         S* __restrict__ v, int* __restrict__ status, int* __restrict__ sweepsOut,
                                         RealOf<S>* __restrict__ offOut, int m, int n, bool converged, int sweeps,
                                         RealOf<S> sweepMax, int* flag) {
    using R = RealOf<S>;
    const int tid = threadIdx.x;
    S* sa = s.sa;
    R* norms = s.norms;
    int* order = s.order;
    if (tid == 0) *flag = 0;
    for (int col = tid; col < n; col += blockDim.x) {
        R sum = 0;
        for (int r = 0; r < m; ++r) sum += squaredMagnitude(sa[col * m + r]);
        norms[col] = sqrt(sum);
    }
    __syncthreads();
    for (int col = tid; col < n; col += blockDim.x) {
        int rank = 0;
        for (int q = 0; q < n; ++q)
            if (norms[q] > norms[col] || (norms[q] == norms[col] && q < col)) ++rank;
        order[rank] = col;
        if (!(norms[col] > R(0)) || !isfinite(R(1) / norms[col])) *flag = 1;
    }
    __syncthreads();
    for (int idx = tid; idx < m * n; idx += blockDim.x) {
        const int col = idx / m;
        const R sn = norms[col];
        if (sn > R(0) && isfinite(R(1) / sn)) sa[idx] = scaleBy(sa[idx], R(1) / sn);
    }
    __syncthreads();
    if (*flag && tid == 0) {
        // Rare (exact zero singular values): complete U by the unit vector that keeps most length
        // after two Gram-Schmidt passes against the columns before it (zero norms sort last, so
        // those are all the defined ones); serial, as in the reference.
        for (int k = 0; k < n; ++k) {
            const int col = order[k];
            if (norms[col] > R(0) && isfinite(R(1) / norms[col])) continue;
            R bestNorm = -1;
            int bestUnit = 0;
            for (int pass = 0; pass < 2; ++pass) {
                // pass 0 picks the unit vector, pass 1 builds it in place
                for (int unit = 0; unit < m; ++unit) {
                    if (pass == 1 && unit != bestUnit) continue;
                    for (int r = 0; r < m; ++r) sa[col * m + r] = r == unit ? one<S>() : zero<S>();
                    for (int rep = 0; rep < 2; ++rep)
                        for (int q = 0; q < k; ++q) {
                            const int other = order[q];
                            S dot = zero<S>();
                            for (int r = 0; r < m; ++r) accumulateConjProduct(dot, sa[other * m + r], sa[col * m + r]);
                            for (int r = 0; r < m; ++r) sa[col * m + r] = sa[col * m + r] - dot * sa[other * m + r];
                        }
                    R len = 0;
                    for (int r = 0; r < m; ++r) len += squaredMagnitude(sa[col * m + r]);
                    if (pass == 0 && len > bestNorm) {
                        bestNorm = len;
                        bestUnit = unit;
                    }
                    if (pass == 1)
                        for (int r = 0; r < m; ++r) sa[col * m + r] = scaleBy(sa[col * m + r], R(1) / sqrt(len));
                }
            }
            norms[col] = 0;
        }
    }
    __syncthreads();
    for (int idx = tid; idx < m * n; idx += blockDim.x) {
        const int k = idx / m, r = idx % m;
        u[b * m * n + idx] = sa[order[k] * m + r];
    }
    for (int idx = tid; idx < n * n; idx += blockDim.x) {
        const int k = idx / n, r = idx % n;
        v[b * n * n + idx] = s.sv[order[k] * n + r];
    }
    for (int k = tid; k < n; k += blockDim.x) sigma[b * n + k] = norms[order[k]];
    if (tid == 0) {
        status[b] = static_cast<int>(converged ? SvdStatus::Converged : SvdStatus::NotConverged);
        sweepsOut[b] = sweeps;
        offOut[b] = sweepMax;
    }
}

// The Jacobi rotation of one pair from its Gram entries a = ||w_i||^2, b = ||w_j||^2, |c| = |w_i^H w_j|
// (a, b, |c| > 0): the smaller root t of t^2 + 2 zeta t - 1 = 0 (at most 45 degrees), as the reference.
template <typename R> __device__ inline void jacobiRotation(R a, R b, R absC, R& cs, R& sn) {
    const R zeta = (b - a) / (R(2) * absC);
    const R t = copysign(R(1), zeta) / (fabs(zeta) + sqrt(R(1) + zeta * zeta));
    cs = R(1) / sqrt(R(1) + t * t);
    sn = cs * t;
}

// A launcher's host-typed pointers and tolerance as the kernels take them.
template <typename T> struct DeviceSvdArgs {
    using S = typename DeviceScalar<T>::type;
    using R = RealOf<S>;
    const S* a;
    S* u;
    R* sigma;
    S* v;
    R* off;
    R tol;
};
template <typename T>
DeviceSvdArgs<T> deviceSvdArgs(const T* a, T* u, SvdReal<T>* sigma, T* v, SvdReal<T>* off, double tolerance) {
    using S = typename DeviceScalar<T>::type;
    using R = RealOf<S>;
    return {reinterpret_cast<const S*>(a), reinterpret_cast<S*>(u), reinterpret_cast<R*>(sigma),
            reinterpret_cast<S*>(v),       reinterpret_cast<R*>(off), static_cast<R>(tolerance)};
}

// The Gram entries of a column pair summed over the `width` lanes of its group (xor shuffles: every
// lane ends with the sums); called by whole warps.
template <typename S> __device__ __forceinline__ void sumOverGroup(RealOf<S>& pa, RealOf<S>& pb, S& pc, int width) {
    for (int mask = width / 2; mask > 0; mask /= 2) {
        pa += xorShuffle(pa, mask);
        pb += xorShuffle(pb, mask);
        pc = pc + xorShuffle(pc, mask);
    }
}

// Whether the pair with Gram entries pa, pb, pc is rotated: its off-orthogonality raises myMax and,
// above tol, gives the rotation (cs, sn, e) of jacobiRotation with e = c / |c|.
template <typename S>
__device__ __forceinline__ bool pairRotation(bool active, RealOf<S> pa, RealOf<S> pb, S pc, RealOf<S> tol, RealOf<S>& myMax,
                                             RealOf<S>& cs, RealOf<S>& sn, S& e) {
    using R = RealOf<S>;
    const R absC = magnitude(pc);
    if (!(active && pa > R(0) && pb > R(0) && absC > R(0))) return false;
    const R off = absC / sqrt(pa) / sqrt(pb);
    myMax = max(myMax, off);
    if (!(off > tol)) return false;
    jacobiRotation(pa, pb, absC, cs, sn);
    e = scaleBy(pc, R(1) / absC);
    return true;
}

// pairRotation with its reciprocal square roots refined from estimates, for the register-groups
// and register-resident kernels (in the first the angle was a sixth of a step's instructions):
// off = |c| / sqrt(a) / sqrt(b) and cs = 1 / sqrt(1 + t^2) each to about an ulp. The angle itself
// (zeta, t) and e stay the IEEE forms of jacobiRotation: at tol = m eps a rank-deficient column is
// orthogonalised only as well as t is accurate, and a trial with estimated angles took 5 sweeps on a
// 3x3 matrix the reference does in 2 (docs/method-c-batchedsvd.md).
template <typename S>
__device__ __forceinline__ bool pairRotationRefinedRoots(bool active, RealOf<S> pa, RealOf<S> pb, S pc, RealOf<S> tol,
                                                         RealOf<S>& myMax, RealOf<S>& cs, RealOf<S>& sn, S& e) {
    using R = RealOf<S>;
    const R absC = magnitude(pc);
    if (!(active && pa > R(0) && pb > R(0) && absC > R(0))) return false;
    const R off = absC * refinedReciprocalRoot(pa) * refinedReciprocalRoot(pb);  // absC <= sqrt(a b): no overflow
    myMax = max(myMax, off);
    if (!(off > tol)) return false;
    const R zeta = (pb - pa) / (R(2) * absC);
    const R t = copysign(R(1), zeta) / (fabs(zeta) + sqrt(R(1) + zeta * zeta));
    cs = refinedReciprocalRoot(mulAdd(t, t, R(1)));
    sn = cs * t;
    e = scaleBy(pc, R(1) / absC);
    return true;
}

// The largest off-orthogonality of the sweep over every group of the block (each group's first
// lane contributes its maximum); called by all threads.
template <typename S>
__device__ __forceinline__ RealOf<S> blockSweepMax(BlockMatrix<S> s, const PairLanes& g, RealOf<S> myMax) {
    if (g.active && g.lane == 0) s.groupMax[g.pair] = myMax;
    __syncthreads();
    RealOf<S> sweepMax = 0;
    for (int p = 0; p < g.pairsPerStep; ++p) sweepMax = max(sweepMax, s.groupMax[p]);
    __syncthreads();  // groupMax is rewritten after the next sweep
    return sweepMax;
}

} // namespace spyglass::cuda::svd
