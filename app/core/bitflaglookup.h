#pragma once
// How the bit-flag form finds element (i, j), step by step, for the panel to show and highlight:
// the line and position, the flag word and bit, P[line], the count of set bits before the bit (the
// stored prefix count of the word, or a popcount of every earlier word, plus a popcount within the
// word), and the index into M with its value, or that the element is not stored.
#include "spyglass/bitflag.h"

#include <QString>

#include <cstdint>
#include <optional>

namespace spyglass::app {

struct BitFlagLookupPath {
    Index row = 0, col = 0;       // the element asked for (0-based)
    Index line = 0, position = 0; // row-major: line = row, position = col; column-major swapped
    bool rowMajor = true;
    int wordBits = 64;
    Index word = 0;               // word index within the line
    int bit = 0;                  // bit within the word, low bit first
    std::uint64_t wordValue = 0;  // F[line][word]
    bool flagSet = false;
    Count lineStart = 0, lineEnd = 0;  // P[line], P[line + 1]
    bool usedPrefixCount = false;
    Count countBeforeWord = 0;    // stored prefix count, or the popcount of words 0 .. word-1
    int countInWord = 0;          // popcount(F[line][word] & (2^bit - 1))
    std::optional<Count> valueIndex;  // P[line] + countBeforeWord + countInWord when the flag is set
    double value = 0;                 // M[valueIndex], 0 when not stored

    // One numbered line per step, plain text.
    QString describe() const;
};

// Throws InputError when (i, j) lies outside the matrix.
BitFlagLookupPath lookupBitFlag(const BitFlagMatrix<double>& matrix, Index i, Index j);

} // namespace spyglass::app
