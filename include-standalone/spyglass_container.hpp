// spyglass_container.hpp: a header-only reader of Spyglass export containers (.spy), for your own
// code (CPU or CUDA host code). C++17, the standard library only: no Qt, no CUDA, no zlib. Copy this
// one file into your project.
//
//     #include "spyglass_container.hpp"
//     const spyglass_container::Container c = spyglass_container::load("olm1000.spy");
//     if (c.encoding == spyglass_container::Encoding::SegmentedDia) {
//         const spyglass_container::SegmentedDia& m = c.segdia;  // offsets, values, remainder ...
//     }
//     const spyglass_container::Coo coo = spyglass_container::toCoo(c);  // the matrix, rows in order
//
// The format is docs/container-format.md of Spyglass. load() checks the framing, the CRC-32 and every
// section of the encoding (counts, ranges, ordering: whatever the decoding relies on) and throws
// FormatError with the message Spyglass's own reader gives, "FILE: byte N: problem". Arrays keep the
// documented names; values are widened to double (f32 exactly), valueType says how they were stored.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace spyglass_container {

class FormatError : public std::runtime_error {
public:
    FormatError(const std::string& source, std::uint64_t offset, const std::string& problem)
        : std::runtime_error(source + ": byte " + std::to_string(offset) + ": " + problem), offset_(offset), problem_(problem) {}
    std::uint64_t offset() const { return offset_; }
    const std::string& problem() const { return problem_; }

private:
    std::uint64_t offset_;
    std::string problem_;
};

// A sound container that decodes to more entries than toCoo's limit (a few hundred bytes of hybrid
// container can describe 2^62 ones), refused before anything is expanded, as Spyglass does.
class TooLargeError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};
constexpr std::int64_t kDefaultMaxEntries = 2000000000;  // Spyglass's kDefaultMaxDecodedEntries

enum class Encoding : std::uint32_t { Hybrid = 1, SegmentedDia = 2, BitFlag = 3 };
// How values are stored: ImpliedOnes (bit-flag pattern: none stored), Binary8 (segmented-DIA pattern:
// one byte per slot), Float32, Float64.
enum class ValueType : std::uint32_t { ImpliedOnes = 0, Binary8 = 1, Float32 = 2, Float64 = 3 };
enum class Field : std::uint32_t { Real = 0, Integer = 1, Pattern = 2 };

// Segmented DIA (encoding 2): segment s holds rows [segmentRowStarts[s], segmentRowStarts[s + 1]) and
// the diagonals offsets[offsetStarts[s] .. offsetStarts[s + 1]); the value of diagonal d (index within
// the segment), local row i is values[valueStarts[s] + d x rows(s) + i] (0 = padding). Version 1 adds
// a CSR remainder per segment: entries remainderStarts[s] .. remainderStarts[s + 1], row starts (rows(s)
// + 1, relative to the segment's first entry) at remainderRowStarts[remainderRowStartAt[s]] for the
// segments with entries.
struct SegmentedDia {
    ValueType valueType = ValueType::Float64;
    Field field = Field::Real;
    std::int32_t threshold = 0;
    std::uint32_t segments = 0, blocks = 0, version = 0;
    std::int64_t nonzeros = 0;
    std::vector<std::int32_t> segmentRowStarts;  // segments + 1
    std::vector<std::int64_t> offsetStarts;      // segments + 1
    std::vector<std::int32_t> offsets;
    std::vector<double> values;
    std::vector<std::int64_t> valueStarts;       // segments + 1 (implied: not stored in the file)
    std::vector<std::int32_t> blockStarts;       // blocks + 1
    std::vector<std::int32_t> blockSegments;     // segments
    std::vector<std::int64_t> remainderStarts;   // segments + 1
    std::vector<std::int32_t> remainderRowStarts;
    std::vector<std::int64_t> remainderRowStartAt;  // segments + 1 (implied)
    std::vector<std::int32_t> remainderColumns;
    std::vector<double> remainderValues;
    std::int32_t segmentRows(std::size_t s) const { return segmentRowStarts[s + 1] - segmentRowStarts[s]; }
};

// Bit-flag (encoding 3): lines are rows (row-major) or columns; line l's words are
// flags[l x wordsPerLine ...], bit k of word w is element wordBits x w + k of the line; its values are
// values[lineStarts[l] ...] in element order (a pattern stores none: every flagged element is 1).
struct BitFlag {
    ValueType valueType = ValueType::Float64;
    Field field = Field::Real;
    bool columnMajor = false, withPrefixCounts = false;
    std::uint32_t wordBits = 32, wordsPerLine = 1;
    std::int64_t nonzeros = 0;
    std::vector<std::uint64_t> flags;         // lines x wordsPerLine words (32-bit words widened)
    std::vector<std::int64_t> lineStarts;     // lines + 1
    std::vector<double> values;               // empty for a pattern
    std::vector<std::uint32_t> prefixCounts;  // lines x wordsPerLine, when withPrefixCounts
};

// A dense region of the hybrid encodings: shape 0 rectangle, 1 triangle (corner 0 lower-left,
// 1 upper-right, 2 upper-left, 3 lower-right), 2 band (local offsets bandLow..bandHigh).
struct Region {
    std::uint8_t shape = 0, corner = 0;
    std::int32_t rowBegin = 0, rowEnd = 0, colBegin = 0, colEnd = 0, bandLow = 0, bandHigh = 0;
    std::uint32_t zeros = 0;  // binary: zeros stored; valued: cells holding 0
    // Columns [first, second) of absolute row `row` (empty outside the box): DenseRegion::span.
    std::pair<std::int64_t, std::int64_t> span(std::int64_t row) const {
        if (row < rowBegin || row >= rowEnd) return {0, 0};
        const std::int64_t r = row - rowBegin, h = std::int64_t(rowEnd) - rowBegin, w = std::int64_t(colEnd) - colBegin;
        std::int64_t begin = 0, end = w;
        if (shape == 1) {
            if (corner == 0) end = ((r + 1) * w + h - 1) / h;
            else if (corner == 1) begin = (r * w) / h;
            else if (corner == 2) end = ((h - r) * w + h - 1) / h;
            else begin = ((h - 1 - r) * w) / h;
        } else if (shape == 2) {
            begin = std::max<std::int64_t>(0, r + bandLow);
            end = std::min<std::int64_t>(w, r + bandHigh + 1);
        }
        if (end <= begin) return {0, 0};
        return {colBegin + begin, colBegin + end};
    }
};

// Hybrid (encoding 1). Binary: region ones are the cells minus the zeros (per region, height + 1 zero
// row pointers relative to its first zero, each zero a column offset from its row's span start).
// Valued: each region's cells' values row by row (span left to right), zeros included.
struct Hybrid {
    bool valued = false, fallback = false;
    std::string reason;
    ValueType valueType = ValueType::Float64;  // valued only
    Field field = Field::Pattern;              // binary: Pattern
    std::vector<Region> regions;
    std::vector<std::uint32_t> zeroRowPointers;  // binary
    std::vector<std::uint16_t> zeroOffsets;      // binary
    std::vector<double> regionValues;            // valued
    std::vector<std::int64_t> residualRowPointers;  // rows + 1
    std::vector<std::int32_t> residualColumns;
    std::vector<double> residualValues;          // valued
};

struct Container {
    std::string source;  // the file (or the name given to parse), as errors name it
    Encoding encoding = Encoding::Hybrid;
    std::int64_t rows = 0, cols = 0;
    std::string note;  // the optional UTF-8 note (producer, source file)
    SegmentedDia segdia;
    BitFlag bitflag;
    Hybrid hybrid;
};

// The decoded matrix: entries sorted by row, then column (what `spyglass-cli decode` writes).
struct Coo {
    std::int64_t rows = 0, cols = 0;
    Field field = Field::Real;
    std::vector<std::int32_t> rowIndex, colIndex;
    std::vector<double> values;
};

namespace detail {

inline std::uint32_t crc32(const unsigned char* data, std::size_t n) {
    static const std::array<std::uint32_t, 256> table = [] {
        std::array<std::uint32_t, 256> t{};
        for (std::uint32_t i = 0; i < 256; ++i) {
            std::uint32_t c = i;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            t[i] = c;
        }
        return t;
    }();
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t i = 0; i < n; ++i) crc = table[(crc ^ data[i]) & 0xFF] ^ (crc >> 8);
    return crc ^ 0xFFFFFFFFu;
}

