// Method A's large LU: the cluster leaf (BlockedLuLeaf::Cluster), a leaf kernel of the blocked LU
// (bitflag_lu_blocked.cu) spread over one Hopper thread-block cluster.
//
// Why a cluster: the one-block leaf puts the leaf's m rows on one SM, so every pivot step (arg-max,
// swap, scale, rank-1 update of m rows) runs at one SM's pace, and at large m the rows do not even fit
// one block's shared memory at 32 columns (the leaf narrows, more leaves, more gemm launches). Here
// block b of the cluster holds the contiguous slice of leaf rows b R .. (b+1) R - 1 (R = rowsPerBlock)
// in its own shared memory; a step costs one exchange between the blocks, whatever m.
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
//      its own rows (found while it updated them in step j-1); a warp reduces them (redux) and pushes
//      its best, with the row it names, into every block's exchange: st.async stores into distributed
//      shared memory, which count their bytes on the receiving block's mbarrier (one a column parity:
//      the exchange is double-buffered);
//   2. each warp waits on its own block's mbarrier until every warp of the cluster has pushed, then
//      reduces the candidates on its own, locally: the largest magnitude, the lowest position on ties
//      (the one-block leaf's rule, so the same rows are chosen, as by the CPU reference); the pivot row
//      is beside it, in the same block;
//   3. the exchange moves no data: each row keeps its slot (leaf row at the start) and a position; the
//      pivot row takes position j and the row that held j takes the pivot's position (found by the
//      thread that owns it, which sees its position is j);
//   4. each thread scales and updates its own rows with the same operations as the one-block leaf
//      (IEEE division, then row[c] -= l * pivot[c]), so the factors equal that kernel's.
// A full-width fp32 leaf of at most 512 rows a block (8 blocks up to 4096 rows) keeps its rows in
// registers instead, two a thread, the column loop unrolled.
// Why pushes and an mbarrier: the first cluster leaf had each block read the candidates and then the
// pivot row from the other blocks (two distributed-shared-memory round trips), with a cluster barrier
// and a block barrier, on every column's critical path: about 1.5 us a column more than the one-block
// leaf. Pushing with a cluster barrier took 4096 from 16.77 to 15.99 ms (panel 128), the mbarrier
// instead of the barrier to 14.76 (H200; docs/method-a-bitflag.md). The writer never waits; the
// reader waits only for the bytes of its own step.
// No race between steps: a thread is the only one to touch its rows and positions during the steps.
// The exchange of parity p is written again (step j+2) only by a warp that has seen step j+1 complete,
// that is, after every warp of the cluster pushed step j+1, which each does only once done reading
// step j; and a block's barrier of parity p gets its next arrival (step j+2) from its thread 0 only
// after that thread saw step j complete.
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
constexpr int kClusterWarps = kClusterThreads / 32;

// A candidate pivot: |value| as the bit pattern of a non-negative float (hi:lo, ordered as unsigned
// numbers), its current position in the leaf and the slot that holds it. No candidate: position
// UINT_MAX, so any real row, even a zero, wins against it.
struct __align__(16) Candidate {
    unsigned hi, lo, pos, slot;
};

// The exchange area at the end of a block's dynamic shared memory, the same in every block: for each
// column parity, every warp of the cluster's candidate and, beside it, the row it names. Every warp
// pushes its own into every block (distributed shared memory stores), so once a block's mbarrier has
// counted the step's bytes its warps find the step's pivot and read its row locally.
template <typename T> struct Exchange {
    Candidate* candidates;  // [2][count]
    T* rows;                // [2][count][blockedLuMaxLeafWidth<T>()]
    int count;              // blocks x warps
};

// The leaf's rows (odd stride) and their positions, then the exchange on a 16-byte boundary.
template <typename T> __host__ __device__ constexpr std::size_t rowsAndPositionsBytes(int rowsPerBlock, int ib) {
    return (std::size_t(rowsPerBlock) * (std::size_t(ib | 1) * sizeof(T) + sizeof(int)) + 15) / 16 * 16;
}
template <typename T> __host__ __device__ constexpr std::size_t exchangeBytes(int blocks) {
    return 2 * std::size_t(blocks) * kClusterWarps * (sizeof(Candidate) + blockedLuMaxLeafWidth<T>() * sizeof(T));
}
template <typename T> __device__ Exchange<T> exchangeIn(unsigned char* shared, int rowsPerBlock, int ib, int blocks) {
    Exchange<T> exchange;
    exchange.count = blocks * kClusterWarps;
    exchange.candidates = reinterpret_cast<Candidate*>(shared + rowsAndPositionsBytes<T>(rowsPerBlock, ib));
    exchange.rows = reinterpret_cast<T*>(exchange.candidates + 2 * exchange.count);
    return exchange;
}

