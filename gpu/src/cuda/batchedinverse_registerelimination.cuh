#pragma once
// Full-pivot Gauss-Jordan on one matrix held in registers by one thread (orders 1..8), the compute
// half of the pipelined kernel. Same pivots and status codes as the thread-per-matrix kernel
// (first largest |a_ij| in row-major order of the trailing block, tiny-pivot bound from step 0),
// with two changes that cut its instruction count by about a third (PTX for 8x8 f32: 2279 selects):
//  - the pivot search runs row by row and then across the row maxima, so the compare chains are
//    short and independent instead of one chain through the whole trailing block;
//  - the final undoing of the row and column swaps (about 900 predicated selects at 8x8) is not
//    done in registers: the permutations are kept as packed 4-bit positions and applied as
//    addresses when the result is written to shared memory, where any index costs the same.
#include "batchedinverse_math.cuh"

namespace spyglass::cuda::inverse {

// Position table of up to 8 entries, entry e in bits 4e..4e+3.
constexpr unsigned kIdentityPositions = 0x76543210u;

__device__ __forceinline__ unsigned positionOf(unsigned table, int entry) { return (table >> (4 * entry)) & 15u; }

// Exchange entries `k` (compile-time) and `other` (run-time, may equal k).
template <int K> __device__ __forceinline__ unsigned swapPositions(unsigned table, int other) {
    const unsigned x = ((table >> (4 * K)) ^ (table >> (4 * other))) & 15u;
    return table ^ (x << (4 * K)) ^ (x << (4 * other));
}

// Swap row K with row `row` and column K with column `col` (run-time, >= K) as predicated selects
// over the unrolled positions: registers take only compile-time indices.
template <typename T, int N, int K> __device__ __forceinline__ void swapIntoPlace(T (&a)[N][N], int row, int col) {
#pragma unroll
    for (int i = K + 1; i < N; ++i)
        if (row == i) {
#pragma unroll
            for (int j = 0; j < N; ++j) swapValues(a[K][j], a[i][j]);
        }
#pragma unroll
    for (int j = K + 1; j < N; ++j)
        if (col == j) {
#pragma unroll
            for (int i = 0; i < N; ++i) swapValues(a[i][K], a[i][j]);
        }
}

// The part of full-pivot step K that the register kernels share (thread-per-matrix and pipelined;
// they differ in the pivot search and in how the swaps are undone): move the pivot at (p, q) to
// (K, K), then eliminate column K in place.
template <typename T, int N, int K> __device__ __forceinline__ void pivotAndEliminate(T (&a)[N][N], int p, int q) {
    swapIntoPlace<T, N, K>(a, p, q);
    // One reciprocal per pivot; the rest of the step is multiplications and fused updates.
    const T r = reciprocal(a[K][K]);
    a[K][K] = r;
#pragma unroll
    for (int j = 0; j < N; ++j)
        if (j != K) a[K][j] = a[K][j] * r;
#pragma unroll
    for (int i = 0; i < N; ++i) {
        if (i == K) continue;
        const T aik = a[i][K];
#pragma unroll
        for (int j = 0; j < N; ++j)
            if (j != K) a[i][j] = mulSub(a[i][j], aik, a[K][j]);
        a[i][K] = -(aik * r);
    }
}

// Step K (a template argument, so that every register index is a constant). The undo of the seed,
// "for k = n-1..0: swap rows k and q_k, swap columns k and p_k", sends register row i to output row
// rowTarget[i] = t_0(t_1(...t_{n-1}(i))) with t_k = (k q_k): an array that starts as the identity and
// has entries k and q_k exchanged at step k, in forward order (likewise the columns with p_k).
template <typename T, int N, int K>
__device__ __forceinline__ void eliminateInRegisters(T (&a)[N][N], unsigned& rowTarget, unsigned& colTarget,
                                                     RealOf<T>& bound, int& status) {
    if constexpr (K < N) {
        using R = RealOf<T>;
        // Largest magnitude per row (first in the row on ties; NaN never wins, as in the reference).
        R rowBest[N];
        int rowArg[N];
#pragma unroll
        for (int i = K; i < N; ++i) {
            rowBest[i] = -1;
            rowArg[i] = K;
#pragma unroll
            for (int j = K; j < N; ++j) {
                const R v = magnitude(a[i][j]);
                const bool better = v > rowBest[i];
                rowBest[i] = better ? v : rowBest[i];
                rowArg[i] = better ? j : rowArg[i];
            }
        }
        // Then the first row holding the overall maximum: the row-major first maximum.
        R best = -1;
        int p = K, q = K;
#pragma unroll
        for (int i = K; i < N; ++i) {
            const bool better = rowBest[i] > best;
            best = better ? rowBest[i] : best;
            p = better ? i : p;
            q = better ? rowArg[i] : q;
        }
        if (K == 0) bound = tinyPivotBound(best, T{});
        if (status == 0 && !(best > bound)) status = K + 1;
        rowTarget = swapPositions<K>(rowTarget, q);
        colTarget = swapPositions<K>(colTarget, p);
        pivotAndEliminate<T, N, K>(a, p, q);
        eliminateInRegisters<T, N, K + 1>(a, rowTarget, colTarget, bound, status);
    }
}

} // namespace spyglass::cuda::inverse
