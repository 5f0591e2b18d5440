// Any container back to a plain matrix (what `spyglass-cli decode` writes as Matrix Market), and the
// pieces the encodings share: their section ids and the field codes of the summaries.
#include "core/stagetimings.h"
#include "io/container_hybrid_rows.h"
#include "io/container_io.h"
#include "io/container_matrix_proving.h"
#include "io/container_to_matrix.h"
#include "io/mappedfile.h"

#include "spyglass/container.h"
#include "spyglass/convert.h"
#include "spyglass/hostmemory.h"

#include <algorithm>

namespace spyglass {

namespace container {

std::uint32_t fieldCode(Field field) {
    switch (field) {
    case Field::Real:
    case Field::Double: return 0;
    case Field::Integer: return 1;
    case Field::Pattern: return 2;
    case Field::Complex: break;
    }
    throw InputError("the Spyglass container stores real, integer or pattern values; this matrix is complex");
}

Field fieldFromCode(std::uint32_t code) {
    return code == 1 ? Field::Integer : code == 2 ? Field::Pattern : Field::Real;
}

} // namespace container

const std::vector<std::uint32_t>& containerSectionIds(ContainerEncoding encoding) {
    using namespace container;
    static const std::vector<std::uint32_t> hybrid = {kHybridSummary,     kHybridRegions,        kHybridZeroRowPtr,
                                                      kHybridZeroOffsets, kHybridResidualRowPtr, kHybridResidualCols,
                                                      kHybridRegionValues, kHybridResidualValues};
    static const std::vector<std::uint32_t> segdia = {kSegdiaSummary,         kSegdiaRowStarts,          kSegdiaOffsetStarts,
                                                      kSegdiaOffsets,         kSegdiaValues,             kSegdiaBlockStarts,
                                                      kSegdiaBlockSegments,   kSegdiaRemainderStarts,    kSegdiaRemainderRowStarts,
                                                      kSegdiaRemainderColumns, kSegdiaRemainderValues};
    static const std::vector<std::uint32_t> bitflag = {kBitFlagSummary, kBitFlagFlags, kBitFlagLineStarts, kBitFlagValues,
                                                       kBitFlagPrefixCounts};
    switch (encoding) {
    case ContainerEncoding::HybridBinary: return hybrid;
    case ContainerEncoding::SegmentedDia: return segdia;
    case ContainerEncoding::BitFlag: return bitflag;
    }
    return hybrid;
}

const std::vector<std::uint32_t>& allContainerSectionIds() {
    static const std::vector<std::uint32_t> all = [] {
        std::vector<std::uint32_t> ids;
        for (ContainerEncoding e : {ContainerEncoding::HybridBinary, ContainerEncoding::SegmentedDia, ContainerEncoding::BitFlag})
            ids.insert(ids.end(), containerSectionIds(e).begin(), containerSectionIds(e).end());
        return ids;
    }();
    return all;
}

namespace {

// Refuses before expanding: the entry count is known from validated data (hybrid: ones implied by
// the regions plus the residual; segmented DIA: the counted nonzero slots; bit-flag: S = P[lines]).
void checkDecodedSize(Count entries, Count maxEntries, const std::string& source, ContainerEncoding encoding) {
    if (entries > maxEntries)
        throw InputError(source + ": the " + toString(encoding) + " container decodes to " + std::to_string(entries) +
                         " entries, more than the limit of " + std::to_string(maxEntries));
    // Row, column and value per entry in the Matrix, plus the decoder's own copy.
    requireHostMemory(std::uint64_t(entries) * 32, source + ": decoding a " + toString(encoding) + " container of " +
                                                       std::to_string(entries) + " entries");
}

} // namespace

namespace {

// matrixFromContainer, taking the arrays `early` sized (container_early_arrays.h) once the checks
// have validated the entry count they are for. `rowMajorDistinct` (when given) is set where those
// checks proved the entries strictly row-major inside the shape: a hybrid CSR fallback, whose columns
// are checked in range and strictly ascending in every row, its row pointers never decreasing.
Matrix decodeContainer(const Container& c, const std::string& source, Count maxEntries, container_decode::EarlyCoordinateArrays& early,
                       bool* rowMajorDistinct = nullptr) {
    const auto proven = [rowMajorDistinct] {
        if (rowMajorDistinct) *rowMajorDistinct = true;
    };
    switch (c.encoding) {
    case ContainerEncoding::HybridBinary: {
        if (isValuedHybridContainer(c)) {
            Field field = Field::Real;
            std::vector<Index> entryRows;
            bool rowsFilled = false;
            HybridValuedMatrix<double> h = container_io::hybridValuedWithRowsFromContainer(c, source, &field, early, entryRows, rowsFilled);
            timings::mark("read.check");
            checkDecodedSize(h.nnz(), maxEntries, source, c.encoding);
            if (h.blocks.empty()) proven();
            return container_decode::matrixFromHybridValued(std::move(h), field, std::move(entryRows), rowsFilled);
        }
        std::vector<Index> entryRows;
        bool rowsFilled = false;
        HybridBinaryMatrix h = container_io::hybridWithRowsFromContainer(c, source, early, entryRows, rowsFilled);
        timings::mark("read.check");
        checkDecodedSize(h.nnz(), maxEntries, source, c.encoding);
        // A CSR fallback's residual, its columns checked strictly ascending in every row, already is
        // what decodeHybrid would build (a row-by-row copy on one thread: 110-150 ms of 12 M entries).
        if (h.blocks.empty()) {
            proven();
            return container_decode::matrixFromPattern(std::move(h.residual), std::move(entryRows), rowsFilled);
        }
        return container_decode::matrixFromPattern(decodeHybrid(h));
    }
    case ContainerEncoding::SegmentedDia: {
        Field field = Field::Real;
        container_io::SegdiaSlotValues slots;
        const SegmentedDiaMatrix<double> m = container_io::segmentedDiaSlotsFromContainer(c, source, &field, slots);
        timings::mark("read.check");
        checkDecodedSize(m.nonzeros, maxEntries, source, c.encoding);
        return container_decode::matrixFromSegmentedDia(m, slots, field, &early);
    }
    case ContainerEncoding::BitFlag: {
        Field field = Field::Real;
        BitFlagMatrix<double> m = bitFlagFromContainer(c, source, &field);
        timings::mark("read.check");
        checkDecodedSize(m.nonzeros, maxEntries, source, c.encoding);
        return container_decode::matrixFromBitFlag(std::move(m), field);
    }
    }
    throw ContainerFormatError(source, 12, "unknown encoding");
}

} // namespace

Matrix matrixFromContainer(const Container& c, const std::string& source, Count maxEntries) {
    container_decode::EarlyCoordinateArrays none;
    return decodeContainer(c, source, maxEntries, none);
}

namespace {

// Every section must belong to the encoding the header names.
Container checkSectionsBelong(Container framed, const std::string& source) {
    const std::vector<std::uint32_t>& own = containerSectionIds(framed.encoding);
    for (const ContainerSection& s : framed.sections)
        if (std::find(own.begin(), own.end(), s.id) == own.end())
            throw ContainerFormatError(source, s.offset - container::kSectionHeaderBytes,
                                       "section id " + std::to_string(s.id) + " does not belong to the " +
                                           toString(framed.encoding) + " encoding");
    return framed;
}

} // namespace

Container parseKnownContainer(std::string_view bytes, const std::string& source) {
    return checkSectionsBelong(parseContainer(bytes, source, allContainerSectionIds()), source);
}

Container container_io::parseKnownContainerInPlace(std::string_view bytes, const std::string& source, DeferredChecksum* deferred) {
    return checkSectionsBelong(container_io::parseContainerInPlace(bytes, source, allContainerSectionIds(), deferred), source);
}

namespace {

Matrix parseContainerMatrixProving(std::string_view bytes, const std::string& source, ContainerEncoding* encoding, Count maxEntries,
                                   bool* rowMajorDistinct) {
    // The sections are decoded from `bytes` where they lie: only the decoded arrays are allocated, and
    // their sizing starts before the checksum (container_early_arrays.h).
    container_decode::EarlyCoordinateArrays early = container_decode::startSizingFromFraming(bytes, maxEntries);
    // The checksum runs beside the checks and the decode; a file it finds damaged is reported as such,
    // whatever else its damage made the decode say, as when the checksum came first.
    container_io::DeferredChecksum checksum;
    try {
        const Container framed = container_io::parseKnownContainerInPlace(bytes, source, &checksum);
        Matrix matrix = decodeContainer(framed, source, maxEntries, early, rowMajorDistinct);
        checksum.verify();
        if (encoding) *encoding = framed.encoding;
        return matrix;
    } catch (...) {
        checksum.verify();
        throw;
    }
}

} // namespace

Matrix parseContainerMatrix(std::string_view bytes, const std::string& source, ContainerEncoding* encoding, Count maxEntries) {
    return parseContainerMatrixProving(bytes, source, encoding, maxEntries, nullptr);
}

Matrix container_decode::readContainerMatrixProving(const std::string& path, ContainerEncoding* encoding, Count maxEntries,
                                                   bool* rowMajorDistinct) {
    timings::start();
    if (rowMajorDistinct) *rowMajorDistinct = false;
    const MappedFile file(path);
    timings::mark("read.map");
    Matrix matrix = parseContainerMatrixProving(file.bytes(), path, encoding, maxEntries, rowMajorDistinct);
    timings::mark("read.decoded");
    return matrix;  // the file is unmapped here
}

Matrix readContainerMatrix(const std::string& path, ContainerEncoding* encoding, Count maxEntries) {
    return container_decode::readContainerMatrixProving(path, encoding, maxEntries, nullptr);
}

} // namespace spyglass
