// Method D's sections in the container: summary, region records, zero row pointers, zero offsets,
// residual CSR. Each payload's length is checked against the counts it must hold before anything is
// allocated from it; the decoded encoding is then validated as a whole.
#include "core/stagetimings.h"
#include "io/container_hybrid_rows.h"
#include "io/container_residual_copy.h"
#include "io/container_sections.h"

#include "spyglass/atomicfile.h"
#include "spyglass/container.h"

namespace spyglass {

namespace {

using namespace container_io;

constexpr EncodingSections kSections{"hybrid container"};

} // namespace

Container hybridToContainer(const HybridBinaryMatrix& hybrid, const std::string& note) {
    Container c = containerShellOf(ContainerEncoding::HybridBinary, hybrid);
    std::string summary;
    put<std::uint32_t>(summary, hybrid.csrFallback ? 1u : 0u);
    put<std::uint32_t>(summary, static_cast<std::uint32_t>(hybrid.fallbackReason.size()));
    summary += hybrid.fallbackReason;
    std::string regions;
    std::vector<std::uint32_t> zeroRowPtr;
    std::vector<std::uint16_t> zeroOffsets;
    for (const HybridBlock& block : hybrid.blocks) {
        putRegionRecord(regions, block.region, static_cast<std::uint32_t>(block.zeroOffsets.size()));
        zeroRowPtr.insert(zeroRowPtr.end(), block.zeroRowPtr.begin(), block.zeroRowPtr.end());
        zeroOffsets.insert(zeroOffsets.end(), block.zeroOffsets.begin(), block.zeroOffsets.end());
    }
    c.sections.push_back({container::kHybridSummary, 0, std::move(summary)});
    c.sections.push_back({container::kHybridRegions, 0, std::move(regions)});
    c.sections.push_back({container::kHybridZeroRowPtr, 0, packArray(zeroRowPtr)});
    c.sections.push_back({container::kHybridZeroOffsets, 0, packArray(zeroOffsets)});
    c.sections.push_back({container::kHybridResidualRowPtr, 0, packArray(hybrid.residual.rowPtr)});
    c.sections.push_back({container::kHybridResidualCols, 0, packArray(hybrid.residual.colIndex)});
    return withNote(std::move(c), note);
}

namespace {

// The decoder of both entry points; with `entryRows`, a CSR fallback decodes into the arrays `early`
// sizes when they are for its entries, its rows filled and columns checked in the same pass
// (container_residual_copy.h; *rowsFilled says so).
HybridBinaryMatrix readHybrid(const Container& c, const std::string& source, container_decode::EarlyCoordinateArrays* early,
                              std::vector<Index>* entryRows, bool* rowsFilled) {
    auto h = matrixShellOf<HybridBinaryMatrix>(c, ContainerEncoding::HybridBinary, "hybrid", source);
    const ContainerSection& summary = kSections.require(c, container::kHybridSummary, "summary", source);
    if (isValuedHybridContainer(c))
        throw ContainerFormatError(source, summary.offset, "hybrid container: holds the valued form (values, not a binary "
                                                           "pattern); read it with hybridValuedFromContainer");
    for (std::uint32_t id : {container::kHybridRegionValues, container::kHybridResidualValues})
        if (const ContainerSection* s = c.find(id))
            throw ContainerFormatError(source, s->offset, "hybrid container: a binary (pattern) file holds a value section");
    if (summary.bytes().size() < 8 || get<std::uint32_t>(summary.bytes(), 4) != summary.bytes().size() - 8 ||
        get<std::uint32_t>(summary.bytes(), 0) > 1)
        throw ContainerFormatError(source, summary.offset, "hybrid container: malformed summary section");
    h.csrFallback = get<std::uint32_t>(summary.bytes(), 0) == 1;
    h.fallbackReason = std::string(summary.bytes().substr(8));

    const ContainerSection& regions = kSections.requireRegions(c, source);
    const std::size_t regionCount = kSections.regionCount(regions);
    std::uint64_t rowPtrCount = 0, zeroCount = 0;
    // The zero row pointer section bounds the regions' total height: checked before counting cells,
    // which costs a loop over each region's rows (a tiny file could declare regions of 2^31 rows).
    const ContainerSection& zeroRowPtrSection = kSections.require(c, container::kHybridZeroRowPtr, "zero row pointers", source);
    std::vector<std::uint32_t> zerosPerRegion(regionCount);
    h.blocks.resize(regionCount);
    for (std::size_t b = 0; b < regionCount; ++b) {
        const RegionRecord record = kSections.regionRecord(regions, b, h.rows, h.cols, source);
        DenseRegion& r = h.blocks[b].region;
        r = record.region;
        zerosPerRegion[b] = record.count;
        rowPtrCount += static_cast<std::uint64_t>(r.height()) + 1;
        if (rowPtrCount * 4 > zeroRowPtrSection.bytes().size())
            throw ContainerFormatError(source, zeroRowPtrSection.offset, "hybrid container: zero row pointer section holds " +
                                                                             std::to_string(zeroRowPtrSection.bytes().size() / 4) +
                                                                             " entries, the regions need more");
        const Count cells = r.cells();
        if (zerosPerRegion[b] > static_cast<std::uint64_t>(cells))
            throw ContainerFormatError(source, record.offset + 28, "hybrid container: region " + std::to_string(b) +
                                                                      " claims more zeros than it has elements");
        r.ones = cells - zerosPerRegion[b];  // ones are implied, not stored
        zeroCount += zerosPerRegion[b];
    }
    const auto rowPtr = kSections.unpackArray<std::uint32_t>(zeroRowPtrSection,
                                                   rowPtrCount, "zero row pointers", source);
    const auto offsets = kSections.unpackArray<std::uint16_t>(kSections.require(c, container::kHybridZeroOffsets, "zero offsets", source),
                                                    zeroCount, "zero offsets", source);
    std::size_t ptrAt = 0, zeroAt = 0;
    for (std::size_t b = 0; b < regionCount; ++b) {
        HybridBlock& block = h.blocks[b];
        const std::size_t rowsHere = static_cast<std::size_t>(block.region.height()) + 1;
        block.zeroRowPtr.assign(rowPtr.begin() + ptrAt, rowPtr.begin() + ptrAt + rowsHere);
        block.zeroOffsets.assign(offsets.begin() + zeroAt, offsets.begin() + zeroAt + zerosPerRegion[b]);
        ptrAt += rowsHere;
        zeroAt += zerosPerRegion[b];
    }
    const auto residual = kSections.residualSections(c, h.rows, source);
    const auto entries = static_cast<std::size_t>(residual.nnz);
    bool columnsChecked = false;
    timings::mark("read.residual");
    if (early && entryRows && h.blocks.empty() && early->sizingFor(entries, false) && pointersOrdered(residual.rowPtr.bytes())) {
        // The Matrix is built from the arrays filled here: the residual keeps no row pointers (it is
        // handed on only to become that Matrix, container_matrix.cpp).
        h.residual.rows = h.rows;
        h.residual.cols = h.cols;
        container_decode::CoordinateArrays arrays;
        columnsChecked = copyResidualBehindSizing(*early, residual.rowPtr.bytes(), h.cols, residual.columns.bytes(), {}, 0, arrays);
        h.residual.colIndex = std::move(arrays.cols);
        *entryRows = std::move(arrays.rows);
        *rowsFilled = true;
        timings::mark("read.copy");
        // A bad column: the validation below names its row, from the pointers.
        if (!columnsChecked)
            h.residual.rowPtr = kSections.unpackArray<Count>(residual.rowPtr, std::uint64_t(h.rows) + 1, "residual row pointers", source);
    } else {
        if (early) early->take();  // sized for another count, or nothing: dropped before unpacking
        kSections.readResidualStructure(h.residual, c, h.rows, h.cols, source);
    }
    if (columnsChecked) {
        // What validateHybrid checks of a CSR fallback is done: the dimensions are the header's, the
        // row pointers (in the file) start at 0, never decrease and end at the column count, and every
        // column was checked in the copy. A bad column runs the whole validation, which names the
        // first bad row.
        kSections.requireValidHybrid(h, [](const HybridBinaryMatrix&) {}, summary, regions, source);
    } else {
        kSections.requireValidHybrid(h, validateHybrid, summary, regions, source);
    }
    return h;
}

} // namespace

HybridBinaryMatrix hybridFromContainer(const Container& c, const std::string& source) {
    return readHybrid(c, source, nullptr, nullptr, nullptr);
}

HybridBinaryMatrix container_io::hybridWithRowsFromContainer(const Container& c, const std::string& source,
                                                             container_decode::EarlyCoordinateArrays& early,
                                                             std::vector<Index>& entryRows, bool& rowsFilled) {
    return readHybrid(c, source, &early, &entryRows, &rowsFilled);
}

bool isValuedHybridContainer(const Container& c) {
    if (c.encoding != ContainerEncoding::HybridBinary) return false;
    const ContainerSection* summary = c.find(container::kHybridSummary);
    return summary && summary->bytes().size() >= 4 && (get<std::uint32_t>(summary->bytes(), 0) & container::kHybridValued) != 0;
}

HybridBinaryMatrix parseHybridContainer(std::string_view bytes, const std::string& source) {
    return hybridFromContainer(parseKnownContainer(bytes, source), source);
}

void writeHybridContainer(const std::string& path, const HybridBinaryMatrix& hybrid, const std::string& note) {
    writeContainerFile(path, hybridToContainer(hybrid, note));
}

HybridBinaryMatrix readHybridContainer(const std::string& path) { return parseHybridContainer(readFileBytes(path), path); }

} // namespace spyglass
