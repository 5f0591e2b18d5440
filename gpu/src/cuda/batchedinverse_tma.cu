// One thread per matrix in warps that each run their own pipeline, their tiles moved by the
// tensor-memory accelerator (TMA) instead of by the threads (issue 31, sm_90 and up).
// Why: the pipelined kernel (batchedinverse_pipelined.cu) issues 16 cp.async per thread for a tile and
// 16 shared loads and global stores per thread to drain its results, and its four warps meet at block
// barriers four times a tile, so a warp that finishes its elimination early waits for the slowest.
// Here one lane of each warp asks the TMA for the warp's next 32 matrices (one tensor copy of 8 KiB at
// 8x8 f32) as soon as the current ones are in registers, and hands the results back in one tensor copy;
// the warp synchronises with nothing but itself. On the H200 (10^6 x 8x8 f32) that takes 0.1469 ms
// against the pipelined kernel's 0.1600 ms, and 8x8 complex64 0.4006 ms against the staged kernel's
// 0.4590 ms (bench/results/batched_inverse.md). What is left is the data path itself: the same kernel
// with the elimination skipped moves the bytes in 0.1417 ms (the data-path rows of the same table; a
// persistent copy kernel takes 0.1388 ms, and only a copy whose blocks each move 4 KiB and leave
// keeps up with cudaMemcpy: no structure of 8 KiB tiles that could carry the elimination did,
// bench/results/h200/batched_inverse_tma_trials.md). Smaller tiles need more lanes a matrix, and
// the elimination split over two lanes issues 2.2 times the instructions (batchedinverse_pairedlanes.cu).
//
// Layout: a matrix is P = bytes / 128 pieces of 128 bytes. The batch is viewed as a 3-D tensor
// (128 bytes, matrix, piece) whose box of 32 matrices lands in shared memory piece-major: piece r of
// the warp's matrix m at 128-byte row r * 32 + m. The copies use the 128-byte swizzle (16-byte chunk c
// of row q lands at chunk c ^ (q % 8)), so the 32 lanes reading chunk c of their own matrices spread
// over all eight chunk positions (four lanes a position: no bank conflicts) without the padding that a
// plain bulk copy cannot make. Matrix-major rows (matrix m's pieces at rows P * m + r) left 8x8 f32
// with four positions and two-way conflicts: 5.20 million shared-load wavefronts a launch at 10^6
// against 2.96 million, 0.1463 against 0.1447 ms (bench/results/h200/batched_inverse_tma_trials.md).
// Hence the shapes it takes: matrices of whole 128-byte pieces, at most 512 bytes, whose columns are a
// power of two of bytes (8x8 f32; 4x4 and 8x8 f64 and complex64; 4x4 complex128); other shapes,
// pointers that are not this GPU's own memory, GPUs before sm_90 and GPUs whose blocks cannot opt into
// its shared memory (sm_120 cards) run the pipelined kernel, as a misaligned pointer does there.
#include "batchedinverse_instances.h"
#include "batchedinverse_math.cuh"
#include "batchedinverse_registerelimination.cuh"
#include "batchedinverse_tmacopy.cuh"
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/cuda/cudacheck.h"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>

namespace spyglass::cuda {

namespace {
using namespace inverse;

constexpr int kTmaMaxWarps = 12;              // 65536 registers / 384 threads = 170 a thread: 8x8 f32 takes 162
constexpr int kTmaSharedBytes = 227 * 1024;   // the most a block may opt into on sm_90

constexpr bool tmaShapeSupported(int bytes, int columnBytes) {
    return bytes % 128 == 0 && bytes <= 512 && columnBytes <= 128 && (columnBytes & (columnBytes - 1)) == 0;
}

// Warps per block and shared memory per block for matrices of `bytes`: two tiles of 32 matrices a warp
// (in and out), 8 bytes of barrier a warp, 1 KiB to align the buffers for the swizzle.
constexpr int tmaWarpsFor(int bytes) {
    return (kTmaSharedBytes - 1024 - 8 * kTmaMaxWarps) / (2 * 32 * bytes) < kTmaMaxWarps
               ? (kTmaSharedBytes - 1024 - 8 * kTmaMaxWarps) / (2 * 32 * bytes)
               : kTmaMaxWarps;
}
constexpr int tmaSharedBytesFor(int bytes) { return tmaWarpsFor(bytes) * (2 * 32 * bytes + 8) + 1024; }

// Only for supported shapes (tmaShapeSupported).
template <typename T, int N> struct TmaShape {
    static constexpr int kBytes = N * N * static_cast<int>(sizeof(T));
    static constexpr int kColumnBytes = N * static_cast<int>(sizeof(T));
    static constexpr int kTileBytes = 32 * kBytes;
    static constexpr int kChunks = kBytes / 16;
    static constexpr int kWarps = tmaWarpsFor(kBytes);
    static constexpr int kSharedBytes = tmaSharedBytesFor(kBytes);
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
// The box of matrices firstMatrix .. firstMatrix + 31, all their pieces.
__device__ __forceinline__ void loadTile(unsigned to, const CUtensorMap* map, int firstMatrix, unsigned barrier) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {0, %2, 0}], [%3];" ::"r"(to),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(firstMatrix), "r"(barrier)
        : "memory");
}
__device__ __forceinline__ void storeTile(const CUtensorMap* map, int firstMatrix, unsigned from) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {0, %1, 0}], [%2];" ::"l"(
                     reinterpret_cast<unsigned long long>(map)),
                 "r"(firstMatrix), "r"(from)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
