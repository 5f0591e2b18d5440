// Method E, for the benchmark only: 8x8 f32 with two lanes a matrix, in tiles small enough for the
// copy through the SMs to reach 92 % of the copy bandwidth (issue 31), to measure what the
// elimination costs in that shape.
// Why it exists: a copy whose blocks each move one small piece and leave keeps up with cudaMemcpy,
// but with one thread a matrix a warp's tile is 32 matrices, 8 KiB at 8x8 f32, and no structure of
// 8 KiB tiles moved these bytes above 91.2 % of the copy bandwidth even with the elimination left out
// (bench/results/h200/batched_inverse_tma_trials.md). Two lanes a matrix halve the tile to 4 KiB;
// then the loads and stores alone pass 92 %, and the question is what splitting the elimination over
// two lanes costs. The benchmark prints both (rows "paired lanes"); the library never launches this.
//
// Layout: lane 2m + h of a warp holds matrix m's columns 4h .. 4h + 3, its contiguous 128 bytes of the
// column-major matrix. The batch is viewed as 2-D (128 bytes, 2 * count rows); a warp's tile is the box
// of 32 rows (16 matrices), row l for lane l, 128-byte swizzle (lane l reads chunk c at c ^ (l % 8):
// eight lanes a phase on eight positions, no bank conflicts). Blocks of 4 warps each take one tile a
// warp and leave, so the hardware hands out the tiles in order.
//
// The elimination takes the thread-per-matrix kernel's pivots, swaps and arithmetic exactly
// (eliminateInRegisters): the same inverses and statuses bit for bit. The row swaps stay within each
// lane (both hold all eight rows); a column swap between the halves, the pivot column and the search's
// maxima cross by shuffles between the pair.
#include "batchedinverse_math.cuh"
#include "batchedinverse_registerelimination.cuh"
#include "batchedinverse_tmacopy.cuh"
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/cuda/cudacheck.h"

#include <array>
#include <cstdint>
#include <string>

namespace spyglass::cuda {

namespace {
using namespace inverse;

constexpr int kPairOrder = 8;
constexpr int kPairColumns = 4;           // columns a lane holds: half the matrix
constexpr int kPairLaneBytes = 128;       // its bytes: one 128-byte row of the tile
constexpr int kPairMatricesPerWarp = 16;  // a warp's tile: 32 rows of 128 bytes, 4 KiB
constexpr int kPairTileBytes = 32 * kPairLaneBytes;
constexpr int kPairWarpsPerBlock = 4;
// 80 registers a thread (no spills): 24 warps a SM. Unbounded, the elimination takes 108 and 16 warps,
// 0.29 against 0.26 ms at 10^6 on the H200 (bench/results/h200/batched_inverse_tma_trials.md).
constexpr int kPairBlocksPerSm = 6;
constexpr int kPairSharedBytes = kPairWarpsPerBlock * (kPairTileBytes + 8) + 1024;  // + a barrier a warp, + alignment

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ __forceinline__ void loadPairTile(unsigned to, const CUtensorMap* map, int firstRow, unsigned barrier) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {0, %2}], [%3];" ::"r"(to),
                 "l"(reinterpret_cast<unsigned long long>(map)), "r"(firstRow), "r"(barrier)
                 : "memory");
}
__device__ __forceinline__ void storePairTile(const CUtensorMap* map, int firstRow, unsigned from) {
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {0, %1}], [%2];" ::"l"(
                     reinterpret_cast<unsigned long long>(map)),
                 "r"(firstRow), "r"(from)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
#endif

using PairColumns = float[kPairOrder][kPairColumns];

