#pragma once
// The lane-entries inverse kernel: two entries per lane, a group of G = P*P/2 lanes per matrix
// (P = the order rounded up to a power of two, at least 2), so an 8x8 matrix is one warp.
// Why: a batch too small to fill the GPU (the LTE slot: 1200 x 8x8) is bound by one matrix's
// latency, not by throughput. One row per lane (LaneGroupRows) walks its row serially in every step;
// here each step is a handful of shuffles whatever the order: the pivot's arg-max over the group,
// then the pivot, its column and its row fetched by shuffles.
//
// Layout in the group: lane l holds two entries of the matrix padded to P x P, both in row
// i = l % P: column c = l / P (0..P/2-1) in slot 0 and column c + P/2 in slot 1.
// With that layout the two entries of a lane share their row, the pivot column's entry of that row
// sits in one slot of a lane of the same group (the slot is the same for the whole group), and the
// pivot row's entry of each column sits in the same slot of another lane: one shuffle per operand.
//
// Pivoting is done without swaps, as in LaneGroupRows: step k pivots in place on an unused row p_k
// and column q_k; the inverse is A^-1(q_k, p_l) = B(p_k, q_l), applied in the addresses of the store.
//
// One group per matrix, all launched at once. Read from and written to page-locked host memory
// (zero-copy), that lets a matrix whose bytes came early be written back while later ones are still
// being read. A smaller grid whose groups walk the batch, loading the next matrix while eliminating
// one, was slower there (LTE slot on the H200: 30.9-33.7 us against 28.7 us), each group's
// matrices then taking their latencies in turn.
#include "batchedinverse_math.cuh"