// Offset in a tile (before the swizzle) of byte `byte` of the tile's matrix `matrix`: pieces major.
__device__ __forceinline__ unsigned tileOffset(unsigned matrix, unsigned byte) { return (byte / 128) * (32 * 128) + matrix * 128 + byte % 128; }
#endif

// Tiles are handed out in the order warps ask for them, by a ticket counter per launch slot: with a
// fixed share each (every 1584th tile) the warps drift apart and the tiles in flight spread over more
// of the batch, which the memory serves more slowly (H200, 8x8 f32: loads and stores alone 0.1419
// against 0.1362 ms with tickets, bench/results/h200/batched_inverse_tma_trials.md). Launches that may
// run at once never share a slot (takeTicketSlot below); the last warp of a launch puts it back to
// zero for the next. Slot -1: the fixed shares (no slot was free).
constexpr int kTicketSlots = 64;
__device__ unsigned long long tmaNextTile[kTicketSlots];
__device__ unsigned tmaWarpsDone[kTicketSlots];

// Warp w of a block starts its first tile about w * kStaggerNs later than warp 0. Why: started
// together, a block's warps wait for their tiles together, eliminate together and store together, so
// the memory sees bursts and gaps instead of a steady stream; spread over part of a tile's period they
// keep it busier (H200, 10^6 x 8x8 f32: 0.1482-0.1484 ms unstaggered, 0.1448-0.1453 ms with 125 or 250 ns,
// 0.1484 with 1000, bench/results/h200/batched_inverse_tma_trials.md). The tickets even out the end.
constexpr unsigned kStaggerNs = 125;

// Eliminate = false (benchmark only): the same loads and stores with the elimination skipped, so the
// output is the input; what the data path alone costs.
template <typename T, int N, bool Eliminate = true>
__global__ void __launch_bounds__(TmaShape<T, N>::kWarps * 32, 1)
tmaKernel(const __grid_constant__ CUtensorMap inMap, const __grid_constant__ CUtensorMap outMap, int* __restrict__ info,
          long long count, int slot) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
    (void)tmaNextTile;  // referenced here too, so that this build does not warn about them
    (void)tmaWarpsDone;
    (void)TmaShape<T, N>::kChunks;
    (void)TmaShape<T, N>::kColumnBytes;
    (void)TmaShape<T, N>::kTileBytes;
    (void)kStaggerNs;
    __trap();  // never launched there: the launcher checks the compute capability first
