// Method C kernel, variant BlockPerMatrix: one-sided Jacobi SVD, one thread block per matrix (the
// seed's mapping (1) for M = 16, extended to n <= 64 with dynamic shared memory), one row per lane.
// Every sweep runs inside the kernel, so a batch is one launch; the pairs of a Brent-Luk step are
// disjoint, so the groups of a step rotate without conflicts and one __syncthreads separates the steps.
#include "batchedsvd_block.cuh"
#include "batchedsvd_blocklaunch.cuh"
#include "spyglass/cuda/batchedsvd_device_api.h"
#include "spyglass/cuda/cudacheck.h"

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
    __shared__ int flag;
    const BlockMatrix<S> s = carveBlockMatrix<S>(smem, m, n);
    S* sa = s.sa;
    S* sv = s.sv;
    const std::size_t b = blockIdx.x;
    if (!loadOrWriteNonFinite(a, s, b, u, sigma, v, status, sweepsOut, offOut, m, n, &flag)) return;
    const PairLanes g = pairLanesOf(n, width);
    int sweeps = 0;
    R sweepMax = 0;
    bool converged = false;
    while (sweeps < maxSweeps) {
        ++sweeps;
        R myMax = 0;
        for (int step = 0; step < g.np - 1; ++step) {
            R pa = 0, pb = 0;
            S pc = zero<S>();
            int i = 0, j = 0;
            if (g.active) {
                i = c_pairs[2 * (step * g.pairsPerStep + g.pair)];
                j = c_pairs[2 * (step * g.pairsPerStep + g.pair) + 1];
                for (int r = g.lane; r < m; r += width) {
                    const S x = sa[i * m + r], y = sa[j * m + r];
                    pa += squaredMagnitude(x);
                    pb += squaredMagnitude(y);
                    accumulateConjProduct(pc, x, y);
                }
            }
            sumOverGroup(pa, pb, pc, width);
            R cs, sn;
            S e;
            if (pairRotation(g.active, pa, pb, pc, tol, myMax, cs, sn, e)) {
                for (int r = g.lane; r < m; r += width) rotate(sa[i * m + r], sa[j * m + r], cs, sn, e);
                for (int r = g.lane; r < n; r += width) rotate(sv[i * n + r], sv[j * n + r], cs, sn, e);
            }
            __syncthreads();
        }
        sweepMax = blockSweepMax(s, g, myMax);
        if (sweepMax <= tol) {
            converged = true;
            break;
        }
    }
    finishBlockMatrix(s, b, u, sigma, v, status, sweepsOut, offOut, m, n, converged, sweeps, sweepMax, &flag);
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
    launchBlockJacobi<S>(jacobiSvdKernel<S>, "batched SVD kernel", threadsPerBlock(m, n), reinterpret_cast<const S*>(a),
                         reinterpret_cast<S*>(u), reinterpret_cast<R*>(sigma), reinterpret_cast<S*>(v), status, sweeps,
                         reinterpret_cast<R*>(off), m, n, count, groupWidth(m, n), static_cast<R>(tolerance), maxSweeps,
                         stream);
}

#define SPYGLASS_INSTANTIATE_JACOBI_SVD(T)                                                                            \
    template void launchJacobiSvd<T>(const T*, T*, SvdReal<T>*, T*, int*, int*, SvdReal<T>*, int, int, std::int64_t, \
                                     double, int, cudaStream_t);
SPYGLASS_INSTANTIATE_JACOBI_SVD(float)
SPYGLASS_INSTANTIATE_JACOBI_SVD(double)
SPYGLASS_INSTANTIATE_JACOBI_SVD(std::complex<float>)
SPYGLASS_INSTANTIATE_JACOBI_SVD(std::complex<double>)

} // namespace spyglass::cuda
