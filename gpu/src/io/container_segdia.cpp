// Method B's sections in the container: summary, segment row starts, per-segment offset starts, the
// offsets, the diagonal-major values, the merged blocks, and (summary version 1) the per-segment CSR
// remainder. Version 0 files, written before the remainder existed, are still read (no remainder). The reader derives every array length
// from data it has already checked (rows and threshold give the segment count, the offset starts give
// the slot count) and compares it with the section's length before allocating; then it checks every
// entry and names the section, the entry and its byte when one is wrong.
#include "io/container_sections.h"
#include "io/container_segdia_slots.h"
#include "core/stagetimings.h"
#include "core/hugepages.h"
#include "core/parallel_ranges.h"

#include "spyglass/atomicfile.h"
#include "spyglass/container.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <type_traits>

namespace spyglass {

namespace {

using namespace container_io;

constexpr const char* kEncoding = "segmented-DIA container";
constexpr EncodingSections kSections{kEncoding};
constexpr std::size_t kSummaryBytes = 32;
// The summary's u32 at byte 20 (reserved = 0 in the first files) is the layout version: 0 = pure DIA,
// 1 = with the remainder sections 0x0208 - 0x020B.
constexpr std::uint32_t kVersion = 1;

// Why a value cannot be stored under the field, or nullptr when it can.
const char* fieldViolation(double v, Field field) {
    if (field == Field::Pattern && v != 0.0 && v != 1.0) return "is neither 0 nor 1 (pattern field)";
    if (field == Field::Integer && !isWholeNumber(v)) return "is not a whole number (integer field)";
    return nullptr;
}

// The CSR remainder (version 1): per-segment entry starts, the row starts of each segment that has
// entries (rows + 1 each, relative to its first entry), columns and values. Lengths are checked
// against counts derived from validated data before anything is unpacked; then every entry: column in
// the matrix, ascending within its row, not on a diagonal the segment stores as DIA (that nonzero
// would be stored twice), value non-zero and allowed by the field. Returns the entry count.
Count readRemainder(const Container& c, const std::string& source, SegmentedDiaMatrix<double>& m,
                    container::ValueType valueType, Field field) {
    const Index segments = m.segments();
    const ContainerSection& startsSection = kSections.require(c, container::kSegdiaRemainderStarts, "remainder starts", source);
    const ContainerSection& rowStartsSection = kSections.require(c, container::kSegdiaRemainderRowStarts, "remainder row starts", source);
    const ContainerSection& columnsSection = kSections.require(c, container::kSegdiaRemainderColumns, "remainder columns", source);
    const ContainerSection& valuesSection = kSections.require(c, container::kSegdiaRemainderValues, "remainder values", source);
    const std::string startsLabel = kSections.label(container::kSegdiaRemainderStarts, "remainder starts");
    const std::string rowStartsLabel = kSections.label(container::kSegdiaRemainderRowStarts, "remainder row starts");
    const std::string columnsLabel = kSections.label(container::kSegdiaRemainderColumns, "remainder columns");
    const std::string valuesLabel = kSections.label(container::kSegdiaRemainderValues, "remainder values");
    if (columnsSection.bytes().size() % 4 != 0)
        throw ContainerFormatError(source, columnsSection.offset, columnsLabel + ": length is not a whole number of 4-byte columns");
    const std::uint64_t entries = columnsSection.bytes().size() / 4;
    m.segmentRemainderStart = kSections.unpackArray<Count>(startsSection, std::uint64_t(segments) + 1, "remainder starts", source);
    if (m.segmentRemainderStart[0] != 0)
        throw ContainerFormatError(source, startsSection.offset, startsLabel + ": entry 0 is " +
                                                                     std::to_string(m.segmentRemainderStart[0]) + ", expected 0");
    m.segmentRemainderRowStart.assign(std::size_t(segments) + 1, 0);
    for (Index s = 0; s < segments; ++s) {
        const Count start = m.segmentRemainderStart[s], next = m.segmentRemainderStart[s + 1];
        if (next < start || std::uint64_t(next) > entries || next - start > Count(INT32_MAX))
            throw ContainerFormatError(source, startsSection.offset + 8 * (std::uint64_t(s) + 1),
                                       startsLabel + ": entry " + std::to_string(s + 1) + " is " + std::to_string(next) +
                                           ", expected " + std::to_string(start) + " to " +
                                           std::to_string(std::min<std::uint64_t>(entries, std::uint64_t(start) + INT32_MAX)) +
                                           " (the columns section holds " + std::to_string(entries) + " entries)");
        m.segmentRemainderRowStart[s + 1] = m.segmentRemainderRowStart[s] + (next > start ? Count(m.segmentRows(s)) + 1 : 0);
    }
    if (std::uint64_t(m.segmentRemainderStart[segments]) != entries)
        throw ContainerFormatError(source, startsSection.offset + 8 * std::uint64_t(segments),
                                   startsLabel + ": last entry is " + std::to_string(m.segmentRemainderStart[segments]) + ", the " +
                                       columnsLabel + " holds " + std::to_string(entries));
    const std::uint64_t rowStartCount = std::uint64_t(m.segmentRemainderRowStart[segments]);
    if (rowStartsSection.bytes().size() != rowStartCount * 4)
        throw ContainerFormatError(source, rowStartsSection.offset, rowStartsLabel + ": holds " +
                                                                        std::to_string(rowStartsSection.bytes().size()) +
                                                                        " bytes, expected " + std::to_string(rowStartCount) +
                                                                        " row starts of 4 bytes (rows + 1 per segment with a remainder)");
    m.remainderRowStart = kSections.unpackArray<Index>(rowStartsSection, rowStartCount, "remainder row starts", source);
    const std::size_t valueBytes = valueType == container::ValueType::Binary8 ? 1 : valueType == container::ValueType::Float32 ? 4 : 8;
    if (valuesSection.bytes().size() != entries * valueBytes)
        throw ContainerFormatError(source, valuesSection.offset, valuesLabel + ": holds " + std::to_string(valuesSection.bytes().size()) +
                                                                     " bytes, expected " + std::to_string(entries) + " entries of " +
                                                                     std::to_string(valueBytes) + " bytes");
    m.remainderColumns = kSections.unpackArray<Index>(columnsSection, entries, "remainder columns", source);
    m.remainderValues.resize(std::size_t(entries));
    for (Index s = 0; s < segments; ++s) {
        const Count start = m.segmentRemainderStart[s], count = m.segmentRemainderStart[s + 1] - start;
        if (count == 0) continue;
        const Count rowBase = m.segmentRemainderRowStart[s];
        const Index* offsetsBegin = m.offsets.data() + m.segmentOffsetStart[s];
        const Index* offsetsEnd = m.offsets.data() + m.segmentOffsetStart[s + 1];
        for (Index i = 0; i <= m.segmentRows(s); ++i) {
            const Index rowStart = m.remainderRowStart[std::size_t(rowBase + i)];
            const Index expectedFirst = i == 0 ? 0 : m.remainderRowStart[std::size_t(rowBase + i - 1)];
            const bool bad = i == 0 ? rowStart != 0 : (rowStart < expectedFirst || rowStart > count) || (i == m.segmentRows(s) && rowStart != count);
            if (bad)
                throw ContainerFormatError(source, rowStartsSection.offset + 4 * std::uint64_t(rowBase + i),
                                           rowStartsLabel + ": entry " + std::to_string(rowBase + i) + " (segment " + std::to_string(s) +
                                               ", local row " + std::to_string(i) + ") is " + std::to_string(rowStart) +
                                               (i == 0 ? std::string(", expected 0")
                                                       : ", expected " + std::to_string(expectedFirst) + " to " + std::to_string(count) +
                                                             (i == m.segmentRows(s) ? " and the segment's entry count at its end" : "")));
        }
        for (Index i = 0; i < m.segmentRows(s); ++i) {
            const Index row = m.segmentFirstRow[s] + i;
            for (Index k = m.remainderRowStart[std::size_t(rowBase + i)]; k < m.remainderRowStart[std::size_t(rowBase + i + 1)]; ++k) {
                const std::size_t at = std::size_t(start + k);
                const Index col = m.remainderColumns[at];
                const char* problem = nullptr;
                if (col < 0 || col >= m.cols) problem = "lies outside the matrix";
                else if (k > m.remainderRowStart[std::size_t(rowBase + i)] && col <= m.remainderColumns[at - 1]) problem = "is not above the previous column of its row";
                else if (std::binary_search(offsetsBegin, offsetsEnd, col - row)) problem = "lies on a diagonal the segment stores as DIA (a nonzero stored twice)";
                if (problem)
                    throw ContainerFormatError(source, columnsSection.offset + 4 * std::uint64_t(at),
                                               columnsLabel + ": entry " + std::to_string(at) + " (segment " + std::to_string(s) +
                                                   ", row " + std::to_string(row) + ") is column " + std::to_string(col) + ", which " + problem);
                double v = 0;
                if (valueType == container::ValueType::Binary8) v = get<std::uint8_t>(valuesSection.bytes(), at);
                else if (valueType == container::ValueType::Float32) v = get<float>(valuesSection.bytes(), at * 4);
                else v = get<double>(valuesSection.bytes(), at * 8);
                const char* valueProblem = v == 0.0 ? "is 0 (the remainder holds only nonzeros)" : fieldViolation(v, field);
                if (valueProblem)
                    throw ContainerFormatError(source, valuesSection.offset + at * valueBytes,
                                               valuesLabel + ": entry " + std::to_string(at) + " (row " + std::to_string(row) +
                                                   ", column " + std::to_string(col) + ") " + valueProblem);
                m.remainderValues[at] = v;
            }
        }
    }
    return Count(entries);
}

} // namespace

template <typename T>
Container segmentedDiaToContainer(const SegmentedDiaMatrix<T>& m, Field field, const std::string& note) {
    const StoredValues stored = storedValuesOf<T>(field, container::ValueType::Binary8);  // refuses complex
    const Field kept = stored.field;
    for (std::size_t k = 0; k < m.values.size(); ++k)
        if (const char* why = fieldViolation(static_cast<double>(m.values[k]), kept))
            throw InputError(std::string(kEncoding) + ": value slot " + std::to_string(k) + " " + why);
    Container c = containerShellOf(ContainerEncoding::SegmentedDia, m);
    std::string summary = valuedSummaryHead(stored);
    put<std::int32_t>(summary, m.threshold);
    put<std::uint32_t>(summary, static_cast<std::uint32_t>(m.segments()));
    put<std::uint32_t>(summary, static_cast<std::uint32_t>(m.blocks()));
    put<std::uint32_t>(summary, kVersion);
    put<std::int64_t>(summary, m.nonzeros);
    std::string values;
    if (stored.valueType == container::ValueType::Binary8) {
        values.reserve(m.values.size());
        for (const T& v : m.values) values.push_back(v != T(0) ? 1 : 0);
    } else {
        values = packArray(m.values);
    }
    c.sections.push_back({container::kSegdiaSummary, 0, std::move(summary)});
    c.sections.push_back({container::kSegdiaRowStarts, 0, packArray(m.segmentFirstRow)});
    c.sections.push_back({container::kSegdiaOffsetStarts, 0, packArray(m.segmentOffsetStart)});
    c.sections.push_back({container::kSegdiaOffsets, 0, packArray(m.offsets)});
    c.sections.push_back({container::kSegdiaValues, 0, std::move(values)});
    c.sections.push_back({container::kSegdiaBlockStarts, 0, packArray(m.blockStart)});
    c.sections.push_back({container::kSegdiaBlockSegments, 0, packArray(m.blockSegments)});
    for (std::size_t k = 0; k < m.remainderValues.size(); ++k)
        if (const char* why = fieldViolation(static_cast<double>(m.remainderValues[k]), kept))
            throw InputError(std::string(kEncoding) + ": remainder entry " + std::to_string(k) + " " + why);
    std::string remainderValues;
    if (stored.valueType == container::ValueType::Binary8) remainderValues.assign(m.remainderValues.size(), char(1));
    else remainderValues = packArray(m.remainderValues);
    c.sections.push_back({container::kSegdiaRemainderStarts, 0, packArray(m.segmentRemainderStart)});
    c.sections.push_back({container::kSegdiaRemainderRowStarts, 0, packArray(m.remainderRowStart)});
    c.sections.push_back({container::kSegdiaRemainderColumns, 0, packArray(m.remainderColumns)});
    c.sections.push_back({container::kSegdiaRemainderValues, 0, std::move(remainderValues)});
    return withNote(std::move(c), note);
}

namespace {

// The decoder of both entry points: with `slots`, m.values stays empty and the slots are read where
// they lie (container_segdia_slots.h); without, they are copied into m.values.
SegmentedDiaMatrix<double> readSegmentedDia(const Container& c, const std::string& source, Field* fieldOut, SegdiaSlotValues* slots) {
    auto m = matrixShellOf<SegmentedDiaMatrix<double>>(c, ContainerEncoding::SegmentedDia, "segdia", source);
    // Summary: value type, field, threshold, and the counts that must agree with the dimensions.
    const FixedSummary head = kSections.fixedSummary(c, container::kSegdiaSummary, kSummaryBytes, source);
    const ContainerSection& summary = head.section;
    const std::string& summaryLabel = head.label;
    const std::int32_t threshold = get<std::int32_t>(summary.bytes(), 8);
    const std::uint32_t segments = get<std::uint32_t>(summary.bytes(), 12);
    const std::uint32_t blocks = get<std::uint32_t>(summary.bytes(), 16);
    const std::int64_t nonzeros = get<std::int64_t>(summary.bytes(), 24);
    const StoredValues stored = kSections.summaryValues(
        head, {container::ValueType::Binary8, container::ValueType::Float32, container::ValueType::Float64},
        "1 (u8), 2 (f32) or 3 (f64)", container::ValueType::Binary8, "(a pattern stores one byte per slot, other fields f32 or f64)",
        source);
    const Field field = stored.field;
    const container::ValueType valueType = stored.valueType;
    if (threshold < 1)
        throw ContainerFormatError(source, summary.offset + 8, summaryLabel + ": field 'threshold' is " + std::to_string(threshold) +
                                                                   ", expected at least 1 row per segment");
    const std::uint64_t expectedSegments = (std::uint64_t(m.rows) + std::uint64_t(threshold) - 1) / std::uint64_t(threshold);
    if (segments != expectedSegments)
        throw ContainerFormatError(source, summary.offset + 12, summaryLabel + ": field 'segments' is " + std::to_string(segments) +
                                                                    ", a " + std::to_string(m.rows) + "-row matrix cut every " +
                                                                    std::to_string(threshold) + " rows has " +
                                                                    std::to_string(expectedSegments));
    if (blocks > segments || (segments > 0 && blocks == 0))
        throw ContainerFormatError(source, summary.offset + 16, summaryLabel + ": field 'blocks' is " + std::to_string(blocks) +
                                                                    ", expected 1 to " + std::to_string(segments) + " (the segment count)");
    const std::uint32_t version = get<std::uint32_t>(summary.bytes(), 20);
    if (version > kVersion)
        throw ContainerFormatError(source, summary.offset + 20, summaryLabel + ": field 'version' is " + std::to_string(version) +
                                                                    ", expected 0 (pure DIA) or 1 (with CSR remainder)");
    if (nonzeros < 0)
        throw ContainerFormatError(source, summary.offset + 24, summaryLabel + ": field 'nonzeros' is negative");
    m.threshold = threshold;

    // Segment row starts: segment s begins at row s x threshold; the last entry is the row count.
    const ContainerSection& rowStarts = kSections.require(c, container::kSegdiaRowStarts, "segment row starts", source);
    m.segmentFirstRow = kSections.unpackArray<Index>(rowStarts, std::uint64_t(segments) + 1, "segment row starts", source);
    for (std::uint32_t s = 0; s <= segments; ++s) {
        const Index expected = static_cast<Index>(std::min<std::int64_t>(std::int64_t(s) * threshold, m.rows));
        if (m.segmentFirstRow[s] != expected)
            throw ContainerFormatError(source, rowStarts.offset + 4 * std::uint64_t(s),
                                       kSections.label(container::kSegdiaRowStarts, "segment row starts") + ": entry " +
                                           std::to_string(s) + " is " + std::to_string(m.segmentFirstRow[s]) + ", expected " +
                                           std::to_string(expected) + " (segments are " + std::to_string(threshold) +
                                           " rows, the last ends at the row count)");
    }

    // Offset starts: from 0, never decreasing, at most rows(s) + cols - 1 distinct diagonals touch a
    // segment; they end at the number of offsets the offsets section holds.
    const ContainerSection& offsetStarts = kSections.require(c, container::kSegdiaOffsetStarts, "offset starts", source);
    const ContainerSection& offsetsSection = kSections.require(c, container::kSegdiaOffsets, "offsets", source);
    if (offsetsSection.bytes().size() % 4 != 0)
        throw ContainerFormatError(source, offsetsSection.offset, kSections.label(container::kSegdiaOffsets, "offsets") +
                                                                      ": length is not a whole number of 4-byte offsets");
    const std::uint64_t offsetCount = offsetsSection.bytes().size() / 4;
    m.segmentOffsetStart = kSections.unpackArray<Count>(offsetStarts, std::uint64_t(segments) + 1, "offset starts", source);
    const std::string startsLabel = kSections.label(container::kSegdiaOffsetStarts, "offset starts");
    if (m.segmentOffsetStart[0] != 0)
        throw ContainerFormatError(source, offsetStarts.offset, startsLabel + ": entry 0 is " +
                                                                    std::to_string(m.segmentOffsetStart[0]) + ", expected 0");
    for (std::uint32_t s = 0; s < segments; ++s) {
        // Offsets -(last row) .. cols - 1 - (first row) meet the segment; none when there are no columns.
        const Count most = m.cols == 0 ? 0 : std::min<Count>(Count(m.segmentRows(Index(s))) + m.cols - 1, INT32_MAX);
        const Count start = m.segmentOffsetStart[s], next = m.segmentOffsetStart[s + 1];  // start >= 0: checked
        if (next < start || next - start > most)
            throw ContainerFormatError(source, offsetStarts.offset + 8 * (std::uint64_t(s) + 1),
                                       startsLabel + ": entry " + std::to_string(s + 1) + " is " + std::to_string(next) +
                                           ", expected " + std::to_string(start) + " to " + std::to_string(start + most) +
                                           " (segment " + std::to_string(s) + " meets at most " + std::to_string(most) +
                                           " diagonals)");
    }
    if (std::uint64_t(m.segmentOffsetStart[segments]) != offsetCount)
        throw ContainerFormatError(source, offsetStarts.offset + 8 * std::uint64_t(segments),
                                   startsLabel + ": last entry is " + std::to_string(m.segmentOffsetStart[segments]) + ", the " +
                                       kSections.label(container::kSegdiaOffsets, "offsets") + " holds " + std::to_string(offsetCount));

    // Offsets: strictly increasing within a segment, each a diagonal that meets the segment's rows.
    m.offsets = kSections.unpackArray<Index>(offsetsSection, offsetCount, "offsets", source);
    for (std::uint32_t s = 0; s < segments; ++s) {
        const Index first = m.segmentFirstRow[s], last = m.segmentFirstRow[s + 1] - 1;
        for (Count k = m.segmentOffsetStart[s]; k < m.segmentOffsetStart[s + 1]; ++k) {
            const Index offset = m.offsets[std::size_t(k)];
            const char* problem = nullptr;
            if (k > m.segmentOffsetStart[s] && offset <= m.offsets[std::size_t(k) - 1]) problem = "not above the previous offset";
            else if (m.cols == 0 || Count(offset) < -Count(last) || Count(offset) > Count(m.cols) - 1 - first) problem = "misses the matrix in every row of the segment";
            if (problem)
                throw ContainerFormatError(source, offsetsSection.offset + 4 * std::uint64_t(k),
                                           kSections.label(container::kSegdiaOffsets, "offsets") + ": entry " + std::to_string(k) +
                                               " (segment " + std::to_string(s) + ") is " + std::to_string(offset) + ", " + problem);
        }
    }

    // Value starts are implied: diagonals x rows per segment. The running total is checked against
    // the values section before it can overflow or size anything.
    const ContainerSection& valuesSection = kSections.require(c, container::kSegdiaValues, "values", source);
    const std::size_t valueBytes = valueType == container::ValueType::Binary8 ? 1 : valueType == container::ValueType::Float32 ? 4 : 8;
    const std::uint64_t slotCapacity = valuesSection.bytes().size() / valueBytes;
    m.segmentValueStart.assign(std::size_t(segments) + 1, 0);
    for (std::uint32_t s = 0; s < segments; ++s) {
        const std::uint64_t diagonals = std::uint64_t(m.segmentDiagonals(Index(s)));
        const std::uint64_t rowsHere = std::uint64_t(m.segmentRows(Index(s)));
        const std::uint64_t before = std::uint64_t(m.segmentValueStart[s]);
        if (diagonals > 0 && rowsHere > (slotCapacity - before) / diagonals)
            throw ContainerFormatError(source, valuesSection.offset, kSections.label(container::kSegdiaValues, "values") + ": holds " +
                                                                         std::to_string(slotCapacity) +
                                                                         " slots, the segments need more (segment " +
                                                                         std::to_string(s) + " alone needs " +
                                                                         std::to_string(diagonals) + " x " + std::to_string(rowsHere) + ")");
        m.segmentValueStart[s + 1] = Count(before + diagonals * rowsHere);
    }
    const std::uint64_t slotCount = std::uint64_t(m.segmentValueStart[segments]);
    if (valuesSection.bytes().size() != slotCount * valueBytes)
        throw ContainerFormatError(source, valuesSection.offset, kSections.label(container::kSegdiaValues, "values") + ": holds " +
                                                                    std::to_string(valuesSection.bytes().size()) + " bytes, expected " +
                                                                    std::to_string(slotCount) + " slots of " +
                                                                    std::to_string(valueBytes) + " bytes");
    double* kept = nullptr;
    std::vector<Count> segmentNonzeros(segments, 0);
    if (!slots) {
        memory::resizeOnHugePages(m.values, std::size_t(slotCount));
        kept = m.values.data();
    }
    // Segments are independent: ranges of them on threads, about equal slots each; the earliest
    // range's error wins, so the message names the first bad slot as a serial loop would.
    const std::size_t parts = parallel::threadsFor(std::size_t(slotCount), std::size_t(1) << 20);
    std::vector<Count> countedIn(parts, 0);
    // The slot loop for one stored type (u8, f32, f64), so that the type is not asked per slot.
    const auto checkSlots = [&](auto storedZero, std::size_t part, std::size_t firstSegment, std::size_t lastSegment) {
        using Stored = decltype(storedZero);
        const std::string_view bytes = valuesSection.bytes();
        Count counted = 0;
        for (std::size_t s = firstSegment; s < lastSegment; ++s) {
            const Count countedBefore = counted;
            const Index rowsHere = m.segmentRows(Index(s)), first = m.segmentFirstRow[s];
            for (Index d = 0; d < m.segmentDiagonals(Index(s)); ++d) {
                const Index offset = m.offsets[std::size_t(m.segmentOffsetStart[s] + d)];
                const std::size_t diagonalSlot = std::size_t(m.segmentValueStart[s] + Count(d) * rowsHere);
                for (Index i = 0; i < rowsHere; ++i) {
                    const std::size_t slot = diagonalSlot + std::size_t(i);
                    const double v = static_cast<double>(get<Stored>(bytes, slot * sizeof(Stored)));
                    const Count col = Count(first) + i + offset;
                    const char* problem = fieldViolation(v, field);
                    if (!problem && v != 0.0 && (col < 0 || col >= m.cols)) problem = "is not 0 although its column lies outside the matrix";
                    if (problem)
                        throw ContainerFormatError(source, valuesSection.offset + slot * valueBytes,
                                                   kSections.label(container::kSegdiaValues, "values") + ": slot " + std::to_string(slot) +
                                                       " (segment " + std::to_string(s) + ", offset " + std::to_string(offset) +
                                                       ", row " + std::to_string(first + i) + ") " + problem);
                    if (kept) kept[slot] = v;
                    counted += v != 0.0;
                }
            }
            segmentNonzeros[s] = counted - countedBefore;
        }
        countedIn[part] = counted;
    };
    parallel::forEachRange(parallel::balancedBounds(m.segmentValueStart, segments, parts),
                           [&](std::size_t part, std::size_t firstSegment, std::size_t lastSegment) {
                               if (valueType == container::ValueType::Binary8) checkSlots(std::uint8_t(0), part, firstSegment, lastSegment);
                               else if (valueType == container::ValueType::Float32) checkSlots(0.0f, part, firstSegment, lastSegment);
                               else checkSlots(0.0, part, firstSegment, lastSegment);
                           });
    Count counted = 0;
    for (Count c : countedIn) counted += c;
    if (version == 0) {
        for (std::uint32_t id : {container::kSegdiaRemainderStarts, container::kSegdiaRemainderRowStarts,
                                 container::kSegdiaRemainderColumns, container::kSegdiaRemainderValues})
            if (const ContainerSection* extra = c.find(id)) {
                char hex[16];
                std::snprintf(hex, sizeof hex, "0x%04X", unsigned(id));
                throw ContainerFormatError(source, extra->offset, summaryLabel + ": field 'version' is 0 (pure DIA) but section " +
                                                                      hex + " (CSR remainder) is present");
            }
        m.segmentRemainderStart.assign(std::size_t(segments) + 1, 0);
        m.segmentRemainderRowStart.assign(std::size_t(segments) + 1, 0);
    } else {
        counted += readRemainder(c, source, m, valueType, field);
    }
    if (counted != nonzeros)
        throw ContainerFormatError(source, summary.offset + 24, summaryLabel + ": field 'nonzeros' is " +
                                                                    std::to_string(nonzeros) + ", the values and the remainder hold " +
                                                                    std::to_string(counted));
    m.nonzeros = counted;

    // Blocks: non-empty runs of segments, every segment in exactly one block, ascending inside a block,
    // blocks ordered by their lead (lowest) segment.
    const ContainerSection& blockStarts = kSections.require(c, container::kSegdiaBlockStarts, "block starts", source);
    const ContainerSection& blockSegments = kSections.require(c, container::kSegdiaBlockSegments, "block segments", source);
    m.blockStart = kSections.unpackArray<Index>(blockStarts, std::uint64_t(blocks) + 1, "block starts", source);
    const std::string blockStartsLabel = kSections.label(container::kSegdiaBlockStarts, "block starts");
    if (m.blockStart[0] != 0)
        throw ContainerFormatError(source, blockStarts.offset, blockStartsLabel + ": entry 0 is " + std::to_string(m.blockStart[0]) + ", expected 0");
    for (std::uint32_t b = 0; b < blocks; ++b)
        if (m.blockStart[b + 1] <= m.blockStart[b] || std::uint32_t(m.blockStart[b + 1]) > segments)
            throw ContainerFormatError(source, blockStarts.offset + 4 * (std::uint64_t(b) + 1),
                                       blockStartsLabel + ": entry " + std::to_string(b + 1) + " is " +
                                           std::to_string(m.blockStart[b + 1]) + ", expected above " +
                                           std::to_string(m.blockStart[b]) + " and at most " + std::to_string(segments));
    if (std::uint32_t(m.blockStart[blocks]) != segments)
        throw ContainerFormatError(source, blockStarts.offset + 4 * std::uint64_t(blocks),
                                   blockStartsLabel + ": last entry is " + std::to_string(m.blockStart[blocks]) +
                                       ", expected the segment count " + std::to_string(segments));
    m.blockSegments = kSections.unpackArray<Index>(blockSegments, segments, "block segments", source);
    std::vector<bool> seen(segments, false);
    Index previousLead = -1;
    for (std::uint32_t b = 0; b < blocks; ++b) {
        for (Index k = m.blockStart[b]; k < m.blockStart[b + 1]; ++k) {
            const Index s = m.blockSegments[std::size_t(k)];
            const char* problem = nullptr;
            if (s < 0 || std::uint32_t(s) >= segments) problem = "is not a segment";
            else if (seen[std::size_t(s)]) problem = "appears in a second place";
            else if (k > m.blockStart[b] && s <= m.blockSegments[std::size_t(k) - 1]) problem = "is not above the previous segment of its block";
            else if (k == m.blockStart[b] && s <= previousLead) problem = "leads its block but is not above the previous block's lead";
            if (problem)
                throw ContainerFormatError(source, blockSegments.offset + 4 * std::uint64_t(k),
                                           kSections.label(container::kSegdiaBlockSegments, "block segments") + ": entry " +
                                               std::to_string(k) + " (block " + std::to_string(b) + ") is segment " +
                                               std::to_string(s) + ", which " + problem);
            seen[std::size_t(s)] = true;
            if (k == m.blockStart[b]) previousLead = s;
        }
    }
    if (fieldOut) *fieldOut = field;
    if (slots) {
        slots->bytes = valuesSection.bytes();
        slots->type = valueType;
        slots->segmentNonzeros = std::move(segmentNonzeros);
    }
    return m;
}

} // namespace

SegmentedDiaMatrix<double> segmentedDiaFromContainer(const Container& c, const std::string& source, Field* fieldOut) {
    return readSegmentedDia(c, source, fieldOut, nullptr);
}

SegmentedDiaMatrix<double> container_io::segmentedDiaSlotsFromContainer(const Container& c, const std::string& source, Field* field,
                                                                         SegdiaSlotValues& slots) {
    return readSegmentedDia(c, source, field, &slots);
}

template Container segmentedDiaToContainer(const SegmentedDiaMatrix<float>&, Field, const std::string&);
template Container segmentedDiaToContainer(const SegmentedDiaMatrix<double>&, Field, const std::string&);

} // namespace spyglass
