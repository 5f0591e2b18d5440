// One row per lane, a group of G lanes (G = the order rounded up to a power of two) per matrix, the
// row in registers. The pivot is found by a shuffle arg-max over the group and the pivot row is
// broadcast by shuffles; pivoting is done without swaps (see below). No shared memory and no block
// barriers: the warp is the unit of synchronisation. Orders 1..32.
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "batchedinverse_math.cuh"
#include "spyglass/cuda/cudacheck.h"

namespace spyglass::cuda {

namespace {
using namespace inverse;

constexpr int kLaneGroupThreads = 128;

// row[index] for a run-time index without spilling the register array: a select per position.
template <typename T, int G> __device__ inline T pick(const T (&row)[G], int index) {
    T v = row[0];
#pragma unroll
    for (int j = 1; j < G; ++j) v = (j == index) ? row[j] : v;
    return v;
}

template <typename T, int G>
__global__ void __launch_bounds__(kLaneGroupThreads)
laneGroupKernel(const T* __restrict__ in, T* __restrict__ out, int* __restrict__ info, int n, long long count) {
    using R = RealOf<T>;
    const long long global = static_cast<long long>(blockIdx.x) * kLaneGroupThreads + threadIdx.x;
    const long long matrix = global / G;
    const int i = static_cast<int>(global % G);  // row owned by this lane
    const bool valid = matrix < count;
    const bool mine = valid && i < n;
    const long long base = matrix * n * n;

    T row[G];
#pragma unroll
    for (int j = 0; j < G; ++j) row[j] = T{};
    bool finite = true;
    if (mine) {
#pragma unroll
        for (int j = 0; j < G; ++j)
            if (j < n) {
                row[j] = in[base + static_cast<long long>(j) * n + i];
                finite &= finiteScalar(row[j]);
            }
    }
    int anyBad = finite ? 0 : 1;
#pragma unroll
    for (int offset = G / 2; offset > 0; offset >>= 1) anyBad |= __shfl_xor_sync(0xffffffffu, anyBad, offset, G);
    int status = anyBad ? kInverseNonFiniteInput : 0;

    // No swaps: the pivot of each step is taken in place among the rows and columns not yet used
    // (Gauss-Jordan as a sequence of exchange steps). With pivots (p_k, q_k) the result B holds
    // A^-1(q_k, p_l) = B(p_k, q_l), so the permutation is applied once, in the addresses of the
    // final store, instead of as row and column swaps in every step and again at the end.
    bool rowUsed = !(i < n);
    unsigned usedCols = 0;
    int myTarget = i;  // output row of this lane's row: q_k for the step k that pivoted on it
    // Lane j keeps the output column of register column j: p_l for the step l that pivoted on
    // column j (a register array of G would cost G registers per lane; one shuffle per column at the
    // end is cheaper).
    int columnTarget = i;
    R bound = 0;
#pragma unroll 1
    for (int k = 0; k < n; ++k) {
        R best = -1;
        int bestCol = 0, bestRow = i;
        if (!rowUsed) {
#pragma unroll
            for (int j = 0; j < G; ++j)
                if (j < n && !((usedCols >> j) & 1u)) {
                    const R v = magnitude(row[j]);
                    if (v > best) { best = v; bestCol = j; }
                }
        }
        // Ties go to the lower row, so that every lane of the group agrees on the pivot.
#pragma unroll
        for (int offset = G / 2; offset > 0; offset >>= 1) {
            const R otherBest = __shfl_xor_sync(0xffffffffu, best, offset, G);
            const int otherRow = __shfl_xor_sync(0xffffffffu, bestRow, offset, G);
            const int otherCol = __shfl_xor_sync(0xffffffffu, bestCol, offset, G);
            if (otherBest > best || (otherBest == best && otherRow < bestRow)) {
                best = otherBest;
                bestRow = otherRow;
                bestCol = otherCol;
            }
        }
        const int p = bestRow, q = bestCol;
        if (k == 0) bound = tinyPivotBound(best, T{});
        if (status == 0 && !(best > bound)) status = k + 1;
        usedCols |= 1u << q;
        if (i == p) {
            rowUsed = true;
            myTarget = q;
        }
        if (i == q) columnTarget = p;

        const T aiq = pick(row, q);
        const T r = reciprocal(shuffle(aiq, p, G));
        if (i == p) {
#pragma unroll
            for (int j = 0; j < G; ++j) row[j] = (j == q) ? r : row[j] * r;
        }
#pragma unroll
        for (int j = 0; j < G; ++j) {
            if (j >= n) continue;
            const T bpj = shuffle(row[j], p, G);
            if (i != p && j != q) row[j] = mulSub(row[j], aiq, bpj);
        }
        if (i != p) {
            const T updated = -(aiq * r);
#pragma unroll
            for (int j = 0; j < G; ++j) row[j] = (j == q) ? updated : row[j];
        }
    }
    const T nan = scalarNaN<T>();
#pragma unroll
    for (int j = 0; j < G; ++j) {
        if (j >= n) continue;
        // After a failed step the pivots are no longer a permutation: a failed matrix is written
        // in place (all NaN), so that every entry is still written exactly once.
        const int shuffled = __shfl_sync(0xffffffffu, columnTarget, j, G);
        const int column = status == 0 ? shuffled : j, target = status == 0 ? myTarget : i;
        if (mine) out[base + static_cast<long long>(column) * n + target] = status == 0 ? row[j] : nan;
    }
    if (mine && i == 0) info[matrix] = status;
}

template <typename D, int G>
void launchGroup(const D* in, D* out, int* info, int n, long long count, cudaStream_t stream) {
    const long long threads = count * G;
    const long long blocks = (threads + kLaneGroupThreads - 1) / kLaneGroupThreads;
    laneGroupKernel<D, G><<<static_cast<unsigned>(blocks), kLaneGroupThreads, 0, stream>>>(in, out, info, n, count);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}
} // namespace

template <typename T>
void launchLaneGroupInverse(const T* in, T* out, int* info, int n, std::int64_t count, cudaStream_t stream) {
    if (count <= 0) return;
    using D = typename DeviceScalar<T>::type;
    const D* din = reinterpret_cast<const D*>(in);
    D* dout = reinterpret_cast<D*>(out);
    if (n <= 2) launchGroup<D, 2>(din, dout, info, n, count, stream);
    else if (n <= 4) launchGroup<D, 4>(din, dout, info, n, count, stream);
    else if (n <= 8) launchGroup<D, 8>(din, dout, info, n, count, stream);
    else if (n <= 16) launchGroup<D, 16>(din, dout, info, n, count, stream);
    else launchGroup<D, 32>(din, dout, info, n, count, stream);
}

template void launchLaneGroupInverse<float>(const float*, float*, int*, int, std::int64_t, cudaStream_t);
template void launchLaneGroupInverse<double>(const double*, double*, int*, int, std::int64_t, cudaStream_t);
template void launchLaneGroupInverse<std::complex<float>>(const std::complex<float>*, std::complex<float>*, int*, int,
                                                          std::int64_t, cudaStream_t);
template void launchLaneGroupInverse<std::complex<double>>(const std::complex<double>*, std::complex<double>*, int*,
                                                           int, std::int64_t, cudaStream_t);

} // namespace spyglass::cuda
