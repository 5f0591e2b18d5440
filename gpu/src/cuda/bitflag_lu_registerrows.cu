// Batched LU of small bit-flag matrices with the rows in registers ("register rows"): a group of
// G = N / R lanes holds one matrix, lane g owning rows g, g + G, ... (R rows, N padded columns each, all
// register indices compile-time constants: every loop over k, j and the rows is unrolled). n <= 32:
// one row a lane, several matrices a warp (shuffle width G = N); 33..64: two rows a lane (fp32 only;
// fp64 would need 256 registers for the two rows).
//   load:  a lane reads its row straight from the bit flags (one 64-bit flag word, P[line], then the
//          values in order, the index advancing by each set bit): no shared memory, no barrier;
//   step k: the pivot row's columns j > k are broadcast by __shfl_sync, each other lane computes its
//          multiplier and updates its row. With partial pivoting a row exchange moves no data: the
//          pivot is chosen by a group reduction (largest |a(i,k)| among the rows not yet pivoted, the
//          first by current position on ties, as the reference's swap-based search), and each lane
//          keeps the position its row now holds; the positions order the rows on the store.
// The arithmetic is the reference's operation for operation, each rounded once (IEEE division, a
// product and a difference, no fused multiply-add), so the factors and pivot choices equal
// bitFlagLu / bitFlagLuPivoted's. A pivot with !(|p| > tolerance x max|A_b|) or p == 0 stops that
// matrix only: its step and pivot are recorded and nothing past it is computed, so no inf or NaN.
#include "spyglass/cuda/bitflag_device_api.h"

#include <algorithm>
#include <string>

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 128;

__device__ __forceinline__ float divide(float a, float b) { return __fdiv_rn(a, b); }
__device__ __forceinline__ double divide(double a, double b) { return __ddiv_rn(a, b); }
// a - l u with the product rounded before the difference, as the CPU reference computes it.
__device__ __forceinline__ float update(float a, float l, float u) { return __fsub_rn(a, __fmul_rn(l, u)); }
__device__ __forceinline__ double update(double a, double l, double u) { return __dsub_rn(a, __dmul_rn(l, u)); }

// Largest of non-negative values over the group (every lane gets it). Non-negative floats order as
// their bit patterns, so fp32 is one warp reduction instruction.
__device__ __forceinline__ float groupMax(float v, unsigned mask, int) {
    return __uint_as_float(__reduce_max_sync(mask, __float_as_uint(v)));
}
__device__ __forceinline__ double groupMax(double v, unsigned mask, int width) {
    for (int offset = width / 2; offset > 0; offset >>= 1) v = fmax(v, __shfl_xor_sync(mask, v, offset, width));
    return v;
}

// The pivot of a step: among the candidate rows the largest magnitude, and among equal magnitudes the
// smallest current position. Returns code = position << 8 | row of the winner (every lane gets it).
// Magnitudes compare as bit patterns (+1 so that a zero candidate beats "no candidate", key 0).
template <int R>
__device__ __forceinline__ unsigned pivotCode(const float (&mag)[R], const bool (&candidate)[R], const unsigned (&code)[R],
                                              unsigned mask) {
    unsigned key[R], best = 0;
#pragma unroll
    for (int s = 0; s < R; ++s) {
        key[s] = candidate[s] ? __float_as_uint(mag[s]) + 1u : 0u;
        best = max(best, key[s]);
    }
    best = __reduce_max_sync(mask, best);
    unsigned first = 0xffffffffu;
#pragma unroll
    for (int s = 0; s < R; ++s)
        if (key[s] == best) first = min(first, code[s]);
    return __reduce_min_sync(mask, first);
}
template <int R>
__device__ __forceinline__ unsigned pivotCode(const double (&mag)[R], const bool (&candidate)[R], const unsigned (&code)[R],
                                              unsigned mask) {
    // The 64-bit pattern in two 32-bit halves: the high halves first, then the low among the best high.
    unsigned high[R], low[R], bestHigh = 0, bestLow = 0;
#pragma unroll
    for (int s = 0; s < R; ++s) {
        const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(mag[s]));
        high[s] = candidate[s] ? unsigned(bits >> 32) + 1u : 0u;
        low[s] = unsigned(bits);
        bestHigh = max(bestHigh, high[s]);
    }
    bestHigh = __reduce_max_sync(mask, bestHigh);
#pragma unroll
    for (int s = 0; s < R; ++s)
        if (high[s] == bestHigh) bestLow = max(bestLow, low[s]);
    bestLow = __reduce_max_sync(mask, bestLow);
    unsigned first = 0xffffffffu;
#pragma unroll
    for (int s = 0; s < R; ++s)
        if (high[s] == bestHigh && low[s] == bestLow) first = min(first, code[s]);
    return __reduce_min_sync(mask, first);
}

