#pragma once
// Full-pivot Gauss-Jordan on one matrix held in registers by one thread (orders 1..8), the compute
// half of the pipelined kernel. Same pivots and status codes as the thread-per-matrix kernel
// (first largest |a_ij| in row-major order of the trailing block, tiny-pivot bound from step 0),
// with changes that cut its instruction count (PTX for 8x8 f32: 2279 selects at first) and take work
// off the ALU pipe:
//  - the pivot search takes each row's largest magnitude (one max per candidate, no position
//    carried), then the first row holding the overall maximum, and only then, in that row alone,
//    the first column holding it: short independent chains, and about 370 fewer selects and
//    compares at 8x8 than carrying (value, column) through every candidate;
//  - the row swap moves bit patterns by integer multiply-adds (FMA pipe) instead of selects (ALU
//    pipe, the busiest); the column swap stays on selects (moving both made the code outgrow the
//    instruction cache and was slower);
//  - the final undoing of the row and column swaps (about 900 predicated selects at 8x8) is not
//    done in registers: the permutations are kept as packed 4-bit positions and applied as
//    addresses when the result is written to shared memory, where any index costs the same.
#include "batchedinverse_instances.h"
#include "batchedinverse_math.cuh"

#include <cstring>

namespace spyglass::cuda::inverse {

// Position table of up to 8 entries, entry e in bits 4e..4e+3.
constexpr unsigned kIdentityPositions = 0x76543210u;

__device__ __forceinline__ unsigned positionOf(unsigned table, int entry) { return (table >> (4 * entry)) & 15u; }

// Exchange entries `k` (compile-time) and `other` (run-time, may equal k).
template <int K> __device__ __forceinline__ unsigned swapPositions(unsigned table, int other) {
    const unsigned x = ((table >> (4 * K)) ^ (table >> (4 * other))) & 15u;
    return table ^ (x << (4 * K)) ^ (x << (4 * other));
}

// Swap row K with row `row` (run-time, >= K) as predicated selects over the unrolled positions:
// registers take only compile-time indices.
template <typename T, int N, int K> __device__ __forceinline__ void swapRowIntoPlace(T (&a)[N][N], int row) {
#pragma unroll
    for (int i = K + 1; i < N; ++i)
        if (row == i) {
#pragma unroll
            for (int j = 0; j < N; ++j) swapValues(a[K][j], a[i][j]);
        }
}

// 32-bit multiply-add as the integer FMA-pipe instruction (IMAD): written in PTX so that the compiler
// does not turn a product by a 0/1 flag back into a select on the ALU pipe.
__device__ __forceinline__ unsigned multiplyAdd(unsigned a, unsigned b, unsigned c) {
    unsigned d;
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

// The row swap of swapRowIntoPlace done on the bit patterns by integer multiply-adds instead of
// selects, over the C columns a thread holds (all N here; four in the paired-lanes kernel). Why: the search and the column swaps already keep the ALU pipe (selects, compares, maxes:
// about 57 % of the instructions at 8x8 f32) the busiest by far, while IMAD runs on the FMA pipe beside
// the elimination's few floating-point operations. With take_i = 1 for the pivot row and 0 elsewhere,
// the pivot row is sum_i take_i a_i (exactly one take_i is 1), and row i becomes a_i + take_i (a_K - a_p)
// in 32-bit wrap-around arithmetic, so every word moves exactly, NaN, infinities and signed zeros
// included.
template <typename T, int N, int K, int C> __device__ __forceinline__ void moveRowIntoPlace(T (&a)[N][C], int row) {
    constexpr int W = static_cast<int>(sizeof(T) / sizeof(unsigned));
    static_assert(sizeof(T) % sizeof(unsigned) == 0);
    const unsigned oneHot = 1u << row;
    unsigned take[N];
#pragma unroll
    for (int i = K; i < N; ++i) take[i] = (oneHot >> i) & 1u;
#pragma unroll
    for (int j = 0; j < C; ++j) {
        unsigned rows[N][W];
#pragma unroll
        for (int i = K; i < N; ++i) memcpy(rows[i], &a[i][j], sizeof(T));
        unsigned pivot[W], delta[W];
#pragma unroll
        for (int w = 0; w < W; ++w) {
            pivot[w] = take[K] * rows[K][w];
#pragma unroll
            for (int i = K + 1; i < N; ++i) pivot[w] = multiplyAdd(take[i], rows[i][w], pivot[w]);
            delta[w] = rows[K][w] - pivot[w];
#pragma unroll
            for (int i = K + 1; i < N; ++i) rows[i][w] = multiplyAdd(take[i], delta[w], rows[i][w]);
            rows[K][w] = pivot[w];
        }
#pragma unroll
        for (int i = K; i < N; ++i) memcpy(&a[i][j], rows[i], sizeof(T));
    }
}

// The same for column K and column `col` (run-time, >= K).
template <typename T, int N, int K> __device__ __forceinline__ void swapColumnIntoPlace(T (&a)[N][N], int col) {
#pragma unroll
    for (int j = K + 1; j < N; ++j)
        if (col == j) {
#pragma unroll
            for (int i = 0; i < N; ++i) swapValues(a[i][K], a[i][j]);
        }
}

template <typename T, int N, int K> __device__ __forceinline__ void swapIntoPlace(T (&a)[N][N], int row, int col) {
    swapRowIntoPlace<T, N, K>(a, row);
    swapColumnIntoPlace<T, N, K>(a, col);
}

// Eliminate column K in place, the pivot already at (K, K).
template <typename T, int N, int K> __device__ __forceinline__ void eliminateAtPivot(T (&a)[N][N]) {
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

// The thread-per-matrix kernel's step: move the pivot at (p, q) to (K, K), then eliminate column K.
template <typename T, int N, int K> __device__ __forceinline__ void pivotAndEliminate(T (&a)[N][N], int p, int q) {
    swapIntoPlace<T, N, K>(a, p, q);
    eliminateAtPivot<T, N, K>(a);
}

// Step K (a template argument, so that every register index is a constant). The undo of the seed,
// "for k = n-1..0: swap rows k and q_k, swap columns k and p_k", sends register row i to output row
// rowTarget[i] = t_0(t_1(...t_{n-1}(i))) with t_k = (k q_k): an array that starts as the identity and
// has entries k and q_k exchanged at step k, in forward order (likewise the columns with p_k).
// `afterStep(Order<K>{})` runs after step K: the pipelined kernel hands it a share of other work (its
// previous tile's stores) to spread over the elimination.
struct NoStepWork {
    template <typename Step> __device__ __forceinline__ void operator()(Step) const {}
};
template <typename T, int N, int K, typename AfterStep = NoStepWork>
__device__ __forceinline__ void eliminateInRegisters(T (&a)[N][N], unsigned& rowTarget, unsigned& colTarget,
                                                     RealOf<T>& bound, int& status, AfterStep&& afterStep = {}) {
    if constexpr (K < N) {
        using R = RealOf<T>;
        // Largest magnitude per row: one max per candidate, no position carried along (NaN never
        // wins: fmax returns the other operand, as the reference's comparison skips NaN).
        R rowBest[N];
#pragma unroll
        for (int i = K; i < N; ++i) {
            rowBest[i] = -1;
#pragma unroll
            for (int j = K; j < N; ++j) rowBest[i] = largerOf(rowBest[i], magnitude(a[i][j]));
        }
        // Then the first row holding the overall maximum: the row-major first maximum's row.
        R best = -1;
        int p = K;
#pragma unroll
        for (int i = K; i < N; ++i) {
            const bool better = rowBest[i] > best;
            best = better ? rowBest[i] : best;
            p = better ? i : p;
        }
        if (K == 0) bound = tinyPivotBound(best, T{});
        if (status == 0 && !(best > bound)) status = K + 1;
        // With the pivot row in row K, its column is the first one holding the maximum: the row
        // maximum is one of the row's magnitudes exactly (max only picks), so equality finds it.
        moveRowIntoPlace<T, N, K>(a, p);
        int q = K;
#pragma unroll
        for (int j = N - 1; j >= K; --j) q = magnitude(a[K][j]) == best ? j : q;  // the last match is the first
        rowTarget = swapPositions<K>(rowTarget, q);
        colTarget = swapPositions<K>(colTarget, p);
        swapColumnIntoPlace<T, N, K>(a, q);
        eliminateAtPivot<T, N, K>(a);
        afterStep(Order<K>{});
        eliminateInRegisters<T, N, K + 1>(a, rowTarget, colTarget, bound, status, afterStep);
    }
}

// The matrix from its column-major bytes as read in chunks (16, 8 or 4 bytes each) into registers.
template <typename T, int N, typename Chunk, int C>
__device__ __forceinline__ void fromColumnMajorChunks(T (&a)[N][N], const Chunk (&chunks)[C]) {
    static_assert(sizeof(Chunk) * C == sizeof(T) * N * N);
    T flat[N * N];
    memcpy(flat, chunks, sizeof(flat));
#pragma unroll
    for (int j = 0; j < N; ++j)
#pragma unroll
        for (int i = 0; i < N; ++i) a[i][j] = flat[j * N + i];
}

// 0 for a finite matrix, kInverseNonFiniteInput otherwise: x * 0 summed over the entries in four
// independent chains (NaN for an infinite or NaN entry) on the FMA pipe, instead of a compare and a
// logical and per entry on the ALU pipe that the pivot search keeps busiest.
template <typename T, int N> __device__ __forceinline__ int inputStatus(const T (&a)[N][N]) {
    RealOf<T> zeros[4] = {0, 0, 0, 0};
#pragma unroll
    for (int i = 0; i < N; ++i)
#pragma unroll
        for (int j = 0; j < N; ++j) zeros[(i * N + j) % 4] = addZeroTimes(a[i][j], zeros[(i * N + j) % 4]);
    const bool finite = (zeros[0] + zeros[1]) + (zeros[2] + zeros[3]) == 0;
    return finite ? 0 : kInverseNonFiniteInput;
}

// The inverse from eliminateInRegisters' registers and targets, stored column-major at `result`:
// register (i, j) goes to row rowTarget[i] and column colTarget[j].
template <typename T, int N>
__device__ __forceinline__ void storeAtTargets(T* result, const T (&a)[N][N], unsigned rowTarget, unsigned colTarget) {
#pragma unroll
    for (int j = 0; j < N; ++j) {
        const int column = static_cast<int>(positionOf(colTarget, j)) * N;
#pragma unroll
        for (int i = 0; i < N; ++i) result[column + static_cast<int>(positionOf(rowTarget, i))] = a[i][j];
    }
}

} // namespace spyglass::cuda::inverse