// Step K of eliminateInRegisters over a pair: `half` (0 or 1) holds columns 4 * half .. 4 * half + 3.
// Both lanes of a pair compute the same pivot, targets, bound and status.
template <int K>
__device__ __forceinline__ void eliminatePaired(PairColumns& a, int half, unsigned& rowTarget, unsigned& colTarget, float& bound,
                                                int& status) {
    if constexpr (K < kPairOrder) {
        constexpr unsigned all = 0xffffffffu;
        constexpr int ownerOfK = K / kPairColumns, k = K % kPairColumns;  // column K is the owner's local column k
        const bool ownsK = half == ownerOfK;
        bool candidate[kPairColumns];  // local column j is in the trailing block (global column >= K)
#pragma unroll
        for (int j = 0; j < kPairColumns; ++j) candidate[j] = j >= K || half * kPairColumns + j >= K;
        // The largest magnitude and the first row holding it, over this lane's half, then over the pair
        // (equal maxima: the smaller row, which is the row-major first one).
        float best = -1;
        int p = K;
#pragma unroll
        for (int i = K; i < kPairOrder; ++i) {
            float rowBest = -1;
#pragma unroll
            for (int j = 0; j < kPairColumns; ++j) rowBest = largerOf(rowBest, candidate[j] ? magnitude(a[i][j]) : -1.0f);
            const bool better = rowBest > best;
            best = better ? rowBest : best;
            p = better ? i : p;
        }
        {
            const float otherBest = __shfl_xor_sync(all, best, 1);
            const int otherP = __shfl_xor_sync(all, p, 1);
            const bool take = otherBest > best || (otherBest == best && otherP < p);
            best = take ? otherBest : best;
            p = take ? otherP : p;
        }
        if (K == 0) bound = tinyPivotBound(best, float{});
        if (status == 0 && !(best > bound)) status = K + 1;
        moveRowIntoPlace<float, kPairOrder, K>(a, p);
        // The pivot column: the first in row K holding the maximum (the first half's before the second's).
        int mine = kPairOrder;
#pragma unroll
        for (int j = kPairColumns - 1; j >= 0; --j) mine = candidate[j] && magnitude(a[K][j]) == best ? half * kPairColumns + j : mine;
        const int found = min(mine, __shfl_xor_sync(all, mine, 1));
        const int q = found == kPairOrder ? K : found;
        rowTarget = swapPositions<K>(rowTarget, q);
        colTarget = swapPositions<K>(colTarget, p);
        // Column swap K <-> q: within the owner's half, or across the pair (only while K is in the first).
        const int ownerOfQ = q / kPairColumns, localQ = q % kPairColumns;
#pragma unroll
        for (int j = k + 1; j < kPairColumns; ++j)
            if (ownsK && ownerOfQ == ownerOfK && localQ == j) {
#pragma unroll
                for (int i = 0; i < kPairOrder; ++i) swapValues(a[i][k], a[i][j]);
            }
        if constexpr (ownerOfK == 0) {
            const bool across = ownerOfQ != ownerOfK;
#pragma unroll
            for (int i = 0; i < kPairOrder; ++i) {
                float sent = a[i][0];  // the owner of K sends column K, the other lane its column q
#pragma unroll
                for (int j = 1; j < kPairColumns; ++j) sent = j == localQ ? a[i][j] : sent;
                sent = ownsK ? a[i][k] : sent;
                const float received = __shfl_xor_sync(all, sent, 1);
                if (across) {
                    if (ownsK) a[i][k] = received;
                    else {
#pragma unroll
                        for (int j = 0; j < kPairColumns; ++j)
                            if (j == localQ) a[i][j] = received;
                    }
                }
            }
        }
        // Eliminate column K (eliminateAtPivot): its entries come from the owner.
        float columnK[kPairOrder];
#pragma unroll
        for (int i = 0; i < kPairOrder; ++i) columnK[i] = __shfl_sync(all, a[i][k], ownerOfK, 2);
        const float r = reciprocal(columnK[K]);
#pragma unroll
        for (int j = 0; j < kPairColumns; ++j) a[K][j] = j == k && ownsK ? r : a[K][j] * r;
#pragma unroll
        for (int i = 0; i < kPairOrder; ++i) {
            if (i == K) continue;
            const float aik = columnK[i];
#pragma unroll
            for (int j = 0; j < kPairColumns; ++j) {
                const float updated = mulSub(a[i][j], aik, a[K][j]);
                a[i][j] = j == k && ownsK ? -(aik * r) : updated;
            }
        }
        eliminatePaired<K + 1>(a, half, rowTarget, colTarget, bound, status);
    }
}

