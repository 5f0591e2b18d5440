// Any container back to a plain matrix (what `spyglass-cli decode` writes as Matrix Market), and the
// pieces the encodings share: their section ids and the field codes of the summaries.
#include "spyglass/container.h"

#include "spyglass/convert.h"

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
                                                      kHybridZeroOffsets, kHybridResidualRowPtr, kHybridResidualCols};
    static const std::vector<std::uint32_t> segdia = {kSegdiaSummary, kSegdiaRowStarts,   kSegdiaOffsetStarts, kSegdiaOffsets,
                                                      kSegdiaValues,  kSegdiaBlockStarts, kSegdiaBlockSegments};
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

// Coordinates in row order with the field the container names; pattern drops the values.
template <typename T>
Matrix matrixWithField(const CsrMatrix<T>& csr, Field field) {
    Matrix m = fromCsr(csr);
    m.field = field;
    if (field == Field::Pattern) m.real.clear();
    return m;
}

} // namespace

Matrix matrixFromContainer(const Container& c, const std::string& source) {
    switch (c.encoding) {
    case ContainerEncoding::HybridBinary: return matrixFromBinaryPattern(decodeHybrid(hybridFromContainer(c, source)));
    case ContainerEncoding::SegmentedDia: {
        Field field = Field::Real;
        const SegmentedDiaMatrix<double> m = segmentedDiaFromContainer(c, source, &field);
        // segmentedDiaToCoo lists rows in order, columns ascending: already CSR order.
        return matrixWithField(cooToCsr(segmentedDiaToCoo(m)), field);
    }
    case ContainerEncoding::BitFlag: {
        Field field = Field::Real;
        const BitFlagMatrix<double> m = bitFlagFromContainer(c, source, &field);
        return matrixWithField(decodeBitFlag(m), field);
    }
    }
    throw ContainerFormatError(source, 12, "unknown encoding");
}

Container parseKnownContainer(std::string_view bytes, const std::string& source) {
    Container framed = parseContainer(bytes, source, allContainerSectionIds());
    const std::vector<std::uint32_t>& own = containerSectionIds(framed.encoding);
    for (const ContainerSection& s : framed.sections)
        if (std::find(own.begin(), own.end(), s.id) == own.end())
            throw ContainerFormatError(source, s.offset - container::kSectionHeaderBytes,
                                       "section id " + std::to_string(s.id) + " does not belong to the " +
                                           toString(framed.encoding) + " encoding");
    return framed;
}

Matrix parseContainerMatrix(std::string_view bytes, const std::string& source, ContainerEncoding* encoding) {
    const Container framed = parseKnownContainer(bytes, source);
    Matrix matrix = matrixFromContainer(framed, source);
    if (encoding) *encoding = framed.encoding;
    return matrix;
}

Matrix readContainerMatrix(const std::string& path, ContainerEncoding* encoding) {
    return parseContainerMatrix(readFileBytes(path), path, encoding);
}

} // namespace spyglass
