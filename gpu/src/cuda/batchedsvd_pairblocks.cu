// Method C, variant BlockPerPair: the seed's mapping (2) for its larger matrices. One launch per
// Brent-Luk step; each block takes one column pair of one matrix with 2m threads (the first half
// for the rows of A, the second for the rows of V), copies the two columns of A and of V from
// global memory into shared memory, reduces a = ||a_i||^2, b = ||a_j||^2, c = a_i^H a_j by a
// shared-memory tree (the seed's reduction), and writes the rotated columns back. The host steps
// through the table, which lives in __constant__ memory; the step number is a kernel argument.
//
// The seed stops when a sweep finds every pair orthogonal; here each matrix stops on its own, as in
// the reference: a per-sweep kernel closes the sweep of every still-running matrix and counts those
// left, which the host reads once per sweep. W lives in the caller's `u` and V in `v` during the
// sweeps; a final block-per-matrix pass sorts and finishes exactly as the other mappings.
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

constexpr int kMaxPadded = kMaxSvdColumns;
__constant__ unsigned char c_pairs[(kMaxPadded - 1) * (kMaxPadded / 2) * 2];

constexpr int kRunning = -1;  // status of a matrix whose sweeps go on
constexpr int kPlainThreads = 128;

int paddedColumns(int n) { return n + (n % 2); }
// 2m threads as the seed, in whole warps, at most 1024 (then each thread walks several rows).
int pairThreads(int m) { return std::min(1024, (2 * m + 31) / 32 * 32); }

template <typename S>
__global__ void startKernel(const S* __restrict__ a, S* __restrict__ w, S* __restrict__ v, int* __restrict__ status,
                            int* __restrict__ sweeps, unsigned long long* __restrict__ maxBits, int m, int n) {
    __shared__ int bad;
    const std::size_t b = blockIdx.x;
    const std::size_t mn = static_cast<std::size_t>(m) * n, nn = static_cast<std::size_t>(n) * n;
    if (threadIdx.x == 0) bad = 0;
    __syncthreads();
    for (int idx = threadIdx.x; idx < m * n; idx += blockDim.x) {
        const S x = a[b * mn + idx];
        if (!finiteScalar(x)) bad = 1;
        w[b * mn + idx] = x;
    }
    for (int idx = threadIdx.x; idx < n * n; idx += blockDim.x)
        v[b * nn + idx] = (idx / n == idx % n) ? one<S>() : zero<S>();
    __syncthreads();
    if (threadIdx.x == 0) {
        status[b] = bad ? static_cast<int>(SvdStatus::NonFiniteInput) : kRunning;
        sweeps[b] = 0;
        maxBits[b] = 0;
    }
}

template <typename S>
__global__ void pairKernel(S* __restrict__ w, S* __restrict__ v, const int* __restrict__ status,
                           unsigned long long* __restrict__ maxBits, int m, int n, int step, RealOf<S> tol) {
    using R = RealOf<S>;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ R rotation[4];  // cs, sn, e (re, im)
    __shared__ int doRotate;
    const int pairsPerStep = (n + (n & 1)) / 2;
    const std::size_t b = blockIdx.x / pairsPerStep;
    const int p = blockIdx.x % pairsPerStep;
    if (status[b] != kRunning) return;
    const int i = c_pairs[2 * (step * pairsPerStep + p)];
    const int j = c_pairs[2 * (step * pairsPerStep + p) + 1];
    if (j >= n) return;  // the phantom column of an odd n
    S* ca = reinterpret_cast<S*>(smem);  // column i of A, then column j (m each)
    S* cv = ca + 2 * m;                  // column i of V, then column j (n each)
    R* scratch = reinterpret_cast<R*>(cv + 2 * n);  // 4 x blockDim
    const int t = threadIdx.x, threads = blockDim.x, half = threads / 2;
    S* wb = w + b * m * n;
    S* vb = v + b * n * n;

    R pa = 0, pb = 0;
    S pc = zero<S>();
    if (t < half) {
        for (int r = t; r < m; r += half) {
            const S x = wb[i * m + r], y = wb[j * m + r];
            ca[r] = x;
            ca[m + r] = y;
            pa += squaredMagnitude(x);
            pb += squaredMagnitude(y);
            accumulateConjProduct(pc, x, y);
        }
    } else {
        for (int r = t - half; r < n; r += half) {
            cv[r] = vb[i * n + r];
            cv[n + r] = vb[j * n + r];
        }
    }
    scratch[t] = pa;
    scratch[threads + t] = pb;
    scratch[2 * threads + t] = realPart(pc);
    scratch[3 * threads + t] = imagPart(pc);
    __syncthreads();
    int top = 1;
    while (top < threads) top *= 2;
    for (int stride = top / 2; stride > 0; stride /= 2) {
        if (t < stride && t + stride < threads)
            for (int q = 0; q < 4; ++q) scratch[q * threads + t] += scratch[q * threads + t + stride];
        __syncthreads();
    }
    if (t == 0) {
        const R a2 = scratch[0], b2 = scratch[threads];
        const S c = FromParts<S>::make(scratch[2 * threads], scratch[3 * threads]);
        const R absC = magnitude(c);
        doRotate = 0;
        if (a2 > R(0) && b2 > R(0) && absC > R(0)) {
            const R off = absC / sqrt(a2) / sqrt(b2);
            atomicMax(maxBits + b, orderedBits(off));
            if (off > tol) {
                R cs, sn;
                jacobiRotation(a2, b2, absC, cs, sn);
                const S e = scaleBy(c, R(1) / absC);
                rotation[0] = cs;
                rotation[1] = sn;
                rotation[2] = realPart(e);
                rotation[3] = imagPart(e);
                doRotate = 1;
            }
        }
    }
    __syncthreads();
    if (!doRotate) return;
    const R cs = rotation[0], sn = rotation[1];
    const S e = FromParts<S>::make(rotation[2], rotation[3]);
    if (t < half) {
        for (int r = t; r < m; r += half) {
            S x = ca[r], y = ca[m + r];
            rotate(x, y, cs, sn, e);
            wb[i * m + r] = x;
            wb[j * m + r] = y;
        }
    } else {
        for (int r = t - half; r < n; r += half) {
            S x = cv[r], y = cv[n + r];
            rotate(x, y, cs, sn, e);
            vb[i * n + r] = x;
            vb[j * n + r] = y;
        }
    }
}