// Eliminate = false: the loads and stores alone (out = in, statuses 0).
template <bool Eliminate>
__global__ void __launch_bounds__(kPairWarpsPerBlock * 32, kPairBlocksPerSm)
pairedLanesKernel(const __grid_constant__ CUtensorMap inMap, const __grid_constant__ CUtensorMap outMap, int* __restrict__ info,
                  long long count) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    __trap();  // never launched there: the launcher checks the compute capability first
#else
    extern __shared__ unsigned char pairShared[];
    unsigned char* const aligned =
        reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(pairShared) + 1023) & ~std::uintptr_t(1023));
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    const int half = lane % 2, matrixInTile = lane / 2;
    unsigned char* const tile = aligned + warp * kPairTileBytes;
    const unsigned arrived = sharedAddress(reinterpret_cast<unsigned long long*>(aligned + kPairWarpsPerBlock * kPairTileBytes) + warp);
    const long long tileIndex = static_cast<long long>(blockIdx.x) * kPairWarpsPerBlock + warp;
    if (tileIndex * kPairMatricesPerWarp >= count) return;
    const int firstRow = static_cast<int>(tileIndex * 32);
    if (lane == 0) {
        initBarrier(arrived);
        fenceForTma();
        expectBytes(arrived, kPairTileBytes);  // a partial last tile counts whole: the TMA fills rows past the end with zeros
        loadPairTile(sharedAddress(tile), &inMap, firstRow, arrived);
    }
    __syncwarp();
    waitParity(arrived, 0);
    PairColumns a;
#pragma unroll
    for (int c = 0; c < kPairLaneBytes / 16; ++c) {  // chunk c: column c / 2, rows 4 * (c % 2) .. + 3
        const float4 v = *reinterpret_cast<const float4*>(tile + swizzled(lane * kPairLaneBytes + c * 16));
        const int j = c / 2, i = 4 * (c % 2);
        a[i][j] = v.x;
        a[i + 1][j] = v.y;
        a[i + 2][j] = v.z;
        a[i + 3][j] = v.w;
    }
    __syncwarp();  // the pair writes its results over both halves of its matrix
    int status = 0;
    unsigned rowTarget = kIdentityPositions, colTarget = kIdentityPositions;
    if constexpr (Eliminate) {
        float zeros = 0;  // x * 0 summed: NaN for an infinite or NaN entry in either half
#pragma unroll
        for (int i = 0; i < kPairOrder; ++i)
#pragma unroll
            for (int j = 0; j < kPairColumns; ++j) zeros = addZeroTimes(a[i][j], zeros);
        const float otherZeros = __shfl_xor_sync(0xffffffffu, zeros, 1);  // both lanes shuffle: outside the condition
        const bool finite = zeros == 0 && otherZeros == 0;
        status = finite ? 0 : kInverseNonFiniteInput;
        float bound = 0;
        eliminatePaired<0>(a, half, rowTarget, colTarget, bound, status);
        if (status != 0) {
#pragma unroll
            for (int i = 0; i < kPairOrder; ++i)
#pragma unroll
                for (int j = 0; j < kPairColumns; ++j) a[i][j] = scalarNaN<float>();
        }
    }
    // Register (i, j) of this half goes to row rowTarget[i], column colTarget[4 * half + j] of the
    // matrix, which may lie in the other lane's half: the pair's 256 bytes are rows 2m and 2m + 1.
    unsigned rowOffset[kPairOrder];
#pragma unroll
    for (int i = 0; i < kPairOrder; ++i) rowOffset[i] = positionOf(rowTarget, i) * 4u;
