#pragma once
// What every encoding's encoder and decoder do the same way: the value type and field a summary
// stores, the container's shell; and the decoders' checks (which encoding the container holds, the
// fixed-size summary, its value type and field, one dense-region record, the hybrid residual and the
// final validation), with the encoding's name in each error, so that the encodings differ only where
// their formats do.
#include "io/container_io.h"

#include "spyglass/error.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrix.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace spyglass::container_io {

// A dense region's record in the hybrid encodings' regions section.
constexpr std::size_t kRegionRecordBytes = 32;

// Appends r's record: shape, corner, two zero bytes, the six int32 bounds, then `count` (the zeros
// or values the region holds, as the encoding defines it).
inline void putRegionRecord(std::string& out, const DenseRegion& r, std::uint32_t count) {
    put<std::uint8_t>(out, static_cast<std::uint8_t>(r.shape));
    put<std::uint8_t>(out, static_cast<std::uint8_t>(r.corner));
    put<std::uint16_t>(out, 0);
    for (Index v : {r.rowBegin, r.rowEnd, r.colBegin, r.colEnd, r.bandLow, r.bandHigh}) put<std::int32_t>(out, v);
    put<std::uint32_t>(out, count);
}

// A whole number a double holds exactly (the Matrix Market integer field, up to 2^53).
inline bool isWholeNumber(double v) { return std::isfinite(v) && std::trunc(v) == v && std::abs(v) <= 9007199254740992.0; }

// How an encoder stores values of type T (float or double) under a field, and what a valued summary's
// first two words say: the field code, the field it stands for, and the value type.
struct StoredValues {
    std::uint32_t fieldCode;
    Field field;
    container::ValueType valueType;
};

// The field code of `field` (complex is refused with an InputError) and the value type: patternType,
// the encoding's own way of storing a pattern, or f32 / f64 by T.
template <typename T>
StoredValues storedValuesOf(Field field, container::ValueType patternType) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "stored values are float or double");
    const std::uint32_t fieldCode = container::fieldCode(field);
    const Field kept = container::fieldFromCode(fieldCode);
    const container::ValueType valueType = kept == Field::Pattern      ? patternType
                                           : std::is_same_v<T, float> ? container::ValueType::Float32
                                                                       : container::ValueType::Float64;
    return {fieldCode, kept, valueType};
}

// An encoder's first step: a container of `encoding` with m's dimensions.
template <typename Matrix>
Container containerShellOf(ContainerEncoding encoding, const Matrix& m) {
    Container c;
    c.encoding = encoding;
    c.rows = m.rows;
    c.cols = m.cols;
    return c;
}

// The first two words of a valued summary (value type, field code), which FixedSummary reads back.
inline std::string valuedSummaryHead(const StoredValues& stored) {
    std::string summary;
    put<std::uint32_t>(summary, static_cast<std::uint32_t>(stored.valueType));
    put<std::uint32_t>(summary, stored.fieldCode);
    return summary;
}

// A ContainerFormatError at the header's encoding field unless c holds `expected` (`key`: "hybrid").
inline void requireEncoding(const Container& c, ContainerEncoding expected, const char* key, const std::string& source) {
    if (c.encoding != expected)
        throw ContainerFormatError(source, 12, std::string("container holds the ") + toString(c.encoding) + " encoding, not " + key);
}

// An encoder's last step: the free-text note, when there is one, as the optional metadata section.
inline Container withNote(Container c, const std::string& note) {
    if (!note.empty()) c.sections.push_back({container::kMetadataText, container::kSectionOptional, note});
    return c;
}

// The matrix a decoder fills: c's dimensions, after checking that c holds `expected` (`key`: "segdia").
template <typename Matrix>
Matrix matrixShellOf(const Container& c, ContainerEncoding expected, const char* key, const std::string& source) {
    requireEncoding(c, expected, key, source);
    Matrix m;
    m.rows = c.rows;
    m.cols = c.cols;
    return m;
}

// One record of the hybrid encodings' regions section: the region (checked against the matrix), the
// count its last word holds (the zeros or the values the region has, as the encoding defines it), and
// where the record starts in the file, for errors about that count.
struct RegionRecord {
    DenseRegion region;
    std::uint32_t count;
    std::uint64_t offset;
};

// A fixed-size summary with the two words every valued summary starts with: the value type (byte 0)
// and the field code (byte 4); label names it in errors.
struct FixedSummary {
    const ContainerSection& section;
    std::string label;
    std::uint32_t valueTypeCode, fieldCode;
};