// Closes the sweep of every running matrix: sweep count, its largest off-orthogonality, converged
// (every pair within tol) or out of sweeps; counts the matrices that go on.
template <typename R>
__global__ void sweepEndKernel(int* __restrict__ status, int* __restrict__ sweeps, R* __restrict__ off,
                               unsigned long long* __restrict__ maxBits, int* __restrict__ running, R tol, int maxSweeps,
                               std::int64_t count) {
    const std::int64_t b = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b >= count || status[b] != kRunning) return;
    const int done = ++sweeps[b];
    const R largest = fromOrderedBits<R>(maxBits[b]);
    maxBits[b] = 0;
    off[b] = largest;
    if (largest <= tol) status[b] = static_cast<int>(SvdStatus::Converged);
    else if (done >= maxSweeps) status[b] = static_cast<int>(SvdStatus::NotConverged);
    else atomicAdd(running, 1);
}

template <typename S>
__global__ void finishKernel(S* __restrict__ u, RealOf<S>* __restrict__ sigma, S* __restrict__ v, int* __restrict__ status,
                             int* __restrict__ sweepsOut, RealOf<S>* __restrict__ offOut, int m, int n) {
    using R = RealOf<S>;
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ int flag;
    const std::size_t b = blockIdx.x;
    const int state = status[b];
    const int sweeps = sweepsOut[b];
    const R off = offOut[b];
    if (state == static_cast<int>(SvdStatus::NonFiniteInput)) {
        writeNonFinite(b, u, sigma, v, status, sweepsOut, offOut, m, n);
        return;
    }
    const BlockMatrix<S> s = carveBlockMatrix<S>(smem, m, n);
    // W (in u) and V (in v) are read whole into shared memory before finish overwrites them.
    loadBlockMatrix<S>(u + b * m * n, v + b * n * n, s, m, n, &flag);
    finishBlockMatrix(s, b, u, sigma, v, status, sweepsOut, offOut, m, n,
                      state == static_cast<int>(SvdStatus::Converged), sweeps, off, &flag);
}

void allowShared(const void* kernel, std::size_t bytes) {
    if (bytes > 48 * 1024)
        SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

} // namespace

template <typename T>
struct BlockPerPairSvd<T>::State : SvdWorkspaceShape {
    explicit State(const SvdWorkspaceShape& shape) : SvdWorkspaceShape(shape) {}
    DeviceBuffer<unsigned long long> maxBits;
    DeviceBuffer<int> running;
    int* runningHost = nullptr;  // pinned, read once per sweep
};

template <typename T>
BlockPerPairSvd<T>::BlockPerPairSvd(int m, int n, std::int64_t capacity, cudaStream_t stream)
    : m_state(new State(SvdWorkspaceShape{m, n, capacity, stream})) {
    m_state->maxBits.resize(static_cast<std::size_t>(std::max<std::int64_t>(capacity, 1)));
    m_state->running.resize(1);
    SPYGLASS_CUDA_CHECK(cudaMallocHost(&m_state->runningHost, sizeof(int)));
}