#pragma unroll
    for (int j = 0; j < kPairColumns; ++j) {
        const unsigned column = swizzled(matrixInTile * 256 + positionOf(colTarget, half * kPairColumns + j) * 32);
#pragma unroll
        for (int i = 0; i < kPairOrder; ++i) *reinterpret_cast<float*>(tile + (column ^ rowOffset[i])) = a[i][j];
    }
    fenceForTma();
    __syncwarp();
    if (lane == 0) {
        storePairTile(&outMap, firstRow, sharedAddress(tile));  // rows past the end are not written
        waitStoreRead();  // the block's shared memory must outlive the TMA's reads of it
    }
    const long long matrix = tileIndex * kPairMatricesPerWarp + matrixInTile;
    if (half == 0 && matrix < count) info[matrix] = status;
#endif
}

// The batch as 2-D (128 bytes, 2 * count rows), box 32 rows, 128-byte swizzle.
CUtensorMap pairTensorMapOf(const void* data, long long count) {
    CUtensorMap map;
    const cuuint64_t size[2] = {kPairLaneBytes, static_cast<cuuint64_t>(2 * count)};
    const cuuint64_t pitch[1] = {kPairLaneBytes};
    const cuuint32_t box[2] = {kPairLaneBytes, 32};
    const cuuint32_t step[2] = {1, 1};
    const CUresult result = tensorMapEncoder()(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 2, const_cast<void*>(data), size, pitch, box, step,
                                               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS)
        throw DeviceError("paired-lanes inverse: cuTensorMapEncodeTiled failed (" + std::to_string(static_cast<int>(result)) + ")",
                          __FILE__, __LINE__);
    return map;
}

// Maps of recent (in, out, count) per thread, so that a timed launch does no host work beyond it: the
// checks that need driver calls (compute capability, memory type) run only when a map is made.
struct PairMaps {
    const void* in = nullptr;
    const void* out = nullptr;
    long long count = 0;
    int device = -1;
    CUtensorMap inMap{}, outMap{};
};
const PairMaps& pairMapsFor(const void* in, const void* out, long long count, int device) {
    thread_local std::array<PairMaps, 4> cache;
    thread_local std::size_t next = 0;
    for (const PairMaps& maps : cache)
        if (maps.in == in && maps.out == out && maps.count == count && maps.device == device) return maps;
    int major = 0;
    SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    if (major < 9) throw DeviceError("paired-lanes inverse: needs sm_90 or later", __FILE__, __LINE__);
    if ((reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16 != 0 || !isMemoryOf(in, device) ||
        !isMemoryOf(out, device))
        throw DeviceError("paired-lanes inverse: needs 16-byte aligned memory of this GPU", __FILE__, __LINE__);
    PairMaps& maps = cache[next++ % cache.size()];
    maps.inMap = pairTensorMapOf(in, count);
    maps.outMap = pairTensorMapOf(out, count);
    maps.in = in;
    maps.out = out;
    maps.count = count;
    maps.device = device;
    return maps;
}
} // namespace

void launchPairedLanesInverse(const float* in, float* out, int* info, std::int64_t count, bool eliminate, cudaStream_t stream) {
    if (count <= 0) return;
    int device = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
    if (count >= (1ll << 30) - 16)  // the TMA's row coordinate (2 * count) is a 32-bit signed integer
        throw InputError("paired-lanes inverse: " + std::to_string(count) + " matrices are more than one launch addresses");
    const PairMaps& maps = pairMapsFor(in, out, count, device);
    const long long tiles = (count + kPairMatricesPerWarp - 1) / kPairMatricesPerWarp;
    const auto blocks = static_cast<unsigned>((tiles + kPairWarpsPerBlock - 1) / kPairWarpsPerBlock);
    if (eliminate)
        pairedLanesKernel<true><<<blocks, kPairWarpsPerBlock * 32, kPairSharedBytes, stream>>>(maps.inMap, maps.outMap, info, count);
    else
        pairedLanesKernel<false><<<blocks, kPairWarpsPerBlock * 32, kPairSharedBytes, stream>>>(maps.inMap, maps.outMap, info, count);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

} // namespace spyglass::cuda