template <typename T>
T get(const unsigned char* p) {
    std::uint64_t v = 0;
    for (std::size_t b = 0; b < sizeof(T); ++b) v |= std::uint64_t(p[b]) << (8 * b);
    if constexpr (std::is_floating_point_v<T>) {
        using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        const Bits bits = static_cast<Bits>(v);
        T out;
        std::memcpy(&out, &bits, sizeof out);
        return out;
    } else {
        return static_cast<T>(v);
    }
}

struct Section {
    std::uint32_t id = 0;
    std::uint64_t offset = 0, size = 0;  // payload
    const unsigned char* data = nullptr;
};

inline std::string hex4(std::uint32_t id) {
    static const char* digits = "0123456789ABCDEF";
    std::string s = "0x";
    for (int shift = 12; shift >= 0; shift -= 4) s += digits[(id >> shift) & 0xF];
    return s;
}

inline bool isWhole(double v) { return std::isfinite(v) && std::trunc(v) == v && std::fabs(v) <= 9007199254740992.0; }

inline std::size_t valueWidth(ValueType t) { return t == ValueType::Binary8 ? 1 : t == ValueType::Float32 ? 4 : 8; }

inline double valueAt(const Section& s, std::uint64_t k, ValueType t) {
    if (t == ValueType::Binary8) return double(s.data[k]);
    if (t == ValueType::Float32) return double(get<float>(s.data + 4 * k));
    return get<double>(s.data + 8 * k);
}

// One encoding's sections, with errors naming the encoding ("segmented-DIA container, section 0x0204 (offsets)").
class Sections {
public:
    Sections(const char* encoding, const std::vector<Section>& sections, const std::string& source)
        : encoding_(encoding), sections_(sections), source_(source) {}
    [[noreturn]] void fail(std::uint64_t offset, const std::string& problem) const { throw FormatError(source_, offset, problem); }
    std::string label(std::uint32_t id, const char* name) const { return std::string(encoding_) + ", section " + hex4(id) + " (" + name + ")"; }
    const Section* find(std::uint32_t id) const {
        for (const Section& s : sections_)
            if (s.id == id) return &s;
        return nullptr;
    }
    const Section& require(std::uint32_t id, const char* name) const {
        const Section* s = find(id);
        if (!s) fail(48, label(id, name) + ": missing");
        return *s;
    }
    // The summary section of a fixed-size encoding (its size checked), its label, and the two words
    // every such summary opens with: value type and field.
    struct FixedSummary {
        const unsigned char* data;
        std::uint64_t offset;
        std::string label;
        std::uint32_t valueType, field;
    };
    // Both checked: the value type is 2 (f32), 3 (f64) or the pattern's own code, `patternType` ("1 (u8)"),
    // and a pattern field goes with the pattern's value type (`patternStores`: what it stores instead).
    FixedSummary fixedSummary(std::uint32_t id, std::uint64_t size, std::uint32_t patternValueType, const char* patternType,
                              const char* patternStores) const {
        const Section& summary = require(id, "summary");
        FixedSummary head{summary.data, summary.offset, label(id, "summary"), get<std::uint32_t>(summary.data),
                          get<std::uint32_t>(summary.data + 4)};
        if (summary.size != size)
            fail(head.offset, head.label + ": holds " + std::to_string(summary.size) + " bytes, expected " + std::to_string(size));
        if (head.valueType != patternValueType && head.valueType != 2 && head.valueType != 3)
            fail(head.offset, head.label + ": field 'value type' is " + std::to_string(head.valueType) + ", expected " + patternType +
                                  ", 2 (f32) or 3 (f64)");
        if (head.field > 2)
            fail(head.offset + 4, head.label + ": field 'field' is " + std::to_string(head.field) + ", expected 0 (real), 1 (integer) or 2 (pattern)");
        if ((head.field == 2) != (head.valueType == patternValueType))
            fail(head.offset, head.label + ": value type " + std::to_string(head.valueType) + " does not go with field " +
                                  std::to_string(head.field) + " (a pattern stores " + patternStores + ", other fields f32 or f64)");
        return head;
    }
    template <typename T>
    std::vector<T> array(const Section& s, std::uint64_t count, const char* name) const {
        if (s.size % sizeof(T) != 0 || s.size / sizeof(T) != count)
            fail(s.offset, label(s.id, name) + ": holds " + std::to_string(s.size) + " bytes, expected " + std::to_string(count) +
                               " entries of " + std::to_string(sizeof(T)) + " bytes");
        std::vector<T> out(static_cast<std::size_t>(count));
        for (std::size_t k = 0; k < out.size(); ++k) out[k] = get<T>(s.data + k * sizeof(T));
        return out;
    }
    // Per-segment starts (segments + 1 entries of 8 bytes, the first 0) into a section of 4-byte items
    // (`itemNoun`, for the message): the starts read and the items counted.
    std::vector<std::int64_t> segmentStarts(const Section& starts, const char* startsName, const Section& items, const char* itemsName,
                                            const char* itemNoun, std::uint64_t segments, std::uint64_t& itemCount) const {
        if (items.size % 4 != 0) fail(items.offset, label(items.id, itemsName) + ": length is not a whole number of 4-byte " + itemNoun);
        itemCount = items.size / 4;
        std::vector<std::int64_t> values = array<std::int64_t>(starts, segments + 1, startsName);
        if (values[0] != 0) fail(starts.offset, label(starts.id, startsName) + ": entry 0 is " + std::to_string(values[0]) + ", expected 0");
        return values;
    }
    const char* name() const { return encoding_; }

private:
    const char* encoding_;
    const std::vector<Section>& sections_;
    const std::string& source_;
};

inline const std::vector<std::uint32_t>& sectionIds(std::uint32_t encoding) {
    static const std::vector<std::uint32_t> hybrid = {0x0101, 0x0102, 0x0103, 0x0104, 0x0105, 0x0106, 0x0107, 0x0108};
    static const std::vector<std::uint32_t> segdia = {0x0201, 0x0202, 0x0203, 0x0204, 0x0205, 0x0206,
                                                      0x0207, 0x0208, 0x0209, 0x020A, 0x020B};
    static const std::vector<std::uint32_t> bitflag = {0x0301, 0x0302, 0x0303, 0x0304, 0x0305};
    return encoding == 1 ? hybrid : encoding == 2 ? segdia : bitflag;
}

inline bool knownId(std::uint32_t id) {
    for (std::uint32_t e = 1; e <= 3; ++e)
        for (std::uint32_t k : sectionIds(e))
            if (k == id) return true;
    return false;
}

// ---- segmented DIA -------------------------------------------------------------------------------

inline const char* fieldViolation(double v, Field field) {
    if (field == Field::Pattern && v != 0.0 && v != 1.0) return "is neither 0 nor 1 (pattern field)";
    if (field == Field::Integer && !isWhole(v)) return "is not a whole number (integer field)";
    return nullptr;
}

