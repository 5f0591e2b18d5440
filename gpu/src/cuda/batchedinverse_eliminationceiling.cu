// Method E, for the benchmark only: how fast the tiled kernels' elimination runs when memory costs
// (almost) nothing, at the occupancy the pipelined kernel runs at. Issue 31 asks 10^6 x 8x8 f32 for
// 92 % of the copy bandwidth; the pipelined kernel is bound by its elimination's instructions, not by
// memory (Nsight Compute: ALU pipe the busiest, docs/method-e-batchedinverse.md), so the question is
// whether the elimination alone is fast enough for that share at all.
// Each thread loads one matrix, runs `extraPasses` eliminations on a copy of it in registers (each
// pass inverts the previous pass's permuted result: the same instructions as the real one), folds the
// copy into the result by x * 0 sums (so that no pass can be dropped, while a finite copy leaves the
// result's values unchanged) and then inverts the matrix itself and stores the inverse as the tiled
// kernels do. T(E) / (E + 1) bounds one pass over the batch from above; with E large the loads and
// stores (plain per-thread loads here, far slower than the tiled kernels' copies) are a small share.
#include "batchedinverse_instances.h"
#include "batchedinverse_math.cuh"
#include "batchedinverse_registerelimination.cuh"
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/cuda/cudacheck.h"

#include <string>

namespace spyglass::cuda {

namespace {
using namespace inverse;

constexpr int kCeilingThreads = 128;  // the pipelined kernel's tile of 128 matrices
// Three blocks per multiprocessor, as the pipelined kernel's shared memory allows at 8x8 f32: the
// register cap (65536 / (3 * 128) = 170) holds the matrix and its copy (128 registers) without spills.
constexpr int kCeilingBlocksPerSm = 3;

template <typename T> __device__ inline T plusReal(T x, RealOf<T> r) { return x + r; }
template <typename R> __device__ inline Cx<R> plusReal(Cx<R> x, R r) { return {x.re + r, x.im}; }

template <typename T, int N>
__global__ void __launch_bounds__(kCeilingThreads, kCeilingBlocksPerSm)
eliminationCeilingKernel(const T* __restrict__ in, T* __restrict__ out, int* __restrict__ info, long long count,
                         int extraPasses) {
    const long long m = static_cast<long long>(blockIdx.x) * kCeilingThreads + threadIdx.x;
    if (m >= count) return;
    const T* const from = in + m * N * N;
    T a[N][N], copy[N][N];
#pragma unroll
    for (int j = 0; j < N; ++j)
#pragma unroll
        for (int i = 0; i < N; ++i) copy[i][j] = a[i][j] = from[j * N + i];
    for (int pass = 0; pass < extraPasses; ++pass) {
        unsigned rows = kIdentityPositions, columns = kIdentityPositions;
        RealOf<T> bound = 0;
        int status = 0;
        eliminateInRegisters<T, N, 0>(copy, rows, columns, bound, status);
    }
    RealOf<T> zero = 0;
#pragma unroll
    for (int i = 0; i < N; ++i)
#pragma unroll
        for (int j = 0; j < N; ++j) zero = addZeroTimes(copy[i][j], zero);
    a[0][0] = plusReal(a[0][0], zero);

    int status = 0;
    unsigned rowTarget = kIdentityPositions, colTarget = kIdentityPositions;
    RealOf<T> bound = 0;
    eliminateInRegisters<T, N, 0>(a, rowTarget, colTarget, bound, status);
    storeAtTargets(out + m * N * N, a, rowTarget, colTarget);
    info[m] = status;
}
// Opts the kernel into `shared` bytes once per thread and device (as the pipelined launcher does): a
// host call between the timing event and the launch would show up in the time.
template <typename D, int N> void optInSharedBytes(std::size_t shared) {
    thread_local int cachedDevice = -1;
    thread_local std::size_t cachedShared = 0;
    int device = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
    if (device == cachedDevice && shared <= cachedShared) return;
    SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(&eliminationCeilingKernel<D, N>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(shared)));
    cachedDevice = device;
    cachedShared = shared;
}
} // namespace

template <typename T>
void launchEliminationCeiling(const T* in, T* out, int* info, int n, std::int64_t count, int extraPasses,
                              std::size_t sharedBytesPerBlock, cudaStream_t stream) {
    if (count <= 0) return;
    if (n < 1 || n > 8) throw InputError("elimination ceiling: order " + std::to_string(n) + " is outside 1..8");
    if (extraPasses < 0) throw InputError("elimination ceiling: extra passes must be >= 0, got " + std::to_string(extraPasses));
    using D = typename DeviceScalar<T>::type;
    withOrder(n, [&](auto order) {
        constexpr int N = decltype(order)::value;
        optInSharedBytes<D, N>(sharedBytesPerBlock);
        const long long blocks = (count + kCeilingThreads - 1) / kCeilingThreads;
        eliminationCeilingKernel<D, N><<<static_cast<unsigned>(blocks), kCeilingThreads, sharedBytesPerBlock, stream>>>(
            reinterpret_cast<const D*>(in), reinterpret_cast<D*>(out), info, count, extraPasses);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    });
}

template <typename T>
int eliminationCeilingWarpsPerSm(int n, std::size_t sharedBytesPerBlock) {
    using D = typename DeviceScalar<T>::type;
    int blocks = 0;
    withOrder(n, [&](auto order) {
        constexpr int N = decltype(order)::value;
        optInSharedBytes<D, N>(sharedBytesPerBlock);
        SPYGLASS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, &eliminationCeilingKernel<D, N>,
                                                                          kCeilingThreads, sharedBytesPerBlock));
    });
    return blocks * kCeilingThreads / 32;
}

template void launchEliminationCeiling<float>(const float*, float*, int*, int, std::int64_t, int, std::size_t, cudaStream_t);
template int eliminationCeilingWarpsPerSm<float>(int, std::size_t);

} // namespace spyglass::cuda
