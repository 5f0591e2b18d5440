// Method A storage: encoding from CSR/COO, decoding, reordering, prefix counts and validation.
#include "core/bitflag_internal.h"
#include "core/parallel_ranges.h"

#include "spyglass/bitflag.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"

#include <algorithm>
#include <limits>
#include <string>

namespace spyglass {

using namespace bitflag_detail;

const char* toString(BitFlagOrder order) {
    return order == BitFlagOrder::RowMajor ? "row-major" : "column-major";
}

namespace bitflag_detail {

template <typename T>
BitFlagMatrix<T> emptyBitFlag(Index rows, Index cols, BitFlagOrder order) {
    if (rows < 0 || cols < 0)
        throw InputError("bit-flag matrix: negative size " + std::to_string(rows) + " x " + std::to_string(cols));
    BitFlagMatrix<T> m;
    m.rows = rows;
    m.cols = cols;
    m.order = order;
    m.wordBits = wordBitsFor(m.lineLength());
    m.wordsPerLine = wordsPerLineFor(m.lineLength());
    const std::size_t words = std::size_t(m.lines()) * std::size_t(m.wordsPerLine);
    if (m.wordBits == 32) m.flags32.assign(words, 0);
    else m.flags64.assign(words, 0);
    m.lineStart.assign(std::size_t(m.lines()) + 1, 0);
    return m;
}

template <typename T>
BitFlagMatrix<T> buildFromLineEntries(Index rows, Index cols, const BitFlagOptions& options,
                                      std::vector<LineEntry<T>> entries) {
    BitFlagMatrix<T> m = emptyBitFlag<T>(rows, cols, options.order);
    std::sort(entries.begin(), entries.end(), [](const LineEntry<T>& x, const LineEntry<T>& y) {
        return x.line != y.line ? x.line < y.line : x.pos < y.pos;
    });
    std::vector<LineEntry<T>> merged;
    merged.reserve(entries.size());
    for (const LineEntry<T>& e : entries) {
        if (!merged.empty() && merged.back().line == e.line && merged.back().pos == e.pos) merged.back().value += e.value;
        else merged.push_back(e);
    }
    m.values.reserve(merged.size());
    for (const LineEntry<T>& e : merged) {
        if (!options.keepExplicitZeros && e.value == T(0)) continue;
        setFlag(m, e.line, e.pos);
        m.values.push_back(e.value);
        ++m.lineStart[std::size_t(e.line) + 1];
    }
    for (std::size_t l = 1; l < m.lineStart.size(); ++l) m.lineStart[l] += m.lineStart[l - 1];
    m.nonzeros = static_cast<Count>(m.values.size());
    setPrefixCounts(m, options.prefixCounts);
    return m;
}

template <typename T>
std::vector<LineEntry<T>> lineEntries(const BitFlagMatrix<T>& m) {
    std::vector<LineEntry<T>> out;
    out.reserve(m.values.size());
    const int bitsPerWord = m.wordBits;
    for (Index line = 0; line < m.lines(); ++line) {
        Count k = m.lineStart[std::size_t(line)];
        for (Index w = 0; w < m.wordsPerLine; ++w) {
            std::uint64_t word = m.word(line, w);
            while (word) {
                const int bit = __builtin_ctzll(word);
                word &= word - 1;
                out.push_back({line, static_cast<Index>(w * bitsPerWord + bit), m.values[std::size_t(k++)]});
            }
        }
    }
    return out;
}

} // namespace bitflag_detail

template <typename T>
BitFlagMatrix<T> encodeBitFlag(const CooMatrix<T>& coo, const BitFlagOptions& options) {
    if (coo.rowIndex.size() != coo.values.size() || coo.colIndex.size() != coo.values.size())
        throw InputError("bit-flag encode: COO arrays differ in length");
    std::vector<LineEntry<T>> entries;
    entries.reserve(coo.values.size());
    const bool rowMajor = options.order == BitFlagOrder::RowMajor;
    for (std::size_t k = 0; k < coo.values.size(); ++k) {
        const Index i = coo.rowIndex[k], j = coo.colIndex[k];
        if (i < 0 || i >= coo.rows || j < 0 || j >= coo.cols)
            throw InputError("bit-flag encode: entry " + std::to_string(k) + " at (" + std::to_string(i) + ", " +
                             std::to_string(j) + ") lies outside the " + std::to_string(coo.rows) + " x " +
                             std::to_string(coo.cols) + " matrix");
        entries.push_back(rowMajor ? LineEntry<T>{i, j, coo.values[k]} : LineEntry<T>{j, i, coo.values[k]});
    }
    return buildFromLineEntries(coo.rows, coo.cols, options, std::move(entries));
}

template <typename T>
BitFlagMatrix<T> encodeBitFlag(const CsrMatrix<T>& csr, const BitFlagOptions& options) {
    if (csr.rowPtr.size() != std::size_t(csr.rows) + 1)
        throw InputError("bit-flag encode: CSR rowPtr has " + std::to_string(csr.rowPtr.size()) +
                         " entries, expected rows + 1 = " + std::to_string(Count(csr.rows) + 1));
    if (csr.colIndex.size() != csr.values.size() || csr.rowPtr.back() != Count(csr.values.size()))
        throw InputError("bit-flag encode: CSR arrays disagree on the number of entries");
    CooMatrix<T> coo;
    try {
        coo = csrToCoo(csr);  // the sizes agree (checked above); this still refuses a decreasing rowPtr
    } catch (const InputError& e) {
        throw InputError(std::string("bit-flag encode: ") + e.what());
    }
    return encodeBitFlag(coo, options);
}

template <typename T>
CsrMatrix<T> decodeBitFlag(const BitFlagMatrix<T>& m) {
    std::vector<LineEntry<T>> entries = lineEntries(m);
    if (m.order == BitFlagOrder::ColumnMajor) {
        for (LineEntry<T>& e : entries) std::swap(e.line, e.pos);
        std::stable_sort(entries.begin(), entries.end(), [](const LineEntry<T>& x, const LineEntry<T>& y) {
            return x.line != y.line ? x.line < y.line : x.pos < y.pos;
        });
    }
    CsrMatrix<T> csr;
    csr.rows = m.rows;
    csr.cols = m.cols;
    csr.rowPtr.assign(std::size_t(m.rows) + 1, 0);
    csr.colIndex.reserve(entries.size());
    csr.values.reserve(entries.size());
    for (const LineEntry<T>& e : entries) {
        ++csr.rowPtr[std::size_t(e.line) + 1];
        csr.colIndex.push_back(e.pos);
        csr.values.push_back(e.value);
    }
    for (std::size_t r = 1; r < csr.rowPtr.size(); ++r) csr.rowPtr[r] += csr.rowPtr[r - 1];
    return csr;
}

template <typename T>
BitFlagMatrix<T> reorderBitFlag(const BitFlagMatrix<T>& m, BitFlagOrder order, bool prefixCounts) {
    std::vector<LineEntry<T>> entries = lineEntries(m);
    if (order != m.order)
        for (LineEntry<T>& e : entries) std::swap(e.line, e.pos);
    BitFlagOptions options;
    options.order = order;
    options.prefixCounts = prefixCounts;
    options.keepExplicitZeros = true;  // the structure is the matrix's, stored zeros included
    return buildFromLineEntries(m.rows, m.cols, options, std::move(entries));
}

template <typename T>
void setPrefixCounts(BitFlagMatrix<T>& m, bool enabled) {
    m.withPrefixCounts = enabled;
    m.wordPrefix.clear();
    if (!enabled) return;
    if (m.lineLength() > Count(std::numeric_limits<std::uint32_t>::max()))
        throw InputError("bit-flag prefix counts: a line of " + std::to_string(m.lineLength()) + " elements overflows 32 bits");
    m.wordPrefix.resize(std::size_t(m.lines()) * std::size_t(m.wordsPerLine));
    for (Index line = 0; line < m.lines(); ++line) {
        std::uint32_t before = 0;
        for (Index w = 0; w < m.wordsPerLine; ++w) {
            m.wordPrefix[std::size_t(line) * std::size_t(m.wordsPerLine) + std::size_t(w)] = before;
            before += std::uint32_t(popcount64(m.word(line, w)));
        }
    }
}

template <typename T>
void validateBitFlag(const BitFlagMatrix<T>& m) {
    auto fail = [](const std::string& what) { throw InputError("bit-flag matrix: " + what); };
    if (m.rows < 0 || m.cols < 0) fail("negative size");
    if (m.wordBits != wordBitsFor(m.lineLength()) || m.wordsPerLine != wordsPerLineFor(m.lineLength()))
        fail("word geometry does not match a line of " + std::to_string(m.lineLength()) + " elements");
    const std::size_t words = std::size_t(m.lines()) * std::size_t(m.wordsPerLine);
    if ((m.wordBits == 32 ? m.flags32.size() : m.flags64.size()) != words)
        fail("flag array has the wrong length (expected " + std::to_string(words) + " words)");
    if (m.lineStart.size() != std::size_t(m.lines()) + 1 || m.lineStart.front() != 0)
        fail("P must have lines + 1 entries starting at 0");
    if (Count(m.values.size()) != m.nonzeros || m.lineStart.back() != m.nonzeros)
        fail("S, P[lines] and the number of values disagree");
    if (m.withPrefixCounts && m.wordPrefix.size() != words) fail("prefix counts have the wrong length");
    // In 64 bits: a file may declare lines of 2^31 - 1 elements, 2^25 words of 64 bits each.
    const Count tail = m.wordBits == 32 ? 32 : Count(m.wordsPerLine) * 64;
    // Lines are independent: ranges of them on threads (a reopened export is checked here whole); the
    // earliest range's error is rethrown, so the first bad line is the one named.
    const auto lines = std::size_t(m.lines());
    const std::size_t parts = parallel::threadsFor(lines * std::size_t(m.wordsPerLine), std::size_t(1) << 18);
    parallel::forEachRange(parallel::evenBounds(lines, parts), [&](std::size_t, std::size_t first, std::size_t end) {
        for (auto line = Index(first); line < Index(end); ++line) {
            Count count = 0;
            for (Index w = 0; w < m.wordsPerLine; ++w) {
                const std::uint64_t word = m.word(line, w);
                if (m.withPrefixCounts && m.wordPrefix[std::size_t(line) * std::size_t(m.wordsPerLine) + std::size_t(w)] != count)
                    fail("prefix count of line " + std::to_string(line) + " word " + std::to_string(w) + " is wrong");
                count += popcount64(word);
            }
            if (tail > m.lineLength()) {
                const Count lastBits = Count(m.lineLength()) - Count(m.wordsPerLine - 1) * (m.wordBits == 32 ? 32 : 64);
                const std::uint64_t last = m.word(line, m.wordsPerLine - 1);
                if (lastBits < 64 && (last >> lastBits) != 0)
                    fail("line " + std::to_string(line) + " has flag bits past its end");
            }
            // Unsigned: a P entry of a damaged file can be anything, and the difference must not overflow.
            if (std::uint64_t(m.lineStart[std::size_t(line) + 1]) - std::uint64_t(m.lineStart[std::size_t(line)]) != std::uint64_t(count))
                fail("P of line " + std::to_string(line) + " does not match its flag popcount");
        }
    });
}

#define SPYGLASS_BITFLAG_FORMAT(T)                                                                          \
    template BitFlagMatrix<T> bitflag_detail::emptyBitFlag<T>(Index, Index, BitFlagOrder);                  \
    template BitFlagMatrix<T> bitflag_detail::buildFromLineEntries<T>(Index, Index, const BitFlagOptions&,  \
                                                                      std::vector<LineEntry<T>>);           \
    template std::vector<LineEntry<T>> bitflag_detail::lineEntries<T>(const BitFlagMatrix<T>&);             \
    template BitFlagMatrix<T> encodeBitFlag(const CooMatrix<T>&, const BitFlagOptions&);                    \
    template BitFlagMatrix<T> encodeBitFlag(const CsrMatrix<T>&, const BitFlagOptions&);                    \
    template CsrMatrix<T> decodeBitFlag(const BitFlagMatrix<T>&);                                           \
    template BitFlagMatrix<T> reorderBitFlag(const BitFlagMatrix<T>&, BitFlagOrder, bool);                  \
    template void setPrefixCounts(BitFlagMatrix<T>&, bool);                                                 \
    template void validateBitFlag(const BitFlagMatrix<T>&);
SPYGLASS_BITFLAG_FORMAT(float)
SPYGLASS_BITFLAG_FORMAT(double)

} // namespace spyglass