inline void readSegmentedDia(Container& c, const Sections& sec) {
    SegmentedDia& m = c.segdia;
    const Sections::FixedSummary head = sec.fixedSummary(0x0201, 32, 1, "1 (u8)", "one byte per slot");
    m.threshold = get<std::int32_t>(head.data + 8);
    m.segments = get<std::uint32_t>(head.data + 12);
    m.blocks = get<std::uint32_t>(head.data + 16);
    m.version = get<std::uint32_t>(head.data + 20);
    m.nonzeros = get<std::int64_t>(head.data + 24);
    m.valueType = ValueType(head.valueType);
    m.field = Field(head.field);
    if (m.threshold < 1)
        sec.fail(head.offset + 8, head.label + ": field 'threshold' is " + std::to_string(m.threshold) + ", expected at least 1 row per segment");
    const std::uint64_t segments = m.segments, expectedSegments = (std::uint64_t(c.rows) + m.threshold - 1) / std::uint64_t(m.threshold);
    if (segments != expectedSegments)
        sec.fail(head.offset + 12, head.label + ": field 'segments' is " + std::to_string(segments) + ", a " + std::to_string(c.rows) +
                              "-row matrix cut every " + std::to_string(m.threshold) + " rows has " + std::to_string(expectedSegments));
    if (m.blocks > segments || (segments > 0 && m.blocks == 0))
        sec.fail(head.offset + 16, head.label + ": field 'blocks' is " + std::to_string(m.blocks) + ", expected 1 to " + std::to_string(segments) +
                              " (the segment count)");
    if (m.version > 1)
        sec.fail(head.offset + 20, head.label + ": field 'version' is " + std::to_string(m.version) + ", expected 0 (pure DIA) or 1 (with CSR remainder)");
    if (m.nonzeros < 0) sec.fail(head.offset + 24, head.label + ": field 'nonzeros' is negative");

    const Section& rs = sec.require(0x0202, "segment row starts");
    m.segmentRowStarts = sec.array<std::int32_t>(rs, segments + 1, "segment row starts");
    for (std::uint64_t s = 0; s <= segments; ++s) {
        const std::int64_t expected = std::min<std::int64_t>(std::int64_t(s) * m.threshold, c.rows);
        if (m.segmentRowStarts[s] != expected)
            sec.fail(rs.offset + 4 * s, sec.label(0x0202, "segment row starts") + ": entry " + std::to_string(s) + " is " +
                                            std::to_string(m.segmentRowStarts[s]) + ", expected " + std::to_string(expected) +
                                            " (segments are " + std::to_string(m.threshold) + " rows, the last ends at the row count)");
    }
    const Section& os = sec.require(0x0203, "offset starts");
    const Section& offs = sec.require(0x0204, "offsets");
    const std::string olabel = sec.label(0x0204, "offsets"), oslabel = sec.label(0x0203, "offset starts");
    std::uint64_t offsetCount = 0;
    m.offsetStarts = sec.segmentStarts(os, "offset starts", offs, "offsets", "offsets", segments, offsetCount);
    for (std::uint64_t s = 0; s < segments; ++s) {
        const std::int64_t most = c.cols == 0 ? 0 : std::min<std::int64_t>(std::int64_t(m.segmentRows(s)) + c.cols - 1, INT32_MAX);
        const std::int64_t start = m.offsetStarts[s], next = m.offsetStarts[s + 1];
        if (next < start || next - start > most)
            sec.fail(os.offset + 8 * (s + 1), oslabel + ": entry " + std::to_string(s + 1) + " is " + std::to_string(next) + ", expected " +
                                                  std::to_string(start) + " to " + std::to_string(start + most) + " (segment " +
                                                  std::to_string(s) + " meets at most " + std::to_string(most) + " diagonals)");
    }
    if (std::uint64_t(m.offsetStarts[segments]) != offsetCount)
        sec.fail(os.offset + 8 * segments, oslabel + ": last entry is " + std::to_string(m.offsetStarts[segments]) + ", the " + olabel +
                                               " holds " + std::to_string(offsetCount));
    m.offsets = sec.array<std::int32_t>(offs, offsetCount, "offsets");
    for (std::uint64_t s = 0; s < segments; ++s) {
        const std::int64_t first = m.segmentRowStarts[s], last = m.segmentRowStarts[s + 1] - 1;
        for (std::int64_t k = m.offsetStarts[s]; k < m.offsetStarts[s + 1]; ++k) {
            const std::int64_t offset = m.offsets[std::size_t(k)];
            const char* problem = nullptr;
            if (k > m.offsetStarts[s] && offset <= m.offsets[std::size_t(k) - 1]) problem = "not above the previous offset";
            else if (c.cols == 0 || offset < -last || offset > c.cols - 1 - first) problem = "misses the matrix in every row of the segment";
            if (problem)
                sec.fail(offs.offset + 4 * std::uint64_t(k), olabel + ": entry " + std::to_string(k) + " (segment " + std::to_string(s) +
                                                                 ") is " + std::to_string(offset) + ", " + problem);
        }
    }
    const Section& vs = sec.require(0x0205, "values");
    const std::string vlabel = sec.label(0x0205, "values");
    const std::size_t vb = valueWidth(m.valueType);
    const std::uint64_t capacity = vs.size / vb;
    m.valueStarts.assign(std::size_t(segments) + 1, 0);
    for (std::uint64_t s = 0; s < segments; ++s) {
        const std::uint64_t d = std::uint64_t(m.offsetStarts[s + 1] - m.offsetStarts[s]), h = std::uint64_t(m.segmentRows(s));
        const std::uint64_t before = std::uint64_t(m.valueStarts[s]);
        if (d > 0 && h > (capacity - before) / d)
            sec.fail(vs.offset, vlabel + ": holds " + std::to_string(capacity) + " slots, the segments need more (segment " +
                                    std::to_string(s) + " alone needs " + std::to_string(d) + " x " + std::to_string(h) + ")");
        m.valueStarts[s + 1] = std::int64_t(before + d * h);
    }
    const std::uint64_t slots = std::uint64_t(m.valueStarts[segments]);
    if (vs.size != slots * vb)
        sec.fail(vs.offset, vlabel + ": holds " + std::to_string(vs.size) + " bytes, expected " + std::to_string(slots) + " slots of " +
                                std::to_string(vb) + " bytes");
    m.values.resize(std::size_t(slots));
    std::int64_t counted = 0;
    for (std::uint64_t s = 0; s < segments; ++s) {
        const std::int64_t h = m.segmentRows(s), first = m.segmentRowStarts[s];
        for (std::int64_t d = 0; d < m.offsetStarts[s + 1] - m.offsetStarts[s]; ++d) {
            const std::int64_t offset = m.offsets[std::size_t(m.offsetStarts[s] + d)];
            for (std::int64_t i = 0; i < h; ++i) {
                const std::uint64_t slot = std::uint64_t(m.valueStarts[s] + d * h + i);
                const double v = valueAt(vs, slot, m.valueType);
                const std::int64_t col = first + i + offset;
                const char* problem = fieldViolation(v, m.field);
                if (!problem && v != 0.0 && (col < 0 || col >= c.cols)) problem = "is not 0 although its column lies outside the matrix";
                if (problem)
                    sec.fail(vs.offset + slot * vb, vlabel + ": slot " + std::to_string(slot) + " (segment " + std::to_string(s) +
                                                        ", offset " + std::to_string(offset) + ", row " + std::to_string(first + i) + ") " +
                                                        problem);
                m.values[std::size_t(slot)] = v;
                counted += v != 0.0;
            }
        }
    }
    m.remainderStarts.assign(std::size_t(segments) + 1, 0);
    m.remainderRowStartAt.assign(std::size_t(segments) + 1, 0);
    if (m.version == 0) {
        for (std::uint32_t id : {0x0208u, 0x0209u, 0x020Au, 0x020Bu})
            if (const Section* extra = sec.find(id))
                sec.fail(extra->offset, head.label + ": field 'version' is 0 (pure DIA) but section " + hex4(id) + " (CSR remainder) is present");
    } else {
        const Section& st = sec.require(0x0208, "remainder starts");
        const Section& rst = sec.require(0x0209, "remainder row starts");
        const Section& rc = sec.require(0x020A, "remainder columns");
        const Section& rv = sec.require(0x020B, "remainder values");
        const std::string stl = sec.label(0x0208, "remainder starts"), rstl = sec.label(0x0209, "remainder row starts");
        const std::string rcl = sec.label(0x020A, "remainder columns"), rvl = sec.label(0x020B, "remainder values");
        std::uint64_t entries = 0;
        m.remainderStarts = sec.segmentStarts(st, "remainder starts", rc, "remainder columns", "columns", segments, entries);
        for (std::uint64_t s = 0; s < segments; ++s) {
            const std::int64_t start = m.remainderStarts[s], next = m.remainderStarts[s + 1];
            if (next < start || std::uint64_t(next) > entries || next - start > INT32_MAX)
                sec.fail(st.offset + 8 * (s + 1), stl + ": entry " + std::to_string(s + 1) + " is " + std::to_string(next) + ", expected " +
                                                      std::to_string(start) + " to " +
                                                      std::to_string(std::min<std::uint64_t>(entries, std::uint64_t(start) + INT32_MAX)) +
                                                      " (the columns section holds " + std::to_string(entries) + " entries)");
            m.remainderRowStartAt[s + 1] = m.remainderRowStartAt[s] + (next > start ? m.segmentRows(s) + 1 : 0);
        }
        if (std::uint64_t(m.remainderStarts[segments]) != entries)
            sec.fail(st.offset + 8 * segments, stl + ": last entry is " + std::to_string(m.remainderStarts[segments]) + ", the " + rcl +
                                                   " holds " + std::to_string(entries));
        const std::uint64_t rowStartCount = std::uint64_t(m.remainderRowStartAt[segments]);
        if (rst.size != rowStartCount * 4)
            sec.fail(rst.offset, rstl + ": holds " + std::to_string(rst.size) + " bytes, expected " + std::to_string(rowStartCount) +
                                     " row starts of 4 bytes (rows + 1 per segment with a remainder)");
        m.remainderRowStarts = sec.array<std::int32_t>(rst, rowStartCount, "remainder row starts");
        if (rv.size != entries * vb)
            sec.fail(rv.offset, rvl + ": holds " + std::to_string(rv.size) + " bytes, expected " + std::to_string(entries) + " entries of " +
                                    std::to_string(vb) + " bytes");
        m.remainderColumns = sec.array<std::int32_t>(rc, entries, "remainder columns");
        m.remainderValues.resize(std::size_t(entries));
        for (std::uint64_t s = 0; s < segments; ++s) {
            const std::int64_t start = m.remainderStarts[s], count = m.remainderStarts[s + 1] - start;
            if (count == 0) continue;
            const std::int64_t base = m.remainderRowStartAt[s], h = m.segmentRows(s);
            const std::int32_t* rowStart = m.remainderRowStarts.data() + base;
            for (std::int64_t i = 0; i <= h; ++i) {
                const std::int64_t r = rowStart[i], expectedFirst = i == 0 ? 0 : rowStart[i - 1];
                const bool bad = i == 0 ? r != 0 : (r < expectedFirst || r > count) || (i == h && r != count);
                if (bad)
                    sec.fail(rst.offset + 4 * std::uint64_t(base + i),
                             rstl + ": entry " + std::to_string(base + i) + " (segment " + std::to_string(s) + ", local row " +
                                 std::to_string(i) + ") is " + std::to_string(r) +
                                 (i == 0 ? std::string(", expected 0")
                                         : ", expected " + std::to_string(expectedFirst) + " to " + std::to_string(count) +
                                               (i == h ? " and the segment's entry count at its end" : "")));
            }
            const std::int32_t* segOffsets = m.offsets.data() + m.offsetStarts[s];
            const std::int32_t* segOffsetsEnd = m.offsets.data() + m.offsetStarts[s + 1];
            for (std::int64_t i = 0; i < h; ++i) {
                const std::int64_t row = m.segmentRowStarts[s] + i;
                for (std::int64_t k = rowStart[i]; k < rowStart[i + 1]; ++k) {
                    const std::uint64_t at = std::uint64_t(start + k);
                    const std::int64_t col = m.remainderColumns[at];
                    const char* problem = nullptr;
                    if (col < 0 || col >= c.cols) problem = "lies outside the matrix";
                    else if (k > rowStart[i] && col <= m.remainderColumns[at - 1]) problem = "is not above the previous column of its row";
                    else if (col - row >= INT32_MIN && col - row <= INT32_MAX && std::binary_search(segOffsets, segOffsetsEnd, std::int32_t(col - row)))
                        problem = "lies on a diagonal the segment stores as DIA (a nonzero stored twice)";
                    if (problem)
                        sec.fail(rc.offset + 4 * at, rcl + ": entry " + std::to_string(at) + " (segment " + std::to_string(s) + ", row " +
                                                         std::to_string(row) + ") is column " + std::to_string(col) + ", which " + problem);
                    const double v = valueAt(rv, at, m.valueType);
                    const char* valueProblem = v == 0.0 ? "is 0 (the remainder holds only nonzeros)" : fieldViolation(v, m.field);
                    if (valueProblem)
                        sec.fail(rv.offset + at * vb, rvl + ": entry " + std::to_string(at) + " (row " + std::to_string(row) + ", column " +
                                                          std::to_string(col) + ") " + valueProblem);
                    m.remainderValues[at] = v;
                }
            }
        }
        counted += std::int64_t(entries);
    }
    if (counted != m.nonzeros)
        sec.fail(head.offset + 24, head.label + ": field 'nonzeros' is " + std::to_string(m.nonzeros) + ", the values and the remainder hold " +
                              std::to_string(counted));
    const Section& bs = sec.require(0x0206, "block starts");
    const Section& bseg = sec.require(0x0207, "block segments");
    const std::string bsl = sec.label(0x0206, "block starts");
    m.blockStarts = sec.array<std::int32_t>(bs, std::uint64_t(m.blocks) + 1, "block starts");
    if (m.blockStarts[0] != 0) sec.fail(bs.offset, bsl + ": entry 0 is " + std::to_string(m.blockStarts[0]) + ", expected 0");
    for (std::uint32_t b = 0; b < m.blocks; ++b)
        if (m.blockStarts[b + 1] <= m.blockStarts[b] || std::uint32_t(m.blockStarts[b + 1]) > segments)
            sec.fail(bs.offset + 4 * (std::uint64_t(b) + 1), bsl + ": entry " + std::to_string(b + 1) + " is " +
                                                                 std::to_string(m.blockStarts[b + 1]) + ", expected above " +
                                                                 std::to_string(m.blockStarts[b]) + " and at most " + std::to_string(segments));
    if (std::uint32_t(m.blockStarts[m.blocks]) != segments)
        sec.fail(bs.offset + 4 * std::uint64_t(m.blocks), bsl + ": last entry is " + std::to_string(m.blockStarts[m.blocks]) +
                                                              ", expected the segment count " + std::to_string(segments));
    m.blockSegments = sec.array<std::int32_t>(bseg, segments, "block segments");
    std::vector<bool> seen(std::size_t(segments), false);
    std::int64_t previousLead = -1;
    for (std::uint32_t b = 0; b < m.blocks; ++b)
        for (std::int32_t k = m.blockStarts[b]; k < m.blockStarts[b + 1]; ++k) {
            const std::int64_t s = m.blockSegments[std::size_t(k)];
            const char* problem = nullptr;
            if (s < 0 || std::uint64_t(s) >= segments) problem = "is not a segment";
            else if (seen[std::size_t(s)]) problem = "appears in a second place";
            else if (k > m.blockStarts[b] && s <= m.blockSegments[std::size_t(k) - 1]) problem = "is not above the previous segment of its block";
            else if (k == m.blockStarts[b] && s <= previousLead) problem = "leads its block but is not above the previous block's lead";
            if (problem)
                sec.fail(bseg.offset + 4 * std::uint64_t(k), sec.label(0x0207, "block segments") + ": entry " + std::to_string(k) +
                                                                 " (block " + std::to_string(b) + ") is segment " + std::to_string(s) +
                                                                 ", which " + problem);
            seen[std::size_t(s)] = true;
            if (k == m.blockStarts[b]) previousLead = s;
        }
}

