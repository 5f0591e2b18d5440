// Method A's large LU: the cluster leaf (BlockedLuLeaf::Cluster), a leaf kernel of the blocked LU
// (bitflag_lu_blocked.cu) spread over one Hopper thread-block cluster.
//
// Why a cluster: the one-block leaf puts the leaf's m rows on one SM, so every pivot step (arg-max,
// swap, scale, rank-1 update of m rows) runs at one SM's pace, and at large m the rows do not even fit
// one block's shared memory at 32 columns (the leaf narrows, more leaves, more gemm launches). Here
// block b of the cluster holds the contiguous slice of leaf rows b R .. (b+1) R - 1 (R = rowsPerBlock)
// in its own shared memory; a step costs one block barrier and one cluster barrier, whatever m.
//
// Why not a recursive panel instead: every one of the n pivot steps needs the previous column fully
// updated, so the n serial steps stay whatever the panel's columns are grouped into; recursion only
// trades the in-panel gemm shapes (the leaves' updates of the rest of the panel, which cuBLAS already
// does) for more trsm calls. The time measured in the leaf is the per-step latency on one SM and the
// narrowing at large m, both of which the cluster removes; so the panel keeps its shape and the leaf
// gets wider hardware.
//
// Per column j (the leaf rows with a position >= j are the candidates):
//   1. each thread has its best candidate of column j (|value| as ordered bits, position, slot), from
//      its own rows (found while it updated them in step j-1); a warp reduces them (redux) and
//      publishes its best in published[j & 1] of its block's shared memory; cluster.sync();
//   2. one warp a block reads the cluster's candidates (at most 16 x 8) through distributed shared
//      memory and reduces them: the largest magnitude, the lowest position on ties (the one-block
//      leaf's rule, so the same rows are chosen, as by the CPU reference); it reads the pivot row from
//      its owner block; one block barrier hands both to the other warps;
//   3. the exchange moves no data: each row keeps its slot (leaf row at the start) and a position; the
//      pivot row takes position j and the row that held j takes the pivot's position (found by the
//      thread that owns it, which sees its position is j);
//   4. each thread scales and updates its own rows with the same operations as the one-block leaf
//      (IEEE division, then row[c] -= l * pivot[c]), so the factors equal that kernel's.
// A full-width fp32 leaf of at most 512 rows a block (8 blocks up to 4096 rows) keeps its rows in
// registers instead, two a thread, the column loop unrolled; there each warp's best candidate row goes
// to its slot in shared memory before the cluster barrier, which is all another block reads.
// One cluster barrier and one block barrier a column. No race between steps: a thread is the only one
// to touch its rows and positions during the steps; a pivot row is read by other blocks only once it
// is final (its position < the step, never written again); published[] is double-buffered, since a
// block writes step j+1's candidates before the cluster barrier of step j+1 but after that of step j,
// which every reader of step j-1's candidates has passed; pivotRow of step j+1 is written after the
// cluster barrier of step j+1, which this block's threads reach only once done with step j.
// After the columns: every block writes its rows to their final positions, the leaf's moves (which
// row now holds each position touched) are gathered in every block, and the blocks share the panel's
// other columns for the moves and the L11 solve of the rows right of the leaf, as the one-block leaf.
#include "bitflag_lu_clusterleaf.h"
#include "bitflag_lu_panelmoves.cuh"

#include <cooperative_groups.h>

#include <climits>