// One encoding's sections: section lookups and array reads whose errors name the encoding.
class EncodingSections {
public:
    constexpr explicit EncodingSections(const char* encoding) : encoding_(encoding) {}

    std::string label(std::uint32_t id, const char* name) const { return sectionLabel(encoding_, id, name); }

    const ContainerSection& require(const Container& c, std::uint32_t id, const char* name, const std::string& source) const {
        return container_io::require(c, id, encoding_, name, source);
    }

    template <typename T>
    std::vector<T> unpackArray(const ContainerSection& s, std::uint64_t count, const char* name, const std::string& source) const {
        return container_io::unpackArray<T>(s, count, encoding_, name, source);
    }

    // The summary section, which must hold exactly `bytes` bytes.
    const ContainerSection& requireSummary(const Container& c, std::uint32_t id, std::size_t bytes, const std::string& source) const {
        const ContainerSection& summary = require(c, id, "summary", source);
        if (summary.bytes().size() != bytes)
            throw ContainerFormatError(source, summary.offset, label(id, "summary") + ": holds " +
                                                                   std::to_string(summary.bytes().size()) + " bytes, expected " +
                                                                   std::to_string(bytes));
        return summary;
    }

    // The summary section `id` of exactly `bytes` bytes, with its label and leading words.
    FixedSummary fixedSummary(const Container& c, std::uint32_t id, std::size_t bytes, const std::string& source) const {
        const ContainerSection& summary = requireSummary(c, id, bytes, source);
        return {summary, label(id, "summary"), get<std::uint32_t>(summary.bytes(), 0),
                get<std::uint32_t>(summary.bytes(), 4)};
    }

    // The summary's field code, stored at byte 4, as a Field.
    Field summaryField(const ContainerSection& summary, std::uint32_t fieldCode, const std::string& source) const {
        if (fieldCode > 2)
            throw ContainerFormatError(source, summary.offset + 4, label(summary.id, "summary") + ": field 'field' is " +
                                                                       std::to_string(fieldCode) +
                                                                       ", expected 0 (real), 1 (integer) or 2 (pattern)");
        return container::fieldFromCode(fieldCode);
    }

    // The value type and field a fixed summary states, checked: the value type one of `allowed`
    // (`expected` lists them in the error), the field code known, and the field a pattern exactly when
    // the value type is patternType (`rule` says so in the error).
    StoredValues summaryValues(const FixedSummary& head, std::initializer_list<container::ValueType> allowed, const char* expected,
                               container::ValueType patternType, const char* rule, const std::string& source) const {
        const bool known = std::any_of(allowed.begin(), allowed.end(),
                                       [&](container::ValueType t) { return static_cast<std::uint32_t>(t) == head.valueTypeCode; });
        if (!known)
            throw ContainerFormatError(source, head.section.offset, head.label + ": field 'value type' is " +
                                                                        std::to_string(head.valueTypeCode) + ", expected " + expected);
        const Field field = summaryField(head.section, head.fieldCode, source);
        const auto valueType = static_cast<container::ValueType>(head.valueTypeCode);
        requireValueTypeFits((field == Field::Pattern) == (valueType == patternType), head.section, head.valueTypeCode, head.fieldCode,
                             rule, source);
        return {head.fieldCode, field, valueType};
    }

    // A ContainerFormatError unless the value type `fits` the field; `rule` says which go together.
    void requireValueTypeFits(bool fits, const ContainerSection& summary, std::uint32_t valueTypeCode, std::uint32_t fieldCode,
                              const char* rule, const std::string& source) const {
        if (!fits)
            throw ContainerFormatError(source, summary.offset, label(summary.id, "summary") + ": value type " +
                                                                   std::to_string(valueTypeCode) + " does not go with field " +
                                                                   std::to_string(fieldCode) + " " + rule);
    }

    // The regions section, a whole number of region records (regionCount of them).
    const ContainerSection& requireRegions(const Container& c, const std::string& source) const {
        const ContainerSection& regions = require(c, container::kHybridRegions, "regions", source);
        if (regions.bytes().size() % kRegionRecordBytes != 0)
            throw ContainerFormatError(source, regions.offset,
                                       std::string(encoding_) + ": region section is not a whole number of 32-byte records");
        return regions;
    }

    static std::size_t regionCount(const ContainerSection& regions) { return regions.bytes().size() / kRegionRecordBytes; }