#else
    using Shape = TmaShape<T, N>;
    constexpr int W = Shape::kWarps, C = Shape::kChunks, Tile = Shape::kTileBytes;
    extern __shared__ unsigned char tmaShared[];
    unsigned char* const aligned =
        reinterpret_cast<unsigned char*>((reinterpret_cast<std::uintptr_t>(tmaShared) + 1023) & ~std::uintptr_t(1023));
    const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
    unsigned char* const inTile = aligned + warp * 2 * Tile;
    unsigned char* const outTile = inTile + Tile;
    const unsigned arrived = sharedAddress(reinterpret_cast<unsigned long long*>(aligned + W * 2 * Tile) + warp);
    const unsigned inAddress = sharedAddress(inTile), outAddress = sharedAddress(outTile);

    // The warp's tiles (lane 0 asks, every lane gets the answer): first its index in the grid, then a
    // ticket past the first round, or without a slot every (warps in the grid)-th. The index counts
    // warp 0 of every block before any warp 1, so that a batch of fewer tiles than warps spreads over
    // all the multiprocessors instead of filling a few.
    const long long tiles = (count + 31) / 32;
    const long long warps = static_cast<long long>(gridDim.x) * W;
    long long fixedNext = static_cast<long long>(warp) * gridDim.x + blockIdx.x;
    bool firstRound = true;
    auto nextTile = [&] {
        long long t = 0;
        if (lane == 0) {
            if (slot >= 0 && !firstRound) {
                t = warps + static_cast<long long>(atomicAdd(&tmaNextTile[slot], 1ull));
            } else {
                t = fixedNext;
                fixedNext += warps;
            }
        }
        firstRound = false;
        return __shfl_sync(0xffffffffu, t, 0);
    };
    auto fetch = [&](long long t) {  // lane 0 only
        expectBytes(arrived, Tile);  // a partial last tile still counts whole: the TMA fills rows past the end with zeros
        loadTile(inAddress, &inMap, static_cast<int>(t * 32), arrived);
    };
    if (lane == 0) {
        initBarrier(arrived);
        fenceForTma();
    }
    long long tile = nextTile();
    if (tile < tiles)
        for (int w = 0; w < warp; ++w) __nanosleep(kStaggerNs);  // a loop: each sleep is only roughly its length
    if (lane == 0 && tile < tiles) fetch(tile);
    __syncwarp();
    unsigned parity = 0;
    while (tile < tiles) {
        const long long first = tile * 32;
        const bool mine = first + lane < count;
        waitParity(arrived, parity);
        parity ^= 1u;
        T a[N][N];
        {
            uint4 chunks[C];
#pragma unroll
            for (int c = 0; c < C; ++c) chunks[c] = *reinterpret_cast<const uint4*>(inTile + swizzled(tileOffset(lane, c * 16)));
            fromColumnMajorChunks(a, chunks);
        }
        __syncwarp();  // every lane has read the tile: the next one may come in during the elimination
        const long long next = nextTile();
        if (lane == 0 && next < tiles) {
            fenceForTma();
            fetch(next);
        }
        int status = 0;
        unsigned rowTarget = kIdentityPositions, colTarget = kIdentityPositions;
        if (Eliminate && mine) {
            status = inputStatus(a);
            RealOf<T> bound = 0;
            eliminateInRegisters<T, N, 0>(a, rowTarget, colTarget, bound, status);
        }
        if (lane == 0) waitStoreRead();  // the previous tile's results have left the out buffer
        __syncwarp();
        // Register (i, j) goes to row rowTarget[i] and column colTarget[j] (column-major). A column lies
        // within one 128-byte row, whose swizzle is one xor for all its entries; the entries' offsets
        // within the column and the column's offset share no bits, so the xor also adds them.
        unsigned rowOffset[N];
#pragma unroll
        for (int i = 0; i < N; ++i) rowOffset[i] = positionOf(rowTarget, i) * static_cast<unsigned>(sizeof(T));
#pragma unroll
        for (int j = 0; j < N; ++j) {
            const unsigned column = swizzled(tileOffset(lane, positionOf(colTarget, j) * Shape::kColumnBytes));
#pragma unroll
            for (int i = 0; i < N; ++i) *reinterpret_cast<T*>(outTile + (column ^ rowOffset[i])) = a[i][j];
        }
        if (status != 0) {  // all NaN: the swizzle only permutes the bytes within each 128-byte piece
            const T nan = scalarNaN<T>();
#pragma unroll
            for (int e = 0; e < N * N; ++e) *reinterpret_cast<T*>(outTile + tileOffset(lane, e * sizeof(T))) = nan;
        }
        fenceForTma();
        __syncwarp();
        if (lane == 0) storeTile(&outMap, static_cast<int>(first), outAddress);  // matrices past the end are not written
        if (mine) info[first + lane] = status;
        tile = next;
    }
    if (lane == 0) {
        waitStoreRead();  // the block's shared memory must outlive the TMA's reads of it
        // Every warp took its last ticket before it counts itself done: the last one resets the slot.
        if (slot >= 0 && atomicAdd(&tmaWarpsDone[slot], 1u) == static_cast<unsigned>(warps - 1)) {
            atomicExch(&tmaNextTile[slot], 0ull);
            atomicExch(&tmaWarpsDone[slot], 0u);
        }
    }