namespace spyglass::cuda {

namespace {

namespace cg = cooperative_groups;

constexpr int kClusterThreads = 256;

// The device helpers exist where the kernel has a body: on the host (for the front end) and sm_90 up.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
constexpr int kClusterWarps = kClusterThreads / 32;
constexpr unsigned kAllLanes = 0xffffffffu;

// A candidate pivot: |value| as the bit pattern of a non-negative float (hi:lo, ordered as unsigned
// numbers), its current position in the leaf and the slot that holds it. No candidate: position
// UINT_MAX, so any real row, even a zero, wins against it.
struct Candidate {
    unsigned hi, lo, pos, slot;
};

__device__ __forceinline__ Candidate noCandidate() { return Candidate{0u, 0u, UINT_MAX, 0u}; }
__device__ __forceinline__ Candidate candidateOf(float v, int pos, int slot) {
    return Candidate{0u, __float_as_uint(fabsf(v)), unsigned(pos), unsigned(slot)};
}
__device__ __forceinline__ Candidate candidateOf(double v, int pos, int slot) {
    const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(fabs(v)));
    return Candidate{unsigned(bits >> 32), unsigned(bits & 0xffffffffu), unsigned(pos), unsigned(slot)};
}

// The larger magnitude, the lower position on ties.
__device__ __forceinline__ void keepBetter(Candidate& best, const Candidate& other) {
    if (other.hi > best.hi || (other.hi == best.hi && (other.lo > best.lo || (other.lo == best.lo && other.pos < best.pos))))
        best = other;
}

// The warp's best candidate, in every lane: hardware reductions over the magnitude's bits, then the
// lowest position among the largest; positions are unique, so one lane (or, with no candidate at all,
// every lane) holds the winner's slot.
__device__ __forceinline__ Candidate warpBestOf(const Candidate& c) {
    const unsigned hi = __reduce_max_sync(kAllLanes, c.hi);
    const unsigned lo = __reduce_max_sync(kAllLanes, c.hi == hi ? c.lo : 0u);
    const bool largest = c.hi == hi && c.lo == lo;
    const unsigned pos = __reduce_min_sync(kAllLanes, largest ? c.pos : UINT_MAX);
    const unsigned holders = __ballot_sync(kAllLanes, largest && c.pos == pos);
    const unsigned slot = __shfl_sync(kAllLanes, c.slot, holders ? __ffs(int(holders)) - 1 : 0);
    return Candidate{hi, lo, pos, slot};
}

template <typename T> __device__ __forceinline__ T magnitudeOf(T x) { return x < T(0) ? -x : x; }
#endif

template <typename T>
__global__ void __launch_bounds__(kClusterThreads)
    clusterLeafKernel(T* a, Index n, Index p0, Index jb, Index c0, int ib, int rowsPerBlock, double threshold, int* pivots,
                      int* failedStep, T* failedPivot) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap();  // never launched there: the host asks the device for clusters first (clusterLeafLimits)
#else
    constexpr int kMaxLeaf = blockedLuMaxLeafWidth<T>();
    extern __shared__ __align__(16) unsigned char clusterLeafShared[];
    __shared__ Candidate published[2][kClusterWarps];  // each warp's best, by the column's parity
    __shared__ T pivotRow[32];                          // the step's pivot row, read from its owner
    __shared__ int pivotSlot;
    __shared__ T leafTop[kMaxLeaf][kMaxLeaf + 1];  // the pivot rows in order: L11 below the diagonal
    __shared__ int pivotPos[kMaxLeaf];             // step j exchanged positions j and pivotPos[j]
    __shared__ int moveFrom[2 * kMaxLeaf];         // the slot now at each position the leaf touched

    const cg::cluster_group cluster = cg::this_cluster();
    const int rank = int(cluster.block_rank()), blocks = int(cluster.num_blocks());
    const int m = int(n - c0);
    const int first = rank * rowsPerBlock;  // slot of this block's row 0
    const int here = max(0, min(rowsPerBlock, m - first));
    const int stride = ib | 1;  // odd: the threads' rows fall in different banks
    T* rows = reinterpret_cast<T*>(clusterLeafShared);
    int* posOf = reinterpret_cast<int*>(rows + std::size_t(rowsPerBlock) * stride);
    const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    T* top = a + std::size_t(c0) * n;  // leaf row r is matrix row c0 + r

