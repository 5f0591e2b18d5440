#pragma once
// Position of the k-th set bit (0-based, low bit first) of a 64-bit flag word: the "select" that
// turns a value's rank within a row into its column in the bit-flag SpMV kernel. Shared by the
// kernel and the CPU tests (plain integer code, compiled for both sides), so the tests check the very
// function the device runs. k must be below the word's popcount.
#include <cstdint>

#if defined(__CUDACC__)
#define SPYGLASS_HOST_DEVICE __host__ __device__
#else
#define SPYGLASS_HOST_DEVICE
#endif

namespace spyglass::bitflag_select {

SPYGLASS_HOST_DEVICE inline int popcount32(std::uint32_t v) {
#if defined(__CUDA_ARCH__)
    return __popc(v);
#else
    return __builtin_popcount(v);
#endif
}

// Binary descent over halves of the word: six popcounts, no loop over bits, no divergence.
SPYGLASS_HOST_DEVICE inline int selectSetBit(std::uint64_t word, int k) {
    int position = 0;
    std::uint32_t half = static_cast<std::uint32_t>(word);
    int count = popcount32(half);
    if (k >= count) {
        k -= count;
        half = static_cast<std::uint32_t>(word >> 32);
        position = 32;
    }
    for (int width = 16; width >= 1; width >>= 1) {
        const std::uint32_t low = half & ((1u << width) - 1u);
        count = popcount32(low);
        if (k >= count) {
            k -= count;
            half >>= width;
            position += width;
        }
    }
    return position;
}

} // namespace spyglass::bitflag_select