// ---- bit-flag ------------------------------------------------------------------------------------

inline int popcount64(std::uint64_t v) {
    int n = 0;
    for (; v; v &= v - 1) ++n;
    return n;
}

inline void readBitFlag(Container& c, const Sections& sec) {
    BitFlag& m = c.bitflag;
    const Sections::FixedSummary head = sec.fixedSummary(0x0301, 32, 0, "0 (implied ones)", "no values");
    const std::uint32_t order = get<std::uint32_t>(head.data + 8);
    const std::uint32_t flags = get<std::uint32_t>(head.data + 12), wordBits = get<std::uint32_t>(head.data + 16), words = get<std::uint32_t>(head.data + 20);
    m.nonzeros = get<std::int64_t>(head.data + 24);
    if (order > 1) sec.fail(head.offset + 8, head.label + ": field 'order' is " + std::to_string(order) + ", expected 0 (row-major) or 1 (column-major)");
    if (flags & ~1u) sec.fail(head.offset + 12, head.label + ": field 'flags' has unknown bits set");
    m.valueType = ValueType(head.valueType);
    m.field = Field(head.field);
    m.columnMajor = order == 1;
    m.withPrefixCounts = (flags & 1u) != 0;
    const std::int64_t lineLength = m.columnMajor ? c.rows : c.cols, lines = m.columnMajor ? c.cols : c.rows;
    const std::uint32_t expectedBits = lineLength <= 32 ? 32 : 64;
    const std::uint32_t expectedWords = lineLength <= 32 ? 1 : std::uint32_t((lineLength + 63) / 64);
    if (wordBits != expectedBits)
        sec.fail(head.offset + 16, head.label + ": field 'word bits' is " + std::to_string(wordBits) + ", lines of " + std::to_string(lineLength) +
                              " elements use " + std::to_string(expectedBits));
    if (words != expectedWords)
        sec.fail(head.offset + 20, head.label + ": field 'words per line' is " + std::to_string(words) + ", lines of " + std::to_string(lineLength) +
                              " elements use " + std::to_string(expectedWords));
    if (m.nonzeros < 0) sec.fail(head.offset + 24, head.label + ": field 'nonzeros' (S) is negative");
    m.wordBits = wordBits;
    m.wordsPerLine = words;
    const std::uint64_t wordCount = std::uint64_t(lines) * words;
    const Section& fs = sec.require(0x0302, "flags");
    if (wordBits == 32) {
        const std::vector<std::uint32_t> w32 = sec.array<std::uint32_t>(fs, wordCount, "flags");
        m.flags.assign(w32.begin(), w32.end());
    } else {
        m.flags = sec.array<std::uint64_t>(fs, wordCount, "flags");
    }
    const std::int64_t used = lineLength - std::int64_t(words - 1) * wordBits;
    if (used < wordBits)
        for (std::int64_t line = 0; line < lines; ++line)
            if ((m.flags[std::size_t(line * words + words - 1)] >> used) != 0)
                sec.fail(fs.offset + (std::uint64_t(line) * words + words - 1) * (wordBits / 8),
                         sec.label(0x0302, "flags") + ": line " + std::to_string(line) + " has bits set past its " + std::to_string(lineLength) +
                             " elements");
    const Section& ls = sec.require(0x0303, "line starts P");
    const std::string plabel = sec.label(0x0303, "line starts P");
    m.lineStarts = sec.array<std::int64_t>(ls, std::uint64_t(lines) + 1, "line starts P");
    if (m.lineStarts[0] != 0) sec.fail(ls.offset, plabel + ": P[0] is " + std::to_string(m.lineStarts[0]) + ", expected 0");
    for (std::int64_t line = 0; line < lines; ++line) {
        std::int64_t count = 0;
        for (std::uint32_t w = 0; w < words; ++w) count += popcount64(m.flags[std::size_t(line * words + w)]);
        const std::int64_t expected = m.lineStarts[std::size_t(line)] + count;
        if (m.lineStarts[std::size_t(line) + 1] != expected)
            sec.fail(ls.offset + 8 * (std::uint64_t(line) + 1), plabel + ": P[" + std::to_string(line + 1) + "] is " +
                                                                    std::to_string(m.lineStarts[std::size_t(line) + 1]) + ", expected " +
                                                                    std::to_string(expected) + " (line " + std::to_string(line) + " has " +
                                                                    std::to_string(count) + " flags set)");
    }
    if (m.lineStarts[std::size_t(lines)] != m.nonzeros)
        sec.fail(head.offset + 24, head.label + ": field 'nonzeros' (S) is " + std::to_string(m.nonzeros) + ", the flags hold " +
                              std::to_string(m.lineStarts[std::size_t(lines)]));
    const Section& vs = sec.require(0x0304, "values M");
    const std::string mlabel = sec.label(0x0304, "values M");
    if (m.valueType == ValueType::ImpliedOnes) {
        if (vs.size != 0) sec.fail(vs.offset, mlabel + ": a pattern stores no values, the section holds " + std::to_string(vs.size) + " bytes");
    } else if (m.valueType == ValueType::Float32) {
        const std::vector<float> v = sec.array<float>(vs, std::uint64_t(m.nonzeros), "values M");
        m.values.assign(v.begin(), v.end());
    } else {
        m.values = sec.array<double>(vs, std::uint64_t(m.nonzeros), "values M");
    }
    if (m.field == Field::Integer)
        for (std::size_t k = 0; k < m.values.size(); ++k)
            if (!isWhole(m.values[k]))
                sec.fail(vs.offset + k * (m.valueType == ValueType::Float32 ? 4 : 8),
                         mlabel + ": M[" + std::to_string(k) + "] is not a whole number (integer field)");
    const Section* prefix = sec.find(0x0305);
    const std::string prefixLabel = sec.label(0x0305, "prefix counts");
    if (prefix && !m.withPrefixCounts) sec.fail(prefix->offset, prefixLabel + ": present, but the summary's flags say there are none");
    if (m.withPrefixCounts) {
        if (!prefix) sec.fail(head.offset + 12, prefixLabel + ": missing, the summary's flags announce it");
        m.prefixCounts = sec.array<std::uint32_t>(*prefix, wordCount, "prefix counts");
        for (std::int64_t line = 0; line < lines; ++line) {
            std::uint32_t before = 0;
            for (std::uint32_t w = 0; w < words; ++w) {
                const std::size_t at = std::size_t(line) * words + w;
                if (m.prefixCounts[at] != before)
                    sec.fail(prefix->offset + 4 * std::uint64_t(at), prefixLabel + ": line " + std::to_string(line) + " word " + std::to_string(w) +
                                                                         " says " + std::to_string(m.prefixCounts[at]) +
                                                                         " flags before it, the flags say " + std::to_string(before));
                before += std::uint32_t(popcount64(m.flags[at]));
            }
        }
    }
}