    // One warp per row, a lane per column (ib <= 32): coalesced.
    for (int r = warp; r < here; r += kClusterWarps)
        if (lane < ib) rows[std::size_t(r) * stride + lane] = top[std::size_t(first + r) * n + c0 + lane];
    for (int r = tid; r < here; r += kClusterThreads) posOf[r] = first + r;
    __syncthreads();
    // Step j's pivot, once every warp has published its best candidate (and the row it names is in its
    // block's shared memory): one warp a block reads the cluster's candidates through distributed
    // shared memory, reduces them and reads the pivot row from its owner (so the owner serves the row
    // once a block, not once a warp); one block barrier hands them to the others.
    struct Step {
        int pp, sp;  // the pivot's position and slot
        T pivot;
        bool bad;
    };
    const auto choosePivot = [&](int j) {
        // Releases the warps' candidates (and the rows' updates of step j-1) to the cluster.
        cluster.sync();
        if (warp == 0) {
            Candidate best = noCandidate();
            for (int k = lane; k < blocks * kClusterWarps; k += 32)
                keepBetter(best, *cluster.map_shared_rank(&published[j & 1][k % kClusterWarps], k / kClusterWarps));
            best = warpBestOf(best);
            const int sp = int(best.slot), owner = sp / rowsPerBlock;
            const T* ownerRows = cluster.map_shared_rank(rows, owner);
            const T value = lane < ib ? ownerRows[std::size_t(sp - owner * rowsPerBlock) * stride + lane] : T(0);
            pivotRow[lane] = value;
            if (lane < ib) leafTop[j][lane] = value;
            if (lane == 0) {
                pivotPos[j] = int(best.pos);
                pivotSlot = sp;
            }
        }
        __syncthreads();
        const T pivot = pivotRow[j];
        const bool bad = !(double(magnitudeOf(pivot)) > threshold);
        if (rank == 0 && tid == 0 && bad && *failedStep < 0) {
            *failedStep = int(c0) + j;
            *failedPivot = pivot;
        }
        return Step{pivotPos[j], pivotSlot, pivot, bad};
    };

    // fp32 only: compiled for fp64 the two paths together spill 1.5 KB a thread.
    if (sizeof(T) == 4 && ib == kMaxLeaf && rowsPerBlock <= 2 * kClusterThreads) {
        // A full-width leaf whose blocks hold at most two rows a thread (the automatic size, up to 4096
        // rows): the column steps on rows in registers, as the one-block leaf's register form (static
        // indices, the column loop unrolled), with the same arithmetic, so the factors stay the same bit
        // for bit. Only each warp's best candidate row goes to shared memory, at its slot, before the
        // cluster barrier: that is the row another block reads if it wins. Why: on an H200 the cluster
        // leaf with its rows in shared memory took about 5 us a column on the tall leaves of a 4096
        // factorisation, the registers-only one-block leaf well under half of that.
        const int slotA = first + tid, slotB = first + tid + kClusterThreads;
        const bool hasA = tid < here, hasB = tid + kClusterThreads < here;
        int posA = slotA, posB = slotB;
        T rowA[kMaxLeaf], rowB[kMaxLeaf];
#pragma unroll
        for (int c = 0; c < kMaxLeaf; ++c) {
            rowA[c] = hasA ? rows[std::size_t(tid) * stride + c] : T(0);
            rowB[c] = hasB ? rows[std::size_t(tid + kClusterThreads) * stride + c] : T(0);
        }
#pragma unroll
        for (int j = 0; j < kMaxLeaf; ++j) {
            // Rows at a position >= j are candidates (earlier pivot rows sit at positions < j).
            Candidate mine = hasA && posA >= j ? candidateOf(rowA[j], posA, slotA) : noCandidate();
            if (hasB && posB >= j) keepBetter(mine, candidateOf(rowB[j], posB, slotB));
            const Candidate ofWarp = warpBestOf(mine);
            if (ofWarp.pos != UINT_MAX && mine.slot == ofWarp.slot && mine.pos == ofWarp.pos) {
                T* at = rows + std::size_t(int(ofWarp.slot) - first) * stride;
                if (int(ofWarp.slot) == slotA)
#pragma unroll
                    for (int c = 0; c < kMaxLeaf; ++c) at[c] = rowA[c];
                else
#pragma unroll
                    for (int c = 0; c < kMaxLeaf; ++c) at[c] = rowB[c];
            }
            if (lane == 0) published[j & 1][warp] = ofWarp;
            const Step step = choosePivot(j);
            // The exchange moves no data: the pivot row takes position j, the row at j the pivot's.
            const bool pivotA = hasA && slotA == step.sp, pivotB = hasB && slotB == step.sp;
            if (pivotA) posA = j;
            else if (posA == j) posA = step.pp;
            if (pivotB) posB = j;
            else if (posB == j) posB = step.pp;
            if (!step.bad) {
                if (hasA && posA > j) {
                    const T l = rowA[j] / step.pivot;
                    rowA[j] = l;
#pragma unroll
                    for (int c = j + 1; c < kMaxLeaf; ++c) rowA[c] -= l * pivotRow[c];
                }
                if (hasB && posB > j) {
                    const T l = rowB[j] / step.pivot;
                    rowB[j] = l;
#pragma unroll
                    for (int c = j + 1; c < kMaxLeaf; ++c) rowB[c] -= l * pivotRow[c];
                }
            }
        }
        // Back to shared memory for the steps below, as the other path leaves them. Not the pivot rows
        // (positions < kMaxLeaf): each is there already, written as its warp's candidate in its step and
        // never updated after, and the last one may still be being read by another block.
        const bool backA = hasA && posA >= kMaxLeaf, backB = hasB && posB >= kMaxLeaf;
#pragma unroll
        for (int c = 0; c < kMaxLeaf; ++c) {
            if (backA) rows[std::size_t(tid) * stride + c] = rowA[c];
            if (backB) rows[std::size_t(tid + kClusterThreads) * stride + c] = rowB[c];
        }
        if (hasA) posOf[tid] = posA;
        if (hasB) posOf[tid + kClusterThreads] = posB;
        __syncthreads();
    } else {
    Candidate mine = noCandidate();
    for (int r = tid; r < here; r += kClusterThreads) keepBetter(mine, candidateOf(rows[std::size_t(r) * stride], first + r, first + r));

    for (int j = 0; j < ib; ++j) {
        const Candidate ofWarp = warpBestOf(mine);
        if (lane == 0) published[j & 1][warp] = ofWarp;
        const Step step = choosePivot(j);
        const int pp = step.pp, sp = step.sp;
        const T pivot = step.pivot;
        const bool bad = step.bad;
        mine = noCandidate();
        for (int r = tid; r < here; r += kClusterThreads) {
            int pos = posOf[r];
            const int slot = first + r;
            if (pos < j) continue;  // an earlier pivot row: final
            if (slot == sp) {
                posOf[r] = j;
                continue;
            }
            if (pos == j) {  // the row the pivot displaces takes its position
                pos = pp;
                posOf[r] = pp;
            }
            T* row = rows + std::size_t(r) * stride;
            if (!bad) {
                const T l = row[j] / pivot;
                row[j] = l;
                for (int c = j + 1; c < ib; ++c) row[c] -= l * pivotRow[c];
            }
            if (j + 1 < ib) keepBetter(mine, candidateOf(row[j + 1], pos, slot));
        }
    }
    }