#endif
}


// The batch as (128 bytes, matrix, piece), pitches 128 * piecesPerMatrix and 128 bytes: a box of 32
// matrices lands piece-major in shared memory (tileOffset); 128-byte swizzle.
CUtensorMap tensorMapOf(const void* data, long long count, int piecesPerMatrix) {
    CUtensorMap map;
    const cuuint64_t size[3] = {128, static_cast<cuuint64_t>(count), static_cast<cuuint64_t>(piecesPerMatrix)};
    const cuuint64_t pitch[2] = {static_cast<cuuint64_t>(128 * piecesPerMatrix), 128};
    const cuuint32_t box[3] = {128, 32, static_cast<cuuint32_t>(piecesPerMatrix)};
    const cuuint32_t step[3] = {1, 1, 1};
    const CUresult result = tensorMapEncoder()(&map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, const_cast<void*>(data), size, pitch, box, step,
                                               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (result != CUDA_SUCCESS)
        throw DeviceError("TMA inverse: cuTensorMapEncodeTiled failed (" + std::to_string(static_cast<int>(result)) + ")", __FILE__, __LINE__);
    return map;
}

// Tensor maps of recent (in, out, count) triples, per thread: a map is host work (and the memory-type
// query a driver call) that a timed launch should not repeat. Only device memory is remembered.
struct TmaMaps {
    const void* in = nullptr;
    const void* out = nullptr;
    long long count = 0;
    int bytes = 0;
    int device = -1;
    CUtensorMap inMap{}, outMap{};
};
const TmaMaps* mapsFor(const void* in, const void* out, long long count, int bytes, int device) {
    thread_local std::array<TmaMaps, 16> cache;
    thread_local std::size_t next = 0;
    for (const TmaMaps& maps : cache)
        if (maps.in == in && maps.out == out && maps.count == count && maps.bytes == bytes && maps.device == device) return &maps;
    if (!isMemoryOf(in, device) || !isMemoryOf(out, device)) return nullptr;
    TmaMaps& maps = cache[next++ % cache.size()];
    maps.inMap = tensorMapOf(in, count, bytes / 128);
    maps.outMap = tensorMapOf(out, count, bytes / 128);
    maps.in = in;
    maps.out = out;
    maps.count = count;
    maps.bytes = bytes;
    maps.device = device;
    return &maps;
}

// The ticket slots of the devices. A slot belongs to one (stream, host thread) of its device at a time,
// so that launches that may run at once never share one. Slots whose launches have finished are given
// back once few are left, so that a program that inverts on many short-lived streams or threads (a
// GUI job each) keeps its tickets instead of falling back to the fixed shares for good after 64 of
// them. A launch under stream capture takes a slot of its own, which no other launch shares while
// the graph lives (its replays run with that slot): a user object of the graph gives it back when the
// graph and its executable copies are gone. A slot is taken and its launch noted under one lock, so
// that no other thread sees the slot's previous launch as its last one and gives the slot back in
// between. Nothing here asks whether a launch has finished while the stream is capturing: the query
// is not permitted then and would end the capture.
constexpr int kTicketSlotsKeptFree = kTicketSlots / 4;  // below this many free slots, finished ones go back
struct TicketSlot {
    bool taken = false;
    cudaStream_t stream = nullptr;
    std::thread::id thread;
    bool captured = false;             // a captured graph holds it
    cudaEvent_t lastLaunch = nullptr;  // recorded after every launch outside a capture
};
struct DeviceTicketSlots {
    std::array<TicketSlot, kTicketSlots> slots;
    std::array<std::atomic<bool>, kTicketSlots> graphGone{};  // set by the graph's user object, from a CUDA thread
};
std::mutex& ticketMutex() {
    static std::mutex mutex;
    return mutex;
}
DeviceTicketSlots& ticketSlotsOf(int device) {
    // Never destroyed: a graph's user object may set its flag while the program exits.
    static auto* devices = new std::map<int, DeviceTicketSlots>;
    return (*devices)[device];
}
void CUDART_CB graphGoneWithItsSlot(void* flag) { static_cast<std::atomic<bool>*>(flag)->store(true); }
bool isCapturing(cudaStream_t stream) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    SPYGLASS_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
    return capture != cudaStreamCaptureStatusNone;
}
bool launchesFinished(const TicketSlot& slot) {
    if (!slot.lastLaunch) return true;
    const cudaError_t state = cudaEventQuery(slot.lastLaunch);
    if (state == cudaSuccess) return true;
    if (state != cudaErrorNotReady) (void)cudaGetLastError();  // not known to be finished: keep it
    return false;
}
int& lastTicketSlotOfThisThread() {  // for tmaLastTicketSlot (tests)
    thread_local int slot = -1;
    return slot;
}
// With ticketMutex() held: the slots of graphs that are gone are free again.
void takeBackSlotsOfGoneGraphs(DeviceTicketSlots& d) {
    for (int i = 0; i < kTicketSlots; ++i)
        if (d.slots[i].captured && d.graphGone[i].exchange(false)) {
            d.slots[i].taken = false;
            d.slots[i].captured = false;
        }
}
// With ticketMutex() held: the slot of a launch on `stream` from this thread on `device` (its own one
// under capture), or -1 when every slot is held by a launch still running or by a captured graph (or,
// while capturing, none is free).
int takeTicketSlot(int device, cudaStream_t stream, bool capturing) {
    DeviceTicketSlots& d = ticketSlotsOf(device);
    const std::thread::id thread = std::this_thread::get_id();
    takeBackSlotsOfGoneGraphs(d);
    int free = 0;
    for (int i = 0; i < kTicketSlots; ++i) {
        const TicketSlot& slot = d.slots[i];
        if (!capturing && slot.taken && !slot.captured && slot.stream == stream && slot.thread == thread) return i;
        free += slot.taken ? 0 : 1;
    }
    if (free < kTicketSlotsKeptFree && !capturing)
        for (TicketSlot& slot : d.slots)
            if (slot.taken && !slot.captured && launchesFinished(slot)) slot.taken = false;
    for (int i = 0; i < kTicketSlots; ++i)
        if (!d.slots[i].taken) {
            d.slots[i].taken = true;
            d.slots[i].stream = stream;
            d.slots[i].thread = thread;
            return i;
        }
    return -1;
}
// With ticketMutex() held, right after the launch that took `slot` on `stream`.
void noteTicketLaunch(int device, int slot, cudaStream_t stream, bool capturing) {
    DeviceTicketSlots& d = ticketSlotsOf(device);
    TicketSlot& taken = d.slots[slot];
    if (capturing) {
        taken.captured = true;
        cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
        cudaGraph_t graph = nullptr;
        SPYGLASS_CUDA_CHECK(cudaStreamGetCaptureInfo(stream, &capture, nullptr, &graph));
        cudaUserObject_t object = nullptr;
        SPYGLASS_CUDA_CHECK(cudaUserObjectCreate(&object, &d.graphGone[slot], graphGoneWithItsSlot, 1,
                                                 cudaUserObjectNoDestructorSync));
        SPYGLASS_CUDA_CHECK(cudaGraphRetainUserObject(graph, object, 1, cudaGraphUserObjectMove));
        return;
    }
    if (!taken.lastLaunch) SPYGLASS_CUDA_CHECK(cudaEventCreateWithFlags(&taken.lastLaunch, cudaEventDisableTiming));
    SPYGLASS_CUDA_CHECK(cudaEventRecord(taken.lastLaunch, stream));
}

