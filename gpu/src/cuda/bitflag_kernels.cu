// Method A kernels: batch get by popcount, CSR binary-search get (baseline), multiply in bit-flag form
// (symbolic count, scan, numeric fill), and the device copy of the format. Add/sub: bitflag_add.cu.
#include "bitflag_access.cuh"
#include "spyglass/cuda/bitflag_device_api.h"

#include <cub/device/device_scan.cuh>

#include <algorithm>

namespace spyglass::cuda {

namespace {

constexpr int kBlock = 256;

unsigned blocksFor(Count work, int block = kBlock) {
    return unsigned(std::max<Count>(1, (work + block - 1) / block));
}

template <typename T>
__global__ void bitFlagGetKernel(BitFlagView<T> m, bool rowMajor, bool usePrefix, const Index* rowsQ, const Index* colsQ,
                                 T* out, Count queries) {
    const Count q = Count(blockIdx.x) * blockDim.x + threadIdx.x;
    if (q >= queries) return;
    const Index i = rowsQ[q], j = colsQ[q];
    const Index line = rowMajor ? i : j, pos = rowMajor ? j : i;
    const Index w = pos >> 6;
    const int bit = pos & 63;
    const std::uint64_t word = m.flags[Count(line) * m.wordsPerLine + w];
    out[q] = ((word >> bit) & 1u) ? m.values[countBefore(m, line, w, word, bit, usePrefix)] : T(0);
}

template <typename T>
__global__ void csrGetKernel(const Count* rowPtr, const Index* colIndex, const T* values, const Index* rowsQ,
                             const Index* colsQ, T* out, Count queries) {
    const Count q = Count(blockIdx.x) * blockDim.x + threadIdx.x;
    if (q >= queries) return;
    const Index j = colsQ[q];
    Count lo = rowPtr[rowsQ[q]], hi = rowPtr[rowsQ[q] + 1];
    while (lo < hi) {
        const Count mid = (lo + hi) >> 1;
        if (colIndex[mid] < j) lo = mid + 1;
        else hi = mid;
    }
    out[q] = (lo < rowPtr[rowsQ[q] + 1] && colIndex[lo] == j) ? values[lo] : T(0);
}

// From the scanned word counts: P and the per-word prefix counts of C.
__global__ void lineStartFromOffsetsKernel(const Count* offsets, Count* lineStart, std::uint32_t* prefix, Index lines,
                                           Index wordsPerLine) {
    const Count k = Count(blockIdx.x) * blockDim.x + threadIdx.x;
    const Count words = Count(lines) * wordsPerLine;
    if (k < words) prefix[k] = std::uint32_t(offsets[k] - offsets[(k / wordsPerLine) * wordsPerLine]);
    if (k <= lines) lineStart[k] = offsets[Count(k) * wordsPerLine];
}

// Symbolic multiply: thread (i, j) tests whether row i of A and column j of B share a bit; a warp's
// 32 answers become one half of a 64-bit flag word through a ballot.
template <typename T>
__global__ void multiplySymbolicKernel(BitFlagView<T> a, BitFlagView<T> b, std::uint32_t* cHalfWords, Index cWords) {
    const Index j = Index(blockIdx.x) * blockDim.x + threadIdx.x;
    for (Index i = blockIdx.y; i < a.rows; i += gridDim.y) {
        bool any = false;
        if (j < b.cols) {
            const std::uint64_t* rowA = a.flags + Count(i) * a.wordsPerLine;
            const std::uint64_t* colB = b.flags + Count(j) * b.wordsPerLine;
            for (Index w = 0; w < a.wordsPerLine && !any; ++w) any = (rowA[w] & colB[w]) != 0;
        }
        const unsigned ballot = __ballot_sync(0xffffffffu, any);
        const Index warpFirst = j & ~31;
        if ((threadIdx.x & 31) == 0 && warpFirst < b.cols)
            cHalfWords[(Count(i) * cWords + warpFirst / 64) * 2 + (warpFirst / 32) % 2] = ballot;
    }
}

__global__ void wordCountKernel(const std::uint64_t* flags, Count* counts, Count words) {
    const Count k = Count(blockIdx.x) * blockDim.x + threadIdx.x;
    if (k < words) counts[k] = __popcll(flags[k]);
    else if (k == words) counts[k] = 0;
}

// Numeric multiply: thread (i, j) with its flag set sums a(i,k) b(k,j) over the shared bits.
template <typename T>
__global__ void multiplyNumericKernel(BitFlagView<T> a, BitFlagView<T> b, BitFlagView<T> c, T* cValues) {
    const Index j = Index(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j >= b.cols) return;
    for (Index i = blockIdx.y; i < a.rows; i += gridDim.y) {
        const Count cw = Count(i) * c.wordsPerLine + (j >> 6);
        const std::uint64_t cWord = c.flags[cw];
        const int cBit = j & 63;
        if (!((cWord >> cBit) & 1u)) continue;
        const std::uint64_t* rowA = a.flags + Count(i) * a.wordsPerLine;
        const std::uint64_t* colB = b.flags + Count(j) * b.wordsPerLine;
        const Count aLine = a.lineStart[i], bLine = b.lineStart[j];
        T sum(0);
        for (Index w = 0; w < a.wordsPerLine; ++w) {
            const std::uint64_t wa = rowA[w], wb = colB[w];
            std::uint64_t shared = wa & wb;
            if (!shared) continue;
            const Count aBase = aLine + a.prefix[Count(i) * a.wordsPerLine + w];
            const Count bBase = bLine + b.prefix[Count(j) * b.wordsPerLine + w];
            while (shared) {
                const int bit = __ffsll(static_cast<long long>(shared)) - 1;
                shared &= shared - 1;
                const std::uint64_t below = (std::uint64_t(1) << bit) - 1;
                sum += a.values[aBase + __popcll(wa & below)] * b.values[bBase + __popcll(wb & below)];
            }
        }
        cValues[c.lineStart[i] + c.prefix[cw] + __popcll(cWord & ((std::uint64_t(1) << cBit) - 1))] = sum;
    }
}

void exclusiveScan(const Count* in, Count* out, Count n, DeviceBuffer<unsigned char>& scratch, cudaStream_t stream) {
    std::size_t bytes = 0;
    SPYGLASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, stream));
    if (scratch.size() < bytes) scratch.resize(bytes);
    SPYGLASS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), bytes, in, out, n, stream));
}

