// The valued hybrid form in the container (encoding 1, summary flag "valued"): summary with value type
// and field, the region records of the binary form (their count field: explicit zeros), the regions'
// values row-major over each shape's cells, and the residual as CSR with values. Every payload length
// is checked against counts derived from validated data before anything is allocated from it.
#include "core/stagetimings.h"
#include "io/container_hybrid_rows.h"
#include "io/container_residual_copy.h"
#include "io/container_sections.h"

#include "spyglass/atomicfile.h"
#include "spyglass/container.h"

#include <cmath>
#include <type_traits>

namespace spyglass {

namespace {

using namespace container_io;

constexpr EncodingSections kSections{"valued hybrid container"};

// The local rows of a region whose span is not empty: [first, last). Every triangle and rectangle row
// has cells; a band's non-empty rows are one run. O(1), so a region declaring 2^31 rows costs nothing
// before its cells are bounded by the values the file holds.
std::pair<std::int64_t, std::int64_t> rowsWithCells(const DenseRegion& r) {
    const std::int64_t h = r.height(), w = r.width();
    if (r.shape != RegionShape::Band) return {0, h};
    return {std::max<std::int64_t>(0, -std::int64_t(r.bandHigh)), std::min<std::int64_t>(h, w - std::int64_t(r.bandLow))};
}

template <typename T>
void checkField(const std::vector<T>& values, Field field, const char* what) {
    if (field == Field::Pattern || field == Field::Complex)
        throw InputError(std::string("valued hybrid container: field ") + toString(field) +
                         " is not stored with values (a binary matrix uses the binary hybrid form)");
    if (field != Field::Integer) return;
    for (std::size_t k = 0; k < values.size(); ++k)
        if (!isWholeNumber(static_cast<double>(values[k])))
            throw InputError(std::string("valued hybrid container: ") + what + " value " + std::to_string(k) + " (" +
                             std::to_string(static_cast<double>(values[k])) + ") is not a whole number; field integer");
}

// n values of the value type's width from payload bytes [at, ...), widened to double.
std::vector<double> readValues(std::string_view payload, std::size_t at, std::size_t n, std::uint32_t valueType) {
    if (valueType != static_cast<std::uint32_t>(container::ValueType::Float32)) return copiedArray<double>(payload, at, n);
    std::vector<double> values;
    memory::resizeOnHugePages(values, n);
    // Widened in slices on threads, as copiedArray copies f64 values.
    const std::size_t parts = parallel::threadsFor(n * sizeof(double), std::size_t(8) << 20);
    parallel::forEachRange(parallel::evenBounds(n, parts), [&](std::size_t, std::size_t first, std::size_t last) {
        for (std::size_t k = first; k < last; ++k) values[k] = static_cast<double>(get<float>(payload, at + 4 * k));
    });
    return values;
}

} // namespace

template <typename T>
Container hybridValuedToContainer(const HybridValuedMatrix<T>& hybrid, Field field, const std::string& note) {
    static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>, "f32 or f64 values");
    for (const HybridValuedBlock<T>& block : hybrid.blocks) checkField(block.values, field, "region");
    checkField(hybrid.residual.values, field, "residual");
    Container c = containerShellOf(ContainerEncoding::HybridBinary, hybrid);
    std::string summary;
    put<std::uint32_t>(summary, container::kHybridValued | (hybrid.csrFallback ? container::kHybridFallback : 0u));
    put<std::uint32_t>(summary, static_cast<std::uint32_t>(hybrid.fallbackReason.size()));
    summary += hybrid.fallbackReason;
    put<std::uint32_t>(summary, static_cast<std::uint32_t>(std::is_same_v<T, float> ? container::ValueType::Float32
                                                                                      : container::ValueType::Float64));
    put<std::uint32_t>(summary, container::fieldCode(field));
    std::string regions, regionValues;
    for (const HybridValuedBlock<T>& block : hybrid.blocks) {
        putRegionRecord(regions, block.region, static_cast<std::uint32_t>(block.explicitZeros()));
        regionValues += packArray(block.values);
    }
    c.sections.push_back({container::kHybridSummary, 0, std::move(summary)});
    c.sections.push_back({container::kHybridRegions, 0, std::move(regions)});
    c.sections.push_back({container::kHybridRegionValues, 0, std::move(regionValues)});
    c.sections.push_back({container::kHybridResidualRowPtr, 0, packArray(hybrid.residual.rowPtr)});
    c.sections.push_back({container::kHybridResidualCols, 0, packArray(hybrid.residual.colIndex)});
    c.sections.push_back({container::kHybridResidualValues, 0, packArray(hybrid.residual.values)});
    return withNote(std::move(c), note);
}

