#pragma once
// Helpers shared by the bit-flag reference files: the word geometry of a line and popcounts.
#include "spyglass/bitflag.h"

#include <cstdint>
#include <vector>

namespace spyglass::bitflag_detail {

inline int popcount64(std::uint64_t word) { return __builtin_popcountll(word); }

// Geometry of the seed: <= 32 elements one 32-bit word, else ceil(length / 64) 64-bit words.
inline int wordBitsFor(Index lineLength) { return lineLength <= 32 ? 32 : 64; }
inline Index wordsPerLineFor(Index lineLength) {
    return lineLength <= 32 ? 1 : static_cast<Index>((Count(lineLength) + 63) / 64);
}

// One stored entry in line terms (line = row for row-major, column for column-major).
template <typename T>
struct LineEntry {
    Index line, pos;
    T value;
};

// Builds the format from entries; sorts them, sums duplicates, drops exact zeros unless keepZeros.
template <typename T>
BitFlagMatrix<T> buildFromLineEntries(Index rows, Index cols, const BitFlagOptions& options,
                                      std::vector<LineEntry<T>> entries);

// Sets a flag bit (no value bookkeeping).
template <typename T>
inline void setFlag(BitFlagMatrix<T>& m, Index line, Index pos) {
    if (m.wordBits == 32) m.flags32[std::size_t(line)] |= std::uint32_t(1) << pos;
    else m.flags64[std::size_t(line) * std::size_t(m.wordsPerLine) + std::size_t(pos / 64)] |= std::uint64_t(1) << (pos % 64);
}

// Empty matrix of the given shape and order with zeroed flags and no values.
template <typename T>
BitFlagMatrix<T> emptyBitFlag(Index rows, Index cols, BitFlagOrder order);

// Every (line, pos, value) of the matrix in storage order.
template <typename T>
std::vector<LineEntry<T>> lineEntries(const BitFlagMatrix<T>& m);

} // namespace spyglass::bitflag_detail