// The device helpers exist where the kernel has a body: on the host (for the front end) and sm_90 up.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
constexpr unsigned kAllLanes = 0xffffffffu;

__device__ __forceinline__ Candidate noCandidate() { return Candidate{0u, 0u, UINT_MAX, 0u}; }
__device__ __forceinline__ Candidate candidateOf(float v, int pos, int slot) {
    return Candidate{0u, __float_as_uint(fabsf(v)), unsigned(pos), unsigned(slot)};
}
__device__ __forceinline__ Candidate candidateOf(double v, int pos, int slot) {
    const unsigned long long bits = static_cast<unsigned long long>(__double_as_longlong(fabs(v)));
    return Candidate{unsigned(bits >> 32), unsigned(bits & 0xffffffffu), unsigned(pos), unsigned(slot)};
}

// The larger magnitude, the lower position on ties.
__device__ __forceinline__ bool isBetter(const Candidate& other, const Candidate& best) {
    return other.hi > best.hi || (other.hi == best.hi && (other.lo > best.lo || (other.lo == best.lo && other.pos < best.pos)));
}
__device__ __forceinline__ void keepBetter(Candidate& best, const Candidate& other) {
    if (isBetter(other, best)) best = other;
}

// The warp's best candidate, in every lane: hardware reductions over the magnitude's bits, then the
// lowest position among the largest; positions are unique, so one lane (or, with no candidate at all,
// every lane) holds the winner's slot. `holder`: that lane (the first, with no candidate).
__device__ __forceinline__ Candidate warpBestOf(const Candidate& c, int& holder) {
    const unsigned hi = __reduce_max_sync(kAllLanes, c.hi);
    const unsigned lo = __reduce_max_sync(kAllLanes, c.hi == hi ? c.lo : 0u);
    const bool largest = c.hi == hi && c.lo == lo;
    const unsigned pos = __reduce_min_sync(kAllLanes, largest ? c.pos : UINT_MAX);
    const unsigned holders = __ballot_sync(kAllLanes, largest && c.pos == pos);
    holder = holders ? __ffs(int(holders)) - 1 : 0;
    const unsigned slot = __shfl_sync(kAllLanes, c.slot, holder);
    return Candidate{hi, lo, pos, slot};
}

template <typename T> __device__ __forceinline__ T magnitudeOf(T x) { return x < T(0) ? -x : x; }