namespace {

// The decoder of both entry points; with `entryRows`, a CSR fallback decodes into the arrays `early`
// sizes when they are for its entries (its rows filled too: *rowsFilledOut), and otherwise its row
// array is sized beside its columns and values (container_hybrid_rows.h).
HybridValuedMatrix<double> readHybridValued(const Container& c, const std::string& source, Field* fieldOut,
                                            container_decode::EarlyCoordinateArrays* early, std::vector<Index>* entryRows,
                                            bool* rowsFilledOut) {
    auto h = matrixShellOf<HybridValuedMatrix<double>>(c, ContainerEncoding::HybridBinary, "hybrid", source);
    const ContainerSection& summary = kSections.require(c, container::kHybridSummary, "summary", source);
    const std::string_view sp = summary.bytes();
    if (!isValuedHybridContainer(c))
        throw ContainerFormatError(source, summary.offset, "hybrid container: holds a binary pattern, not the valued form");
    if (sp.size() < 16 || get<std::uint32_t>(sp, 4) != sp.size() - 16 ||
        (get<std::uint32_t>(sp, 0) & ~(container::kHybridFallback | container::kHybridValued)) != 0)
        throw ContainerFormatError(source, summary.offset, "valued hybrid container: malformed summary section");
    const std::uint32_t flags = get<std::uint32_t>(sp, 0);
    h.csrFallback = (flags & container::kHybridFallback) != 0;
    const std::size_t reasonLength = get<std::uint32_t>(sp, 4);
    h.fallbackReason = std::string(sp.substr(8, reasonLength));
    const std::uint32_t valueType = get<std::uint32_t>(sp, 8 + reasonLength);
    const std::uint32_t fieldCode = get<std::uint32_t>(sp, 12 + reasonLength);
    if (valueType != static_cast<std::uint32_t>(container::ValueType::Float32) &&
        valueType != static_cast<std::uint32_t>(container::ValueType::Float64))
        throw ContainerFormatError(source, summary.offset + 8 + reasonLength,
                                   "valued hybrid container: value type " + std::to_string(valueType) + " is not f32 (2) or f64 (3)");
    if (fieldCode > 1)
        throw ContainerFormatError(source, summary.offset + 12 + reasonLength,
                                   "valued hybrid container: field " + std::to_string(fieldCode) + " is not real (0) or integer (1)");
    const Field field = container::fieldFromCode(fieldCode);
    const std::size_t width = valueType == static_cast<std::uint32_t>(container::ValueType::Float32) ? 4 : 8;
    for (std::uint32_t id : {container::kHybridZeroRowPtr, container::kHybridZeroOffsets})
        if (const ContainerSection* s = c.find(id))
            throw ContainerFormatError(source, s->offset, "valued hybrid container: holds a zero-position section of the binary form");

    const ContainerSection& regions = kSections.requireRegions(c, source);
    const ContainerSection& values = kSections.require(c, container::kHybridRegionValues, "region values", source);
    if (values.bytes().size() % width != 0)
        throw ContainerFormatError(source, values.offset, "valued hybrid container: region values are not a whole number of " +
                                                              std::to_string(width) + "-byte values");
    const std::uint64_t valueCount = values.bytes().size() / width;
    const std::size_t regionCount = kSections.regionCount(regions);
    std::uint64_t used = 0;
    h.blocks.resize(regionCount);
    for (std::size_t b = 0; b < regionCount; ++b) {
        const RegionRecord record = kSections.regionRecord(regions, b, h.rows, h.cols, source);
        DenseRegion& r = h.blocks[b].region;
        r = record.region;
        // Every row with cells holds at least one value: bounded by the values left before counting.
        const auto [first, last] = rowsWithCells(r);
        if (last > first && static_cast<std::uint64_t>(last - first) > valueCount - used)
            throw ContainerFormatError(source, values.offset, "valued hybrid container: region values hold " +
                                                                  std::to_string(valueCount) + " values, the regions need more");
        std::uint64_t cells = 0;
        for (std::int64_t local = first; local < last; ++local) cells += r.span(static_cast<Index>(r.rowBegin + local)).size();
        if (cells > valueCount - used)
            throw ContainerFormatError(source, values.offset, "valued hybrid container: region values hold " +
                                                                  std::to_string(valueCount) + " values, the regions need more");
        if (record.count > cells)
            throw ContainerFormatError(source, record.offset + 28, "valued hybrid container: region " + std::to_string(b) +
                                                                      " claims more zeros than it has cells");
        r.ones = static_cast<Count>(cells - record.count);
        h.blocks[b].values = readValues(values.bytes(), used * width, static_cast<std::size_t>(cells), valueType);
        used += cells;
        Count zeros = 0;
        for (double v : h.blocks[b].values) zeros += v == 0.0;
        if (zeros != record.count)
            throw ContainerFormatError(source, record.offset + 28, "valued hybrid container: region " + std::to_string(b) + " claims " +
                                                                      std::to_string(record.count) + " zero cells, its values hold " +
                                                                      std::to_string(zeros));
    }
    if (used != valueCount)
        throw ContainerFormatError(source, values.offset, "valued hybrid container: region values hold " + std::to_string(valueCount) +
                                                              " values, the regions have " + std::to_string(used) + " cells");

    const auto residual = kSections.residualSections(c, h.rows, source);
    const Count nnz = residual.nnz;
    const ContainerSection& residualValues = kSections.require(c, container::kHybridResidualValues, "residual values", source);
    if (residualValues.bytes().size() != static_cast<std::uint64_t>(nnz) * width)
        throw ContainerFormatError(source, residualValues.offset, "valued hybrid container: residual values hold " +
                                                                      std::to_string(residualValues.bytes().size()) + " bytes, expected " +
                                                                      std::to_string(nnz) + " values of " + std::to_string(width) + " bytes");
    const auto entries = static_cast<std::size_t>(nnz);
    const auto unpackPointers = [&] {
        h.residual.rowPtr = kSections.unpackArray<Count>(residual.rowPtr, std::uint64_t(h.rows) + 1, "residual row pointers", source);
    };
    h.residual.rows = h.rows;
    h.residual.cols = h.cols;
    // The early path also fills each entry's row and checks each column while it copies them
    // (container_residual_copy.h), reading the row pointers where they lie in the file, which needs
    // them ordered first. The Matrix is built from the arrays filled there: the residual keeps no row
    // pointers unless a bad column needs them for the validation's message.
    bool rowsFilled = false, columnsChecked = false;
    if (early && entryRows && h.blocks.empty() && early->sizingFor(entries, true) && pointersOrdered(residual.rowPtr.bytes())) {
        container_decode::CoordinateArrays arrays;
        columnsChecked = copyResidualBehindSizing(*early, residual.rowPtr.bytes(), h.cols, residual.columns.bytes(), residualValues.bytes(),
                                                  valueType, arrays);
        h.residual.colIndex = std::move(arrays.cols);
        h.residual.values = std::move(arrays.values);
        *entryRows = std::move(arrays.rows);
        rowsFilled = true;
        if (!columnsChecked) unpackPointers();
    } else {
        if (early) early->take();  // sized for another count, or nothing: dropped before sizing anew
        unpackPointers();
        // Both lengths are checked: the columns and the values are unpacked at once, so that their
        // one-thread std::vector zero-fills (most of a CSR fallback's unpacking) overlap. A CSR
        // fallback's matrix also needs the row of each entry: that array is sized at the same time,
        // and filled once the residual is validated.
        const bool sizeRows = entryRows != nullptr && h.blocks.empty();
        parallel::onThreads(sizeRows ? 3 : 2, [&](std::size_t t) {
            if (t == 0)
                h.residual.colIndex = kSections.unpackArray<Index>(residual.columns, std::uint64_t(entries), "residual columns", source);
            else if (t == 1)
                h.residual.values = readValues(residualValues.bytes(), 0, entries, valueType);
            else
                memory::resizeOnHugePages(*entryRows, entries);
        });
    }
    try {
        for (const HybridValuedBlock<double>& block : h.blocks) checkField(block.values, field, "region");
        checkField(h.residual.values, field, "residual");
    } catch (const InputError& error) {
        throw ContainerFormatError(source, summary.offset, error.what());
    }
    timings::mark("read.unpack");
    if (columnsChecked) {
        // What validateHybridValued checks of a CSR fallback is done: the dimensions are the header's,
        // the row pointers start at 0, never decrease and end at the column count (checked above), and
        // every column was checked in the copy. A bad column runs the whole validation instead, which
        // names the first bad row.
        kSections.requireValidHybrid(h, [](const HybridValuedMatrix<double>&) {}, summary, regions, source);
    } else {
        kSections.requireValidHybrid(h, validateHybridValued<double>, summary, regions, source);
    }
    if (rowsFilledOut) *rowsFilledOut = rowsFilled;
    if (fieldOut) *fieldOut = field;
    return h;
}

} // namespace

HybridValuedMatrix<double> hybridValuedFromContainer(const Container& c, const std::string& source, Field* fieldOut) {
    return readHybridValued(c, source, fieldOut, nullptr, nullptr, nullptr);
}

HybridValuedMatrix<double> container_io::hybridValuedWithRowsFromContainer(const Container& c, const std::string& source, Field* field,
                                                                           container_decode::EarlyCoordinateArrays& early,
                                                                           std::vector<Index>& entryRows, bool& rowsFilled) {
    return readHybridValued(c, source, field, &early, &entryRows, &rowsFilled);
}

template Container hybridValuedToContainer(const HybridValuedMatrix<float>&, Field, const std::string&);
template Container hybridValuedToContainer(const HybridValuedMatrix<double>&, Field, const std::string&);

} // namespace spyglass