// ---- hybrid --------------------------------------------------------------------------------------

inline const char* shapeName(std::uint8_t shape) { return shape == 0 ? "rectangle" : shape == 1 ? "triangle" : "band"; }

inline Region regionRecord(const Sections& sec, const Section& regions, std::size_t index, std::int64_t rows, std::int64_t cols) {
    const unsigned char* p = regions.data + 32 * index;
    const std::uint64_t recordOffset = regions.offset + 32 * index;
    Region r;
    r.shape = p[0];
    r.corner = p[1];
    if (r.shape > 2 || r.corner > 3 || get<std::uint16_t>(p + 2) != 0)
        sec.fail(recordOffset, std::string(sec.name()) + ": region " + std::to_string(index) + " has an unknown shape");
    r.rowBegin = get<std::int32_t>(p + 4);
    r.rowEnd = get<std::int32_t>(p + 8);
    r.colBegin = get<std::int32_t>(p + 12);
    r.colEnd = get<std::int32_t>(p + 16);
    r.bandLow = get<std::int32_t>(p + 20);
    r.bandHigh = get<std::int32_t>(p + 24);
    r.zeros = get<std::uint32_t>(p + 28);
    const std::string what = std::string(sec.name()) + ": dense region " + shapeName(r.shape) + " rows [" + std::to_string(r.rowBegin) + "," +
                             std::to_string(r.rowEnd) + ") cols [" + std::to_string(r.colBegin) + "," + std::to_string(r.colEnd) + "): ";
    if (r.rowBegin < 0 || r.colBegin < 0 || r.rowEnd > rows || r.colEnd > cols)
        sec.fail(recordOffset, what + "lies outside the " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");
    if (r.rowBegin >= r.rowEnd || r.colBegin >= r.colEnd) sec.fail(recordOffset, what + "empty box");
    if (r.shape == 2) {
        if (r.bandLow > r.bandHigh) sec.fail(recordOffset, what + "band offsets out of order");
        if (std::int64_t(r.bandHigh) < -(std::int64_t(r.rowEnd) - r.rowBegin - 1) || std::int64_t(r.bandLow) > std::int64_t(r.colEnd) - r.colBegin - 1)
            sec.fail(recordOffset, what + "band misses its box");
    }
    return r;
}

inline std::int64_t spanSize(const Region& r, std::int64_t row) {
    const auto s = r.span(row);
    return s.second - s.first;
}

// Local rows [first, last) of a region whose span is not empty (O(1): a band's are one run).
inline std::pair<std::int64_t, std::int64_t> rowsWithCells(const Region& r) {
    const std::int64_t h = std::int64_t(r.rowEnd) - r.rowBegin, w = std::int64_t(r.colEnd) - r.colBegin;
    if (r.shape != 2) return {0, h};
    return {std::max<std::int64_t>(0, -std::int64_t(r.bandHigh)), std::min<std::int64_t>(h, w - r.bandLow)};
}

// The regions with cells in each row, in region order (CSR by row). Built from the rows with cells
// only, which the file's own data bounds (zero row pointers, region values).
struct RegionCover {
    std::vector<std::int64_t> start;   // rows + 1
    std::vector<std::uint32_t> region;

    RegionCover(const std::vector<Region>& regions, std::int64_t rows) : start(std::size_t(rows) + 1, 0) {
        for (const Region& r : regions) {
            const auto [first, last] = rowsWithCells(r);
            for (std::int64_t local = first; local < last; ++local) ++start[std::size_t(r.rowBegin + local) + 1];
        }
        for (std::size_t row = 0; row + 1 < start.size(); ++row) start[row + 1] += start[row];
        region.resize(std::size_t(start.back()));
        std::vector<std::int64_t> at(start.begin(), start.end() - 1);
        for (std::size_t b = 0; b < regions.size(); ++b) {
            const auto [first, last] = rowsWithCells(regions[b]);
            for (std::int64_t local = first; local < last; ++local) region[std::size_t(at[std::size_t(regions[b].rowBegin + local)]++)] = std::uint32_t(b);
        }
    }
    // The region holding element (row, col), or -1.
    std::int64_t holding(const std::vector<Region>& regions, std::int64_t row, std::int64_t col) const {
        for (std::int64_t k = start[std::size_t(row)]; k < start[std::size_t(row) + 1]; ++k) {
            const auto span = regions[region[std::size_t(k)]].span(row);
            if (col >= span.first && col < span.second) return region[std::size_t(k)];
        }
        return -1;
    }
    // The lowest region a < b sharing an element with region b, or -1.
    std::int64_t firstOverlapping(const std::vector<Region>& regions, std::size_t b) const {
        std::int64_t lowest = -1;
        const auto [first, last] = rowsWithCells(regions[b]);
        for (std::int64_t local = first; local < last; ++local) {
            const std::int64_t row = regions[b].rowBegin + local;
            const auto mine = regions[b].span(row);
            for (std::int64_t k = start[std::size_t(row)]; k < start[std::size_t(row) + 1]; ++k) {
                const std::uint32_t a = region[std::size_t(k)];
                if (a >= b || (lowest >= 0 && a >= lowest)) continue;
                const auto theirs = regions[a].span(row);
                if (std::max(mine.first, theirs.first) < std::min(mine.second, theirs.second)) lowest = a;
            }
        }
        return lowest;
    }
};

// The residual CSR's row pointers (monotone, from 0, within the columns) and columns (inside the
// matrix, strictly ascending per row, outside every region); `invalid` names the problem as
// Spyglass's validation does, in its order (binary: row by row, each entry's range and order, then
// its region; valued: all pointers, all columns, then the regions' overlap, then the entries' regions).
template <typename Invalid>
void checkResidual(const std::vector<std::int64_t>& ptr, const std::vector<std::int32_t>& cols, std::int64_t matrixCols, bool valued,
                   const std::vector<Region>& regions, const RegionCover& cover, Invalid invalid) {
    const std::int64_t nnz = std::int64_t(cols.size()), rows = std::int64_t(ptr.size()) - 1;
    if (ptr[0] != 0) invalid(valued ? "residual: row pointers, columns and values do not agree" : "residual row pointers do not span the residual entries");
    if (valued)
        for (std::int64_t row = 0; row < rows; ++row)
            if (ptr[std::size_t(row)] > ptr[std::size_t(row) + 1]) invalid("residual: row pointers decrease at row " + std::to_string(row));
    for (std::int64_t row = 0; row < rows; ++row) {
        const std::int64_t begin = ptr[std::size_t(row)], end = ptr[std::size_t(row) + 1];
        if (!valued && (begin > end || end > nnz)) invalid("residual row pointers out of order at row " + std::to_string(row));
        for (std::int64_t k = begin; k < end; ++k) {
            const std::int64_t j = cols[std::size_t(k)];
            if (j < 0 || j >= matrixCols || (k > begin && j <= cols[std::size_t(k) - 1]))
                invalid(valued ? "residual: column " + std::to_string(j) + " in row " + std::to_string(row) + " is out of range, repeated or out of order"
                               : "residual column " + std::to_string(j) + " in row " + std::to_string(row) + " is out of range or out of order");
            if (!valued)
                if (const std::int64_t b = cover.holding(regions, row, j); b >= 0)
                    invalid("residual entry (" + std::to_string(row) + ", " + std::to_string(j) + ") lies inside block " + std::to_string(b));
        }
    }
    if (!valued) return;
    for (std::size_t b = 0; b < regions.size(); ++b)
        if (const std::int64_t a = cover.firstOverlapping(regions, b); a >= 0)
            invalid("block " + std::to_string(b) + ": overlaps block " + std::to_string(a));
    for (std::int64_t row = 0; row < rows; ++row)
        for (std::int64_t k = ptr[std::size_t(row)]; k < ptr[std::size_t(row) + 1]; ++k)
            if (const std::int64_t b = cover.holding(regions, row, cols[std::size_t(k)]); b >= 0)
                invalid("residual entry (" + std::to_string(row) + ", " + std::to_string(cols[std::size_t(k)]) + ") lies inside block " +
                        std::to_string(b));
}

inline void readHybridBinary(Container& c, const Sections& sec) {
    Hybrid& h = c.hybrid;
    const Section& summary = sec.require(0x0101, "summary");
    for (std::uint32_t id : {0x0107u, 0x0108u})
        if (const Section* s = sec.find(id)) sec.fail(s->offset, "hybrid container: a binary (pattern) file holds a value section");
    if (summary.size < 8 || get<std::uint32_t>(summary.data + 4) != summary.size - 8 || get<std::uint32_t>(summary.data) > 1)
        sec.fail(summary.offset, "hybrid container: malformed summary section");
    h.fallback = get<std::uint32_t>(summary.data) == 1;
    h.reason.assign(reinterpret_cast<const char*>(summary.data) + 8, std::size_t(summary.size - 8));
    const Section& regions = sec.require(0x0102, "regions");
    if (regions.size % 32 != 0) sec.fail(regions.offset, "hybrid container: region section is not a whole number of 32-byte records");
    const std::size_t count = std::size_t(regions.size / 32);
    const Section& zrp = sec.require(0x0103, "zero row pointers");
    std::uint64_t rowPtrCount = 0, zeroCount = 0;
    for (std::size_t b = 0; b < count; ++b) {
        const Region r = regionRecord(sec, regions, b, c.rows, c.cols);
        rowPtrCount += std::uint64_t(r.rowEnd - r.rowBegin) + 1;
        if (rowPtrCount * 4 > zrp.size)
            sec.fail(zrp.offset, "hybrid container: zero row pointer section holds " + std::to_string(zrp.size / 4) + " entries, the regions need more");
        std::int64_t cells = 0;
        for (std::int64_t row = r.rowBegin; row < r.rowEnd; ++row) cells += spanSize(r, row);
        if (r.zeros > std::uint64_t(cells))
            sec.fail(regions.offset + 32 * b + 28, "hybrid container: region " + std::to_string(b) + " claims more zeros than it has elements");
        zeroCount += r.zeros;
        h.regions.push_back(r);
    }
    h.zeroRowPointers = sec.array<std::uint32_t>(zrp, rowPtrCount, "zero row pointers");
    h.zeroOffsets = sec.array<std::uint16_t>(sec.require(0x0104, "zero offsets"), zeroCount, "zero offsets");
    const Section& rp = sec.require(0x0105, "residual row pointers");
    h.residualRowPointers = sec.array<std::int64_t>(rp, std::uint64_t(c.rows) + 1, "residual row pointers");
    const Section& rc = sec.require(0x0106, "residual columns");
    const std::int64_t nnz = h.residualRowPointers.back();
    if (nnz < 0 || std::uint64_t(nnz) * 4 != rc.size)
        sec.fail(rp.offset + 8 * std::uint64_t(c.rows), "hybrid container: residual row pointers end at " + std::to_string(nnz) +
                                                            ", the column section holds " + std::to_string(rc.size / 4));
    h.residualColumns = sec.array<std::int32_t>(rc, std::uint64_t(nnz), "residual columns");
    const auto invalid = [&](const std::string& text) { sec.fail(regions.offset, "hybrid container: hybrid matrix: " + text); };
    const RegionCover cover(h.regions, c.rows);
    std::size_t ptrAt = 0, zeroAt = 0;
    for (std::size_t b = 0; b < count; ++b) {
        const Region& r = h.regions[b];
        if (const std::int64_t a = cover.firstOverlapping(h.regions, b); a >= 0)
            invalid("block " + std::to_string(b) + ": overlaps block " + std::to_string(a));
        const std::int64_t height = std::int64_t(r.rowEnd) - r.rowBegin;
        const std::uint32_t* zp = h.zeroRowPointers.data() + ptrAt;
        const std::uint16_t* zo = h.zeroOffsets.data() + zeroAt;
        if (zp[0] != 0 || zp[height] != r.zeros) invalid("block " + std::to_string(b) + ": zero row pointers do not span its zeros");
        for (std::int64_t local = 0; local < height; ++local) {
            if (zp[local] > zp[local + 1] || zp[local + 1] > r.zeros)
                invalid("block " + std::to_string(b) + ": zero row pointers out of order at row " + std::to_string(local));
            const std::int64_t size = spanSize(r, r.rowBegin + local);
            for (std::uint32_t z = zp[local]; z < zp[local + 1]; ++z) {
                if (zo[z] >= size) invalid("block " + std::to_string(b) + ": zero " + std::to_string(z) + " lies past its row's span");
                if (z > zp[local] && zo[z] <= zo[z - 1])
                    invalid("block " + std::to_string(b) + ": zeros of row " + std::to_string(local) + " are not strictly increasing");
            }
        }
        ptrAt += std::size_t(height) + 1;
        zeroAt += r.zeros;
    }
    checkResidual(h.residualRowPointers, h.residualColumns, c.cols, false, h.regions, cover, invalid);
    if (h.fallback != (count == 0)) sec.fail(summary.offset, "hybrid container: fallback flag disagrees with the region count");
}

inline void readHybridValued(Container& c, const Sections& sec) {
    Hybrid& h = c.hybrid;
    h.valued = true;
    const Section& summary = sec.require(0x0101, "summary");
    const unsigned char* sd = summary.data;
    if (summary.size < 16 || get<std::uint32_t>(sd + 4) != summary.size - 16 || (get<std::uint32_t>(sd) & ~3u) != 0)
        sec.fail(summary.offset, "valued hybrid container: malformed summary section");
    h.fallback = (get<std::uint32_t>(sd) & 1u) != 0;
    const std::uint32_t reasonLength = get<std::uint32_t>(sd + 4);
    h.reason.assign(reinterpret_cast<const char*>(sd) + 8, reasonLength);
    const std::uint32_t valueType = get<std::uint32_t>(sd + 8 + reasonLength), field = get<std::uint32_t>(sd + 12 + reasonLength);
    if (valueType != 2 && valueType != 3)
        sec.fail(summary.offset + 8 + reasonLength, "valued hybrid container: value type " + std::to_string(valueType) + " is not f32 (2) or f64 (3)");
    if (field > 1)
        sec.fail(summary.offset + 12 + reasonLength, "valued hybrid container: field " + std::to_string(field) + " is not real (0) or integer (1)");
    h.valueType = ValueType(valueType);
    h.field = Field(field);
    const std::size_t width = valueWidth(h.valueType);
    for (std::uint32_t id : {0x0103u, 0x0104u})
        if (const Section* s = sec.find(id)) sec.fail(s->offset, "valued hybrid container: holds a zero-position section of the binary form");
    const Section& regions = sec.require(0x0102, "regions");
    if (regions.size % 32 != 0) sec.fail(regions.offset, "valued hybrid container: region section is not a whole number of 32-byte records");
    const Section& values = sec.require(0x0107, "region values");
    if (values.size % width != 0)
        sec.fail(values.offset, "valued hybrid container: region values are not a whole number of " + std::to_string(width) + "-byte values");
    const std::uint64_t valueCount = values.size / width;
    const std::size_t count = std::size_t(regions.size / 32);
    std::uint64_t used = 0;
    h.regionValues.resize(std::size_t(valueCount));
    for (std::size_t b = 0; b < count; ++b) {
        const Region r = regionRecord(sec, regions, b, c.rows, c.cols);
        const std::int64_t height = std::int64_t(r.rowEnd) - r.rowBegin, width2 = std::int64_t(r.colEnd) - r.colBegin;
        std::int64_t first = 0, last = height;  // rows with cells, O(1): a band's are one run
        if (r.shape == 2) {
            first = std::max<std::int64_t>(0, -std::int64_t(r.bandHigh));
            last = std::min<std::int64_t>(height, width2 - r.bandLow);
        }
        const std::string needMore = "valued hybrid container: region values hold " + std::to_string(valueCount) + " values, the regions need more";
        if (last > first && std::uint64_t(last - first) > valueCount - used) sec.fail(values.offset, needMore);
        std::uint64_t cells = 0;
        for (std::int64_t local = first; local < last; ++local) cells += std::uint64_t(spanSize(r, r.rowBegin + local));
        if (cells > valueCount - used) sec.fail(values.offset, needMore);
        if (r.zeros > cells)
            sec.fail(regions.offset + 32 * b + 28, "valued hybrid container: region " + std::to_string(b) + " claims more zeros than it has cells");
        std::uint64_t zeros = 0;
        for (std::uint64_t k = 0; k < cells; ++k) {
            const double v = valueAt(values, used + k, h.valueType);
            h.regionValues[std::size_t(used + k)] = v;
            zeros += v == 0.0;
        }
        if (zeros != r.zeros)
            sec.fail(regions.offset + 32 * b + 28, "valued hybrid container: region " + std::to_string(b) + " claims " + std::to_string(r.zeros) +
                                                       " zero cells, its values hold " + std::to_string(zeros));
        used += cells;
        h.regions.push_back(r);
    }
    if (used != valueCount)
        sec.fail(values.offset, "valued hybrid container: region values hold " + std::to_string(valueCount) + " values, the regions have " +
                                    std::to_string(used) + " cells");
    const Section& rp = sec.require(0x0105, "residual row pointers");
    h.residualRowPointers = sec.array<std::int64_t>(rp, std::uint64_t(c.rows) + 1, "residual row pointers");
    const Section& rc = sec.require(0x0106, "residual columns");
    const Section& rv = sec.require(0x0108, "residual values");
    const std::int64_t nnz = h.residualRowPointers.back();
    if (nnz < 0 || std::uint64_t(nnz) * 4 != rc.size)
        sec.fail(rp.offset + 8 * std::uint64_t(c.rows), "valued hybrid container: residual row pointers end at " + std::to_string(nnz) +
                                                            ", the column section holds " + std::to_string(rc.size / 4));
    if (rv.size != std::uint64_t(nnz) * width)
        sec.fail(rv.offset, "valued hybrid container: residual values hold " + std::to_string(rv.size) + " bytes, expected " +
                                std::to_string(nnz) + " values of " + std::to_string(width) + " bytes");
    h.residualColumns = sec.array<std::int32_t>(rc, std::uint64_t(nnz), "residual columns");
    h.residualValues.resize(std::size_t(nnz));
    for (std::size_t k = 0; k < h.residualValues.size(); ++k) h.residualValues[k] = valueAt(rv, k, h.valueType);
    if (h.field == Field::Integer) {
        std::size_t at = 0;
        for (std::size_t b = 0; b <= h.regions.size(); ++b) {
            const bool residual = b == h.regions.size();
            std::size_t n = residual ? h.residualValues.size() : 0;
            if (!residual)
                for (std::int64_t row = h.regions[b].rowBegin; row < h.regions[b].rowEnd; ++row) n += std::size_t(spanSize(h.regions[b], row));
            const double* v = residual ? h.residualValues.data() : h.regionValues.data() + at;
            for (std::size_t k = 0; k < n; ++k)
                if (!isWhole(v[k]))
                    sec.fail(summary.offset, std::string("valued hybrid container: ") + (residual ? "residual" : "region") + " value " +
                                                 std::to_string(k) + " (" + std::to_string(v[k]) + ") is not a whole number; field integer");
            at += residual ? 0 : n;
        }
    }
    checkResidual(h.residualRowPointers, h.residualColumns, c.cols, true, h.regions, RegionCover(h.regions, c.rows),
                  [&](const std::string& text) { sec.fail(regions.offset, "valued hybrid container: valued hybrid matrix: " + text); });
    if (h.fallback != (count == 0)) sec.fail(summary.offset, "valued hybrid container: fallback flag disagrees with the region count");
}

} // namespace detail

