// The seed's kernel (seeds/004): K matrices per thread block, an n x K block of threads (x = row of
// the matrix, y = which matrix), sm_a[K][n*n], sm_is[K][n], sm_js[K][n] in shared memory;
// Gauss-Jordan with full pivoting in place, the row and column swaps undone at the end. Orders 1..32.
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "batchedinverse_math.cuh"
#include "spyglass/cuda/cudacheck.h"

#include <algorithm>

namespace spyglass::cuda {

namespace {
using namespace inverse;

template <typename T>
std::size_t seedSharedBytes(int n, int K) {
    using R = RealOf<T>;
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    return K * nn * sizeof(T) + (K * static_cast<std::size_t>(n) + K) * sizeof(R) +
           (3 * static_cast<std::size_t>(K) * n + K) * sizeof(int);
}

template <typename T>
__global__ void seedGaussJordanKernel(const T* __restrict__ in, T* __restrict__ out, int* __restrict__ info, int n,
                                      long long count) {
    using R = RealOf<T>;
    extern __shared__ __align__(16) unsigned char shared[];
    const int K = blockDim.y;
    const int i = threadIdx.x;  // the row this thread owns (or the column, for row swaps)
    const int m = threadIdx.y;  // which of the block's K matrices
    const int nn = n * n;
    T* sm_a = reinterpret_cast<T*>(shared);
    R* sm_rowMax = reinterpret_cast<R*>(sm_a + K * nn);
    R* sm_bound = sm_rowMax + K * n;
    int* sm_rowArg = reinterpret_cast<int*>(sm_bound + K);
    int* sm_is = sm_rowArg + K * n;
    int* sm_js = sm_is + K * n;
    int* sm_status = sm_js + K * n;

    const long long first = static_cast<long long>(blockIdx.x) * K;
    const bool valid = first + m < count;
    const int tid = m * n + i, threads = K * n;
    const long long base = first * nn;
    const long long limit = min(static_cast<long long>(K), count - first) * nn;
    for (long long e = tid; e < limit; e += threads) sm_a[e] = in[base + e];  // coalesced
    if (i == 0) sm_status[m] = valid ? 0 : 1;
    __syncthreads();

    T* a = sm_a + m * nn;  // A(r,c) = a[c*n + r]
    bool finite = true;
    for (int j = 0; j < n; ++j) finite &= finiteScalar(a[j * n + i]);
    if (valid && !finite) sm_status[m] = kInverseNonFiniteInput;
    __syncthreads();

    for (int k = 0; k < n; ++k) {
        const bool live = sm_status[m] == 0;
        if (live) {
            R best = -1;
            int arg = k;
            if (i >= k)
                for (int j = k; j < n; ++j) {
                    const R v = magnitude(a[j * n + i]);
                    if (v > best) { best = v; arg = j; }
                }
            sm_rowMax[m * n + i] = best;
            sm_rowArg[m * n + i] = arg;
        }
        __syncthreads();
        if (live && i == 0) {
            R best = -1;
            int p = k, q = k;
            for (int r = k; r < n; ++r) {
                const R v = sm_rowMax[m * n + r];
                if (v > best) { best = v; p = r; q = sm_rowArg[m * n + r]; }
            }
            if (k == 0) sm_bound[m] = tinyPivotBound(best, T{});
            sm_is[m * n + k] = p;
            sm_js[m * n + k] = q;
            if (!(best > sm_bound[m])) sm_status[m] = k + 1;
        }
        __syncthreads();
        const bool go = sm_status[m] == 0;
        const int p = go ? sm_is[m * n + k] : k, q = go ? sm_js[m * n + k] : k;
        if (go && p != k) swapValues(a[i * n + k], a[i * n + p]);  // rows k, p; this thread: column i
        __syncthreads();
        if (go && q != k) swapValues(a[k * n + i], a[q * n + i]);  // columns k, q; this thread: row i
        __syncthreads();
        T r{};
        if (go) r = reciprocal(a[k * n + k]);
        __syncthreads();
        if (go) a[i * n + k] = (i == k) ? r : a[i * n + k] * r;  // row k scaled; this thread: column i
        __syncthreads();
        if (go && i != k) {
            const T aik = a[k * n + i];
            for (int j = 0; j < n; ++j)
                if (j != k) a[j * n + i] = mulSub(a[j * n + i], aik, a[j * n + k]);
            a[k * n + i] = -(aik * r);
        }
        __syncthreads();
    }
    const bool live = sm_status[m] == 0;
    for (int k = n - 1; k >= 0; --k) {
        const int q = live ? sm_js[m * n + k] : k, p = live ? sm_is[m * n + k] : k;
        if (live && q != k) swapValues(a[i * n + k], a[i * n + q]);  // rows k, js[k]
        __syncthreads();
        if (live && p != k) swapValues(a[k * n + i], a[p * n + i]);  // columns k, is[k]
        __syncthreads();
    }
    if (valid && i == 0) info[first + m] = sm_status[m];
    for (long long e = tid; e < limit; e += threads)
        out[base + e] = sm_status[e / nn] == 0 ? sm_a[e] : scalarNaN<T>();
}
} // namespace

int seedMatricesPerBlock(int n, std::size_t elementBytes) {
    // Row maxima are at most 8-byte reals; launchSeedInverse recomputes the exact size anyway.
    const std::size_t perMatrix = static_cast<std::size_t>(n) * n * elementBytes + (n + 1) * sizeof(double) +
                                  (3 * static_cast<std::size_t>(n) + 1) * sizeof(int);
    const int byThreads = std::max(1, 256 / n);
    const int byMemory = std::max<int>(1, static_cast<int>((48 * 1024) / perMatrix));
    return std::min(byThreads, byMemory);
}

template <typename T>
void launchSeedInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock, cudaStream_t stream) {
    if (count <= 0) return;
    using D = typename DeviceScalar<T>::type;
    int K = matricesPerBlock > 0 ? matricesPerBlock : seedMatricesPerBlock(n, sizeof(T));
    K = std::max(1, std::min(K, 1024 / n));
    std::size_t bytes = seedSharedBytes<D>(n, K);
    while (bytes > 48 * 1024 && K > 1) bytes = seedSharedBytes<D>(n, --K);
    const long long blocks = (count + K - 1) / K;
    seedGaussJordanKernel<D><<<static_cast<unsigned>(blocks), dim3(n, K), bytes, stream>>>(
        reinterpret_cast<const D*>(in), reinterpret_cast<D*>(out), info, n, count);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template void launchSeedInverse<float>(const float*, float*, int*, int, std::int64_t, int, cudaStream_t);
template void launchSeedInverse<double>(const double*, double*, int*, int, std::int64_t, int, cudaStream_t);
template void launchSeedInverse<std::complex<float>>(const std::complex<float>*, std::complex<float>*, int*, int,
                                                     std::int64_t, int, cudaStream_t);
template void launchSeedInverse<std::complex<double>>(const std::complex<double>*, std::complex<double>*, int*, int,
                                                      std::int64_t, int, cudaStream_t);

} // namespace spyglass::cuda