    // Record `index` of the regions section (shape, corner, two zero bytes, six int32 bounds, the
    // count), its region checked against a rows x cols matrix.
    RegionRecord regionRecord(const ContainerSection& regions, std::size_t index, Index rows, Index cols,
                              const std::string& source) const {
        const std::string_view bytes = regions.bytes();
        const std::size_t at = index * kRegionRecordBytes;
        const std::uint64_t recordOffset = regions.offset + at;
        const std::uint8_t shape = get<std::uint8_t>(bytes, at), corner = get<std::uint8_t>(bytes, at + 1);
        if (shape > 2 || corner > 3 || get<std::uint16_t>(bytes, at + 2) != 0)
            throw ContainerFormatError(source, recordOffset, std::string(encoding_) + ": region " + std::to_string(index) +
                                                                 " has an unknown shape");
        DenseRegion r;
        r.shape = static_cast<RegionShape>(shape);
        r.corner = static_cast<TriangleCorner>(corner);
        r.rowBegin = get<std::int32_t>(bytes, at + 4);
        r.rowEnd = get<std::int32_t>(bytes, at + 8);
        r.colBegin = get<std::int32_t>(bytes, at + 12);
        r.colEnd = get<std::int32_t>(bytes, at + 16);
        r.bandLow = get<std::int32_t>(bytes, at + 20);
        r.bandHigh = get<std::int32_t>(bytes, at + 24);
        try {
            validateRegion(r, rows, cols);
        } catch (const InputError& error) {
            throw ContainerFormatError(source, recordOffset, std::string(encoding_) + ": " + error.what());
        }
        return {r, get<std::uint32_t>(bytes, at + 28), recordOffset};
    }

    // Where a residual's row pointers and columns lie, both lengths checked: rows + 1 pointers, and as
    // many columns as the last pointer says (nnz). Nothing is unpacked.
    struct ResidualSections {
        const ContainerSection& rowPtr;
        const ContainerSection& columns;
        Count nnz;
    };
    ResidualSections residualSections(const Container& c, Index rows, const std::string& source) const {
        const ContainerSection& rowPtr = require(c, container::kHybridResidualRowPtr, "residual row pointers", source);
        container_io::requireEntries<Count>(rowPtr, static_cast<std::uint64_t>(rows) + 1, encoding_, "residual row pointers", source);
        const ContainerSection& columns = require(c, container::kHybridResidualCols, "residual columns", source);
        const auto nnz = get<Count>(rowPtr.bytes(), 8 * static_cast<std::size_t>(rows));
        if (nnz < 0 || static_cast<std::uint64_t>(nnz) * 4 != columns.bytes().size())
            throw ContainerFormatError(source, rowPtr.offset + 8 * static_cast<std::uint64_t>(rows),
                                       std::string(encoding_) + ": residual row pointers end at " + std::to_string(nnz) +
                                           ", the column section holds " + std::to_string(columns.bytes().size() / 4));
        return {rowPtr, columns, nnz};
    }

    // The residual's structure into `residual` (the pattern, or a CSR whose values the caller reads):
    // its sections checked (residualSections) and its row pointers unpacked, then its columns unless
    // `columnsLater`: the caller then unpacks them (the section residualColumns names) beside its values.
    template <typename Residual>
    Count readResidualStructure(Residual& residual, const Container& c, Index rows, Index cols, const std::string& source,
                                bool columnsLater = false) const {
        const ResidualSections sections = residualSections(c, rows, source);
        residual.rows = rows;
        residual.cols = cols;
        residual.rowPtr = unpackArray<Count>(sections.rowPtr, static_cast<std::uint64_t>(rows) + 1, "residual row pointers", source);
        if (!columnsLater)
            residual.colIndex = unpackArray<Index>(sections.columns, static_cast<std::uint64_t>(sections.nnz), "residual columns", source);
        return sections.nnz;
    }

    // A decoded hybrid form checked whole by `validate` (its error placed at the regions section), and
    // its fallback flag against its region count.
    template <typename Hybrid, typename Validate>
    void requireValidHybrid(const Hybrid& h, Validate validate, const ContainerSection& summary, const ContainerSection& regions,
                            const std::string& source) const {
        try {
            validate(h);
        } catch (const InputError& error) {
            throw ContainerFormatError(source, regions.offset, std::string(encoding_) + ": " + error.what());
        }
        if (h.csrFallback != h.blocks.empty())
            throw ContainerFormatError(source, summary.offset, std::string(encoding_) + ": fallback flag disagrees with the region count");
    }

    const char* name() const { return encoding_; }

private:
    const char* encoding_;
};

} // namespace spyglass::container_io
