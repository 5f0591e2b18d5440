// One thread per matrix (orders 1..8) in persistent blocks that overlap memory with compute.
// Why: at 1e6 x 8x8 f32 the thread-per-matrix kernel spends about as long in its load and store
// phases as in the elimination, and the two barely overlap (0.30 ms = 57 % of copy bandwidth).
// Here each block walks over tiles of B matrices with two shared-memory buffers:
//   in:  the next tile arrives by cp.async (16-byte chunks where the matrix size allows, no
//        registers held, a whole tile in flight per block) while the current tile is eliminated;
//   out: results are written there at their permuted positions, then leave in coalesced chunks.
// Each matrix occupies an odd number of chunks in shared memory, so a thread reading its own matrix
// chunk by chunk hits distinct banks. The elimination is batchedinverse_registerelimination.cuh.
// The staged form (Buffers = 1) keeps one tile buffer per block, used for the input and then for the
// results: a block loads, eliminates and stores in turn, and the overlap comes from the other blocks
// on the multiprocessor instead. Why: Nsight Compute on the H100 (8x8 f32, 10^6) put the two-buffer
// form at 12 warps per SM (three blocks fit its ~70 KiB), ALU 68 % busy and one eligible warp per
// scheduler: the elimination's selects, not the memory, were waiting. Half the shared memory lets
// five blocks (the register limit at 96 registers) share an SM: 20 warps.
#include "batchedinverse_instances.h"
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "batchedinverse_math.cuh"
#include "batchedinverse_registerelimination.cuh"
#include "spyglass/cuda/cudacheck.h"

#include <cstdint>
#include <cstring>
#include <string>

namespace spyglass::cuda {

namespace {
using namespace inverse;

template <int Bytes> struct ChunkOf;
template <> struct ChunkOf<4> { using type = unsigned; };
template <> struct ChunkOf<8> { using type = uint2; };
template <> struct ChunkOf<16> { using type = uint4; };

// A matrix of `bytes` moves in chunks of 16, 8 or 4 bytes; its shared-memory slot is an odd number of
// chunks (conflict-free per-thread reads).
constexpr int chunkBytesFor(int bytes) { return bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : 4; }
constexpr int slotBytesFor(int bytes) { return ((bytes / chunkBytesFor(bytes)) | 1) * chunkBytesFor(bytes); }
// Tiles of B matrices; two buffers of a tile stay within about 70 KiB, so three blocks share an SM.
constexpr int kTileBudget = 72 * 1024;
constexpr int defaultTileFor(int bytes) {
    return 2 * 128 * slotBytesFor(bytes) <= kTileBudget ? 128 : 2 * 64 * slotBytesFor(bytes) <= kTileBudget ? 64 : 32;
}

template <typename T, int N, int Requested = 0, int Buffers = 2> struct PipelinedShape {
    static constexpr int kBytes = N * N * static_cast<int>(sizeof(T));
    static constexpr int kChunk = chunkBytesFor(kBytes);
    static constexpr int kChunks = kBytes / kChunk;
    static constexpr int kSlotBytes = slotBytesFor(kBytes);
    static constexpr int kDefault = defaultTileFor(kBytes);
    static constexpr int kThreads = Requested > 0 && Requested < kDefault ? Requested : kDefault;
    static constexpr int kSharedBytes = Buffers * kThreads * kSlotBytes;
    // The pipelined form (Buffers = 2) adds a copy warp and two barriers per slot pair.
    static constexpr int kBlockThreads = Buffers == 2 ? kThreads + 32 : kThreads;
    static constexpr int kBarrierBytes = Buffers == 2 ? 2 * 2 * (kThreads / 32) * 8 : 0;
    static constexpr int kLaunchSharedBytes = kBarrierBytes + kSharedBytes;
};

template <int Bytes> __device__ __forceinline__ void copyAsync(void* shared, const void* global) {
    const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(shared));
    if constexpr (Bytes == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(to), "l"(global) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(to), "l"(global), "n"(Bytes) : "memory");
}
__device__ __forceinline__ void commitAsync() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void waitAsync() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }

// Shared-memory barriers (mbarrier) between the copy warp and the elimination warps of the pipelined
// kernel. Each has a phase that completes when its expected arrivals are in; a waiter names the parity
// of the phase it waits for (the k-th completion has parity k & 1). Arrive and wait carry release and
// acquire semantics at block scope, so shared-memory writes before an arrival are seen after the wait.
__device__ __forceinline__ unsigned sharedAddress(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void initBarrier(unsigned long long* barrier, unsigned arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(sharedAddress(barrier)), "r"(arrivals) : "memory");
}
__device__ __forceinline__ void arriveAtBarrier(unsigned long long* barrier) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(sharedAddress(barrier)) : "memory");
}
// The arrival happens when this thread's earlier cp.async copies have landed.
__device__ __forceinline__ void arriveWhenCopiesLand(unsigned long long* barrier) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(sharedAddress(barrier)) : "memory");
}
__device__ __forceinline__ void waitForPhase(unsigned long long* barrier, unsigned parity) {
    unsigned done = 0;
    do {
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(sharedAddress(barrier)), "r"(parity)
                     : "memory");
    } while (!done);
}

// One thread's matrix from its shared-memory slot (column-major, chunk by chunk) into registers.
template <typename T, int N, typename Chunk, int C> __device__ __forceinline__ void loadFromSlot(T (&a)[N][N], const unsigned char* slot) {
    Chunk raw[C];
#pragma unroll
    for (int c = 0; c < C; ++c) raw[c] = reinterpret_cast<const Chunk*>(slot)[c];
    T flat[N * N];
    memcpy(flat, raw, sizeof(flat));
#pragma unroll
    for (int j = 0; j < N; ++j)
#pragma unroll
        for (int i = 0; i < N; ++i) a[i][j] = flat[j * N + i];
}

// Inverts the matrix in registers and writes the inverse column-major into `slot`; returns the status.
template <typename T, int N> __device__ __forceinline__ int invertIntoSlot(T (&a)[N][N], unsigned char* slot) {
    RealOf<T> zeros[4] = {0, 0, 0, 0};  // four independent chains
#pragma unroll
    for (int i = 0; i < N; ++i)
#pragma unroll
        for (int j = 0; j < N; ++j) zeros[(i * N + j) % 4] = addZeroTimes(a[i][j], zeros[(i * N + j) % 4]);
    const bool finite = (zeros[0] + zeros[1]) + (zeros[2] + zeros[3]) == 0;
    int status = finite ? 0 : kInverseNonFiniteInput;
    unsigned rowTarget = kIdentityPositions, colTarget = kIdentityPositions;
    RealOf<T> bound = 0;
    eliminateInRegisters<T, N, 0>(a, rowTarget, colTarget, bound, status);
    T* const result = reinterpret_cast<T*>(slot);
    storeAtTargets(result, a, rowTarget, colTarget);
    // A failed matrix is all NaN: written over the slot in a branch that only failed matrices take,
    // instead of a select per entry for every matrix.
    if (status != 0) {
        const T nan = scalarNaN<T>();
#pragma unroll
        for (int e = 0; e < N * N; ++e) result[e] = nan;
    }
    return status;
}