template <typename T, int R, int N>
__device__ __forceinline__ T slotValue(const T (&a)[R][N], int slot, int j) {
    if constexpr (R == 1) return a[0][j];
    else return slot == 0 ? a[0][j] : a[1][j];
}

// Full: n == N, so every "j < n" test is a compile-time constant and the stores are vectors.
template <typename T, int N, int R, bool Pivot, bool Full>
__global__ void __launch_bounds__(kThreads) registerRowsLuKernel(BitFlagView<T> stacked, int n, Count batch, double tolerance,
                                                                 T* dense, int* rowOrder, int* failedStep, T* failedPivot) {
    constexpr int G = N / R;  // lanes per matrix
    static_assert(R == 1 || R == 2, "one or two rows a lane");
    const int lane = int(threadIdx.x & 31u), g = lane & (G - 1);
    const unsigned mask = G == 32 ? 0xffffffffu : ((1u << G) - 1u) << (lane & ~(G - 1));
    const Count matrix = (Count(blockIdx.x) * kThreads + Count(threadIdx.x)) / G;
    if (matrix >= batch) return;  // the whole group: the batch ends on a group boundary
    const int size = Full ? N : n;

    T a[R][N];
    int pos[R];  // the position row g + G s holds now (row exchanges only move these)
    T localMax(0);
#pragma unroll
    for (int s = 0; s < R; ++s) {
        const int r = g + G * s;
        pos[s] = r;
#pragma unroll
        for (int j = 0; j < N; ++j) a[s][j] = T(0);
        if (r < size) {
            // n <= 64: one flag word a line and no prefix count needed.
            const Count line = matrix * size + r;
            const std::uint64_t word = stacked.flags[line];
            const T* values = stacked.values + stacked.lineStart[line];
            int index = 0;
#pragma unroll
            for (int j = 0; j < N; ++j)
                if (Full || j < size)
                    if ((word >> j) & 1u) {
                        a[s][j] = values[index];
                        ++index;
                    }
        }
#pragma unroll
        for (int j = 0; j < N; ++j) localMax = fmax(localMax, fabs(a[s][j]));
    }
    const double threshold = tolerance * double(groupMax(localMax, mask, G));

#pragma unroll
    for (int k = 0; k < N; ++k) {
        if (!Full && k >= size) break;
        int pivotLane = k % G, pivotSlot = k / G;
        int pivotPos = k, pivotRow = k;
        if constexpr (Pivot) {
            T mag[R];
            bool candidate[R];
            unsigned code[R];
#pragma unroll
            for (int s = 0; s < R; ++s) {
                const int r = g + G * s;
                mag[s] = fabs(a[s][k]);
                candidate[s] = r < size && pos[s] >= k;
                code[s] = unsigned(pos[s]) << 8 | unsigned(r);
            }
            const unsigned c = pivotCode(mag, candidate, code, mask);
            pivotRow = int(c & 255u);
            pivotPos = int(c >> 8);
            pivotLane = pivotRow % G;
            pivotSlot = pivotRow / G;
        }
        const T pivot = __shfl_sync(mask, slotValue(a, pivotSlot, k), pivotLane, G);
        // Every lane of the group sees the same pivot, so the group leaves together.
        if (!(fabs(double(pivot)) > threshold) || pivot == T(0)) {
            if (g == 0) {
                failedStep[matrix] = k;
                failedPivot[matrix] = pivot;
            }
            return;
        }
        T l[R];
        bool below[R];
#pragma unroll
        for (int s = 0; s < R; ++s) {
            const int r = g + G * s;
            if constexpr (Pivot) {
                // The exchange of positions k and pivotPos.
                if (r == pivotRow) pos[s] = k;
                else if (pos[s] == k) pos[s] = pivotPos;
            }
            below[s] = r < size && pos[s] > k;
            l[s] = below[s] ? divide(a[s][k], pivot) : T(0);
            if (below[s]) a[s][k] = l[s];
        }
#pragma unroll
        for (int j = k + 1; j < N; ++j) {
            if (!Full && j >= size) break;
            const T u = __shfl_sync(mask, slotValue(a, pivotSlot, j), pivotLane, G);
#pragma unroll
            for (int s = 0; s < R; ++s)
                if (below[s]) a[s][j] = update(a[s][j], l[s], u);
        }
    }

    if (g == 0) failedStep[matrix] = -1;
    T* out = dense + matrix * Count(size) * size;
#pragma unroll
    for (int s = 0; s < R; ++s) {
        const int r = g + G * s;
        if (r >= size) continue;
        T* row = out + pos[s] * size;
        if constexpr (Pivot) rowOrder[matrix * size + pos[s]] = r;
        if constexpr (Full && sizeof(T) == 4 && N % 4 == 0) {
#pragma unroll
            for (int j = 0; j < N; j += 4)
                reinterpret_cast<float4*>(row)[j / 4] = make_float4(a[s][j], a[s][j + 1], a[s][j + 2], a[s][j + 3]);
        } else if constexpr (Full && sizeof(T) == 8 && N % 2 == 0) {
#pragma unroll
            for (int j = 0; j < N; j += 2) reinterpret_cast<double2*>(row)[j / 2] = make_double2(a[s][j], a[s][j + 1]);
        } else {
#pragma unroll
            for (int j = 0; j < N; ++j)
                if (j < size) row[j] = a[s][j];
        }
    }
}

