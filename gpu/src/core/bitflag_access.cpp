// Method A element access by popcount, and the byte counts against CSR.
#include "core/bitflag_internal.h"
#include "reference/bitflag_reference.h"

#include "spyglass/bitflag.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass {

using namespace bitflag_detail;

template <typename T>
std::optional<Count> bitFlagValueIndex(const BitFlagMatrix<T>& m, Index i, Index j) {
    if (i < 0 || i >= m.rows || j < 0 || j >= m.cols)
        throw InputError("bit-flag access: (" + std::to_string(i) + ", " + std::to_string(j) + ") lies outside the " +
                         std::to_string(m.rows) + " x " + std::to_string(m.cols) + " matrix");
    const bool rowMajor = m.order == BitFlagOrder::RowMajor;
    const Index line = rowMajor ? i : j, pos = rowMajor ? j : i;
    const int bitsPerWord = m.wordBits == 32 ? 32 : 64;
    const Index w = pos / bitsPerWord;
    const int bit = pos % bitsPerWord;
    const std::uint64_t word = m.word(line, w);
    if (((word >> bit) & 1u) == 0) return std::nullopt;
    Count before = popcount64(word & ((std::uint64_t(1) << bit) - 1));
    if (m.withPrefixCounts) {
        before += m.wordPrefix[std::size_t(line) * std::size_t(m.wordsPerLine) + std::size_t(w)];
    } else {
        for (Index k = 0; k < w; ++k) before += popcount64(m.word(line, k));
    }
    return m.lineStart[std::size_t(line)] + before;
}

template <typename T>
T bitFlagGet(const BitFlagMatrix<T>& m, Index i, Index j) {
    const std::optional<Count> k = bitFlagValueIndex(m, i, j);
    return k ? m.values[std::size_t(*k)] : T(0);
}

template <typename T>
void bitFlagSet(BitFlagMatrix<T>& m, Index i, Index j, T value) {
    const std::optional<Count> k = bitFlagValueIndex(m, i, j);
    if (!k)
        throw InputError("bit-flag set: (" + std::to_string(i) + ", " + std::to_string(j) +
                         ") has no flag; the format only writes where a nonzero is already stored");
    m.values[std::size_t(*k)] = value;
}

template <typename T>
void bitflag_reference::setBatch(BitFlagMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                                  const std::vector<T>& values) {
    if (rowsQ.size() != colsQ.size() || rowsQ.size() != values.size())
        throw InputError("bit-flag batch set: " + std::to_string(rowsQ.size()) + " row indices, " +
                         std::to_string(colsQ.size()) + " column indices and " + std::to_string(values.size()) +
                         " values; they must be equally many");
    std::vector<Count> slots(rowsQ.size());
    for (std::size_t q = 0; q < rowsQ.size(); ++q) {
        std::optional<Count> k;
        try {
            k = bitFlagValueIndex(m, rowsQ[q], colsQ[q]);
        } catch (const InputError& e) {
            throw InputError("bit-flag batch set: query " + std::to_string(q) + ": " + e.what());
        }
        if (!k)
            throw InputError("bit-flag batch set: query " + std::to_string(q) + ": (" + std::to_string(rowsQ[q]) + ", " +
                             std::to_string(colsQ[q]) + ") has no flag; the format only writes where a nonzero is stored");
        slots[q] = *k;
    }
    for (std::size_t q = 0; q < slots.size(); ++q) m.values[std::size_t(slots[q])] = values[q];
}

double bitFlagBreakEvenDensity(Index rows, Index cols, BitFlagOrder order, bool prefixCounts) {
    if (rows <= 0 || cols <= 0) return 0;
    const bool rowMajor = order == BitFlagOrder::RowMajor;
    const Index lines = rowMajor ? rows : cols, length = rowMajor ? cols : rows;
    const double wordBytes = wordBitsFor(length) / 8.0;
    const double words = double(lines) * wordsPerLineFor(length);
    // M costs the same in both; CSR pays 4 bytes of column index per nonzero, the flags pay per word
    // (plus P over lines instead of rows, which differs only for column-major).
    const double fixed = words * wordBytes + (prefixCounts ? words * 4.0 : 0.0) + 8.0 * (double(lines) - double(rows));
    return fixed / (4.0 * double(rows) * double(cols));
}

template <typename T>
BitFlagStats computeBitFlagStats(const BitFlagMatrix<T>& m) {
    BitFlagStats s;
    s.nonzeros = m.nonzeros;
    s.density = (m.rows > 0 && m.cols > 0) ? double(m.nonzeros) / (double(m.rows) * double(m.cols)) : 0;
    s.flagBytes = m.flags32.size() * sizeof(std::uint32_t) + m.flags64.size() * sizeof(std::uint64_t);
    s.prefixBytes = m.wordPrefix.size() * sizeof(std::uint32_t);
    const std::size_t valueBytes = std::size_t(m.nonzeros) * sizeof(T);
    s.bitFlagBytes = valueBytes + s.flagBytes + s.prefixBytes + m.lineStart.size() * sizeof(Count);
    s.csrBytes = valueBytes + std::size_t(m.nonzeros) * sizeof(Index) + (std::size_t(m.rows) + 1) * sizeof(Count);
    s.breakEvenDensity = bitFlagBreakEvenDensity(m.rows, m.cols, m.order, m.withPrefixCounts);
    return s;
}

#define SPYGLASS_BITFLAG_ACCESS(T)                                                          \
    template std::optional<Count> bitFlagValueIndex(const BitFlagMatrix<T>&, Index, Index); \
    template T bitFlagGet(const BitFlagMatrix<T>&, Index, Index);                           \
    template void bitFlagSet(BitFlagMatrix<T>&, Index, Index, T);                           \
    template void bitflag_reference::setBatch(BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&, \
                                              const std::vector<T>&);                       \
    template BitFlagStats computeBitFlagStats(const BitFlagMatrix<T>&);
SPYGLASS_BITFLAG_ACCESS(float)
SPYGLASS_BITFLAG_ACCESS(double)

} // namespace spyglass
