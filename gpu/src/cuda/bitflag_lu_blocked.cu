// Method A beyond the seed: LU with partial pivoting for large n. The factors of a sparse matrix fill
// in, so at large n L and U are dense whatever A's density: the bit-flag matrix is expanded once into a
// dense row-major n x n (one thread per element) and factored by a blocked right-looking LU.
//
// Row-major storage is cuBLAS's column-major transpose: a row swap moves a contiguous row, and
// A22 -= L21 U12 is gemm(U12^T, L21^T) on the transposed view. Per panel of jb columns:
//   leaf kernel, one of two (BlockedLuLeaf): the cluster leaf (bitflag_lu_clusterleaf.cu: the leaf's
//     rows spread over a thread-block cluster) or the one-block leaf here;
//   one-block leaf kernel (one block, <= 32 columns at a time, the leaf's m rows in shared memory): per column
//     a block-wide arg-max (warp shuffles, one barrier), the swap, the scaled column and the rank-1
//     update of the leaf; then the leaf's swaps on the panel's other columns (every moved row read
//     into registers before any is written) and the solve of the leaf's rows right of it with L11;
//   cuBLAS gemm: the panel's columns right of the leaf;
//   swap kernel: the panel's swaps on every column outside the panel, as one permutation of at most
//     2 jb rows (staged through shared memory, 32 columns per block), and for a panel of <= 32
//     columns also U12 = L11^-1 A12 on the columns right of it;
//   cuBLAS trsm (U12, on wider panels) and gemm (A22 -= L21 U12).
// A pivot that fails the threshold is recorded (first step and value) and its column left unscaled, so
// no inf or NaN appears; the host turns it into an error.
#include "bitflag_lu_clusterleaf.h"
#include "bitflag_lu_panelmoves.cuh"
#include "spyglass/cuda/bitflag_device_api.h"
#include "spyglass/error.h"

#include <algorithm>
#include <climits>
#include <limits>

