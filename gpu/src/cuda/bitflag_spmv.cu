// Bit-flag SpMV kernel. A group of W lanes (W a power of two, 2..32) owns a row. Per pass it reads W
// consecutive flag words (one per lane, coalesced), scans their popcounts across the group, then reads
// the pass's values W at a time, also consecutive (coalesced): lane r takes the value of rank r,
// finds the word holding it by a binary search over the scanned counts (shuffles), and its column by
// selecting the rank's set bit in that word. No column index is ever read from memory.
#include "bitflag_spmv_device.h"
#include "../core/bitflag_select.h"

#include <algorithm>

namespace spyglass::cuda {

namespace {

constexpr int kBlockThreads = 256;

template <typename T, int W>
__global__ void bitFlagSpmvKernel(Index rows, Index wordsPerLine, const std::uint64_t* __restrict__ flags,
                                  const Count* __restrict__ rowStart, const T* __restrict__ values,
                                  const T* __restrict__ x, T* __restrict__ y) {
    const long long row = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / W;
    const int lane = static_cast<int>(threadIdx.x & (W - 1));
    if (row >= rows) return;  // the whole group leaves together: the block is a multiple of W
    const unsigned groupMask = W == 32 ? 0xffffffffu : (((1u << W) - 1u) << ((threadIdx.x & 31u) & ~unsigned(W - 1)));
    const std::uint64_t* rowFlags = flags + static_cast<std::size_t>(row) * static_cast<std::size_t>(wordsPerLine);
    Count slot = rowStart[row];
    T sum(0);
    for (Index first = 0; first < wordsPerLine; first += W) {
        const Index w = first + lane;
        const std::uint64_t word = w < wordsPerLine ? rowFlags[w] : 0ull;
        int inclusive = __popcll(word);
        for (int d = 1; d < W; d <<= 1) {
            const int before = __shfl_up_sync(groupMask, inclusive, d, W);
            if (lane >= d) inclusive += before;
        }
        const int total = __shfl_sync(groupMask, inclusive, W - 1, W);
        for (int base = 0; base < total; base += W) {
            const int rank = base + lane;
            // The owner is the first lane whose inclusive count exceeds the rank. Every lane of the
            // group takes part in the shuffles, also those whose rank is past the total.
            int owner = 0;
            for (int step = W / 2; step > 0; step >>= 1) {
                const int count = __shfl_sync(groupMask, inclusive, owner + step - 1, W);
                if (count <= rank) owner += step;
            }
            const std::uint64_t ownerWord = __shfl_sync(groupMask, word, owner, W);
            const int ownerInclusive = __shfl_sync(groupMask, inclusive, owner, W);
            if (rank < total) {
                const int inWord = rank - (ownerInclusive - __popcll(ownerWord));
                const Count col = (Count(first) + owner) * 64 + bitflag_select::selectSetBit(ownerWord, inWord);
                sum += values[slot + rank] * __ldg(x + col);
            }
        }
        slot += total;
    }
    for (int d = W / 2; d > 0; d >>= 1) sum += __shfl_xor_sync(groupMask, sum, d, W);
    if (lane == 0) y[row] = sum;
}

template <typename T, int W>
void launch(Index rows, Index wordsPerLine, const std::uint64_t* flags, const Count* rowStart, const T* values,
            const T* x, T* y, cudaStream_t stream) {
    const long long threads = static_cast<long long>(rows) * W;
    const unsigned blocks = static_cast<unsigned>((threads + kBlockThreads - 1) / kBlockThreads);
    bitFlagSpmvKernel<T, W><<<blocks, kBlockThreads, 0, stream>>>(rows, wordsPerLine, flags, rowStart, values, x, y);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

// Lanes per row: enough for a row's words or its mean nonzeros per pass, whichever is more.
int chooseGroupWidth(Index wordsPerLine, Count nonzeros, Index rows) {
    const Count perRow = rows > 0 ? (nonzeros + rows - 1) / rows : 0;
    const Count need = std::max<Count>(wordsPerLine, perRow);
    int width = 2;
    while (width < 32 && width < need) width <<= 1;
    return width;
}

} // namespace

template <typename T>
DeviceBitFlagSpmv<T>::DeviceBitFlagSpmv(const BitFlagMatrix<T>& m, cudaStream_t stream)
    : m_rows(m.rows), m_cols(m.cols), m_wordsPerLine(m.wordsPerLine) {
    const std::size_t words = std::size_t(m.rows) * std::size_t(m.wordsPerLine);
    if (m.wordBits == 32) {
        std::vector<std::uint64_t> widened(m.flags32.begin(), m.flags32.end());
        m_flags.upload(widened, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));  // widened leaves scope
    } else {
        m_flags.upload(m.flags64.data(), words, stream);
    }
    m_rowStart.upload(m.lineStart, stream);
    m_values.upload(m.values, stream);
    m_groupWidth = chooseGroupWidth(m.wordsPerLine, m.nonzeros, m.rows);
    m_bytesMoved = double(words * sizeof(std::uint64_t) + m.lineStart.size() * sizeof(Count) + m.values.size() * sizeof(T)) +
                   double(sizeof(T)) * (double(m.rows) + double(m.cols));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename T>
void DeviceBitFlagSpmv<T>::multiply(const T* x, T* y, cudaStream_t stream) const {
    if (m_rows == 0) return;
    const auto* f = m_flags.data();
    const auto* r = m_rowStart.data();
    const auto* v = m_values.data();
    switch (m_groupWidth) {
    case 2: launch<T, 2>(m_rows, m_wordsPerLine, f, r, v, x, y, stream); break;
    case 4: launch<T, 4>(m_rows, m_wordsPerLine, f, r, v, x, y, stream); break;
    case 8: launch<T, 8>(m_rows, m_wordsPerLine, f, r, v, x, y, stream); break;
    case 16: launch<T, 16>(m_rows, m_wordsPerLine, f, r, v, x, y, stream); break;
    default: launch<T, 32>(m_rows, m_wordsPerLine, f, r, v, x, y, stream); break;
    }
}

template class DeviceBitFlagSpmv<float>;
template class DeviceBitFlagSpmv<double>;

} // namespace spyglass::cuda
