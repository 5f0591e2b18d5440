// Method A add/subtract in one kernel. The flags of C are flags A | flags B, so nothing symbolic has
// to run first; what C needs from a global view is only where each line starts in M, a prefix sum
// over the lines' popcounts. One warp per line, eight lines per block:
//   1. the warp popcounts (a | b) over its line (coalesced 64-bit words);
//   2. the block publishes its eight lines' sum and finds the sum of all earlier blocks by a
//      decoupled look-back (blocks take tickets in start order, so a block only waits on blocks that
//      are already running);
//   3. the warp walks its line 32 words at a time: one scan of the packed per-word counts of A, B and
//      C gives every word's offsets; C's flag words and prefix counts are written; then lane r takes
//      the r-th set bit of the chunk (rank -> word by a binary search over the scan, -> bit by a
//      popcount search), so reads of A's and B's values and writes of C's are contiguous.
#include "spyglass/cuda/bitflag_device_api.h"

#include <cuda/atomic>

namespace spyglass::cuda {

namespace {

constexpr int kLinesPerBlock = 8;
constexpr int kAddThreads = kLinesPerBlock * 32;
constexpr unsigned kFull = 0xffffffffu;

// A tile's status word: the state in the top two bits, the sum in the low 62.
constexpr unsigned long long kStateShift = 62;
constexpr unsigned long long kAggregateState = 1, kPrefixState = 2;
constexpr unsigned long long kValueMask = (1ull << kStateShift) - 1;

// Per-word counts packed for one scan: A in bits 0-20, B in 21-41, C in 42-62 (a 32-word chunk holds
// at most 2048 of each).
constexpr int kPackBits = 21;
constexpr unsigned long long kPackMask = (1ull << kPackBits) - 1;

__device__ __forceinline__ unsigned long long loadStatus(unsigned long long* status) {
    return ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(*status).load(::cuda::memory_order_relaxed);
}
__device__ __forceinline__ void storeStatus(unsigned long long* status, unsigned long long value) {
    ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>(*status).store(value, ::cuda::memory_order_relaxed);
}

__device__ __forceinline__ long long warpSum(long long value) {
    for (int offset = 16; offset > 0; offset >>= 1) value += __shfl_xor_sync(kFull, value, offset);
    return value;
}

// Position of the set bit of rank `rank` (0-based) in `word`, by halving popcounts.
__device__ __forceinline__ int nthSetBit(unsigned long long word, int rank) {
    int position = 0;
    for (int width = 32; width > 0; width >>= 1) {
        const int below = __popcll((word >> position) & ((1ull << width) - 1));
        if (rank >= below) {
            rank -= below;
            position += width;
        }
    }
    return position;
}

// Sum of all tiles before `tile`, by looking back 32 tiles at a time (warp 0 of the block).
__device__ long long lookBack(unsigned long long* status, long long tile, int lane) {
    long long exclusive = 0;
    long long last = tile - 1;
    while (true) {
        const long long index = last - lane;
        unsigned long long s = index >= 0 ? loadStatus(status + index) : (kPrefixState << kStateShift);
        while (__any_sync(kFull, (s >> kStateShift) == 0))
            if ((s >> kStateShift) == 0) s = loadStatus(status + index);
        const unsigned prefixLanes = __ballot_sync(kFull, (s >> kStateShift) == kPrefixState);
        const long long value = static_cast<long long>(s & kValueMask);
        if (prefixLanes) {
            const int first = __ffs(static_cast<int>(prefixLanes)) - 1;  // the nearest tile with a full prefix
            return exclusive + warpSum(lane <= first ? value : 0);
        }
        exclusive += warpSum(value);
        last -= 32;
    }
}

template <typename T>
__global__ void __launch_bounds__(kAddThreads)
    addKernel(BitFlagView<T> a, BitFlagView<T> b, T sign, std::uint64_t* cFlags, std::uint32_t* cPrefix, Count* cLineStart,
              T* cValues, unsigned long long* status, unsigned long long* ticket) {
    __shared__ long long tileIndex;
    __shared__ long long lineCount[kLinesPerBlock];
    __shared__ long long tilePrefix;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (threadIdx.x == 0) tileIndex = static_cast<long long>(atomicAdd(ticket, 1ull));
    __syncthreads();
    const long long tile = tileIndex;
    const long long lineLong = tile * kLinesPerBlock + warp;
    const bool hasLine = lineLong < a.lines;
    const Index line = hasLine ? Index(lineLong) : 0;
    const Index wordsPerLine = a.wordsPerLine;
    const unsigned long long* fa = reinterpret_cast<const unsigned long long*>(a.flags) + Count(line) * wordsPerLine;
    const unsigned long long* fb = reinterpret_cast<const unsigned long long*>(b.flags) + Count(line) * wordsPerLine;

    long long count = 0;
    if (hasLine)
        for (Index w = lane; w < wordsPerLine; w += 32) count += __popcll(fa[w] | fb[w]);
    count = warpSum(count);
    if (lane == 0) lineCount[warp] = count;
    __syncthreads();

    if (warp == 0) {
        const long long aggregate = warpSum(lane < kLinesPerBlock ? lineCount[lane] : 0);
        long long exclusive = 0;
        if (tile == 0) {
            if (lane == 0) storeStatus(status, (kPrefixState << kStateShift) | static_cast<unsigned long long>(aggregate));
        } else {
            if (lane == 0)
                storeStatus(status + tile, (kAggregateState << kStateShift) | static_cast<unsigned long long>(aggregate));
            exclusive = lookBack(status, tile, lane);
            if (lane == 0)
                storeStatus(status + tile,
                            (kPrefixState << kStateShift) | static_cast<unsigned long long>(exclusive + aggregate));
        }
        if (lane == 0) tilePrefix = exclusive;
    }
    __syncthreads();
    if (!hasLine) return;

    Count lineStartC = tilePrefix;
    for (int w = 0; w < warp; ++w) lineStartC += lineCount[w];
    if (lane == 0) {
        cLineStart[line] = lineStartC;
        if (line == a.lines - 1) cLineStart[a.lines] = lineStartC + lineCount[warp];
    }

    Count runA = a.lineStart[line], runB = b.lineStart[line], runC = lineStartC;
    for (Index w0 = 0; w0 < wordsPerLine; w0 += 32) {
        const Index w = w0 + lane;
        unsigned long long wa = 0, wb = 0;
        if (w < wordsPerLine) {
            wa = fa[w];
            wb = fb[w];
        }
        const unsigned long long own = static_cast<unsigned long long>(__popcll(wa)) |
                                       (static_cast<unsigned long long>(__popcll(wb)) << kPackBits) |
                                       (static_cast<unsigned long long>(__popcll(wa | wb)) << (2 * kPackBits));
        unsigned long long inclusive = own;
        for (int offset = 1; offset < 32; offset <<= 1) {
            const unsigned long long up = __shfl_up_sync(kFull, inclusive, offset);
            if (lane >= offset) inclusive += up;
        }
        const unsigned long long exclusive = inclusive - own;
        const unsigned long long totals = __shfl_sync(kFull, inclusive, 31);
        if (w < wordsPerLine) {
            const Count k = Count(line) * wordsPerLine + w;
            cFlags[k] = wa | wb;
            cPrefix[k] = std::uint32_t(runC - lineStartC + Count(exclusive >> (2 * kPackBits)));
        }
        const int inclusiveC = int(inclusive >> (2 * kPackBits));
        const int chunkC = int(totals >> (2 * kPackBits));
        for (int base = 0; base < chunkC; base += 32) {
            const int rank = base + lane;
            // The word holding this rank: the number of words whose inclusive count is <= rank.
            int q = 0;
            for (int step = 16; step > 0; step >>= 1)
                if (__shfl_sync(kFull, inclusiveC, q + step - 1) <= rank) q += step;
            const unsigned long long qa = __shfl_sync(kFull, wa, q), qb = __shfl_sync(kFull, wb, q);
            const unsigned long long qExclusive = __shfl_sync(kFull, exclusive, q);
            if (rank < chunkC) {
                const int bit = nthSetBit(qa | qb, rank - int(qExclusive >> (2 * kPackBits)));
                const unsigned long long below = (1ull << bit) - 1;
                T value = ((qa >> bit) & 1ull) ? a.values[runA + Count(qExclusive & kPackMask) + __popcll(qa & below)] : T(0);
                if ((qb >> bit) & 1ull)
                    value += sign * b.values[runB + Count((qExclusive >> kPackBits) & kPackMask) + __popcll(qb & below)];
                cValues[runC + rank] = value;
            }
        }
        runA += Count(totals & kPackMask);
        runB += Count((totals >> kPackBits) & kPackMask);
        runC += chunkC;
    }
}

} // namespace

template <typename T>
void bitFlagAddDevice(const DeviceBitFlag<T>& a, const DeviceBitFlag<T>& b, T sign, DeviceBitFlag<T>& c,
                      DeviceBuffer<unsigned char>& scratch, cudaStream_t stream) {
    c.rows = a.rows;
    c.cols = a.cols;
    c.lines = a.lines;
    c.wordsPerLine = a.wordsPerLine;
    const Count words = Count(a.lines) * a.wordsPerLine;
    reserveAtLeast(c.m_flags, std::size_t(std::max<Count>(words, 1)));
    reserveAtLeast(c.m_prefix, std::size_t(std::max<Count>(words, 1)));
    reserveAtLeast(c.m_lineStart, std::size_t(a.lines) + 1);
    reserveAtLeast(c.m_values, std::size_t(std::max<Count>(a.nonzeros + b.nonzeros, 1)));
    if (a.lines == 0) {
        SPYGLASS_CUDA_CHECK(cudaMemsetAsync(c.m_lineStart.data(), 0, sizeof(Count), stream));
    } else {
        const Count tiles = (Count(a.lines) + kLinesPerBlock - 1) / kLinesPerBlock;
        const std::size_t statusBytes = std::size_t(tiles + 1) * sizeof(unsigned long long);
        reserveAtLeast(scratch, statusBytes);
        SPYGLASS_CUDA_CHECK(cudaMemsetAsync(scratch.data(), 0, statusBytes, stream));
        auto* status = reinterpret_cast<unsigned long long*>(scratch.data());
        addKernel<<<unsigned(tiles), kAddThreads, 0, stream>>>(a.view(), b.view(), sign, c.m_flags.data(), c.m_prefix.data(),
                                                                c.m_lineStart.data(), c.m_values.data(), status + 1, status);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
    Count total = 0;
    SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(&total, c.m_lineStart.data() + a.lines, sizeof(Count), cudaMemcpyDeviceToHost, stream));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    c.nonzeros = total;
}

template void bitFlagAddDevice(const DeviceBitFlag<float>&, const DeviceBitFlag<float>&, float, DeviceBitFlag<float>&,
                               DeviceBuffer<unsigned char>&, cudaStream_t);
template void bitFlagAddDevice(const DeviceBitFlag<double>&, const DeviceBitFlag<double>&, double, DeviceBitFlag<double>&,
                               DeviceBuffer<unsigned char>&, cudaStream_t);

} // namespace spyglass::cuda