    // The leaf touched positions 0 .. ib-1 and the pivots' positions: the owner of the slot that ends at
    // each of them writes it into every block's list (duplicates get the same slot).
    for (int r = tid; r < here; r += kClusterThreads) {
        const int pos = posOf[r];
        for (int q = 0; q < 2 * ib; ++q)
            if ((q < ib ? q : pivotPos[q - ib]) == pos)
                for (int b = 0; b < blocks; ++b) *cluster.map_shared_rank(&moveFrom[q], b) = first + r;
    }
    // The lists are complete, and no block reads another's shared memory after this barrier, so each
    // may finish and exit on its own.
    cluster.sync();

    for (int r = warp; r < here; r += kClusterWarps)
        if (lane < ib) top[std::size_t(posOf[r]) * n + c0 + lane] = rows[std::size_t(r) * stride + lane];
    if (rank == 0 && tid < ib) pivots[c0 + tid] = int(c0) + pivotPos[tid];

    // The panel's other columns, a contiguous share per block: the moves (every moved row read into
    // registers before any is written) and, right of the leaf, the solve of the top ib rows with L11.
    const int left = int(c0 - p0), right = int(p0 + jb - (c0 + ib)), total = left + right;
    const int share = (total + blocks - 1) / blocks;
    const int end = min(total, (rank + 1) * share);
    for (int index = rank * share + tid; index < end; index += kClusterThreads) {
        const Index col = index < left ? p0 + index : c0 + ib + (index - left);
        movePanelColumn<T, kMaxLeaf>(
            top, n, col, index < left, ib, moveFrom, [&](int q) { return q < ib ? q : pivotPos[q - ib]; },
            [&](int i, int q) { return leafTop[i][q]; });
    }
#endif
}

