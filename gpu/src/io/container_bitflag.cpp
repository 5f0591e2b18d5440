// Method A's sections in the container: summary, flag words F, line starts P, values M and the
// optional per-word prefix counts. The word geometry follows from the dimensions and the order, so
// the reader knows every array's length before reading it; P is checked against the popcount of
// every line, the bits past a line's end must be clear, and the prefix counts must be the ones the
// flags imply. Each check is a loop over lines (or values) on threads; the first bad line is still the
// one named (parallel_ranges.h rethrows the earliest range's error).
#include "core/bitflag_internal.h"
#include "core/parallel_ranges.h"
#include "io/container_sections.h"

#include "spyglass/atomicfile.h"
#include "spyglass/container.h"

#include <cmath>
#include <type_traits>

namespace spyglass {

namespace {

using namespace container_io;

constexpr const char* kEncoding = "bit-flag container";
constexpr EncodingSections kSections{kEncoding};
constexpr std::size_t kSummaryBytes = 32;
constexpr std::uint32_t kPrefixCountsFlag = 1u;

// fn(first, last) over [0, n) in ranges on threads, each range 2^18 units (words or values) or more.
template <typename Fn>
void inRanges(std::size_t n, std::size_t costPerItem, Fn fn) {
    const std::size_t parts = parallel::threadsFor(n * std::max<std::size_t>(costPerItem, 1), std::size_t(1) << 18);
    parallel::forEachRange(parallel::evenBounds(n, parts), [&](std::size_t, std::size_t first, std::size_t last) { fn(first, last); });
}

} // namespace

template <typename T>
Container bitFlagToContainer(const BitFlagMatrix<T>& m, Field field, const std::string& note) {
    const StoredValues stored = storedValuesOf<T>(field, container::ValueType::ImpliedOnes);  // refuses complex
    const Field kept = stored.field;
    for (std::size_t k = 0; k < m.values.size(); ++k) {
        const double v = static_cast<double>(m.values[k]);
        if (kept == Field::Pattern && v != 1.0)
            throw InputError(std::string(kEncoding) + ": value M[" + std::to_string(k) + "] is " + std::to_string(v) +
                             "; a pattern stores no values, every flagged element must be 1");
        if (kept == Field::Integer && !isWholeNumber(v))
            throw InputError(std::string(kEncoding) + ": value M[" + std::to_string(k) + "] is not a whole number (integer field)");
    }
    Container c = containerShellOf(ContainerEncoding::BitFlag, m);
    std::string summary = valuedSummaryHead(stored);
    put<std::uint32_t>(summary, m.order == BitFlagOrder::RowMajor ? 0u : 1u);
    put<std::uint32_t>(summary, m.withPrefixCounts ? kPrefixCountsFlag : 0u);
    put<std::uint32_t>(summary, static_cast<std::uint32_t>(m.wordBits));
    put<std::uint32_t>(summary, static_cast<std::uint32_t>(m.wordsPerLine));
    put<std::int64_t>(summary, m.nonzeros);
    c.sections.push_back({container::kBitFlagSummary, 0, std::move(summary)});
    c.sections.push_back({container::kBitFlagFlags, 0, m.wordBits == 32 ? packArray(m.flags32) : packArray(m.flags64)});
    c.sections.push_back({container::kBitFlagLineStarts, 0, packArray(m.lineStart)});
    c.sections.push_back({container::kBitFlagValues, 0, kept == Field::Pattern ? std::string() : packArray(m.values)});
    if (m.withPrefixCounts) c.sections.push_back({container::kBitFlagPrefixCounts, 0, packArray(m.wordPrefix)});
    return withNote(std::move(c), note);
}

BitFlagMatrix<double> bitFlagFromContainer(const Container& c, const std::string& source, Field* fieldOut) {
    auto m = matrixShellOf<BitFlagMatrix<double>>(c, ContainerEncoding::BitFlag, "bitflag", source);
    const FixedSummary head = kSections.fixedSummary(c, container::kBitFlagSummary, kSummaryBytes, source);
    const ContainerSection& summary = head.section;
    const std::string& summaryLabel = head.label;
    const std::uint32_t order = get<std::uint32_t>(summary.bytes(), 8);
    const std::uint32_t flags = get<std::uint32_t>(summary.bytes(), 12);
    const std::uint32_t wordBits = get<std::uint32_t>(summary.bytes(), 16);
    const std::uint32_t wordsPerLine = get<std::uint32_t>(summary.bytes(), 20);
    const std::int64_t nonzeros = get<std::int64_t>(summary.bytes(), 24);
    const StoredValues stored = kSections.summaryValues(
        head, {container::ValueType::ImpliedOnes, container::ValueType::Float32, container::ValueType::Float64},
        "0 (implied ones), 2 (f32) or 3 (f64)", container::ValueType::ImpliedOnes, "(a pattern stores no values, other fields f32 or f64)",
        source);
    const Field field = stored.field;
    const container::ValueType valueType = stored.valueType;
    if (order > 1)
        throw ContainerFormatError(source, summary.offset + 8, summaryLabel + ": field 'order' is " + std::to_string(order) +
                                                                   ", expected 0 (row-major) or 1 (column-major)");
    if ((flags & ~kPrefixCountsFlag) != 0)
        throw ContainerFormatError(source, summary.offset + 12, summaryLabel + ": field 'flags' has unknown bits set");
    m.order = order == 0 ? BitFlagOrder::RowMajor : BitFlagOrder::ColumnMajor;
    m.withPrefixCounts = (flags & kPrefixCountsFlag) != 0;
    const int expectedBits = bitflag_detail::wordBitsFor(m.lineLength());
    const Index expectedWords = bitflag_detail::wordsPerLineFor(m.lineLength());
    if (wordBits != std::uint32_t(expectedBits))
        throw ContainerFormatError(source, summary.offset + 16, summaryLabel + ": field 'word bits' is " + std::to_string(wordBits) +
                                                                    ", lines of " + std::to_string(m.lineLength()) +
                                                                    " elements use " + std::to_string(expectedBits));
    if (wordsPerLine != std::uint32_t(expectedWords))
        throw ContainerFormatError(source, summary.offset + 20, summaryLabel + ": field 'words per line' is " +
                                                                    std::to_string(wordsPerLine) + ", lines of " +
                                                                    std::to_string(m.lineLength()) + " elements use " +
                                                                    std::to_string(expectedWords));
    if (nonzeros < 0)
        throw ContainerFormatError(source, summary.offset + 24, summaryLabel + ": field 'nonzeros' (S) is negative");
    m.wordBits = expectedBits;
    m.wordsPerLine = expectedWords;
    m.nonzeros = nonzeros;
    const Index lines = m.lines();
    const std::uint64_t words = std::uint64_t(lines) * std::uint64_t(m.wordsPerLine);

    // F: its length follows from the geometry; bits past the end of a line must be clear.
    const ContainerSection& flagSection = kSections.require(c, container::kBitFlagFlags, "flags", source);
    if (m.wordBits == 32) m.flags32 = kSections.unpackArray<std::uint32_t>(flagSection, words, "flags", source);
    else m.flags64 = kSections.unpackArray<std::uint64_t>(flagSection, words, "flags", source);
    const Index usedInLastWord = m.lineLength() - (m.wordsPerLine - 1) * m.wordBits;
    if (usedInLastWord < m.wordBits)
        inRanges(std::size_t(lines), 1, [&](std::size_t first, std::size_t last) {
            for (auto line = Index(first); line < Index(last); ++line)
                if ((m.word(line, m.wordsPerLine - 1) >> usedInLastWord) != 0)
                    throw ContainerFormatError(source, flagSection.offset + (std::uint64_t(line) * m.wordsPerLine + m.wordsPerLine - 1) *
                                                                                std::uint64_t(m.wordBits / 8),
                                               kSections.label(container::kBitFlagFlags, "flags") + ": line " + std::to_string(line) +
                                                   " has bits set past its " + std::to_string(m.lineLength()) + " elements");
        });

    // P: P[0] = 0 and each line's count equal to the popcount of its flags; P[lines] = S.
    const ContainerSection& lineStarts = kSections.require(c, container::kBitFlagLineStarts, "line starts P", source);
    m.lineStart = kSections.unpackArray<Count>(lineStarts, std::uint64_t(lines) + 1, "line starts P", source);
    const std::string pLabel = kSections.label(container::kBitFlagLineStarts, "line starts P");
    if (m.lineStart[0] != 0)
        throw ContainerFormatError(source, lineStarts.offset, pLabel + ": P[0] is " + std::to_string(m.lineStart[0]) + ", expected 0");
    inRanges(std::size_t(lines), std::size_t(m.wordsPerLine), [&](std::size_t first, std::size_t last) {
        for (auto line = Index(first); line < Index(last); ++line) {
            Count count = 0;
            for (Index w = 0; w < m.wordsPerLine; ++w) count += bitflag_detail::popcount64(m.word(line, w));
            // P[line] is known good (0 <= P[line] <= bits so far) when every line before it passed. A
            // range whose first P is bad lies behind an earlier range's error, the one rethrown; the
            // sum is unsigned so that its own (discarded) comparison stays defined.
            const auto expected = static_cast<Count>(std::uint64_t(m.lineStart[std::size_t(line)]) + std::uint64_t(count));
            if (m.lineStart[std::size_t(line) + 1] != expected)
                throw ContainerFormatError(source, lineStarts.offset + 8 * (std::uint64_t(line) + 1),
                                           pLabel + ": P[" + std::to_string(line + 1) + "] is " +
                                               std::to_string(m.lineStart[std::size_t(line) + 1]) + ", expected " +
                                               std::to_string(expected) + " (line " + std::to_string(line) + " has " +
                                               std::to_string(count) + " flags set)");
        }
    });
    if (m.lineStart[std::size_t(lines)] != nonzeros)
        throw ContainerFormatError(source, summary.offset + 24, summaryLabel + ": field 'nonzeros' (S) is " + std::to_string(nonzeros) +
                                                                    ", the flags hold " + std::to_string(m.lineStart[std::size_t(lines)]));

    // M: S values at the stored width, none for a pattern (every flagged element is 1).
    const ContainerSection& valuesSection = kSections.require(c, container::kBitFlagValues, "values M", source);
    if (valueType == container::ValueType::ImpliedOnes) {
        if (!valuesSection.bytes().empty())
            throw ContainerFormatError(source, valuesSection.offset, kSections.label(container::kBitFlagValues, "values M") +
                                                                         ": a pattern stores no values, the section holds " +
                                                                         std::to_string(valuesSection.bytes().size()) + " bytes");
        m.values.assign(std::size_t(nonzeros), 1.0);
    } else if (valueType == container::ValueType::Float32) {
        const std::vector<float> values = kSections.unpackArray<float>(valuesSection, std::uint64_t(nonzeros), "values M", source);
        m.values.assign(values.begin(), values.end());
    } else {
        m.values = kSections.unpackArray<double>(valuesSection, std::uint64_t(nonzeros), "values M", source);
    }
    if (field == Field::Integer)
        inRanges(m.values.size(), 1, [&](std::size_t first, std::size_t last) {
            for (std::size_t k = first; k < last; ++k)
                if (!isWholeNumber(m.values[k]))
                    throw ContainerFormatError(source, valuesSection.offset + k * (valueType == container::ValueType::Float32 ? 4 : 8),
                                               kSections.label(container::kBitFlagValues, "values M") + ": M[" + std::to_string(k) +
                                                   "] is not a whole number (integer field)");
        });

    // Prefix counts: present exactly when the summary says so, and equal to what the flags imply.
    const ContainerSection* prefix = c.find(container::kBitFlagPrefixCounts);
    const std::string prefixLabel = kSections.label(container::kBitFlagPrefixCounts, "prefix counts");
    if (prefix && !m.withPrefixCounts)
        throw ContainerFormatError(source, prefix->offset, prefixLabel + ": present, but the summary's flags say there are none");
    if (m.withPrefixCounts) {
        if (!prefix) throw ContainerFormatError(source, summary.offset + 12, prefixLabel + ": missing, the summary's flags announce it");
        m.wordPrefix = kSections.unpackArray<std::uint32_t>(*prefix, words, "prefix counts", source);
        inRanges(std::size_t(lines), std::size_t(m.wordsPerLine), [&](std::size_t first, std::size_t last) {
            for (auto line = Index(first); line < Index(last); ++line) {
                std::uint32_t before = 0;
                for (Index w = 0; w < m.wordsPerLine; ++w) {
                    const std::size_t at = std::size_t(line) * std::size_t(m.wordsPerLine) + std::size_t(w);
                    if (m.wordPrefix[at] != before)
                        throw ContainerFormatError(source, prefix->offset + 4 * std::uint64_t(at),
                                                   prefixLabel + ": line " + std::to_string(line) + " word " + std::to_string(w) +
                                                       " says " + std::to_string(m.wordPrefix[at]) +
                                                       " flags before it, the flags say " + std::to_string(before));
                    before += std::uint32_t(bitflag_detail::popcount64(m.word(line, w)));
                }
            }
        });
    }
    // Everything above is what validateBitFlag checks; it runs too, so that the two cannot drift.
    try {
        validateBitFlag(m);
    } catch (const InputError& error) {
        throw ContainerFormatError(source, summary.offset, std::string(kEncoding) + ": " + error.what());
    }
    if (fieldOut) *fieldOut = field;
    return m;
}

template Container bitFlagToContainer(const BitFlagMatrix<float>&, Field, const std::string&);
template Container bitFlagToContainer(const BitFlagMatrix<double>&, Field, const std::string&);

} // namespace spyglass