struct TmaDevice {
    int device = -1;
    bool capable = false;  // sm_90 or later
    int sms = 0;
    int sharedOptIn = 0;  // the most shared memory a block may opt into (about 99 KiB on sm_120 cards)
};
const TmaDevice& tmaDevice() {
    thread_local TmaDevice cached;
    int device = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
    if (device != cached.device) {
        int major = 0;
        SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
        SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&cached.sms, cudaDevAttrMultiProcessorCount, device));
        SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&cached.sharedOptIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        cached.capable = major >= 9;
        cached.device = device;
    }
    return cached;
}

// Launches the TMA kernel when the shape, the device and the pointers allow; false otherwise.
template <typename D, int N, bool Eliminate = true>
bool launchTmaShaped(const D* in, D* out, int* info, long long count, cudaStream_t stream) {
    if constexpr (!tmaShapeSupported(N * N * static_cast<int>(sizeof(D)), N * static_cast<int>(sizeof(D)))) {
        return false;
    } else {
        using Shape = TmaShape<D, N>;
        const TmaDevice& gpu = tmaDevice();
        // The TMA's matrix coordinate is a 32-bit signed integer; 16-byte aligned addresses.
        const bool fits = count < (1ll << 31) - 32;
        const auto misaligned = (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16;
        if (!gpu.capable || gpu.sharedOptIn < Shape::kSharedBytes || !fits || misaligned != 0) return false;
        const TmaMaps* maps = mapsFor(in, out, count, Shape::kBytes, gpu.device);
        if (!maps) return false;
        const auto kernel = &tmaKernel<D, N, Eliminate>;
        thread_local int optedInDevice = -1;
        if (optedInDevice != gpu.device) {
            SPYGLASS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Shape::kSharedBytes));
            optedInDevice = gpu.device;
        }
        const long long tiles = (count + 31) / 32;
        const long long blocks = std::min<long long>(gpu.sms, tiles);  // a block per SM, warp 0 of each first (above)
        const std::lock_guard<std::mutex> lock(ticketMutex());
        const bool capturing = isCapturing(stream);
        const int slot = takeTicketSlot(gpu.device, stream, capturing);
        kernel<<<static_cast<unsigned>(blocks), Shape::kWarps * 32, Shape::kSharedBytes, stream>>>(maps->inMap, maps->outMap,
                                                                                                    info, count, slot);
        SPYGLASS_CUDA_CHECK_LAUNCH();
        if (slot >= 0) noteTicketLaunch(gpu.device, slot, stream, capturing);
        lastTicketSlotOfThisThread() = slot;
        return true;
    }
}
} // namespace