template <typename T, int N, int Requested, int Buffers>
__global__ void __launch_bounds__(PipelinedShape<T, N, Requested, Buffers>::kThreads)
pipelinedKernel(const T* __restrict__ in, T* __restrict__ out, int* __restrict__ info, long long count) {
    using Shape = PipelinedShape<T, N, Requested, Buffers>;
    using Chunk = typename ChunkOf<Shape::kChunk>::type;
    constexpr int B = Shape::kThreads, C = Shape::kChunks, V = Shape::kChunk, Slot = Shape::kSlotBytes;
    extern __shared__ __align__(16) unsigned char shared[];
    unsigned char* const inTile = shared;
    unsigned char* const outTile = Buffers == 2 ? shared + B * Slot : shared;
    const char* const source = reinterpret_cast<const char*>(in);
    char* const target = reinterpret_cast<char*>(out);
    const int t = threadIdx.x;
    const long long tiles = (count + B - 1) / B;

    auto fetch = [&](long long tile) {
        const long long first = tile * B;
        const int chunks = static_cast<int>(min(static_cast<long long>(B), count - first)) * C;
        const char* from = source + first * Shape::kBytes;
        for (int c = t; c < chunks; c += B) copyAsync<V>(inTile + (c / C) * Slot + (c % C) * V, from + c * V);
        commitAsync();
    };

    long long tile = blockIdx.x;
    if (tile < tiles) fetch(tile);
    for (; tile < tiles; tile += gridDim.x) {
        const long long first = tile * B;
        const int here = static_cast<int>(min(static_cast<long long>(B), count - first));
        waitAsync();
        __syncthreads();  // the tile is in; the previous tile's results have left outTile

        const bool mine = t < here;
        T a[N][N];
        if (mine) loadFromSlot<T, N, Chunk, C>(a, inTile + t * Slot);
        __syncthreads();  // inTile is read: the next tile may stream in during the elimination
        if (Buffers == 2 && tile + gridDim.x < tiles) fetch(tile + gridDim.x);

        if (mine) info[first + t] = invertIntoSlot(a, outTile + t * Slot);
        __syncthreads();
        char* to = target + first * Shape::kBytes;
        for (int c = t; c < here * C; c += B)
            reinterpret_cast<Chunk*>(to)[c] = *reinterpret_cast<const Chunk*>(outTile + (c / C) * Slot + (c % C) * V);
        if (Buffers == 1 && tile + gridDim.x < tiles) {
            __syncthreads();  // the results have left the one buffer: the next tile may come in
            fetch(tile + gridDim.x);
        }
    }
}