namespace spyglass::cuda {

namespace {

constexpr int kLeafThreads = 512;
constexpr int kLeafWarps = kLeafThreads / 32;
constexpr Index kLeafRowsInRegisters = 2 * kLeafThreads;  // the register forms' rows in registers: two a thread

// Rows of a one-block leaf of m rows staged in shared memory at once: all of them in the shared form;
// in the register forms the register rows, then the rows beyond them in the same place.
__host__ __device__ inline Index leafStagedRows(Index m, bool registers) {
    if (!registers) return m;
    const Index inRegisters = m < kLeafRowsInRegisters ? m : kLeafRowsInRegisters;
    return inRegisters > m - kLeafRowsInRegisters ? inRegisters : m - kLeafRowsInRegisters;
}

// Dynamic shared memory of that leaf at ib columns.
template <typename T>
std::size_t leafSharedBytes(Index m, int ib, bool registers) {
    return std::size_t(leafStagedRows(m, registers)) * std::size_t(ib | 1) * sizeof(T) + std::size_t(m) * sizeof(int);
}
constexpr Index kMaxPanel = 256;
constexpr int kSwapColumns = 32;
constexpr int kSwapThreads = 256;
constexpr int kSwapSolveRows = 32;  // panels up to this wide get U12 from the swap kernel (panelSwapKernel)
constexpr int kExpandThreads = 256;
constexpr unsigned kFull = 0xffffffffu;

// The cluster leaf's automatic size: blocks of at least this many rows (a smaller cluster where the
// leaf is short), at most kClusterLeafAutoBlocks and the most the device runs. On an H200 8 blocks beat
// 16 and 4 at n = 2048, 3072 and 4096 (4096: 12.83 ms against 13.78 with 16 and 16.34 with 4, with the
// exchange by pushes; 18.15 against 19.94 ms with 16 before it): 16 push twice the candidates every
// column, 4 hold a 4096-row leaf in shared memory instead of registers.
constexpr int kClusterLeafMinRows = 32;
constexpr int kClusterLeafAutoBlocks = 8;

template <typename T> __device__ __forceinline__ T magnitude(T x) { return x < T(0) ? -x : x; }

template <typename T>
__global__ void expandKernel(BitFlagView<T> a, bool rowMajor, T* dense) {
    const Index n = a.rows;
    const Index i = Index(blockIdx.y), j = Index(blockIdx.x) * kExpandThreads + Index(threadIdx.x);
    if (j >= n) return;
    const Index line = rowMajor ? i : j, pos = rowMajor ? j : i;
    const Count k = Count(line) * a.wordsPerLine + (pos >> 6);
    const int bit = pos & 63;
    const std::uint64_t word = a.flags[k];
    dense[std::size_t(i) * n + j] =
        ((word >> bit) & 1u) ? a.values[a.lineStart[line] + a.prefix[k] + __popcll(word & ((std::uint64_t(1) << bit) - 1))]
                             : T(0);
}

// A candidate pivot's magnitude as an unsigned key that orders as the magnitudes do (the bits of a
// non-negative float), plus one, so that 0 is "no candidate"; NaN is no candidate either (a
// magnitude comparison never picks it). fp64 keys are two 32-bit halves.
template <typename T> struct PivotKey;
template <> struct PivotKey<float> {
    unsigned bits = 0;
    __device__ bool beats(const PivotKey& o) const { return bits > o.bits; }
};
template <> struct PivotKey<double> {
    unsigned hi = 0, lo = 0;
    __device__ bool beats(const PivotKey& o) const { return hi > o.hi || (hi == o.hi && lo > o.lo); }
};
__device__ __forceinline__ PivotKey<float> pivotKeyOf(float v) {
    const unsigned b = __float_as_uint(fabsf(v));
    return PivotKey<float>{b > 0x7f800000u ? 0u : b + 1u};
}
__device__ __forceinline__ PivotKey<double> pivotKeyOf(double v) {
    const unsigned long long b = static_cast<unsigned long long>(__double_as_longlong(fabs(v)));
    if (b > 0x7ff0000000000000ull) return PivotKey<double>{};
    const unsigned long long k = b + 1;
    return PivotKey<double>{unsigned(k >> 32), unsigned(k & 0xffffffffu)};
}

template <typename T> struct PivotCandidate {
    PivotKey<T> key;
    int row;  // INT_MAX: none
    T value;
};

// The warp's best candidate in every lane: the largest key, the smallest row among those (LAPACK's
// first maximum, as the CPU reference and the cluster leaf choose) by the hardware's warp reductions, its value from the lane that holds it; a few instructions
// where five rounds of shuffles and compares stood, on the critical path of every column.
__device__ __forceinline__ PivotKey<float> warpMaxKey(PivotKey<float> k) { return {__reduce_max_sync(kFull, k.bits)}; }
__device__ __forceinline__ PivotKey<double> warpMaxKey(PivotKey<double> k) {
    const unsigned hi = __reduce_max_sync(kFull, k.hi);
    return {hi, __reduce_max_sync(kFull, k.hi == hi ? k.lo : 0u)};
}
__device__ __forceinline__ bool sameKey(PivotKey<float> a, PivotKey<float> b) { return a.bits == b.bits; }
__device__ __forceinline__ bool sameKey(PivotKey<double> a, PivotKey<double> b) { return a.hi == b.hi && a.lo == b.lo; }

template <typename T>
__device__ __forceinline__ PivotCandidate<T> warpBestPivot(const PivotCandidate<T>& c) {
    const PivotKey<T> top = warpMaxKey(c.key);
    const bool largest = sameKey(c.key, top);
    const unsigned row = __reduce_min_sync(kFull, largest ? unsigned(c.row) : 0xffffffffu);
    const unsigned holders = __ballot_sync(kFull, largest && unsigned(c.row) == row);
    const T value = __shfl_sync(kFull, c.value, holders ? __ffs(int(holders)) - 1 : 0);
    return PivotCandidate<T>{top, int(row), value};
}

template <typename T> struct LeafPivot {
    int row;
    T value;
};

// A one-block leaf's pivot for column j from every thread's candidate: each warp's best through shared
// memory, one barrier, then every warp reduces those itself (so no second barrier is needed for them).
// Every candidate NaN (no row wins): no exchange (row j) and a NaN pivot, which fails the threshold.
template <typename T>
__device__ __forceinline__ LeafPivot<T> blockPivot(const PivotCandidate<T>& candidate, int j) {
    __shared__ PivotKey<T> warpKey[kLeafWarps];
    __shared__ int warpRow[kLeafWarps];
    __shared__ T warpValue[kLeafWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const PivotCandidate<T> mine = warpBestPivot(candidate);
    if (lane == 0) {
        warpKey[warp] = mine.key;
        warpRow[warp] = mine.row;
        warpValue[warp] = mine.value;
    }
    __syncthreads();
    const PivotCandidate<T> best = warpBestPivot(PivotCandidate<T>{
        lane < kLeafWarps ? warpKey[lane] : PivotKey<T>{}, lane < kLeafWarps ? warpRow[lane] : INT_MAX, lane < kLeafWarps ? warpValue[lane] : T(0)});
    if (best.row == INT_MAX) return LeafPivot<T>{j, std::numeric_limits<T>::quiet_NaN()};
    return LeafPivot<T>{best.row, best.value};
}

// The column steps of a full-width leaf with its first 2 kLeafThreads rows in registers, two a thread
// (tid and tid + kLeafThreads), read from and written back to the rows in shared memory (s, at
// `stride`); the rows beyond stay there, each stepped by one thread (tid + 2 kLeafThreads + k
// kLeafThreads). The same steps as the shared-memory loop of oneBlockLeafKernel, in the same order and
// with the same arithmetic (IEEE division, one multiply-add per element), so the factors are bit for bit
// the same; what changes is the instructions around them. Why: on an H200 at n = 1024 the leaf was
// about 80 % of the factorisation, issuing at 0.35 instructions a cycle per scheduler, each element of
// the rank-1 update two shared-memory loads and a store behind a runtime-bounded loop. Here the
// column loop is unrolled: every update is a register multiply-add with static indices, and only the
// pivot row (broadcast) comes from shared memory.
//
// The exchange moves no data, as in the cluster leaf: each row keeps its place and carries a position;
// the pivot row takes position j and the row that held j the pivot's. So a step publishes only the
// pivot row (its owner's 32 stores), and the rows go to their positions once, at the end. The ties and
// the pivots are the same as with rows that move (the smaller position wins a tie, as the smaller row
// did), and so are the factors. Rows beyond the registers never hold a position below
// kRowsInRegisters except as a pivot row (the rows at positions < kLeaf are register rows until they
// are pivots), so they need no position: only which of them have become pivot rows.
template <typename T, bool kRowsBeyond>
__device__ __forceinline__ void factorLeafInRegisters(T* s, int stride, T* top, Index n, int m, Index c0, double threshold, int* origin,
                                                      int* pivotOf, T* pivotRow, int* failedStep, T* failedPivot) {
    constexpr int kLeaf = blockedLuMaxLeafWidth<T>();
    // The pivot rows that came from beyond the registers, by step (kept until the register rows have
    // left the shared memory they share with the rows beyond).
    __shared__ T pivotFromBeyond[kRowsBeyond ? kLeaf : 1][kLeaf + 1];
    __shared__ int stepFromBeyond[kRowsBeyond ? kLeaf : 1];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    constexpr int kRowsInRegisters = int(kLeafRowsInRegisters);  // rows 0 .. kRowsInRegisters-1 in registers
    const int r1 = tid + kLeafThreads;
    const bool has0 = tid < m, has1 = r1 < m;
    int pos0 = tid, pos1 = r1;  // the positions of this thread's register rows
    unsigned pivotBeyond = 0;   // bit k: this thread's k-th row beyond (tid + kRowsInRegisters + k kLeafThreads) is a pivot row
    T row0[kLeaf], row1[kLeaf];
#pragma unroll
    for (int c = 0; c < kLeaf; ++c) {
        row0[c] = has0 ? s[std::size_t(tid) * stride + c] : T(0);
        row1[c] = has1 ? s[std::size_t(r1) * stride + c] : T(0);
    }
    // The rows beyond the registers take over the shared memory the register rows came through (so a
    // full-width leaf stays full width up to about 2.6 k rows in fp32), coalesced as the kernel's own.
    T* const beyond = s;
    if constexpr (kRowsBeyond) {
        if (tid < kLeaf) stepFromBeyond[tid] = 0;
        __syncthreads();
#pragma unroll 8
        for (int r = kRowsInRegisters + warp; r < m; r += kLeafWarps)
            if (lane < kLeaf) beyond[std::size_t(r - kRowsInRegisters) * stride + lane] = top[std::size_t(r) * n + c0 + lane];
        __syncthreads();
    }
    // A candidate of (key, position) against the best so far: the larger magnitude, then the smaller
    // position (a NaN, key 0, never takes a place by its position).
    const auto better = [](const PivotKey<T>& key, int pos, const PivotCandidate<T>& best) {
        return key.beats(best.key) || (sameKey(key, best.key) && !sameKey(key, PivotKey<T>{}) && pos < best.row);
    };
#pragma unroll
    for (int j = 0; j < kLeaf; ++j) {
        // Rows at positions >= j are candidates (the pivot rows of earlier steps sit below j).
        const bool first = has0 && pos0 >= j, second = has1 && pos1 >= j;
        PivotCandidate<T> mine{first ? pivotKeyOf(row0[j]) : PivotKey<T>{}, first ? pos0 : INT_MAX, row0[j]};
        if (second) {
            const PivotKey<T> key1 = pivotKeyOf(row1[j]);
            if (better(key1, pos1, mine)) mine = PivotCandidate<T>{key1, pos1, row1[j]};
        }
        if constexpr (kRowsBeyond) {
            int k = 0;
            for (int r = tid + kRowsInRegisters; r < m; r += kLeafThreads, ++k) {  // the rows beyond, at their own positions
                if ((pivotBeyond >> k) & 1u) continue;
                const T v = beyond[std::size_t(r - kRowsInRegisters) * stride + j];
                const PivotKey<T> key = pivotKeyOf(v);
                if (better(key, r, mine)) mine = PivotCandidate<T>{key, r, v};
            }
        }
        const LeafPivot<T> chosen = blockPivot(mine, j);
        const int p = chosen.row;
        const T pivot = chosen.value;
        const bool bad = !(double(magnitude(pivot)) > threshold);
        // The row at position p publishes itself as the pivot row: a register row by its thread, a row
        // beyond (still at its own position: origin[p] == p) by the first kLeaf threads together.
        const bool own0 = has0 && pos0 == p, own1 = has1 && pos1 == p;
        if (own0)
#pragma unroll
            for (int c = 0; c < kLeaf; ++c) pivotRow[c] = row0[c];
        else if (own1)
#pragma unroll
            for (int c = 0; c < kLeaf; ++c) pivotRow[c] = row1[c];
        if constexpr (kRowsBeyond) {
            if (p >= kRowsInRegisters && origin[p] == p) {
                if (tid < kLeaf) {
                    const T v = beyond[std::size_t(p - kRowsInRegisters) * stride + tid];
                    pivotRow[tid] = v;
                    pivotFromBeyond[j][tid] = v;
                }
                if (tid == 0) stepFromBeyond[j] = 1;
                if (tid == (p - kRowsInRegisters) % kLeafThreads) pivotBeyond |= 1u << ((p - kRowsInRegisters) / kLeafThreads);
            }
        }
        if (tid == 0) {
            pivotOf[j] = p;
            if (bad && *failedStep < 0) {
                *failedStep = int(c0) + j;
                *failedPivot = pivot;
            }
        }
        __syncthreads();
        // After the barrier: every thread has read origin[p] above; the next step's reads come after
        // its own barrier, which thread 0 reaches only past this.
        if (tid == 0) {
            const int held = origin[j];
            origin[j] = origin[p];
            origin[p] = held;
        }
        if (own0) pos0 = j;
        else if (pos0 == j) pos0 = p;
        if (own1) pos1 = j;
        else if (pos1 == j) pos1 = p;
        if (!bad) {
            if (has0 && pos0 > j) {
                const T l = row0[j] / pivot;
                row0[j] = l;
#pragma unroll
                for (int c = j + 1; c < kLeaf; ++c) row0[c] -= l * pivotRow[c];
            }
            if (has1 && pos1 > j) {
                const T l = row1[j] / pivot;
                row1[j] = l;
#pragma unroll
                for (int c = j + 1; c < kLeaf; ++c) row1[c] -= l * pivotRow[c];
            }
        }
        // The rows beyond, each by its one thread. The pivot row is read through a volatile pointer here,
        // element by element: otherwise the compiler keeps all of it in registers across this loop,
        // beside the two register rows, and spills (2.7 KB a thread in fp32).
        if constexpr (kRowsBeyond) {
            const volatile T* pivotRowAgain = pivotRow;
            int k = 0;
            for (int r = tid + kRowsInRegisters; r < m; r += kLeafThreads, ++k) {
                if (bad || ((pivotBeyond >> k) & 1u)) continue;
                T* row = beyond + std::size_t(r - kRowsInRegisters) * stride;
                const T l = row[j] / pivot;
                row[j] = l;
                for (int c = j + 1; c < kLeaf; ++c) row[c] -= l * pivotRowAgain[c];
            }
        }
        // Every thread has read this step's pivot row before the next step's owner writes it: the next
        // writes come after blockPivot's barrier, which every thread reaches only past this update.
    }
    // The rows to their positions. First everything at positions >= kRowsInRegisters goes to the matrix:
    // the rows beyond still at their own (origin[x] == x: no row took their place) and the register rows
    // that took such a position; then the shared memory is free for the positions below.
    if constexpr (kRowsBeyond) {
        __syncthreads();
        for (int r = kRowsInRegisters + warp; r < m; r += kLeafWarps)
            if (lane < kLeaf && origin[r] == r) top[std::size_t(r) * n + c0 + lane] = beyond[std::size_t(r - kRowsInRegisters) * stride + lane];
        if (has0 && pos0 >= kRowsInRegisters)
            for (int c = 0; c < kLeaf; ++c) top[std::size_t(pos0) * n + c0 + c] = row0[c];
        if (has1 && pos1 >= kRowsInRegisters)
            for (int c = 0; c < kLeaf; ++c) top[std::size_t(pos1) * n + c0 + c] = row1[c];
        __syncthreads();
        for (int e = tid; e < kLeaf * kLeaf; e += kLeafThreads) {
            const int j = e / kLeaf, c = e % kLeaf;
            if (stepFromBeyond[j]) s[std::size_t(j) * stride + c] = pivotFromBeyond[j][c];
        }
    }
#pragma unroll
    for (int c = 0; c < kLeaf; ++c) {
        if (has0 && pos0 < kRowsInRegisters) s[std::size_t(pos0) * stride + c] = row0[c];
        if (has1 && pos1 < kRowsInRegisters) s[std::size_t(pos1) * stride + c] = row1[c];
    }
}

// Where a leaf's column steps keep its rows: all in shared memory (any width), or, for a full-width
// leaf, the first 2 kLeafThreads in registers (factorLeafInRegisters) and, only in the third form,
// the rest in shared memory: a separate form, since its loops over those rows cost the
// registers-only form 2.7 KB of spills a thread when compiled in.
enum class LeafForm { Shared, Registers, RegistersAndShared };

// Factors columns c0 .. c0+ib-1 of rows c0 .. n-1 (the leaf) inside the panel p0 .. p0+jb-1.
// kForm: where the column steps find the rows (LeafForm).
template <typename T, LeafForm kForm>
__global__ void __launch_bounds__(kLeafThreads)
    oneBlockLeafKernel(T* a, Index n, Index p0, Index jb, Index c0, int ib, double threshold, int* pivots, int* failedStep,
               T* failedPivot) {
    constexpr int kMaxLeaf = blockedLuMaxLeafWidth<T>();
    extern __shared__ __align__(16) unsigned char leafShared[];
    __shared__ T pivotRow[kMaxLeaf];
    __shared__ int pivotOf[kMaxLeaf];
    __shared__ int moveTo[2 * kMaxLeaf], moveFrom[2 * kMaxLeaf];
    const Index m = n - c0;
    const int stride = ib | 1;  // odd: the threads' rows fall in different banks
    // Shared memory (leafSharedBytes): every row in the shared form; in the register forms the register
    // rows and then, in the same place, the rows beyond them (factorLeafInRegisters).
    constexpr bool kRegisters = kForm != LeafForm::Shared;
    const Index through = kRegisters && m > kLeafRowsInRegisters ? kLeafRowsInRegisters : m;  // the rows staged by the kernel
    T* s = reinterpret_cast<T*>(leafShared);
    int* origin = reinterpret_cast<int*>(s + std::size_t(leafStagedRows(m, kRegisters)) * stride);  // which leaf row each row holds now
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    T* top = a + std::size_t(c0) * n;  // leaf row r is matrix row c0 + r

    // One warp per row, a lane per column (ib <= 32): coalesced, and no integer division per element.
    // Unrolled so that each warp has several rows' loads in flight, not one at a time.
#pragma unroll 8
    for (Index r = warp; r < through; r += kLeafWarps)
        if (lane < ib) s[std::size_t(r) * stride + lane] = top[std::size_t(r) * n + c0 + lane];
    for (Index r = tid; r < m; r += kLeafThreads) origin[r] = r;
    __syncthreads();

    if constexpr (kForm != LeafForm::Shared) {
        factorLeafInRegisters<T, kForm == LeafForm::RegistersAndShared>(s, stride, top, n, int(m), c0, threshold, origin, pivotOf,
                                                                         pivotRow, failedStep, failedPivot);
    } else {
    for (int j = 0; j < ib; ++j) {
        T bestAbs = T(-1), bestValue = T(0);
        int bestRow = INT_MAX;
        for (Index r = tid; r < m; r += kLeafThreads) {
            if (r < j) continue;
            const T v = s[std::size_t(r) * stride + j];
            if (magnitude(v) > bestAbs) {
                bestAbs = magnitude(v);
                bestRow = r;
                bestValue = v;
            }
        }
        const LeafPivot<T> chosen =
            blockPivot(PivotCandidate<T>{bestRow == INT_MAX ? PivotKey<T>{} : pivotKeyOf(bestValue), bestRow, bestValue}, j);
        const int p = chosen.row;
        const T pivot = chosen.value;
        const bool bad = !(double(magnitude(pivot)) > threshold);
        if (tid < ib) {
            const T mine = s[std::size_t(j) * stride + tid], theirs = s[std::size_t(p) * stride + tid];
            s[std::size_t(j) * stride + tid] = theirs;
            s[std::size_t(p) * stride + tid] = mine;
            pivotRow[tid] = theirs;
        }
        if (tid == 0) {
            const int held = origin[j];
            origin[j] = origin[p];
            origin[p] = held;
            pivotOf[j] = p;
            if (bad && *failedStep < 0) {
                *failedStep = c0 + j;
                *failedPivot = pivot;
            }
        }
        __syncthreads();
        if (!bad)
            for (Index r = tid; r < m; r += kLeafThreads) {
                if (r <= j) continue;
                T* row = s + std::size_t(r) * stride;
                const T l = row[j] / pivot;
                row[j] = l;
                for (int c = j + 1; c < ib; ++c) row[c] -= l * pivotRow[c];
            }
    }
    }
    __syncthreads();

    for (Index r = warp; r < through; r += kLeafWarps)  // the rows beyond the registers are written already
        if (lane < ib) top[std::size_t(r) * n + c0 + lane] = s[std::size_t(r) * stride + lane];
    if (tid < ib) pivots[c0 + tid] = c0 + pivotOf[tid];
    // The leaf moved at most its top ib rows and the ib pivot rows: new row x holds old row origin[x].
    if (tid < 2 * ib) {
        const int x = tid < ib ? tid : pivotOf[tid - ib];
        moveTo[tid] = x;
        moveFrom[tid] = origin[x];
    }
    __syncthreads();

    const Index left = c0 - p0, right = p0 + jb - (c0 + ib);
    for (Index index = tid; index < left + right; index += kLeafThreads) {
        const Index col = index < left ? p0 + index : c0 + ib + (index - left);
        // moveTo[q] = q for the top ib rows (q < ib), as the helper's solve assumes.
        movePanelColumn<T, kMaxLeaf>(
            top, n, col, index < left, ib, moveFrom, [&](int q) { return moveTo[q]; },
            [&](int i, int q) { return s[std::size_t(i) * stride + q]; });
    }
}

// Applies the panel's jb swaps to every column outside the panel: one permutation of rows p0 .. n-1.
// solveRight (jb <= kSwapSolveRows): then also U12 = L11^-1 A12 on the block's columns right of the
// panel, the unit-lower solve that cuBLAS trsm would do in a launch of its own after this one.
template <typename T>
__global__ void __launch_bounds__(kSwapThreads) panelSwapKernel(T* a, Index n, Index p0, Index jb, const int* pivots, bool solveRight) {
    extern __shared__ __align__(16) unsigned char swapShared[];
    __shared__ int target[kMaxPanel];
    const Index m = n - p0;
    T* stage = reinterpret_cast<T*>(swapShared);                                    // 2 jb x kSwapColumns
    int* content = reinterpret_cast<int*>(stage + std::size_t(2 * jb) * kSwapColumns);  // m: old row now at each row
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    for (Index x = tid; x < m; x += kSwapThreads) content[x] = x;
    for (Index j = tid; j < jb; j += kSwapThreads) target[j] = pivots[p0 + j] - p0;
    __syncthreads();
    if (tid == 0)
        for (Index j = 0; j < jb; ++j) {
            const int p = target[j], held = content[j];
            content[j] = content[p];
            content[p] = held;
        }
    __syncthreads();
    const Index index = Index(blockIdx.x) * kSwapColumns + lane;
    const bool valid = index < n - jb;
    const Index col = index < p0 ? index : index + jb;
    T* base = a + std::size_t(p0) * n;
    for (Index q = warp; q < 2 * jb; q += kSwapThreads / 32) {
        const int x = q < jb ? int(q) : target[q - jb];
        const int from = content[x];
        if (valid && from != x) stage[std::size_t(q) * kSwapColumns + lane] = base[std::size_t(from) * n + col];
    }
    __syncthreads();
    for (Index q = warp; q < 2 * jb; q += kSwapThreads / 32) {
        const int x = q < jb ? int(q) : target[q - jb];
        if (valid && content[x] != x) base[std::size_t(x) * n + col] = stage[std::size_t(q) * kSwapColumns + lane];
    }
    if (!solveRight) return;
    // The solve, forward substitution in the CPU reference's order (x_i -= L_ik x_k, k ascending): one
    // warp, a column a lane, the column's jb rows in registers, L11 from shared memory (broadcast).
    __shared__ T lower[kSwapSolveRows][kSwapSolveRows + 1];
    for (Index e = tid; e < jb * jb; e += kSwapThreads) lower[e / jb][e % jb] = base[std::size_t(e / jb) * n + p0 + e % jb];
    __syncthreads();  // also orders this block's swapped rows (written above) before the reads below
    if (warp != 0 || !valid || col < p0 + jb) return;
    T x[kSwapSolveRows];
#pragma unroll
    for (int i = 0; i < kSwapSolveRows; ++i) x[i] = i < jb ? base[std::size_t(i) * n + col] : T(0);
#pragma unroll
    for (int i = 1; i < kSwapSolveRows; ++i)
        if (i < jb) {
#pragma unroll
            for (int k = 0; k < i; ++k) x[i] -= lower[i][k] * x[k];
            base[std::size_t(i) * n + col] = x[i];
        }
}

cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const float* alpha, const float* a, int lda, const float* b, int ldb,
                    const float* beta, float* c, int ldc) {
    return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
cublasStatus_t gemm(cublasHandle_t h, int m, int n, int k, const double* alpha, const double* a, int lda, const double* b,
                    int ldb, const double* beta, double* c, int ldc) {
    return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
// X L^T = B for X (m x n), L^T the upper triangle (unit) of the column-major n x n at a.
cublasStatus_t trsmRightUpperUnit(cublasHandle_t h, int m, int n, const float* alpha, const float* a, int lda, float* b, int ldb) {
    return cublasStrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, m, n, alpha, a, lda, b, ldb);
}
cublasStatus_t trsmRightUpperUnit(cublasHandle_t h, int m, int n, const double* alpha, const double* a, int lda, double* b,
                                  int ldb) {
    return cublasDtrsm(h, CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, CUBLAS_DIAG_UNIT, m, n, alpha, a, lda, b, ldb);
}

struct SharedLimits {
    std::size_t leafBytes = 0, swapBytes = 0;  // dynamic shared memory the two kernels may use
};

template <typename T>
SharedLimits sharedLimits() {
    int device = 0, optin = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
    SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    cudaFuncAttributes leaf{}, registerLeaf{}, mixedLeaf{}, swap{};
    SPYGLASS_CUDA_CHECK(cudaFuncGetAttributes(&leaf, oneBlockLeafKernel<T, LeafForm::Shared>));
    SPYGLASS_CUDA_CHECK(cudaFuncGetAttributes(&registerLeaf, oneBlockLeafKernel<T, LeafForm::Registers>));
    SPYGLASS_CUDA_CHECK(cudaFuncGetAttributes(&mixedLeaf, oneBlockLeafKernel<T, LeafForm::RegistersAndShared>));
    SPYGLASS_CUDA_CHECK(cudaFuncGetAttributes(&swap, panelSwapKernel<T>));
    SharedLimits limits;
    limits.leafBytes = std::size_t(optin) - std::max({leaf.sharedSizeBytes, registerLeaf.sharedSizeBytes, mixedLeaf.sharedSizeBytes});
    limits.swapBytes = std::size_t(optin) - swap.sharedSizeBytes;
    return limits;
}

std::size_t swapBytesFor(Index n, Index p0, Index jb, std::size_t valueBytes) {
    return std::size_t(2 * jb) * kSwapColumns * valueBytes + std::size_t(n - p0) * sizeof(int);
}

} // namespace

template <typename T>
BlockedLu<T>::BlockedLu(cudaStream_t stream) : m_stream(stream) {
    SPYGLASS_CUDA_CHECK(cublasCreate(&m_handle));
    SPYGLASS_CUDA_CHECK(cublasSetStream(m_handle, stream));
    SPYGLASS_CUDA_CHECK(cublasSetPointerMode(m_handle, CUBLAS_POINTER_MODE_HOST));
    const SharedLimits limits = sharedLimits<T>();
    m_leafBytes = limits.leafBytes;
    m_maxOrder = maxOrder();
    for (const auto kernel : {oneBlockLeafKernel<T, LeafForm::Shared>, oneBlockLeafKernel<T, LeafForm::Registers>,
                              oneBlockLeafKernel<T, LeafForm::RegistersAndShared>})
        SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(limits.leafBytes)));
    SPYGLASS_CUDA_CHECK(
        cudaFuncSetAttribute(panelSwapKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(limits.swapBytes)));
    m_failedStep.resize(1);
    m_failedPivot.resize(1);
}

