// Brent-Luk round-robin ordering (Brent & Luk 1985, as the seed's algorithm 1 and its M = 6 table):
// the columns sit in a top and a bottom row; column 0 stays put while the others move one place
// round the ring after every step, so that n-1 steps of n/2 disjoint pairs meet every pair once.
#include "spyglass/batchedsvd.h"
#include "spyglass/error.h"

#include <algorithm>
#include <string>

namespace spyglass {

BrentLukOrdering::BrentLukOrdering(int columns) : m_columns(columns) {
    if (columns < 1 || columns > 255)
        throw InputError("Brent-Luk ordering: column count must be 1..255 (got " + std::to_string(columns) + ")");
    m_padded = columns + (columns % 2);
    const int half = m_padded / 2;
    std::vector<int> top(half), bottom(half);
    for (int k = 0; k < half; ++k) {
        top[k] = 2 * k;
        bottom[k] = 2 * k + 1;
    }
    m_pairs.reserve(static_cast<std::size_t>(steps()) * half * 2);
    for (int step = 0; step < steps(); ++step) {
        for (int k = 0; k < half; ++k) {
            m_pairs.push_back(static_cast<std::uint8_t>(std::min(top[k], bottom[k])));
            m_pairs.push_back(static_cast<std::uint8_t>(std::max(top[k], bottom[k])));
        }
        std::vector<int> nextTop(half), nextBottom(half);
        nextTop[0] = top[0];
        if (half > 1) nextTop[1] = bottom[0];
        for (int k = 2; k < half; ++k) nextTop[k] = top[k - 1];
        for (int k = 0; k + 1 < half; ++k) nextBottom[k] = bottom[k + 1];
        nextBottom[half - 1] = half > 1 ? top[half - 1] : bottom[0];
        top.swap(nextTop);
        bottom.swap(nextBottom);
    }
}

int registerResidentPairs(int m, int n) {
    if (m < 1 || n < 1 || n > 16) return 0;
    int pairs = 1;
    while (2 * pairs < n) pairs *= 2;
    return std::max(m, n) <= 2 * pairs ? pairs : 0;
}

} // namespace spyglass