namespace spyglass::cuda::inverse {

constexpr int kLaneEntriesThreads = 128;

template <int P> struct LaneEntriesShape {
    static constexpr int kLanes = P * P / 2;    // lanes per matrix
    static constexpr int kHalf = P / 2;         // columns per slot
    static_assert(P >= 2 && P <= 8 && (P & (P - 1)) == 0, "orders 1..8, padded to 2, 4 or 8");
};

// The group's arg-max of the lanes' best (magnitude, entry); every lane of the group ends with the
// same pivot and the lane that holds it. Magnitudes are never negative, so for 32-bit reals their
// bit patterns order as unsigned integers: one redux.sync finds the largest, a ballot the lanes that
// hold it, and the lowest of those wins (3 dependent steps instead of log2 G rounds of shuffles and
// compares: the pivot search is most of a step's latency). 64-bit reals take the shuffle rounds.
template <int G> __device__ __forceinline__ unsigned groupMask() {
    return G == 32 ? 0xffffffffu : ((1u << G) - 1u) << ((threadIdx.x % 32) / G * G);
}
template <typename R, int G> __device__ __forceinline__ int groupArgMaxLane(R best) {
    const unsigned mask = groupMask<G>();
    if constexpr (sizeof(R) == 4) {
        // A lane with no candidate offers -1, whose bit pattern is above every magnitude's: 0 instead.
        const unsigned bits = best < 0 ? 0u : __float_as_uint(best);
        const unsigned top = __reduce_max_sync(mask, bits);
        return __ffs(__ballot_sync(mask, bits == top) & mask) - 1;
    } else {
        int lane = threadIdx.x % 32;
#pragma unroll
        for (int offset = G / 2; offset > 0; offset >>= 1) {
            const R otherBest = __shfl_xor_sync(0xffffffffu, best, offset, G);
            const int otherLane = __shfl_xor_sync(0xffffffffu, lane, offset, G);
            if (otherBest > best || (otherBest == best && otherLane < lane)) {
                best = otherBest;
                lane = otherLane;
            }
        }
        return lane;
    }
}

// 1/x with one division for a complex x (the pivot's reciprocal is on every step's critical path;
// two divisions by |x|^2, as reciprocal() does, cost a second slow-path division for one rounding).
template <typename R> __device__ __forceinline__ R pivotReciprocal(R x) { return reciprocal(x); }
template <typename R> __device__ __forceinline__ Cx<R> pivotReciprocal(Cx<R> x) {
    const R scale = R(1) / (x.re * x.re + x.im * x.im);
    return {x.re * scale, -x.im * scale};
}

__device__ __forceinline__ unsigned positionOfTarget(unsigned table, int entry) { return (table >> (4 * entry)) & 15u; }

template <typename T, int P>
__global__ void __launch_bounds__(kLaneEntriesThreads)
laneEntriesKernel(const T* __restrict__ in, T* __restrict__ out, int* __restrict__ info, int n, long long count) {
    using R = RealOf<T>;
    using Shape = LaneEntriesShape<P>;
    constexpr int G = Shape::kLanes, H = Shape::kHalf;
    const long long matrix = (static_cast<long long>(blockIdx.x) * kLaneEntriesThreads + threadIdx.x) / G;
    const int lane = threadIdx.x % G;
    const int i = lane % P, c = lane / P;  // this lane's row, and its column in slot 0 (c + H in slot 1)
    // A group past the end of the batch still takes part in the warp's shuffles, with zeros.
    const bool valid = matrix < count;
    const bool inRow = valid && i < n;
    const bool has0 = inRow && c < n, has1 = inRow && c + H < n;

    T a0{}, a1{};
    if (has0) a0 = in[matrix * n * n + c * n + i];
    if (has1) a1 = in[matrix * n * n + (c + H) * n + i];
    int bad = (has0 && !finiteScalar(a0)) || (has1 && !finiteScalar(a1));
#pragma unroll
    for (int offset = G / 2; offset > 0; offset >>= 1) bad |= __shfl_xor_sync(0xffffffffu, bad, offset, G);
    int status = bad ? kInverseNonFiniteInput : 0;

    unsigned usedRows = 0, usedCols = 0;  // the same in every lane of the group
    unsigned rowTarget = 0, colTarget = 0;  // 4 bits per position: q_k at p_k, p_k at q_k
    R bound = 0;
#pragma unroll 1
    for (int k = 0; k < n; ++k) {
        const bool rowFree = inRow && !((usedRows >> i) & 1u);
        R best = -1;
        int column = c;
        T pivot = a0;
        if (rowFree && has0 && !((usedCols >> c) & 1u)) best = magnitude(a0);
        if (rowFree && has1 && !((usedCols >> (c + H)) & 1u)) {
            const R v = magnitude(a1);
            if (v > best) {
                best = v;
                column = c + H;
                pivot = a1;
            }
        }
        const int winner = groupArgMaxLane<R, G>(best);  // lane within the warp
        best = __shfl_sync(0xffffffffu, best, winner);
        const int q = __shfl_sync(0xffffffffu, column, winner), p = winner % P;
        // The pivot straight from its lane, beside (not after) the column fetch below.
        const T r = pivotReciprocal(shuffle(pivot, winner, 32));
        if (k == 0) bound = tinyPivotBound(best, T{});
        if (status == 0 && !(best > bound)) status = k + 1;
        usedRows |= 1u << p;
        usedCols |= 1u << q;
        rowTarget |= static_cast<unsigned>(q) << (4 * p);
        colTarget |= static_cast<unsigned>(p) << (4 * q);

        // The pivot column's entry of row i: lane (q % H) * P + i, slot q / H (the group's own).
        const bool qInSlot1 = q >= H;
        const T aiq = shuffle(qInSlot1 ? a1 : a0, (q % H) * P + i, G);
        // The pivot row's entries of this lane's two columns.
        const int rowLane = c * P + p;
        const T bp0 = shuffle(a0, rowLane, G) * r, bp1 = shuffle(a1, rowLane, G) * r;
        const T negAiqR = -(aiq * r);
        if (i == p) {
            a0 = (c == q) ? r : bp0;
            a1 = (c + H == q) ? r : bp1;
        } else {
            a0 = (c == q) ? negAiqR : mulSub(a0, aiq, bp0);
            a1 = (c + H == q) ? negAiqR : mulSub(a1, aiq, bp1);
        }
    }
    if (!valid) return;
    // A failed matrix is written in place, all NaN, so that every entry is still written once.
    T* const b = out + matrix * n * n;
    const T nan = scalarNaN<T>();
    const unsigned row = status == 0 ? positionOfTarget(rowTarget, i) : static_cast<unsigned>(i);
    if (has0) b[(status == 0 ? positionOfTarget(colTarget, c) : c) * n + row] = status == 0 ? a0 : nan;
    if (has1) b[(status == 0 ? positionOfTarget(colTarget, c + H) : c + H) * n + row] = status == 0 ? a1 : nan;
    if (lane == 0) info[matrix] = status;
}

} // namespace spyglass::cuda::inverse