// Checks and reads a container from its bytes; `source` names it in errors.
inline Container parse(const std::string& bytes, const std::string& source = "<memory>") {
    using detail::get;
    const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
    const std::uint64_t size = bytes.size();
    const auto fail = [&](std::uint64_t offset, const std::string& problem) { throw FormatError(source, offset, problem); };
    if (size < 56) fail(size, "truncated: " + std::to_string(size) + " bytes, a container has at least 56");
    if (std::memcmp(data, "SPYGLSMX", 8) != 0) fail(0, "not a Spyglass container (magic SPYGLSMX missing)");
    const std::uint32_t version = get<std::uint32_t>(data + 8);
    if (version != 1) fail(8, "unsupported container version " + std::to_string(version) + " (this reader knows version 1)");
    const std::uint64_t declared = get<std::uint64_t>(data + 40);
    if (declared != size)
        fail(40, "header says the file has " + std::to_string(declared) + " bytes, it has " + std::to_string(size) +
                     (size < declared ? " (truncated)" : " (trailing data)"));
    if (std::memcmp(data + size - 4, "SGEN", 4) != 0) fail(size - 4, "end marker missing");
    if (get<std::uint32_t>(data + size - 8) != detail::crc32(data, std::size_t(size - 8))) fail(size - 8, "checksum mismatch: the file is damaged");
    const std::uint32_t encoding = get<std::uint32_t>(data + 12);
    if (encoding < 1 || encoding > 3) fail(12, "unknown encoding " + std::to_string(encoding));
    Container c;
    c.source = source;
    c.encoding = Encoding(encoding);
    c.rows = get<std::int64_t>(data + 16);
    c.cols = get<std::int64_t>(data + 24);
    if (c.rows < 0 || c.rows > INT32_MAX) fail(16, "row count " + std::to_string(c.rows) + " out of range");
    if (c.cols < 0 || c.cols > INT32_MAX) fail(24, "column count " + std::to_string(c.cols) + " out of range");
    const std::uint32_t count = get<std::uint32_t>(data + 32);
    if (get<std::uint32_t>(data + 36) != 0) fail(36, "unknown header flags");
    std::vector<detail::Section> sections;
    std::uint64_t offset = 48;
    const std::uint64_t end = size - 8;
    bool haveNote = false;
    for (std::uint32_t k = 0; k < count; ++k) {
        if (end - offset < 16)
            fail(offset, "section " + std::to_string(k) + " of " + std::to_string(count) + ": header runs past the end of the sections");
        detail::Section s;
        s.id = get<std::uint32_t>(data + offset);
        const std::uint32_t flags = get<std::uint32_t>(data + offset + 4);
        s.size = get<std::uint64_t>(data + offset + 8);
        if (s.size > end - offset - 16)
            fail(offset + 8, "section id " + std::to_string(s.id) + " declares " + std::to_string(s.size) + " bytes, only " +
                                 std::to_string(end - offset - 16) + " remain");
        s.offset = offset + 16;
        s.data = data + s.offset;
        for (const detail::Section& seen : sections)
            if (seen.id == s.id) fail(offset, "section id " + std::to_string(s.id) + " appears twice");
        const bool known = detail::knownId(s.id);
        if (!known && !(flags & 1u)) fail(offset, "unknown required section id " + std::to_string(s.id));
        if (known) sections.push_back(s);
        else if (s.id == 0xFF01 && !haveNote) {
            c.note.assign(reinterpret_cast<const char*>(s.data), std::size_t(s.size));
            haveNote = true;
        }
        offset = s.offset + s.size;
    }
    if (offset != end) fail(offset, std::to_string(end - offset) + " bytes after the last section");
    static const char* names[] = {"", "hybrid", "segdia", "bitflag"};
    const std::vector<std::uint32_t>& own = detail::sectionIds(encoding);
    for (const detail::Section& s : sections)
        if (std::find(own.begin(), own.end(), s.id) == own.end())
            fail(s.offset - 16, "section id " + std::to_string(s.id) + " does not belong to the " + names[encoding] + " encoding");
    if (c.encoding == Encoding::SegmentedDia) {
        detail::readSegmentedDia(c, detail::Sections("segmented-DIA container", sections, source));
    } else if (c.encoding == Encoding::BitFlag) {
        detail::readBitFlag(c, detail::Sections("bit-flag container", sections, source));
    } else {
        const detail::Section* summary = nullptr;
        for (const detail::Section& s : sections)
            if (s.id == 0x0101) summary = &s;
        if (summary && summary->size >= 4 && (get<std::uint32_t>(summary->data) & 2u))
            detail::readHybridValued(c, detail::Sections("valued hybrid container", sections, source));
        else
            detail::readHybridBinary(c, detail::Sections("hybrid container", sections, source));
    }
    return c;
}

