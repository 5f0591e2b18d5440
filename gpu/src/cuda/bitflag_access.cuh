#pragma once
// Device-side element access of the bit-flag format, shared by the get and set kernels.
#include "spyglass/cuda/bitflag_device_api.h"

namespace spyglass::cuda {

// Nonzeros of line `line` before bit `bit` of word `w`.
template <typename T>
__device__ __forceinline__ Count countBefore(const BitFlagView<T>& m, Index line, Index w, std::uint64_t word, int bit,
                                             bool usePrefix) {
    Count before = __popcll(word & ((std::uint64_t(1) << bit) - 1));
    if (usePrefix) {
        before += m.prefix[Count(line) * m.wordsPerLine + w];
    } else {
        const std::uint64_t* row = m.flags + Count(line) * m.wordsPerLine;
        for (Index k = 0; k < w; ++k) before += __popcll(row[k]);
    }
    return m.lineStart[line] + before;
}

// Index in M of element (i,j), or -1 where its flag is clear.
template <typename T>
__device__ __forceinline__ Count slotOf(const BitFlagView<T>& m, bool rowMajor, bool usePrefix, Index i, Index j) {
    const Index line = rowMajor ? i : j, pos = rowMajor ? j : i;
    const Index w = pos >> 6;
    const int bit = pos & 63;
    const std::uint64_t word = m.flags[Count(line) * m.wordsPerLine + w];
    return ((word >> bit) & 1u) ? countBefore(m, line, w, word, bit, usePrefix) : Count(-1);
}

} // namespace spyglass::cuda
