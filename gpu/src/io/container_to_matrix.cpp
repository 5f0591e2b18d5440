#include "io/container_to_matrix.h"

#include "core/hugepages.h"
#include "core/parallel_ranges.h"
#include "core/segdia_entries.h"
#include "core/stagetimings.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

namespace spyglass::container_decode {

namespace {

constexpr std::size_t kMinEntriesPerThread = std::size_t(1) << 20;

// Row i repeated rowPtr[i+1] - rowPtr[i] times into rowIndex (sized to rowPtr.back() entries, or
// empty: then sized here), rows split over threads by entries. rowIndex is taken by value so that the
// return moves it: a `std::vector&&` parameter is copied by `return` in C++17, which copied the whole
// array onto fresh 4 KB pages (150 ms of a 2-core hybrid reopen, more than everything else in it).
std::vector<Index> rowsOfRowPointers(const std::vector<Count>& rowPtr, std::vector<Index> rowIndex) {
    const std::size_t rows = rowPtr.size() - 1;
    if (rowIndex.size() != static_cast<std::size_t>(rowPtr.back())) rowIndex.assign(static_cast<std::size_t>(rowPtr.back()), 0);
    const std::size_t parts = parallel::threadsFor(rowIndex.size(), kMinEntriesPerThread);
    // Raw pointers and std::fill per row: through the vectors the compiler reloads both pointers and
    // the row's end for every entry.
    Index* out = rowIndex.data();
    const Count* starts = rowPtr.data();
    parallel::forEachRange(parallel::balancedBounds(rowPtr, rows, parts), [out, starts](std::size_t, std::size_t first, std::size_t last) {
        for (std::size_t i = first; i < last; ++i) std::fill(out + starts[i], out + starts[i + 1], static_cast<Index>(i));
    });
    return rowIndex;
}

// A segment without remainder entries whose slots are `Stored` values (u8, f32 or f64) laid out as
// in memory (a little-endian host): what forEachSegmentEntryOf emits for it, with each diagonal's
// slot address stepped instead of recomputed and the value type fixed outside the loop; the fill is
// the longest stage of a segmented-DIA reopen.
template <typename Stored>
void fillDiaSegment(const SegmentedDiaMatrix<double>& m, Index s, const char* slotBytes, Index* rows, Index* cols, double* values,
                    std::size_t at) {
    const Index rowsHere = m.segmentRows(s), diagonals = m.segmentDiagonals(s), first = m.segmentFirstRow[s];
    const Index* offsets = m.offsets.data() + m.segmentOffsetStart[s];
    const char* segmentSlots = slotBytes + sizeof(Stored) * static_cast<std::size_t>(m.segmentValueStart[s]);
    const std::size_t stride = sizeof(Stored) * static_cast<std::size_t>(rowsHere);
    for (Index i = 0; i < rowsHere; ++i) {
        const char* slot = segmentSlots + sizeof(Stored) * static_cast<std::size_t>(i);
        for (Index d = 0; d < diagonals; ++d, slot += stride) {
            Stored stored;
            std::memcpy(&stored, slot, sizeof stored);
            const double v = static_cast<double>(stored);
            if (v == 0.0) continue;
            rows[at] = first + i;
            cols[at] = first + i + offsets[d];
            if (values) values[at] = v;
            ++at;
        }
    }
}

} // namespace

void sizeCoordinateArrays(Matrix& m, std::size_t entries) {
    // std::vector zero-fills what it sizes, on the thread that sizes it: that fill (and the faults of
    // the fresh pages) is the one pass over the output a decoder cannot split. So the arrays are sized
    // at once, each on its own thread; on two cores rows and columns share one (half the bytes each).
    const auto rows = [&] { memory::resizeOnHugePages(m.rowIndex, entries); };
    const auto cols = [&] { memory::resizeOnHugePages(m.colIndex, entries); };
    const auto real = [&] { if (!m.isPattern()) memory::resizeOnHugePages(m.real, entries); };
    const std::size_t hardware = parallel::threadCount();
    if (hardware == 1) {
        rows();
        cols();
        real();
    } else if (m.isPattern()) {
        parallel::onThreads(2, [&](std::size_t t) { t == 0 ? rows() : cols(); });
    } else if (hardware == 2) {
        parallel::onThreads(2, [&](std::size_t t) {
            if (t == 0) {
                rows();
                cols();
            } else {
                real();
            }
        });
    } else {
        parallel::onThreads(3, [&](std::size_t t) { t == 0 ? rows() : t == 1 ? cols() : real(); });
    }
}

Matrix coordinateMatrix(Index rows, Index cols, Field field) {
    Matrix m;
    m.layout = Layout::Coordinate;
    m.field = field;
    m.symmetry = Symmetry::General;
    m.rows = rows;
    m.cols = cols;
    return m;
}

Matrix matrixFromSegmentedDia(const SegmentedDiaMatrix<double>& m, const container_io::SegdiaSlotValues& slots, Field field,
                              EarlyCoordinateArrays* early) {
    Matrix out = coordinateMatrix(m.rows, m.cols, field);
    const std::size_t segments = static_cast<std::size_t>(m.segments());
    // Where each segment's entries start: its nonzero slots (counted by the check pass) plus its
    // remainder, so that segments can be written by different threads without a counting pass.
    std::vector<Count> start(segments + 1, 0), work(segments + 1, 0);
    for (std::size_t s = 0; s < segments; ++s) {
        start[s + 1] = start[s] + slots.segmentNonzeros[s] + m.segmentRemainderCount(Index(s));
        work[s + 1] = work[s] + m.segmentWork(Index(s));
    }
    const auto entries = static_cast<std::size_t>(start[segments]);
    // Into the arrays sized since before the checksum when they are for these entries, each segment
    // written once its part is sized; otherwise those are dropped and the arrays sized here.
    const bool intoEarly = early && early->sizingFor(entries, field != Field::Pattern);
    if (!intoEarly) {
        if (early) early->take();
        sizeCoordinateArrays(out, entries);
    }
    timings::mark("read.alloc");
    const std::size_t parts = parallel::threadsFor(static_cast<std::size_t>(work[segments]), kMinEntriesPerThread);
    Index* rows = intoEarly ? early->rows() : out.rowIndex.data();
    Index* cols = intoEarly ? early->cols() : out.colIndex.data();
    double* values = field == Field::Pattern ? nullptr : intoEarly ? early->values() : out.real.data();
    const auto fillSegment = [&](std::size_t s) {
        auto at = static_cast<std::size_t>(start[s]);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (m.segmentRemainderCount(Index(s)) == 0) {
            const char* slotBytes = slots.bytes.data();
            if (slots.type == container::ValueType::Float64) fillDiaSegment<double>(m, Index(s), slotBytes, rows, cols, values, at);
            else if (slots.type == container::ValueType::Float32) fillDiaSegment<float>(m, Index(s), slotBytes, rows, cols, values, at);
            else fillDiaSegment<std::uint8_t>(m, Index(s), slotBytes, rows, cols, values, at);
            return;
        }
#endif
        segdia_detail::forEachSegmentEntryOf(m, Index(s), slots, [&](Index row, Index col, double v) {
            rows[at] = row;
            cols[at] = col;
            if (values) values[at] = v;
            ++at;
        });
    };
    if (intoEarly) {
        // Segments taken in order by whichever thread is free, each once its entries are sized: the
        // threads work right behind the sizing and finish with it (ranges fixed per thread left the
        // last range's thread waiting for the end of the sizing before it could start).
        std::atomic<std::size_t> next{0};
        parallel::onThreads(parts, [&](std::size_t) {
            for (std::size_t s; (s = next.fetch_add(1)) < segments;) {
                early->waitSized(static_cast<std::size_t>(start[s + 1]));
                fillSegment(s);
            }
        });
    } else {
        parallel::forEachRange(parallel::balancedBounds(work, segments, parts), [&](std::size_t, std::size_t first, std::size_t last) {
            for (std::size_t s = first; s < last; ++s) fillSegment(s);
        });
    }
    if (intoEarly) {
        CoordinateArrays arrays = early->take();
        out.rowIndex = std::move(arrays.rows);
        out.colIndex = std::move(arrays.cols);
        out.real = std::move(arrays.values);
    }
    timings::mark("read.fill");
    return out;
}

Matrix matrixFromPattern(BinaryPattern&& pattern, std::vector<Index>&& rows, bool rowsFilled) {
    Matrix out = coordinateMatrix(pattern.rows, pattern.cols, Field::Pattern);
    const bool filled = rowsFilled && rows.size() == pattern.colIndex.size();
    out.rowIndex = filled ? std::move(rows) : rowsOfRowPointers(pattern.rowPtr, {});
    out.colIndex = std::move(pattern.colIndex);
    timings::mark("read.rows");
    return out;
}

Matrix matrixFromHybridValued(HybridValuedMatrix<double>&& h, Field field, std::vector<Index>&& entryRows, bool rowsFilled) {
    Matrix out = coordinateMatrix(h.rows, h.cols, field);
    if (h.blocks.empty()) {
        // The residual is the whole matrix, its columns validated strictly ascending in every row: it
        // already is the decoded CSR, only the row of each entry is missing (unless filled already).
        const bool filled = rowsFilled && entryRows.size() == h.residual.colIndex.size();
        out.rowIndex = filled ? std::move(entryRows) : rowsOfRowPointers(h.residual.rowPtr, std::move(entryRows));
        out.colIndex = std::move(h.residual.colIndex);
        out.real = std::move(h.residual.values);
        timings::mark("read.rows");
        return out;
    }
    CsrMatrix<double> csr = decodeHybridValued(h);
    out.rowIndex = rowsOfRowPointers(csr.rowPtr, {});
    out.colIndex = std::move(csr.colIndex);
    out.real = std::move(csr.values);
    return out;
}

} // namespace spyglass::container_decode