// Distributed shared memory by address: a shared-memory word of this block as the same word in block
// `rank` of the cluster, and stores that land there and count their bytes on that block's mbarrier
// (st.async: the writer does not wait, the reader waits on its own barrier, not on the cluster's).
__device__ __forceinline__ unsigned sharedAddress(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ unsigned inBlock(unsigned address, int rank) {
    unsigned mapped;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mapped) : "r"(address), "r"(rank));
    return mapped;
}
__device__ __forceinline__ void storeAsync(unsigned address, float value, unsigned barrier) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b32 [%0], %1, [%2];" ::"r"(address),
                 "r"(__float_as_uint(value)), "r"(barrier)
                 : "memory");
}
__device__ __forceinline__ void storeAsync(unsigned address, double value, unsigned barrier) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];" ::"r"(address),
                 "l"(__double_as_longlong(value)), "r"(barrier)
                 : "memory");
}
__device__ __forceinline__ void storeAsync(unsigned address, const Candidate& c, unsigned barrier) {
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%0], {%1, %2, %3, %4}, [%5];" ::"r"(address),
                 "r"(c.hi), "r"(c.lo), "r"(c.pos), "r"(c.slot), "r"(barrier)
                 : "memory");
}
// This block's mbarrier: made for one arrival a phase, its arrival announcing the bytes the phase waits for.
__device__ __forceinline__ void initBarrier(unsigned long long* barrier) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(sharedAddress(barrier)) : "memory");
}
__device__ __forceinline__ void arriveExpecting(unsigned long long* barrier, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(sharedAddress(barrier)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void waitForPhase(unsigned long long* barrier, unsigned parity) {
    unsigned done = 0;
    do {
        asm volatile(
            "{\n .reg .pred p;\n mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
            : "=r"(done)
            : "r"(sharedAddress(barrier)), "r"(parity)
            : "memory");
    } while (!done);
}
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
    __shared__ T leafTop[kMaxLeaf][kMaxLeaf + 1];  // the pivot rows in order: L11 below the diagonal
    __shared__ int pivotPos[kMaxLeaf];             // step j exchanged positions j and pivotPos[j]
    __shared__ int moveFrom[2 * kMaxLeaf];         // the slot now at each position the leaf touched
    __shared__ unsigned long long arrived[2];      // the exchange's bytes of the step, by its parity
    __shared__ T staged[kClusterWarps][kMaxLeaf];  // a warp's candidate row, from the lane that holds it

    const cg::cluster_group cluster = cg::this_cluster();
    const int rank = int(cluster.block_rank()), blocks = int(cluster.num_blocks());
    const int m = int(n - c0);
    const int first = rank * rowsPerBlock;  // slot of this block's row 0
    const int here = max(0, min(rowsPerBlock, m - first));
    const int stride = ib | 1;  // odd: the threads' rows fall in different banks
    T* rows = reinterpret_cast<T*>(clusterLeafShared);
    int* posOf = reinterpret_cast<int*>(rows + std::size_t(rowsPerBlock) * stride);
    const Exchange<T> exchange = exchangeIn<T>(clusterLeafShared, rowsPerBlock, ib, blocks);
    const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
    const int mine = rank * kClusterWarps + warp;  // this warp's place in the exchange
    T* top = a + std::size_t(c0) * n;  // leaf row r is matrix row c0 + r

    // One warp per row, a lane per column (ib <= 32): coalesced.
    for (int r = warp; r < here; r += kClusterWarps)
        if (lane < ib) rows[std::size_t(r) * stride + lane] = top[std::size_t(first + r) * n + c0 + lane];
    for (int r = tid; r < here; r += kClusterThreads) posOf[r] = first + r;
    if (tid == 0) {
        initBarrier(&arrived[0]);
        initBarrier(&arrived[1]);
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    // Every block of the cluster runs, its barriers made, before any pushes into its shared memory.
    cluster.sync();

    // Step j, part 1: the warp's best candidate goes to every block with the row it names, whose
    // lane-c value the lanes give (a warp without a candidate pushes zeros: every step's exchange is the
    // same size, which each block's barrier of that parity counts down).
    const auto push = [&](int j, const Candidate& best, T value) {
        const int at = (j & 1) * exchange.count + mine;
        const unsigned candidate = sharedAddress(&exchange.candidates[at]);
        const unsigned entry = sharedAddress(&exchange.rows[std::size_t(at) * kMaxLeaf + lane]);
        const unsigned barrier = sharedAddress(&arrived[j & 1]);
        if (lane < blocks) storeAsync(inBlock(candidate, lane), best, inBlock(barrier, lane));
        if (lane < ib)
            for (int b = 0; b < blocks; ++b) storeAsync(inBlock(entry, b), value, inBlock(barrier, b));
    };
    const unsigned stepBytes = unsigned(exchange.count) * unsigned(sizeof(Candidate) + std::size_t(ib) * sizeof(T));
    // Part 2: once this block's barrier has counted every warp's push, each warp reduces the candidates
    // on its own, in its block's copy: the largest magnitude, the lowest position on ties (the one-block
    // leaf's rule, so the same rows are chosen, as by the CPU reference). No cluster barrier, no block
    // barrier and no remote read on the column's critical path.
    struct Step {
        int pp, sp;           // the pivot's position and slot
        const T* pivotRow;    // in this block's exchange
        T pivot;
        bool bad;
    };
    const auto choosePivot = [&](int j) {
        if (tid == 0) arriveExpecting(&arrived[j & 1], stepBytes);
        waitForPhase(&arrived[j & 1], unsigned(j >> 1) & 1u);
        const int base = (j & 1) * exchange.count;
        Candidate best = noCandidate();
        int index = 0;
        for (int k = lane; k < exchange.count; k += 32) {
            const Candidate c = exchange.candidates[base + k];
            if (isBetter(c, best)) {
                best = c;
                index = k;
            }
        }
        int holder = 0;
        best = warpBestOf(best, holder);
        index = __shfl_sync(kAllLanes, index, holder);
        const T* pivotRow = exchange.rows + std::size_t(base + index) * kMaxLeaf;
        if (warp == 0) {  // for the moves and the solve after the steps
            if (lane < ib) leafTop[j][lane] = pivotRow[lane];
            if (lane == 0) pivotPos[j] = int(best.pos);
        }
        const T pivot = pivotRow[j];
        const bool bad = !(double(magnitudeOf(pivot)) > threshold);
        if (rank == 0 && tid == 0 && bad && *failedStep < 0) {
            *failedStep = int(c0) + j;
            *failedPivot = pivot;
        }
        return Step{int(best.pos), int(best.slot), pivotRow, pivot, bad};
    };

    // fp32 only: compiled for fp64 the two paths together spill 1.5 KB a thread, and as a kernel of its
    // own the fp64 register form spilled 756 bytes and was slower at every order (H200,
    // bench/results/h200/bitflag_lu_fp64_trials.md).
    if (sizeof(T) == 4 && ib == kMaxLeaf && rowsPerBlock <= 2 * kClusterThreads) {
        // A full-width leaf whose blocks hold at most two rows a thread (the automatic size, up to 4096
        // rows): the column steps on rows in registers, as the one-block leaf's register form (static
        // indices, the column loop unrolled), with the same arithmetic, so the factors stay the same bit
        // for bit. The warp's best candidate row goes from the lane that holds it through `staged` to the
        // lanes that push it, a value each.
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
            Candidate cand = hasA && posA >= j ? candidateOf(rowA[j], posA, slotA) : noCandidate();
            if (hasB && posB >= j) keepBetter(cand, candidateOf(rowB[j], posB, slotB));
            int holder = 0;
            const Candidate ofWarp = warpBestOf(cand, holder);
            const bool has = ofWarp.pos != UINT_MAX;
            if (has && lane == holder) {
                if (int(ofWarp.slot) == slotA)
#pragma unroll
                    for (int c = 0; c < kMaxLeaf; ++c) staged[warp][c] = rowA[c];
                else
#pragma unroll
                    for (int c = 0; c < kMaxLeaf; ++c) staged[warp][c] = rowB[c];
            }
            __syncwarp();
            push(j, ofWarp, has ? staged[warp][lane] : T(0));
            __syncwarp();  // read before the next step's holder writes
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
                    for (int c = j + 1; c < kMaxLeaf; ++c) rowA[c] -= l * step.pivotRow[c];
                }
                if (hasB && posB > j) {
                    const T l = rowB[j] / step.pivot;
                    rowB[j] = l;
#pragma unroll
                    for (int c = j + 1; c < kMaxLeaf; ++c) rowB[c] -= l * step.pivotRow[c];
                }
            }
        }
        // Back to shared memory for the moves below, as the other path leaves them (no other block reads
        // these rows: they went out through the exchange).
#pragma unroll
        for (int c = 0; c < kMaxLeaf; ++c) {
            if (hasA) rows[std::size_t(tid) * stride + c] = rowA[c];
            if (hasB) rows[std::size_t(tid + kClusterThreads) * stride + c] = rowB[c];
        }
        if (hasA) posOf[tid] = posA;
        if (hasB) posOf[tid + kClusterThreads] = posB;
    } else {
    Candidate cand = noCandidate();
    for (int r = tid; r < here; r += kClusterThreads) keepBetter(cand, candidateOf(rows[std::size_t(r) * stride], first + r, first + r));

    for (int j = 0; j < ib; ++j) {
        int holder = 0;
        const Candidate ofWarp = warpBestOf(cand, holder);
        const bool has = ofWarp.pos != UINT_MAX;
        __syncwarp();  // the row was updated by one of this warp's lanes in the step before
        push(j, ofWarp, has && lane < ib ? rows[std::size_t(int(ofWarp.slot) - first) * stride + lane] : T(0));
        const Step step = choosePivot(j);
        const int pp = step.pp, sp = step.sp;
        const T pivot = step.pivot;
        const bool bad = step.bad;
        cand = noCandidate();
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
                for (int c = j + 1; c < ib; ++c) row[c] -= l * step.pivotRow[c];
            }
            if (j + 1 < ib) keepBetter(cand, candidateOf(row[j + 1], pos, slot));
        }
    }
    }
    __syncthreads();  // the steps' pivotPos[], written by warp 0, and the rows' positions, read below

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
std::size_t clusterLeafBytes(int rowsPerBlock, int ib, int blocks) {
    return rowsAndPositionsBytes<T>(rowsPerBlock, ib) + exchangeBytes<T>(blocks);
}

template <typename T>
void launchClusterLeaf(T* a, Index n, Index p0, Index jb, Index c0, int ib, int blocks, int rowsPerBlock, double threshold,
                       int* pivots, int* failedStep, T* failedPivot, cudaStream_t stream) {
    cudaLaunchAttribute attributes[2];
    const cudaLaunchConfig_t config = clusterConfig(blocks, clusterLeafBytes<T>(rowsPerBlock, ib, blocks), stream, attributes);
    SPYGLASS_CUDA_CHECK(cudaLaunchKernelEx(&config, clusterLeafKernel<T>, a, n, p0, jb, c0, ib, rowsPerBlock, threshold, pivots,
                                           failedStep, failedPivot));
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

#define SPYGLASS_CLUSTER_LEAF(T)                                                                                         \
    template ClusterLeafLimits clusterLeafLimits<T>();                                                                  \
    template std::size_t clusterLeafBytes<T>(int, int, int);                                                               \
    template void launchClusterLeaf<T>(T*, Index, Index, Index, Index, int, int, int, double, int*, int*, T*, cudaStream_t);
SPYGLASS_CLUSTER_LEAF(float)
SPYGLASS_CLUSTER_LEAF(double)

} // namespace spyglass::cuda
