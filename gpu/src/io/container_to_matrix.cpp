#include "io/container_to_matrix.h"

#include "core/hugepages.h"
#include "core/parallel_ranges.h"
#include "core/segdia_entries.h"

#include <vector>

namespace spyglass::container_decode {

namespace {

constexpr std::size_t kMinEntriesPerThread = std::size_t(1) << 20;

// Row i repeated rowPtr[i+1] - rowPtr[i] times, rows split over threads by entries.
std::vector<Index> rowsOfRowPointers(const std::vector<Count>& rowPtr) {
    const std::size_t rows = rowPtr.size() - 1;
    std::vector<Index> rowIndex(static_cast<std::size_t>(rowPtr.back()));
    const std::size_t parts = parallel::threadsFor(rowIndex.size(), kMinEntriesPerThread);
    parallel::forEachRange(parallel::balancedBounds(rowPtr, rows, parts), [&](std::size_t, std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i)
            for (Count k = rowPtr[i]; k < rowPtr[i + 1]; ++k) rowIndex[static_cast<std::size_t>(k)] = static_cast<Index>(i);
    });
    return rowIndex;
}

} // namespace

Matrix coordinateMatrix(Index rows, Index cols, Field field) {
    Matrix m;
    m.layout = Layout::Coordinate;
    m.field = field;
    m.symmetry = Symmetry::General;
    m.rows = rows;
    m.cols = cols;
    return m;
}

Matrix matrixFromSegmentedDia(const SegmentedDiaMatrix<double>& m, Field field) {
    Matrix out = coordinateMatrix(m.rows, m.cols, field);
    const std::size_t segments = static_cast<std::size_t>(m.segments());
    // Entries per segment first (nonzero slots + remainder), so that every segment knows where its
    // entries start and segments can be written by different threads.
    std::vector<Count> work(segments + 1, 0);
    for (std::size_t s = 0; s < segments; ++s) work[s + 1] = work[s] + m.segmentWork(Index(s));
    const std::size_t parts = parallel::threadsFor(static_cast<std::size_t>(work[segments]), kMinEntriesPerThread);
    const std::vector<std::size_t> bounds = parallel::balancedBounds(work, segments, parts);
    std::vector<Count> start(segments + 1, 0);
    parallel::forEachRange(bounds, [&](std::size_t, std::size_t first, std::size_t last) {
        for (std::size_t s = first; s < last; ++s) {
            Count count = 0;
            segdia_detail::forEachSegmentEntry(m, Index(s), [&count](Index, Index, double) { ++count; });
            start[s + 1] = count;
        }
    });
    for (std::size_t s = 0; s < segments; ++s) start[s + 1] += start[s];
    const auto entries = static_cast<std::size_t>(start[segments]);
    memory::resizeOnHugePages(out.rowIndex, entries);
    memory::resizeOnHugePages(out.colIndex, entries);
    if (field != Field::Pattern) memory::resizeOnHugePages(out.real, entries);
    Index* rows = out.rowIndex.data();
    Index* cols = out.colIndex.data();
    double* values = field != Field::Pattern ? out.real.data() : nullptr;
    parallel::forEachRange(bounds, [&](std::size_t, std::size_t first, std::size_t last) {
        for (std::size_t s = first; s < last; ++s) {
            auto at = static_cast<std::size_t>(start[s]);
            segdia_detail::forEachSegmentEntry(m, Index(s), [&](Index row, Index col, double v) {
                rows[at] = row;
                cols[at] = col;
                if (values) values[at] = v;
                ++at;
            });
        }
    });
    return out;
}

Matrix matrixFromHybridValued(HybridValuedMatrix<double>&& h, Field field) {
    Matrix out = coordinateMatrix(h.rows, h.cols, field);
    if (h.blocks.empty()) {
        // The residual is the whole matrix, its columns validated strictly ascending in every row: it
        // already is the decoded CSR, only the row of each entry is missing.
        out.rowIndex = rowsOfRowPointers(h.residual.rowPtr);
        out.colIndex = std::move(h.residual.colIndex);
        out.real = std::move(h.residual.values);
        return out;
    }
    CsrMatrix<double> csr = decodeHybridValued(h);
    out.rowIndex = rowsOfRowPointers(csr.rowPtr);
    out.colIndex = std::move(csr.colIndex);
    out.real = std::move(csr.values);
    return out;
}

} // namespace spyglass::container_decode