cudaLaunchConfig_t clusterConfig(int blocks, std::size_t bytes, cudaStream_t stream, cudaLaunchAttribute (&attributes)[2]) {
    attributes[0].id = cudaLaunchAttributeClusterDimension;
    attributes[0].val.clusterDim.x = unsigned(blocks);
    attributes[0].val.clusterDim.y = 1;
    attributes[0].val.clusterDim.z = 1;
    // One block per SM where the GPC has room: the blocks' rows are the work to spread.
    attributes[1].id = cudaLaunchAttributeClusterSchedulingPolicyPreference;
    attributes[1].val.clusterSchedulingPolicyPreference = cudaClusterSchedulingPolicySpread;
    cudaLaunchConfig_t config{};
    config.gridDim = dim3(unsigned(blocks));
    config.blockDim = dim3(unsigned(kClusterThreads));
    config.dynamicSmemBytes = bytes;
    config.stream = stream;
    config.attrs = attributes;
    config.numAttrs = 2;
    return config;
}

} // namespace

template <typename T>
ClusterLeafLimits clusterLeafLimits() {
    ClusterLeafLimits limits;
    int device = 0, clusters = 0, optin = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
    SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, device));
    if (!clusters) {
        limits.reason = "the device has no thread-block clusters (they need compute capability 9.0)";
        return limits;
    }
    SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    cudaFuncAttributes kernel{};
    SPYGLASS_CUDA_CHECK(cudaFuncGetAttributes(&kernel, clusterLeafKernel<T>));
    limits.bytes = std::size_t(optin) - kernel.sharedSizeBytes;
    SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(clusterLeafKernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(limits.bytes)));
    // Clusters above 8 blocks are "non-portable": a device may refuse them; then the portable sizes.
    const bool nonPortable = cudaFuncSetAttribute(clusterLeafKernel<T>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) == cudaSuccess;
    if (!nonPortable) (void)cudaGetLastError();  // a refusal is an answer, not an error to report later
    for (const int blocks : {16, 8, 4, 2}) {
        if (blocks > 8 && !nonPortable) continue;
        cudaLaunchAttribute attributes[2];
        cudaLaunchConfig_t config = clusterConfig(blocks, limits.bytes, nullptr, attributes);
        config.numAttrs = 1;  // the question is the cluster's size; the scheduling preference is no part of it
        int count = 0;
        if (cudaOccupancyMaxActiveClusters(&count, clusterLeafKernel<T>, &config) == cudaSuccess && count > 0) {
            limits.maxBlocks = blocks;
            return limits;
        }
        (void)cudaGetLastError();
    }
    limits.reason = "the device runs no cluster of the cluster leaf's blocks (cudaOccupancyMaxActiveClusters is 0)";
    return limits;
}

template <typename T>
std::size_t clusterLeafBytes(int rowsPerBlock, int ib) {
    return std::size_t(rowsPerBlock) * (std::size_t(ib | 1) * sizeof(T) + sizeof(int));
}

template <typename T>
void launchClusterLeaf(T* a, Index n, Index p0, Index jb, Index c0, int ib, int blocks, int rowsPerBlock, double threshold,
                       int* pivots, int* failedStep, T* failedPivot, cudaStream_t stream) {
    cudaLaunchAttribute attributes[2];
    const cudaLaunchConfig_t config = clusterConfig(blocks, clusterLeafBytes<T>(rowsPerBlock, ib), stream, attributes);
    SPYGLASS_CUDA_CHECK(cudaLaunchKernelEx(&config, clusterLeafKernel<T>, a, n, p0, jb, c0, ib, rowsPerBlock, threshold, pivots,
                                           failedStep, failedPivot));
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

#define SPYGLASS_CLUSTER_LEAF(T)                                                                                         \
    template ClusterLeafLimits clusterLeafLimits<T>();                                                                  \
    template std::size_t clusterLeafBytes<T>(int, int);                                                                 \
    template void launchClusterLeaf<T>(T*, Index, Index, Index, Index, int, int, int, double, int*, int*, T*, cudaStream_t);
SPYGLASS_CLUSTER_LEAF(float)
SPYGLASS_CLUSTER_LEAF(double)

} // namespace spyglass::cuda
