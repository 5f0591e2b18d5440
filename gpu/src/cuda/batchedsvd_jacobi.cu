// Method C kernel: one-sided Jacobi SVD, one thread block per matrix (the seed's mapping for
// M = 16, extended to n <= 64 with dynamic shared memory). Every sweep runs inside the kernel, so a
// batch is one launch; the pairs of a Brent-Luk step are disjoint, so the groups of a step rotate
// without conflicts and one __syncthreads separates the steps.
#include "batchedsvd_kernels.h"
#include "batchedsvd_math.cuh"
#include "cuda_check.h"

#include <algorithm>
#include <complex>
#include <string>

namespace spyglass::cuda {

namespace {

using namespace svd;

constexpr int kMaxPadded = kMaxSvdColumns;  // n <= 64 is even already
// (n-1) steps x n/2 pairs x 2 columns for the padded n: 63 * 32 * 2 bytes.
__constant__ unsigned char c_pairs[(kMaxPadded - 1) * (kMaxPadded / 2) * 2];

// At most 512 threads per block: 1024 would leave 64 registers per thread, too few for the
// complex<double> kernel (70 registers; the first H100 run failed to launch n = 64 c128 with 1024).
constexpr int kMaxThreads = 512;
int paddedColumns(int n) { return n + (n % 2); }
// Lanes per column pair: the power of two >= m, at most 32 and at most what 512 threads allow
// (wider columns are walked in strides).
int groupWidth(int m, int n) {
    const int pairs = paddedColumns(n) / 2;
    int g = 1;
    while (g < m && g < 32 && 2 * g * pairs <= kMaxThreads) g *= 2;
    return g;
}
int threadsPerBlock(int m, int n) {
    const int threads = paddedColumns(n) / 2 * groupWidth(m, n);
    return (threads + 31) / 32 * 32;  // whole warps: every lane takes part in the shuffles
}

template <typename S>
__global__ void jacobiSvdKernel(const S* __restrict__ a, S* __restrict__ u, RealOf<S>* __restrict__ sigma,
                                S* __restrict__ v, int* __restrict__ status, int* __restrict__ sweepsOut,
                                RealOf<S>* __restrict__ offOut, int m, int n, int width, RealOf<S> tol, int maxSweeps) {
    using R = RealOf<S>;
    extern __shared__ __align__(16) unsigned char smem[];
    const int np = n + (n & 1);
    const int pairsPerStep = np / 2;
    S* sa = reinterpret_cast<S*>(smem);           // m x np, column-major, phantom column zero
    S* sv = sa + m * np;                          // n x np
    R* groupMax = reinterpret_cast<R*>(sv + n * np);  // np/2
    R* norms = groupMax + pairsPerStep;           // np
    int* order = reinterpret_cast<int*>(norms + np);  // np
    __shared__ int anyBad, anyZero;

    const std::size_t b = blockIdx.x;
    const int tid = threadIdx.x;
    const S* ab = a + b * m * n;
    if (tid == 0) {
        anyBad = 0;
        anyZero = 0;
    }
    __syncthreads();
    for (int idx = tid; idx < m * np; idx += blockDim.x) {
        const int col = idx / m;
        S x = zero<S>();
        if (col < n) {
            x = ab[idx];
            if (!finiteScalar(x)) anyBad = 1;
        }
        sa[idx] = x;
    }
    for (int idx = tid; idx < n * np; idx += blockDim.x) sv[idx] = (idx / n == idx % n) ? one<S>() : zero<S>();
    __syncthreads();
    if (anyBad) {
        for (int idx = tid; idx < m * n; idx += blockDim.x) u[b * m * n + idx] = scalarNaN<S>();
        for (int idx = tid; idx < n * n; idx += blockDim.x) v[b * n * n + idx] = scalarNaN<S>();
        for (int idx = tid; idx < n; idx += blockDim.x) sigma[b * n + idx] = realNaN<R>();
        if (tid == 0) {
            status[b] = static_cast<int>(SvdStatus::NonFiniteInput);
            sweepsOut[b] = 0;
            offOut[b] = realNaN<R>();
        }
        return;
    }

    const int pair = tid / width;
    const int lane = tid % width;
    const bool active = pair < pairsPerStep;
    int sweeps = 0;
    R sweepMax = 0;
    bool converged = false;
    while (sweeps < maxSweeps) {
        ++sweeps;
        R myMax = 0;
        for (int step = 0; step < np - 1; ++step) {
            R pa = 0, pb = 0;
            S pc = zero<S>();
            int i = 0, j = 0;
            if (active) {
                i = c_pairs[2 * (step * pairsPerStep + pair)];
                j = c_pairs[2 * (step * pairsPerStep + pair) + 1];
                for (int r = lane; r < m; r += width) {
                    const S x = sa[i * m + r], y = sa[j * m + r];
                    pa += squaredMagnitude(x);
                    pb += squaredMagnitude(y);
                    accumulateConjProduct(pc, x, y);
                }
            }
            for (int mask = width / 2; mask > 0; mask /= 2) {
                pa += xorShuffle(pa, mask);
                pb += xorShuffle(pb, mask);
                pc = pc + xorShuffle(pc, mask);
            }
            const R absC = magnitude(pc);
            if (active && pa > R(0) && pb > R(0) && absC > R(0)) {
                const R off = absC / sqrt(pa) / sqrt(pb);
                myMax = max(myMax, off);
                if (off > tol) {
                    const R zeta = (pb - pa) / (R(2) * absC);
                    const R t = copysign(R(1), zeta) / (fabs(zeta) + sqrt(R(1) + zeta * zeta));
                    const R cs = R(1) / sqrt(R(1) + t * t);
                    const R sn = cs * t;
                    const R inv = R(1) / absC;
                    const S e = scaleBy(pc, inv);
                    for (int r = lane; r < m; r += width) rotate(sa[i * m + r], sa[j * m + r], cs, sn, e);
                    for (int r = lane; r < n; r += width) rotate(sv[i * n + r], sv[j * n + r], cs, sn, e);
                }
            }
            __syncthreads();
        }
        if (active && lane == 0) groupMax[pair] = myMax;
        __syncthreads();
        sweepMax = 0;
        for (int p = 0; p < pairsPerStep; ++p) sweepMax = max(sweepMax, groupMax[p]);
        __syncthreads();  // groupMax is rewritten after the next sweep
        if (sweepMax <= tol) {
            converged = true;
            break;
        }
    }

    // Column norms are the singular values; rank k = how many norms come before it in descending,
    // index-stable order (the reference sorts the same way).
    for (int col = tid; col < n; col += blockDim.x) {
        R s = 0;
        for (int r = 0; r < m; ++r) s += squaredMagnitude(sa[col * m + r]);
        norms[col] = sqrt(s);
    }
    __syncthreads();
    for (int col = tid; col < n; col += blockDim.x) {
        int rank = 0;
        for (int q = 0; q < n; ++q)
            if (norms[q] > norms[col] || (norms[q] == norms[col] && q < col)) ++rank;
        order[rank] = col;
        if (!(norms[col] > R(0)) || !isfinite(R(1) / norms[col])) anyZero = 1;
    }
    __syncthreads();
    for (int idx = tid; idx < m * n; idx += blockDim.x) {
        const int col = idx / m;
        const R s = norms[col];
        if (s > R(0) && isfinite(R(1) / s)) sa[idx] = scaleBy(sa[idx], R(1) / s);
    }
    __syncthreads();
    if (anyZero && tid == 0) {
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
        v[b * n * n + idx] = sv[order[k] * n + r];
    }
    for (int k = tid; k < n; k += blockDim.x) sigma[b * n + k] = norms[order[k]];
    if (tid == 0) {
        status[b] = static_cast<int>(converged ? SvdStatus::Converged : SvdStatus::NotConverged);
        sweepsOut[b] = sweeps;
        offOut[b] = sweepMax;
    }
}

} // namespace

std::size_t jacobiSvdSharedBytes(int m, int n, std::size_t elementBytes, std::size_t realSize) {
    const int np = paddedColumns(n);
    return static_cast<std::size_t>(m + n) * np * elementBytes + static_cast<std::size_t>(np / 2 + np) * realSize +
           static_cast<std::size_t>(np) * sizeof(int) + 16;
}

template <typename T>
void launchJacobiSvd(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off, int m,
                     int n, std::int64_t count, double tolerance, int maxSweeps, cudaStream_t stream) {
    using S = typename DeviceScalar<T>::type;
    using R = RealOf<S>;
    if (count == 0) return;
    const BrentLukOrdering ordering(n);
    SPYGLASS_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_pairs, ordering.pairs().data(), ordering.pairs().size(), 0,
                                                cudaMemcpyHostToDevice, stream));
    const std::size_t shared = jacobiSvdSharedBytes(m, n, sizeof(T), sizeof(R));
    if (shared > 48 * 1024)
        SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(jacobiSvdKernel<S>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                 static_cast<int>(shared)));
    const int threads = threadsPerBlock(m, n);
    // No __launch_bounds__: it made ptxas spill the complex<double> kernel; instead the register
    // count the compiler chose must allow this block size, or the request is refused by name.
    cudaFuncAttributes attributes{};
    SPYGLASS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, jacobiSvdKernel<S>));
    if (threads > attributes.maxThreadsPerBlock)
        throw DeviceError("batched SVD kernel: " + std::to_string(threads) + " threads per block requested, the compiled kernel allows " +
                              std::to_string(attributes.maxThreadsPerBlock),
                          __FILE__, __LINE__);
    // Grids are limited to 2^31-1 blocks in x; larger batches go in slices.
    const std::int64_t maxBlocks = 0x7fffffff;
    for (std::int64_t first = 0; first < count; first += maxBlocks) {
        const std::int64_t here = std::min(maxBlocks, count - first);
        const std::size_t mn = static_cast<std::size_t>(m) * n, nn = static_cast<std::size_t>(n) * n;
        jacobiSvdKernel<S><<<static_cast<unsigned>(here), threads, shared, stream>>>(
            reinterpret_cast<const S*>(a) + first * mn, reinterpret_cast<S*>(u) + first * mn,
            reinterpret_cast<R*>(sigma) + first * n, reinterpret_cast<S*>(v) + first * nn, status + first, sweeps + first,
            reinterpret_cast<R*>(off) + first, m, n, groupWidth(m, n), static_cast<R>(tolerance), maxSweeps);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
}

#define SPYGLASS_INSTANTIATE_JACOBI_SVD(T)                                                                            \
    template void launchJacobiSvd<T>(const T*, T*, SvdReal<T>*, T*, int*, int*, SvdReal<T>*, int, int, std::int64_t, \
                                     double, int, cudaStream_t);
SPYGLASS_INSTANTIATE_JACOBI_SVD(float)
SPYGLASS_INSTANTIATE_JACOBI_SVD(double)
SPYGLASS_INSTANTIATE_JACOBI_SVD(std::complex<float>)
SPYGLASS_INSTANTIATE_JACOBI_SVD(std::complex<double>)

} // namespace spyglass::cuda