// The pipelined form: each block has B / 32 elimination warps and one copy warp. Every elimination
// warp owns two slots of 32 matrices; while it eliminates the matrices of one slot, the copy warp
// stores the results of its other slot and fetches the next input into it (cp.async, its landing
// signalled on a barrier). The elimination warps never touch global memory other than the status, and
// never wait for each other: the loads and stores run beside the elimination instead of between its
// rounds. Slot (w, s) holds, in turn: an input (landed[w][s]), the warp's results (solved[w][s]),
// then the next input.
template <typename T, int N, int Requested>
__global__ void __launch_bounds__(PipelinedShape<T, N, Requested, 2>::kBlockThreads)
copyWarpKernel(const T* __restrict__ in, T* __restrict__ out, int* __restrict__ info, long long count) {
    using Shape = PipelinedShape<T, N, Requested, 2>;
    using Chunk = typename ChunkOf<Shape::kChunk>::type;
    constexpr int B = Shape::kThreads, W = B / 32, C = Shape::kChunks, V = Shape::kChunk, Slot = Shape::kSlotBytes;
    constexpr int WarpSlot = 32 * Slot;
    extern __shared__ __align__(16) unsigned char shared[];
    auto* const landed = reinterpret_cast<unsigned long long*>(shared);  // [W][2]
    auto* const solved = landed + 2 * W;                                 // [W][2]
    unsigned char* const slots = shared + Shape::kBarrierBytes;          // slot (w, s) at (2w + s) * WarpSlot
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const long long blockTiles = (count + B - 1) / B;
    if (threadIdx.x == 0) {
        for (int b = 0; b < 2 * W; ++b) {
            initBarrier(landed + b, 32);
            initBarrier(solved + b, 32);
        }
    }
    __syncthreads();
    // Iteration i of this block covers block tile blockIdx.x + i * gridDim.x; warp w takes its 32
    // matrices from tile * B + 32 w (fewer, or none, in the last tile).
    auto tileOf = [&](long long i) { return blockIdx.x + i * gridDim.x; };
    auto matricesAt = [&](long long first) { return first < count ? static_cast<int>(min(32LL, count - first)) : 0; };

    if (warp == W) {
        const char* const source = reinterpret_cast<const char*>(in);
        char* const target = reinterpret_cast<char*>(out);
        auto fetch = [&](long long i, int w) {
            const long long first = tileOf(i) * B + 32 * w;
            const int chunks = matricesAt(first) * C;
            unsigned char* const slot = slots + (2 * w + (i & 1)) * WarpSlot;
            const char* const from = source + first * Shape::kBytes;
            if (chunks == 32 * C) {
#pragma unroll
                for (int k = 0; k < C; ++k) {
                    const int c = lane + 32 * k;
                    copyAsync<V>(slot + (c / C) * Slot + (c % C) * V, from + c * V);
                }
            } else {
                for (int c = lane; c < chunks; c += 32) copyAsync<V>(slot + (c / C) * Slot + (c % C) * V, from + c * V);
            }
            arriveWhenCopiesLand(landed + 2 * w + (i & 1));
        };
        for (long long i = 0; i < 2 && tileOf(i) < blockTiles; ++i)
            for (int w = 0; w < W && matricesAt(tileOf(i) * B + 32 * w) > 0; ++w) fetch(i, w);
        for (long long i = 0; tileOf(i) < blockTiles; ++i) {
            for (int w = 0; w < W; ++w) {
                const long long first = tileOf(i) * B + 32 * w;
                const int here = matricesAt(first);
                if (here == 0) break;  // the later warps of the last tile have nothing either
                waitForPhase(solved + 2 * w + (i & 1), static_cast<unsigned>(i >> 1) & 1u);
                const unsigned char* const slot = slots + (2 * w + (i & 1)) * WarpSlot;
                Chunk* const to = reinterpret_cast<Chunk*>(target + first * Shape::kBytes);
                if (here == 32) {
                    // A whole slot: groups of loads from shared memory, then their stores, so that a
                    // group's loads are in flight together instead of one load's latency per store.
                    constexpr int G = C < 8 ? C : 8;
#pragma unroll
                    for (int k0 = 0; k0 < C; k0 += G) {
                        Chunk v[G];
#pragma unroll
                        for (int k = 0; k < G && k0 + k < C; ++k) {
                            const int c = lane + 32 * (k0 + k);
                            v[k] = *reinterpret_cast<const Chunk*>(slot + (c / C) * Slot + (c % C) * V);
                        }
#pragma unroll
                        for (int k = 0; k < G && k0 + k < C; ++k) to[lane + 32 * (k0 + k)] = v[k];
                    }
                } else {
                    for (int c = lane; c < here * C; c += 32) to[c] = *reinterpret_cast<const Chunk*>(slot + (c / C) * Slot + (c % C) * V);
                }
                __syncwarp();  // every lane has read the results: the slot may be refilled
                if (tileOf(i + 2) < blockTiles && matricesAt(tileOf(i + 2) * B + 32 * w) > 0) fetch(i + 2, w);
            }
        }
        return;
    }
    for (long long i = 0; tileOf(i) < blockTiles; ++i) {
        const long long first = tileOf(i) * B + 32 * warp;
        const int here = matricesAt(first);
        if (here == 0) break;
        waitForPhase(landed + 2 * warp + (i & 1), static_cast<unsigned>(i >> 1) & 1u);
        unsigned char* const slot = slots + (2 * warp + (i & 1)) * WarpSlot + lane * Slot;
        if (lane < here) {
            T a[N][N];
            loadFromSlot<T, N, Chunk, C>(a, slot);
            info[first + lane] = invertIntoSlot(a, slot);
        }
        arriveAtBarrier(solved + 2 * warp + (i & 1));
    }
}