template <typename T, int N, int R, bool Pivot>
void launchPadded(const BitFlagView<T>& view, Index n, Count batch, double tolerance, T* dense, int* rowOrder, int* failedStep,
                  T* failedPivot, cudaStream_t stream) {
    constexpr int G = N / R;
    const unsigned blocks = unsigned((batch * G + kThreads - 1) / kThreads);
    if (n == N)
        registerRowsLuKernel<T, N, R, Pivot, true>
            <<<blocks, kThreads, 0, stream>>>(view, int(n), batch, tolerance, dense, rowOrder, failedStep, failedPivot);
    else
        registerRowsLuKernel<T, N, R, Pivot, false>
            <<<blocks, kThreads, 0, stream>>>(view, int(n), batch, tolerance, dense, rowOrder, failedStep, failedPivot);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template <typename T, bool Pivot>
void launchOrder(const BitFlagView<T>& view, Index n, Count batch, double tolerance, T* dense, int* rowOrder, int* failedStep,
                 T* failedPivot, cudaStream_t stream) {
    if (n <= 4) launchPadded<T, 4, 1, Pivot>(view, n, batch, tolerance, dense, rowOrder, failedStep, failedPivot, stream);
    else if (n <= 8) launchPadded<T, 8, 1, Pivot>(view, n, batch, tolerance, dense, rowOrder, failedStep, failedPivot, stream);
    else if (n <= 16) launchPadded<T, 16, 1, Pivot>(view, n, batch, tolerance, dense, rowOrder, failedStep, failedPivot, stream);
    else if (n <= 32) launchPadded<T, 32, 1, Pivot>(view, n, batch, tolerance, dense, rowOrder, failedStep, failedPivot, stream);
    else if constexpr (sizeof(T) == 4)
        launchPadded<T, 64, 2, Pivot>(view, n, batch, tolerance, dense, rowOrder, failedStep, failedPivot, stream);
    else
        throw InputError("register-rows LU: order " + std::to_string(n) + " exceeds 32, the largest held in registers in fp64");
}

} // namespace

template <typename T>
Index registerRowsLuMaxOrder() {
    return sizeof(T) == 4 ? 64 : 32;
}

template <typename T>
void launchRegisterRowsLu(const DeviceBitFlag<T>& stacked, Index n, Count batch, double tolerance, bool pivoting, T* dense,
                          int* rowOrder, int* failedStep, T* failedPivot, cudaStream_t stream) {
    if (batch == 0 || n == 0) return;
    if (pivoting) launchOrder<T, true>(stacked.view(), n, batch, tolerance, dense, rowOrder, failedStep, failedPivot, stream);
    else launchOrder<T, false>(stacked.view(), n, batch, tolerance, dense, rowOrder, failedStep, failedPivot, stream);
}

template <typename T>
void bitFlagLuPivotedBatchedDevice(const DeviceBitFlag<T>& stacked, Index n, double tolerance, DeviceBuffer<T>& dense,
                                   DeviceBuffer<int>& rowOrder, DeviceBuffer<int>& failedStep, DeviceBuffer<T>& failedPivot,
                                   cudaStream_t stream) {
    const Count batch = n > 0 ? stacked.rows / n : 0;
    reserveAtLeast(dense, std::max<std::size_t>(std::size_t(batch) * std::size_t(n) * std::size_t(n), 1));
    reserveAtLeast(rowOrder, std::max<std::size_t>(std::size_t(batch) * std::size_t(n), 1));
    reserveAtLeast(failedStep, std::max<std::size_t>(std::size_t(batch), 1));
    reserveAtLeast(failedPivot, std::max<std::size_t>(std::size_t(batch), 1));
    launchRegisterRowsLu(stacked, n, batch, tolerance, true, dense.data(), rowOrder.data(), failedStep.data(), failedPivot.data(),
                         stream);
}

#define SPYGLASS_REGISTER_ROWS_LU(T)                                                                                    \
    template Index registerRowsLuMaxOrder<T>();                                                                         \
    template void launchRegisterRowsLu(const DeviceBitFlag<T>&, Index, Count, double, bool, T*, int*, int*, T*, cudaStream_t); \
    template void bitFlagLuPivotedBatchedDevice(const DeviceBitFlag<T>&, Index, double, DeviceBuffer<T>&, DeviceBuffer<int>&,  \
                                                DeviceBuffer<int>&, DeviceBuffer<T>&, cudaStream_t);
SPYGLASS_REGISTER_ROWS_LU(float)
SPYGLASS_REGISTER_ROWS_LU(double)

} // namespace spyglass::cuda
