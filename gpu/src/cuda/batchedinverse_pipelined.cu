// One thread per matrix (orders 1..8) in persistent blocks that overlap memory with compute.
// Why: at 1e6 x 8x8 f32 the thread-per-matrix kernel spends about as long in its load and store
// phases as in the elimination, and the two barely overlap (0.30 ms = 57 % of copy bandwidth).
// Here each block walks over tiles of B matrices with two shared-memory buffers:
//   in:  the next tile arrives by cp.async (16-byte chunks where the matrix size allows, no
//        registers held, a whole tile in flight per block) while the current tile is eliminated;
//   out: results are written there at their permuted positions, then leave in coalesced chunks
//        while the next tile is eliminated, a share of each thread's chunks after every elimination
//        step (a phase of stores between tiles left the memory idle while the block computed and the
//        arithmetic idle while it stored: 8x8 f32 0.1630 ms then, 0.1585 ms after on the H200,
//        bench/results/h200/batched_inverse_before_tma.md).
// Each matrix occupies an odd number of chunks in shared memory, so a thread reading its own matrix
// chunk by chunk hits distinct banks. The elimination is batchedinverse_registerelimination.cuh.
// The staged form (Buffers = 1) keeps one tile buffer per block, used for the input and then for the
// results: a block loads, eliminates and stores in turn, and the overlap comes from the other blocks
// on the multiprocessor instead. Why: Nsight Compute on the H100 (8x8 f32, 10^6) put the two-buffer
// form at 12 warps per SM (three blocks fit its ~70 KiB), ALU 68 % busy and one eligible warp per
// scheduler: the elimination's selects, not the memory, were waiting. Half the shared memory lets
// more blocks share an SM: four at 8x8 f32 (its 128 registers a thread), 16 warps. Capping the
// registers for five blocks (20 warps, 96 registers) did not move it (0.1670 against 0.1668 ms).
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

    // The pipelined form's results of a tile leave while the next tile is eliminated, a share of each
    // thread's chunks after every elimination step, so that the stores run beside the arithmetic
    // instead of in a phase of their own between tiles. `drainFirst`/`drainCount`: the tile in outTile.
    long long drainFirst = 0;
    int drainCount = 0;
    auto storeChunk = [&](int c) {
        if (c < drainCount * C)
            reinterpret_cast<Chunk*>(target + drainFirst * Shape::kBytes)[c] =
                *reinterpret_cast<const Chunk*>(outTile + (c / C) * Slot + (c % C) * V);
    };
    auto drainStep = [&](auto step) {
        constexpr int K = decltype(step)::value;
#pragma unroll
        for (int k = K * C / N; k < (K + 1) * C / N; ++k) storeChunk(t + k * B);
    };

    long long tile = blockIdx.x;
    if (tile < tiles) fetch(tile);
    for (; tile < tiles; tile += gridDim.x) {
        const long long first = tile * B;
        const int here = static_cast<int>(min(static_cast<long long>(B), count - first));
        waitAsync();
        // The tile is in. Staged: the previous results have left outTile. Pipelined: they are all in
        // outTile, to leave during this elimination.
        __syncthreads();

        const bool mine = t < here;
        T a[N][N];
        if (mine) {
            Chunk raw[C];
#pragma unroll
            for (int c = 0; c < C; ++c) raw[c] = reinterpret_cast<const Chunk*>(inTile + t * Slot)[c];
            fromColumnMajorChunks(a, raw);
        }
        __syncthreads();  // inTile is read: the next tile may stream in during the elimination
        if (Buffers == 2 && tile + gridDim.x < tiles) fetch(tile + gridDim.x);

        int status = 0;
        unsigned rowTarget = kIdentityPositions, colTarget = kIdentityPositions;
        if (mine) {
            status = inputStatus(a);
            RealOf<T> bound = 0;
            if constexpr (Buffers == 2) eliminateInRegisters<T, N, 0>(a, rowTarget, colTarget, bound, status, drainStep);
            else eliminateInRegisters<T, N, 0>(a, rowTarget, colTarget, bound, status);
        } else if constexpr (Buffers == 2) {
#pragma unroll
            for (int k = 0; k < C; ++k) storeChunk(t + k * B);
        }
        if constexpr (Buffers == 2) {
            __syncthreads();  // the previous tile's results have left outTile
            drainFirst = first;
            drainCount = here;
        }
        if (mine) {
            T* const result = reinterpret_cast<T*>(outTile + t * Slot);
            storeAtTargets(result, a, rowTarget, colTarget);
            // A failed matrix is all NaN: written over the slot in a branch that only failed matrices
            // take, instead of a select per entry for every matrix.
            if (status != 0) {
                const T nan = scalarNaN<T>();
#pragma unroll
                for (int e = 0; e < N * N; ++e) result[e] = nan;
            }
            info[first + t] = status;
        }
        if constexpr (Buffers == 1) {
            __syncthreads();
            char* to = target + first * Shape::kBytes;
            for (int c = t; c < here * C; c += B)
                reinterpret_cast<Chunk*>(to)[c] = *reinterpret_cast<const Chunk*>(outTile + (c / C) * Slot + (c % C) * V);
            if (tile + gridDim.x < tiles) {
                __syncthreads();  // the results have left the one buffer: the next tile may come in
                fetch(tile + gridDim.x);
            }
        }
    }
    if constexpr (Buffers == 2) {
        __syncthreads();  // the block's last tile is in outTile
        for (int c = t; c < drainCount * C; c += B) storeChunk(c);
    }
}

// Persistent grid: as many blocks as fit on the device at once (fewer for small batches). The
// occupancy query and the shared-memory opt-in are done once per thread and device, because a
// host call between the timing event and the launch would show up in short kernels' times.
template <typename D, int N, int Requested, int Buffers>
void launchShaped(const D* in, D* out, int* info, long long count, cudaStream_t stream) {
    using Shape = PipelinedShape<D, N, Requested, Buffers>;
    const auto kernel = &pipelinedKernel<D, N, Requested, Buffers>;
    thread_local int cachedDevice = -1, cachedBlocks = 0;
    int device = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
    if (device != cachedDevice) {
        SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Shape::kSharedBytes));
        int perSm = 0, sms = 0;
        SPYGLASS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, Shape::kThreads, Shape::kSharedBytes));
        SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        if (perSm < 1)
            throw DeviceError(std::string(Buffers == 2 ? "pipelined" : "staged") + " inverse: a block of " + std::to_string(Shape::kThreads) + " threads with " +
                                  std::to_string(Shape::kSharedBytes) + " bytes of shared memory does not fit this GPU",
                              __FILE__, __LINE__);
        cachedBlocks = perSm * sms;
        cachedDevice = device;
    }
    const long long tiles = (count + Shape::kThreads - 1) / Shape::kThreads;
    const long long blocks = tiles < cachedBlocks ? tiles : cachedBlocks;
    pipelinedKernel<D, N, Requested, Buffers>
        <<<static_cast<unsigned>(blocks), Shape::kThreads, Shape::kSharedBytes, stream>>>(in, out, info, count);
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