// Reads and checks the container at `path` (FormatError when it is damaged, std::runtime_error when
// it cannot be read).
inline Container load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open for reading");
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw std::runtime_error(path + ": read failed");
    return parse(bytes, path);
}

// The number of entries toCoo gives, counted from the checked arrays without expanding anything.
inline std::int64_t entryCount(const Container& c) {
    if (c.encoding == Encoding::SegmentedDia) return c.segdia.nonzeros;
    if (c.encoding == Encoding::BitFlag) return c.bitflag.nonzeros;
    std::int64_t n = std::int64_t(c.hybrid.residualColumns.size());
    for (const Region& r : c.hybrid.regions) {
        const auto [first, last] = detail::rowsWithCells(r);
        for (std::int64_t local = first; local < last; ++local) n += detail::spanSize(r, r.rowBegin + local);
        n -= r.zeros;
    }
    return n;
}

// The entries the container encodes, sorted by row then column: pattern entries are 1; explicit zeros
// come back only from bit-flag files (segmented DIA and hybrid drop them, as Spyglass's decode does).
// More than maxEntries entries: TooLargeError, before anything is expanded.
inline Coo toCoo(const Container& c, std::int64_t maxEntries = kDefaultMaxEntries) {
    static const char* names[] = {"", "hybrid", "segdia", "bitflag"};
    if (const std::int64_t n = entryCount(c); n > maxEntries)
        throw TooLargeError(c.source + ": the " + names[int(c.encoding)] + " container decodes to " + std::to_string(n) +
                            " entries, more than the limit of " + std::to_string(maxEntries));
    Coo out;
    out.rows = c.rows;
    out.cols = c.cols;
    std::vector<std::pair<std::int64_t, double>> entries;  // key row x cols + col
    const auto add = [&](std::int64_t row, std::int64_t col, double v) { entries.push_back({row * c.cols + col, v}); };
    if (c.encoding == Encoding::SegmentedDia) {
        const SegmentedDia& m = c.segdia;
        out.field = m.field;
        for (std::size_t s = 0; s < m.segments; ++s) {
            const std::int64_t h = m.segmentRows(s);
            for (std::int64_t d = 0; d < m.offsetStarts[s + 1] - m.offsetStarts[s]; ++d)
                for (std::int64_t i = 0; i < h; ++i) {
                    const double v = m.values[std::size_t(m.valueStarts[s] + d * h + i)];
                    const std::int64_t row = m.segmentRowStarts[s] + i;
                    if (v != 0.0) add(row, row + m.offsets[std::size_t(m.offsetStarts[s] + d)], v);
                }
            if (m.remainderStarts[s + 1] == m.remainderStarts[s]) continue;
            const std::int32_t* rowStart = m.remainderRowStarts.data() + m.remainderRowStartAt[s];
            for (std::int64_t i = 0; i < h; ++i)
                for (std::int64_t k = rowStart[i]; k < rowStart[i + 1]; ++k) {
                    const std::size_t at = std::size_t(m.remainderStarts[s] + k);
                    add(m.segmentRowStarts[s] + i, m.remainderColumns[at], m.remainderValues[at]);
                }
        }
    } else if (c.encoding == Encoding::BitFlag) {
        const BitFlag& m = c.bitflag;
        out.field = m.field;
        const std::int64_t lines = m.columnMajor ? c.cols : c.rows, length = m.columnMajor ? c.rows : c.cols;
        for (std::int64_t line = 0; line < lines; ++line) {
            std::int64_t k = m.lineStarts[std::size_t(line)];
            for (std::int64_t pos = 0; pos < length; ++pos) {
                const std::uint64_t word = m.flags[std::size_t(line * m.wordsPerLine + pos / m.wordBits)];
                if (!((word >> (pos % m.wordBits)) & 1u)) continue;
                const double v = m.values.empty() ? 1.0 : m.values[std::size_t(k)];
                ++k;
                if (m.columnMajor) add(pos, line, v);
                else add(line, pos, v);
            }
        }
    } else {
        const Hybrid& h = c.hybrid;
        out.field = h.field;
        for (std::int64_t row = 0; row < c.rows; ++row)
            for (std::int64_t k = h.residualRowPointers[std::size_t(row)]; k < h.residualRowPointers[std::size_t(row) + 1]; ++k)
                add(row, h.residualColumns[std::size_t(k)], h.valued ? h.residualValues[std::size_t(k)] : 1.0);
        std::size_t ptrAt = 0, zeroAt = 0, valueAt = 0;
        for (const Region& r : h.regions) {
            for (std::int64_t row = r.rowBegin; row < r.rowEnd; ++row) {
                const auto span = r.span(row);
                const std::int64_t local = row - r.rowBegin;
                std::uint32_t z = h.valued ? 0 : h.zeroRowPointers[ptrAt + std::size_t(local)];
                const std::uint32_t zEnd = h.valued ? 0 : h.zeroRowPointers[ptrAt + std::size_t(local) + 1];
                for (std::int64_t j = span.first; j < span.second; ++j) {
                    if (h.valued) {
                        const double v = h.regionValues[valueAt++];
                        if (v != 0.0) add(row, j, v);
                    } else if (z < zEnd && span.first + h.zeroOffsets[zeroAt + z] == j) {
                        ++z;
                    } else {
                        add(row, j, 1.0);
                    }
                }
            }
            ptrAt += std::size_t(r.rowEnd - r.rowBegin) + 1;
            zeroAt += r.zeros;
        }
    }
    std::stable_sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    out.rowIndex.reserve(entries.size());
    out.colIndex.reserve(entries.size());
    out.values.reserve(entries.size());
    for (const auto& [key, v] : entries) {
        out.rowIndex.push_back(std::int32_t(c.cols ? key / c.cols : 0));
        out.colIndex.push_back(std::int32_t(c.cols ? key % c.cols : 0));
        out.values.push_back(v);
    }
    return out;
}

} // namespace spyglass_container