template <typename T>
BlockedLu<T>::~BlockedLu() {
    cublasDestroy(m_handle);
}

template <typename T>
Index BlockedLu<T>::maxOrder() {
    const SharedLimits limits = sharedLimits<T>();
    // A one-column leaf of n rows (value + row origin each) and the widest panel's swap staging.
    const std::size_t byLeaf = limits.leafBytes / (sizeof(T) + sizeof(int));
    const std::size_t staging = std::size_t(2 * kMaxPanel) * kSwapColumns * sizeof(T);
    const std::size_t bySwap = limits.swapBytes > staging ? (limits.swapBytes - staging) / sizeof(int) : 0;
    return Index(std::min<std::size_t>({byLeaf, bySwap, std::size_t(65535)}));
}

template <typename T>
int BlockedLu<T>::clusterLeafMaxBlocks() {
    return clusterLeafLimits<T>().maxBlocks;
}

template <typename T>
void BlockedLu<T>::factor(const DeviceBitFlag<T>& a, BitFlagOrder order, double threshold, Index panelWidth, Index leafWidth,
                          BlockedLuLeaf leaf, int clusterBlocks) {
    const Index n = a.rows;
    if (leaf == BlockedLuLeaf::Cluster) askForClusters();  // refuses before the expansion is enqueued
    reserveAtLeast(m_dense, std::max<std::size_t>(std::size_t(n) * std::size_t(n), 1));
    if (n > 0) {
        const dim3 grid(unsigned((n + kExpandThreads - 1) / kExpandThreads), unsigned(n));
        expandKernel<<<grid, kExpandThreads, 0, m_stream>>>(a.view(), order == BitFlagOrder::RowMajor, m_dense.data());
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
    factorDense(n, threshold, panelWidth, leafWidth, leaf, clusterBlocks);
}

template <typename T>
bool BlockedLu<T>::clustersRun() {
    if (m_clusterLeafMaxBlocks < 0) {
        const ClusterLeafLimits limits = clusterLeafLimits<T>();
        m_clusterLeafMaxBlocks = limits.maxBlocks;
        m_clusterLeafBytes = limits.bytes;
        m_clusterLeafUnavailable = limits.reason;
    }
    return m_clusterLeafMaxBlocks > 0;
}

template <typename T>
void BlockedLu<T>::askForClusters() {
    if (!clustersRun())
        throw BackendUnavailableError("blocked LU: the cluster leaf is not available: " + m_clusterLeafUnavailable +
                                      "; the one-block leaf (BitFlagLuLeaf::OneBlock) runs everywhere");
}

template <typename T>
void BlockedLu<T>::factorDense(Index n, double threshold, Index panelWidth, Index leafWidth, BlockedLuLeaf leaf, int clusterBlocks) {
    if (n > m_maxOrder) throw InputError("blocked LU: order " + std::to_string(n) + " exceeds " + std::to_string(m_maxOrder));
    if (leaf == BlockedLuLeaf::Cluster) askForClusters();
    // Auto: the cluster leaf on leaves taller than the one-block leaf holds in registers (below), and
    // only if it runs here.
    const bool clusterForTallLeaves = leaf == BlockedLuLeaf::Auto && clustersRun();
    // Asked for: that many blocks, as far as the device goes; automatic: see kClusterLeafMinRows. At
    // least 2: the blocks exchange their candidates through distributed shared memory, which a "cluster"
    // of one block does not have (a block without rows takes part as any other).
    const int clusterCap = std::max(2, std::min(clusterBlocks > 0 ? clusterBlocks : kClusterLeafAutoBlocks, m_clusterLeafMaxBlocks));
    if (panelWidth != 0) panelWidth = std::clamp<Index>(panelWidth, 1, kMaxPanel);
    leafWidth = std::clamp<Index>(leafWidth, 1, blockedLuMaxLeafWidth<T>());
    reserveAtLeast(m_pivots, std::max<std::size_t>(std::size_t(n), 1));
    SPYGLASS_CUDA_CHECK(cudaMemsetAsync(m_failedStep.data(), 0xff, sizeof(int), m_stream));  // -1
    SPYGLASS_CUDA_CHECK(cudaMemsetAsync(m_failedPivot.data(), 0, sizeof(T), m_stream));
    T* a = m_dense.data();
    const T one(1), minusOne(-1);
    const auto at = [&](Index row, Index col) { return a + std::size_t(row) * std::size_t(n) + std::size_t(col); };
    for (Index p0 = 0, jb = 0; p0 < n; p0 += jb) {
        jb = std::min(panelWidth > 0 ? panelWidth : automaticPanelWidth(n - p0), n - p0);
        for (Index c0 = p0; c0 < p0 + jb;) {
            const Index m = n - c0;
            int ib = int(std::min(leafWidth, p0 + jb - c0));
            // Auto's one-block leaf: at most the rows its register form holds. Taller, it would stage the
            // rest in shared memory, one thread a row, and each column's update of those rows would cost
            // more than the cluster leaf's exchange (H200, 2026-11-29, fp32: order 2048 4.5261 ms with the
            // cluster from 1025 rows, bench/results/h200/bitflag_lu_exchange_fp32_run.md, against 5.0870 ms
            // from 2.6 k rows, bench/results/h200/bitflag_lu_before_exchange.md; the sweep:
            // h200/bitflag_lu_exchange_sweep.md; fp64 5.9948 against 7.9319 ms, h200/bitflag_lu_fp64_trials.md).
            if (leaf == BlockedLuLeaf::Cluster || (clusterForTallLeaves && m > kLeafRowsInRegisters)) {
                const int blocks = clusterBlocks > 0 ? clusterCap
                                                     : std::clamp(int((m + kClusterLeafMinRows - 1) / kClusterLeafMinRows), 2, clusterCap);
                const int rowsPerBlock = int((m + blocks - 1) / blocks);
                // The widest leaf whose slices fit a block's shared memory (a column takes about `blocks`
                // times the one-block leaf's rows, so within maxOrder() it does not narrow).
                while (ib > 1 && clusterLeafBytes<T>(rowsPerBlock, ib, blocks) > m_clusterLeafBytes) --ib;
                if (clusterLeafBytes<T>(rowsPerBlock, ib, blocks) > m_clusterLeafBytes)
                    throw InputError("blocked LU: " + std::to_string(m) + " leaf rows do not fit a cluster of " +
                                     std::to_string(blocks) + " blocks");
                launchClusterLeaf<T>(a, n, p0, jb, c0, ib, blocks, rowsPerBlock, threshold, m_pivots.data(), m_failedStep.data(),
                                     m_failedPivot.data(), m_stream);
            } else {
                // A full-width leaf holds its first rows in registers and stages the rest in the same
                // shared memory afterwards, so it stays wide up to about 2.6 k rows (fp32); otherwise the
                // widest leaf whose rows all fit shared memory (>= 1 column: n <= maxOrder()).
                const bool registers = ib == blockedLuMaxLeafWidth<T>() && leafSharedBytes<T>(m, ib, true) <= m_leafBytes;
                while (!registers && ib > 1 && leafSharedBytes<T>(m, ib, false) > m_leafBytes) --ib;
                const std::size_t bytes = leafSharedBytes<T>(m, ib, registers);
                const auto kernel = !registers                  ? oneBlockLeafKernel<T, LeafForm::Shared>
                                    : m <= kLeafRowsInRegisters ? oneBlockLeafKernel<T, LeafForm::Registers>
                                                                : oneBlockLeafKernel<T, LeafForm::RegistersAndShared>;
                kernel<<<1, kLeafThreads, bytes, m_stream>>>(a, n, p0, jb, c0, ib, threshold, m_pivots.data(), m_failedStep.data(),
                                                             m_failedPivot.data());
                SPYGLASS_CUDA_CHECK_LAUNCH();
            }
            const Index rows = n - c0 - ib, cols = p0 + jb - c0 - ib;
            if (rows > 0 && cols > 0)
                SPYGLASS_CUDA_CHECK(gemm(m_handle, cols, rows, ib, &minusOne, at(c0, c0 + ib), n, at(c0 + ib, c0), n, &one,
                                         at(c0 + ib, c0 + ib), n));
            c0 += ib;
        }
        // A narrow panel's U12 comes from the swap kernel: one launch fewer a panel (H200, order 2048, 64
        // panels of 32: 5.2437 -> 5.2220 ms, docs/method-a-bitflag.md).
        const bool solveInSwap = jb <= kSwapSolveRows;
        if (n > jb) {
            const unsigned blocks = unsigned((n - jb + kSwapColumns - 1) / kSwapColumns);
            panelSwapKernel<T><<<blocks, kSwapThreads, swapBytesFor(n, p0, jb, sizeof(T)), m_stream>>>(a, n, p0, jb,
                                                                                                     m_pivots.data(), solveInSwap);
            SPYGLASS_CUDA_CHECK_LAUNCH();
        }
        const Index rest = n - p0 - jb;
        if (rest > 0) {
            if (!solveInSwap) SPYGLASS_CUDA_CHECK(trsmRightUpperUnit(m_handle, rest, jb, &one, at(p0, p0), n, at(p0, p0 + jb), n));
            SPYGLASS_CUDA_CHECK(gemm(m_handle, rest, rest, jb, &minusOne, at(p0, p0 + jb), n, at(p0 + jb, p0), n, &one,
                                     at(p0 + jb, p0 + jb), n));
        }
    }
}

template <typename T>
int BlockedLu<T>::failedStep(T* pivot) const {
    int step = -1;
    m_failedStep.download(&step, 1, m_stream);
    m_failedPivot.download(pivot, 1, m_stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(m_stream));
    return step;
}

template class BlockedLu<float>;
template class BlockedLu<double>;

} // namespace spyglass::cuda