bool tmaInverseSupports(int n, std::size_t elementBytes) {
    return n >= 1 && n <= 8 && tmaShapeSupported(n * n * static_cast<int>(elementBytes), n * static_cast<int>(elementBytes));
}

int tmaTicketSlotFor(cudaStream_t stream) {
    const std::lock_guard<std::mutex> lock(ticketMutex());
    return takeTicketSlot(tmaDevice().device, stream, isCapturing(stream));
}

int tmaLastTicketSlot() { return lastTicketSlotOfThisThread(); }

int tmaTicketSlotsHeldByGraphs() {
    const std::lock_guard<std::mutex> lock(ticketMutex());
    DeviceTicketSlots& d = ticketSlotsOf(tmaDevice().device);
    takeBackSlotsOfGoneGraphs(d);
    int held = 0;
    for (const TicketSlot& slot : d.slots) held += slot.captured ? 1 : 0;
    return held;
}

bool tmaInverseRunsOnCurrentDevice(int n, std::size_t elementBytes) {
    if (!tmaInverseSupports(n, elementBytes)) return false;
    const TmaDevice& gpu = tmaDevice();
    return gpu.capable && gpu.sharedOptIn >= tmaSharedBytesFor(n * n * static_cast<int>(elementBytes));
}

template <typename T>
void launchTmaInverse(const T* in, T* out, int* info, int n, std::int64_t count, cudaStream_t stream) {
    if (count <= 0) return;
    if (n < 1 || n > 8) throw InputError("TMA inverse: order " + std::to_string(n) + " is outside 1..8");
    using D = typename DeviceScalar<T>::type;
    bool launched = false;
    withOrder(n, [&](auto order) {
        launched = launchTmaShaped<D, decltype(order)::value>(reinterpret_cast<const D*>(in), reinterpret_cast<D*>(out), info,
                                                              count, stream);
    });
    if (!launched) launchPipelinedInverse(in, out, info, n, count, 0, stream);
}

void launchTmaDataPath(const float* in, float* out, int* info, std::int64_t count, cudaStream_t stream) {
    if (count <= 0) return;
    if (!launchTmaShaped<float, 8, false>(in, out, info, count, stream))
        throw DeviceError("TMA data path: needs sm_90 and device memory", __FILE__, __LINE__);
}

template void launchTmaInverse<float>(const float*, float*, int*, int, std::int64_t, cudaStream_t);
template void launchTmaInverse<double>(const double*, double*, int*, int, std::int64_t, cudaStream_t);
template void launchTmaInverse<std::complex<float>>(const std::complex<float>*, std::complex<float>*, int*, int,
                                                    std::int64_t, cudaStream_t);
template void launchTmaInverse<std::complex<double>>(const std::complex<double>*, std::complex<double>*, int*, int,
                                                     std::int64_t, cudaStream_t);

} // namespace spyglass::cuda