// Persistent grid: as many blocks as fit on the device at once (fewer for small batches). The
// occupancy query and the shared-memory opt-in are done once per thread and device, because a
// host call between the timing event and the launch would show up in short kernels' times.
template <typename D, int N, int Requested, int Buffers>
void launchShaped(const D* in, D* out, int* info, long long count, cudaStream_t stream) {
    using Shape = PipelinedShape<D, N, Requested, Buffers>;
    const auto kernel = [] {
        if constexpr (Buffers == 2) return &copyWarpKernel<D, N, Requested>;
        else return &pipelinedKernel<D, N, Requested, Buffers>;
    }();
    thread_local int cachedDevice = -1, cachedBlocks = 0;
    int device = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
    if (device != cachedDevice) {
        SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Shape::kLaunchSharedBytes));
        int perSm = 0, sms = 0;
        SPYGLASS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, Shape::kBlockThreads, Shape::kLaunchSharedBytes));
        SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        if (perSm < 1)
            throw DeviceError(std::string(Buffers == 2 ? "pipelined" : "staged") + " inverse: a block of " + std::to_string(Shape::kBlockThreads) + " threads with " +
                                  std::to_string(Shape::kLaunchSharedBytes) + " bytes of shared memory does not fit this GPU",
                              __FILE__, __LINE__);
        cachedBlocks = perSm * sms;
        cachedDevice = device;
    }
    const long long tiles = (count + Shape::kThreads - 1) / Shape::kThreads;
    const long long blocks = tiles < cachedBlocks ? tiles : cachedBlocks;
    kernel<<<static_cast<unsigned>(blocks), Shape::kBlockThreads, Shape::kLaunchSharedBytes, stream>>>(in, out, info, count);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template <typename D> int chunkBytesOf(int n) {
    int bytes = 0;
    withOrder(n, [&](auto order) { bytes = PipelinedShape<D, decltype(order)::value>::kChunk; });
    return bytes;
}

// Both tiled forms: Buffers = 2 (pipelined) or 1 (staged).
template <int Buffers, typename T>
void launchTiledInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock, cudaStream_t stream) {
    if (count <= 0) return;
    if (n < 1 || n > 8)
        throw InputError(std::string(Buffers == 2 ? "pipelined" : "staged") + " inverse: order " + std::to_string(n) +
                         " is outside 1..8");
    using D = typename DeviceScalar<T>::type;
    // cp.async needs chunk-aligned addresses; buffers from cudaMalloc always are, an offset view
    // into one may not be: that case goes to the thread-per-matrix kernel, which has no such need.
    const auto misalignment = (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) %
                              static_cast<std::uintptr_t>(chunkBytesOf<D>(n));
    if (misalignment != 0) {
        launchThreadPerMatrixInverse(in, out, info, n, count, matricesPerBlock, stream);
        return;
    }
    const D* din = reinterpret_cast<const D*>(in);
    D* dout = reinterpret_cast<D*>(out);
    launchInstance(n, matricesPerBlock, [&](auto order, auto requested) {
        launchShaped<D, decltype(order)::value, decltype(requested)::value, Buffers>(din, dout, info, count, stream);
    });
}
} // namespace

int tiledInverseMatricesPerTile(int n, std::size_t elementBytes) {
    return defaultTileFor(n * n * static_cast<int>(elementBytes));
}

int pipelinedInverseSharedBytes(int n, std::size_t elementBytes) {
    const int bytes = n * n * static_cast<int>(elementBytes);
    return 2 * defaultTileFor(bytes) * slotBytesFor(bytes);
}

template <typename T>
void launchPipelinedInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock,
                            cudaStream_t stream) {
    launchTiledInverse<2>(in, out, info, n, count, matricesPerBlock, stream);
}

template <typename T>
void launchStagedInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock,
                         cudaStream_t stream) {
    launchTiledInverse<1>(in, out, info, n, count, matricesPerBlock, stream);
}

template void launchStagedInverse<float>(const float*, float*, int*, int, std::int64_t, int, cudaStream_t);
template void launchStagedInverse<double>(const double*, double*, int*, int, std::int64_t, int, cudaStream_t);
template void launchStagedInverse<std::complex<float>>(const std::complex<float>*, std::complex<float>*, int*, int,
                                                       std::int64_t, int, cudaStream_t);
template void launchStagedInverse<std::complex<double>>(const std::complex<double>*, std::complex<double>*, int*, int,
                                                        std::int64_t, int, cudaStream_t);
template void launchPipelinedInverse<float>(const float*, float*, int*, int, std::int64_t, int, cudaStream_t);
template void launchPipelinedInverse<double>(const double*, double*, int*, int, std::int64_t, int, cudaStream_t);
template void launchPipelinedInverse<std::complex<float>>(const std::complex<float>*, std::complex<float>*, int*, int,
                                                          std::int64_t, int, cudaStream_t);
template void launchPipelinedInverse<std::complex<double>>(const std::complex<double>*, std::complex<double>*, int*,
                                                           int, std::int64_t, int, cudaStream_t);

} // namespace spyglass::cuda