template <typename T>
BlockPerPairSvd<T>::~BlockPerPairSvd() {
    if (m_state && m_state->runningHost) cudaFreeHost(m_state->runningHost);  // no throw from a destructor
}

template <typename T>
std::size_t BlockPerPairSvd<T>::extraBytesPerMatrix(int, int) {
    return sizeof(unsigned long long);
}

template <typename T>
std::size_t BlockPerPairSvd<T>::pairSharedBytes(int m, int n) {
    return static_cast<std::size_t>(2 * m + 2 * n) * sizeof(T) + 4 * static_cast<std::size_t>(pairThreads(m)) * sizeof(SvdReal<T>);
}

template <typename T>
void BlockPerPairSvd<T>::run(const T* a, T* u, SvdReal<T>* sigma, T* v, int* status, int* sweeps, SvdReal<T>* off,
                             std::int64_t count, double tolerance, int maxSweeps) {
    using S = typename DeviceScalar<T>::type;
    using R = RealOf<S>;
    State& st = *m_state;
    const int m = st.m, n = st.n;
    st.checkCount(count, "block-per-pair");
    if (count == 0) return;
    const cudaStream_t stream = st.stream;
    const BrentLukOrdering ordering(n);
    SPYGLASS_CUDA_CHECK(cudaMemcpyToSymbolAsync(c_pairs, ordering.pairs().data(), ordering.pairs().size(), 0,
                                                cudaMemcpyHostToDevice, stream));
    const DeviceSvdArgs<T> d = deviceSvdArgs(a, u, sigma, v, off, tolerance);
    const std::size_t mn = static_cast<std::size_t>(m) * n, nn = static_cast<std::size_t>(n) * n;
    const int pairsPerStep = paddedColumns(n) / 2;
    // Grids hold at most 2^31-1 blocks: matrices go in slices.
    const std::int64_t matrixSlice = 0x7fffffff / pairsPerStep;

    for (std::int64_t first = 0; first < count; first += 0x7fffffff) {
        const std::int64_t here = std::min<std::int64_t>(0x7fffffff, count - first);
        startKernel<S><<<static_cast<unsigned>(here), kPlainThreads, 0, stream>>>(
            d.a + first * mn, d.u + first * mn, d.v + first * nn, status + first, sweeps + first, st.maxBits.data() + first, m, n);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
    const int threads = pairThreads(m);
    const std::size_t pairShared = pairSharedBytes(m, n);
    allowShared(reinterpret_cast<const void*>(pairKernel<S>), pairShared);
    for (int sweep = 0; sweep < maxSweeps; ++sweep) {
        for (int step = 0; step < paddedColumns(n) - 1; ++step) {
            for (std::int64_t first = 0; first < count; first += matrixSlice) {
                const std::int64_t here = std::min(matrixSlice, count - first);
                pairKernel<S><<<static_cast<unsigned>(here * pairsPerStep), threads, pairShared, stream>>>(
                    d.u + first * mn, d.v + first * nn, status + first, st.maxBits.data() + first, m, n, step, d.tol);
                SPYGLASS_CUDA_CHECK_LAUNCH();
            }
        }
        SPYGLASS_CUDA_CHECK(cudaMemsetAsync(st.running.data(), 0, sizeof(int), stream));
        const std::int64_t blocks = (count + kPlainThreads - 1) / kPlainThreads;
        sweepEndKernel<R><<<static_cast<unsigned>(blocks), kPlainThreads, 0, stream>>>(
            status, sweeps, d.off, st.maxBits.data(), st.running.data(), d.tol, maxSweeps, count);
        SPYGLASS_CUDA_CHECK_LAUNCH();
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(st.runningHost, st.running.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        if (*st.runningHost == 0) break;
    }
    const std::size_t finishShared = jacobiSvdSharedBytes(m, n, sizeof(S), sizeof(R));
    allowShared(reinterpret_cast<const void*>(finishKernel<S>), finishShared);
    for (std::int64_t first = 0; first < count; first += 0x7fffffff) {
        const std::int64_t here = std::min<std::int64_t>(0x7fffffff, count - first);
        finishKernel<S><<<static_cast<unsigned>(here), kPlainThreads, finishShared, stream>>>(
            d.u + first * mn, d.sigma + first * n, d.v + first * nn, status + first, sweeps + first, d.off + first, m, n);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
}

template class BlockPerPairSvd<float>;
template class BlockPerPairSvd<double>;
template class BlockPerPairSvd<std::complex<float>>;
template class BlockPerPairSvd<std::complex<double>>;

} // namespace spyglass::cuda