Count downloadLast(const DeviceBuffer<Count>& offsets, Count index, cudaStream_t stream) {
    Count total = 0;
    SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(&total, offsets.data() + index, sizeof(Count), cudaMemcpyDeviceToHost, stream));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return total;
}

template <typename T>
void finishFromOffsets(DeviceBitFlag<T>& c, const DeviceBuffer<Count>& offsets, cudaStream_t stream) {
    const Count words = Count(c.lines) * c.wordsPerLine;
    reserveAtLeast(c.m_lineStart, std::size_t(c.lines) + 1);
    reserveAtLeast(c.m_prefix, std::size_t(std::max<Count>(words, 1)));
    lineStartFromOffsetsKernel<<<blocksFor(std::max<Count>(words, Count(c.lines) + 1)), kBlock, 0, stream>>>(
        offsets.data(), c.m_lineStart.data(), c.m_prefix.data(), c.lines, c.wordsPerLine);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

} // namespace

template <typename T>
DeviceBitFlag<T>::DeviceBitFlag(const BitFlagMatrix<T>& m, cudaStream_t stream)
    : rows(m.rows), cols(m.cols), lines(m.lines()), wordsPerLine(m.wordsPerLine), nonzeros(m.nonzeros) {
    const std::size_t words = std::size_t(lines) * std::size_t(wordsPerLine);
    std::vector<std::uint64_t> flags(words);
    std::vector<std::uint32_t> prefix(words);
    for (Index line = 0; line < lines; ++line) {
        std::uint32_t before = 0;
        for (Index w = 0; w < wordsPerLine; ++w) {
            const std::size_t k = std::size_t(line) * wordsPerLine + w;
            flags[k] = m.word(line, w);
            prefix[k] = before;
            before += std::uint32_t(__builtin_popcountll(flags[k]));
        }
    }
    m_flags.resize(std::max<std::size_t>(words, 1));
    m_prefix.resize(std::max<std::size_t>(words, 1));
    m_flags.upload(flags, stream);
    m_prefix.upload(prefix, stream);
    m_lineStart.upload(m.lineStart, stream);
    m_values.resize(std::max<std::size_t>(m.values.size(), 1));
    m_values.upload(m.values, stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename T>
BitFlagView<T> DeviceBitFlag<T>::view() const {
    return BitFlagView<T>{rows, cols, lines, wordsPerLine, m_flags.data(), m_lineStart.data(), m_prefix.data(), m_values.data()};
}

template <typename T>
BitFlagMatrix<T> DeviceBitFlag<T>::download(BitFlagOrder order, bool prefixCounts, cudaStream_t stream) const {
    BitFlagMatrix<T> m;
    m.rows = rows;
    m.cols = cols;
    m.order = order;
    m.nonzeros = nonzeros;
    m.wordBits = m.lineLength() <= 32 ? 32 : 64;
    m.wordsPerLine = wordsPerLine;
    const std::size_t words = std::size_t(lines) * std::size_t(wordsPerLine);
    std::vector<std::uint64_t> flags(words);
    m_flags.download(flags.data(), words, stream);
    m.lineStart.resize(std::size_t(lines) + 1);
    m_lineStart.download(m.lineStart.data(), m.lineStart.size(), stream);
    m.values.resize(std::size_t(nonzeros));
    m_values.download(m.values.data(), m.values.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (m.wordBits == 32) m.flags32.assign(flags.begin(), flags.end());
    else m.flags64 = std::move(flags);
    setPrefixCounts(m, prefixCounts);
    return m;
}

template <typename T>
void launchBitFlagGet(const BitFlagView<T>& a, BitFlagOrder order, bool usePrefix, const Index* rowsQ, const Index* colsQ,
                      T* out, Count queries, cudaStream_t stream) {
    if (queries == 0) return;
    bitFlagGetKernel<<<blocksFor(queries), kBlock, 0, stream>>>(a, order == BitFlagOrder::RowMajor, usePrefix, rowsQ,
                                                               colsQ, out, queries);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template <typename T>
void launchCsrGet(Index, const Count* rowPtr, const Index* colIndex, const T* values, const Index* rowsQ,
                  const Index* colsQ, T* out, Count queries, cudaStream_t stream) {
    if (queries == 0) return;
    csrGetKernel<<<blocksFor(queries), kBlock, 0, stream>>>(rowPtr, colIndex, values, rowsQ, colsQ, out, queries);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template <typename T>
void bitFlagMultiplyDevice(const DeviceBitFlag<T>& a, const DeviceBitFlag<T>& b, DeviceBitFlag<T>& c,
                           DeviceBuffer<unsigned char>& scratch, cudaStream_t stream) {
    c.rows = a.rows;
    c.cols = b.cols;
    c.lines = a.rows;
    c.wordsPerLine = b.cols <= 32 ? 1 : Index((Count(b.cols) + 63) / 64);
    const Count words = Count(c.lines) * c.wordsPerLine;
    reserveAtLeast(c.m_flags, std::size_t(std::max<Count>(words, 1)));
    SPYGLASS_CUDA_CHECK(cudaMemsetAsync(c.m_flags.data(), 0, std::size_t(words) * sizeof(std::uint64_t), stream));
    const int block = 128;
    const dim3 grid(blocksFor(b.cols, block), unsigned(std::min<Index>(std::max<Index>(a.rows, 1), 65535)));
    if (a.rows > 0 && b.cols > 0) {
        multiplySymbolicKernel<<<grid, block, 0, stream>>>(a.view(), b.view(),
                                                           reinterpret_cast<std::uint32_t*>(c.m_flags.data()), c.wordsPerLine);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
    DeviceBuffer<Count> counts(std::size_t(words) + 1), offsets(std::size_t(words) + 1);
    wordCountKernel<<<blocksFor(words + 1), kBlock, 0, stream>>>(c.m_flags.data(), counts.data(), words);
    SPYGLASS_CUDA_CHECK_LAUNCH();
    exclusiveScan(counts.data(), offsets.data(), words + 1, scratch, stream);
    c.nonzeros = downloadLast(offsets, words, stream);
    reserveAtLeast(c.m_values, std::size_t(std::max<Count>(c.nonzeros, 1)));
    finishFromOffsets(c, offsets, stream);
    if (a.rows > 0 && b.cols > 0) {
        multiplyNumericKernel<<<grid, block, 0, stream>>>(a.view(), b.view(), c.view(), c.m_values.data());
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

#define SPYGLASS_BITFLAG_DEVICE(T)                                                                                      \
    template class DeviceBitFlag<T>;                                                                                    \
    template void launchBitFlagGet(const BitFlagView<T>&, BitFlagOrder, bool, const Index*, const Index*, T*, Count,  \
                                   cudaStream_t);                                                                       \
    template void launchCsrGet(Index, const Count*, const Index*, const T*, const Index*, const Index*, T*, Count,     \
                               cudaStream_t);                                                                           \
    template void bitFlagMultiplyDevice(const DeviceBitFlag<T>&, const DeviceBitFlag<T>&, DeviceBitFlag<T>&,           \
                                        DeviceBuffer<unsigned char>&, cudaStream_t);
SPYGLASS_BITFLAG_DEVICE(float)
SPYGLASS_BITFLAG_DEVICE(double)

} // namespace spyglass::cuda
