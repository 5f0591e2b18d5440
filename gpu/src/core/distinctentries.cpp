// Duplicates and dense zeros, removed before statistics and formats see the matrix. Files are almost
// always ordered (SuiteSparse lists entries column by column, scipy and Spyglass row by row), and an
// ordered list cannot hold a position twice: one parallel pass proves that and nothing is moved.
// Only an unordered file pays for the counting sort by row.
#include "spyglass/distinctentries.h"

#include "core/stagetimings.h"

#include "spyglass/hostmemory.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <thread>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace spyglass {

namespace {

// What one slice of the entries shows: whether it is strictly increasing by (row, column) or by
// (column, row), and whether every index lies inside the matrix.
struct SliceOrder {
    bool rowMajor = true, columnMajor = true, inside = true;
};

// One entry against the one before it (k >= 1), and whether it lies inside the matrix.
void orderStep(const Matrix& m, std::size_t k, std::uint32_t rows, std::uint32_t cols, SliceOrder& o) {
    const Index i = m.rowIndex[k], j = m.colIndex[k];
    o.inside = o.inside && static_cast<std::uint32_t>(i) < rows && static_cast<std::uint32_t>(j) < cols;
    if (k == 0) return;  // the first entry of a slice is compared with the one before it
    const Index pi = m.rowIndex[k - 1], pj = m.colIndex[k - 1];
    o.rowMajor = o.rowMajor && (pi < i || (pi == i && pj < j));
    o.columnMajor = o.columnMajor && (pj < j || (pj == j && pi < i));
}

SliceOrder orderOf(const Matrix& m, std::size_t first, std::size_t last) {
    SliceOrder o;
    const auto rows = static_cast<std::uint32_t>(m.rows), cols = static_cast<std::uint32_t>(m.cols);
    std::size_t k = first;
#if defined(__SSE2__)
    // Four entries a step, each against the one before it, with masks instead of branches: twice the
    // one-entry loop's speed on a 12 M-entry matrix, a quarter of a reopened export's read phase.
    if (k == 0 && k < last) orderStep(m, k++, rows, cols, o);
    const auto load = [](const Index* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
    const __m128i flip = _mm_set1_epi32(static_cast<int>(0x80000000u));  // unsigned order by signed compares
    const __m128i rowLimit = _mm_set1_epi32(static_cast<int>(rows ^ 0x80000000u));
    const __m128i colLimit = _mm_set1_epi32(static_cast<int>(cols ^ 0x80000000u));
    __m128i byRow = _mm_set1_epi32(-1), byColumn = byRow, inside = byRow;
    const Index* r = m.rowIndex.data();
    const Index* c = m.colIndex.data();
    for (; k + 4 <= last; k += 4) {
        const __m128i r0 = load(r + k - 1), r1 = load(r + k), c0 = load(c + k - 1), c1 = load(c + k);
        const __m128i rowUp = _mm_cmpgt_epi32(r1, r0), sameRow = _mm_cmpeq_epi32(r1, r0);
        const __m128i colUp = _mm_cmpgt_epi32(c1, c0), sameCol = _mm_cmpeq_epi32(c1, c0);
        byRow = _mm_and_si128(byRow, _mm_or_si128(rowUp, _mm_and_si128(sameRow, colUp)));
        byColumn = _mm_and_si128(byColumn, _mm_or_si128(colUp, _mm_and_si128(sameCol, rowUp)));
        inside = _mm_and_si128(inside, _mm_and_si128(_mm_cmpgt_epi32(rowLimit, _mm_xor_si128(r1, flip)),
                                                     _mm_cmpgt_epi32(colLimit, _mm_xor_si128(c1, flip))));
    }
    o.rowMajor = o.rowMajor && _mm_movemask_epi8(byRow) == 0xffff;
    o.columnMajor = o.columnMajor && _mm_movemask_epi8(byColumn) == 0xffff;
    o.inside = o.inside && _mm_movemask_epi8(inside) == 0xffff;
#endif
    for (; k < last; ++k) orderStep(m, k, rows, cols, o);
    return o;
}

SliceOrder orderOfAll(const Matrix& m, unsigned threads) {
    const std::size_t n = m.rowIndex.size();
    std::size_t parts = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
    parts = std::max<std::size_t>(1, std::min(parts, n / (std::size_t(1) << 18)));
    std::vector<SliceOrder> found(parts);
    std::vector<std::thread> workers;
    const std::size_t chunk = (n + parts - 1) / parts;
    for (std::size_t p = 0; p < parts; ++p) {
        auto job = [&, p] { found[p] = orderOf(m, std::min(n, p * chunk), std::min(n, (p + 1) * chunk)); };
        if (p + 1 < parts) workers.emplace_back(job); else job();
    }
    for (std::thread& w : workers) w.join();
    SliceOrder all;
    for (const SliceOrder& o : found) {
        all.rowMajor = all.rowMajor && o.rowMajor;
        all.columnMajor = all.columnMajor && o.columnMajor;
        all.inside = all.inside && o.inside;
    }
    return all;
}

Count dropArrayZeros(Matrix& m) {
    if (m.isPattern()) return 0;
    const std::size_t n = m.rowIndex.size();
    std::size_t out = 0;
    for (std::size_t k = 0; k < n; ++k) {
        if (m.real[k] == 0.0 && (!m.isComplex() || m.imag[k] == 0.0)) continue;
        m.rowIndex[out] = m.rowIndex[k];
        m.colIndex[out] = m.colIndex[k];
        m.real[out] = m.real[k];
        if (m.isComplex()) m.imag[out] = m.imag[k];
        ++out;
    }
    const Count dropped = Count(n - out);
    m.rowIndex.resize(out);
    m.colIndex.resize(out);
    m.real.resize(out);
    if (m.isComplex()) m.imag.resize(out);
    return dropped;
}

// The entries' order by (row, column), stable: of the entries of one position, the file's first comes
// first (summing is then in file order, as a sequential reader would add them). A counting sort by row
// when the rows are no more than a few times the entries; otherwise one comparison sort, so that the
// memory follows the entries, never the declared size (a few bytes of a hostile file can declare
// 5e8 rows around a handful of entries).
std::vector<std::size_t> rowMajorOrder(const Matrix& m) {
    const std::size_t n = m.rowIndex.size();
    std::vector<std::size_t> order(n);
    const auto byColumn = [&](std::size_t a, std::size_t b) { return m.colIndex[a] < m.colIndex[b]; };
    if (std::uint64_t(m.rows) > 4 * std::uint64_t(n) + 1024) {
        std::iota(order.begin(), order.end(), std::size_t(0));
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
            return m.rowIndex[a] < m.rowIndex[b] || (m.rowIndex[a] == m.rowIndex[b] && m.colIndex[a] < m.colIndex[b]);
        });
        return order;
    }
    std::vector<std::size_t> start(static_cast<std::size_t>(m.rows) + 1, 0);
    for (std::size_t k = 0; k < n; ++k) ++start[static_cast<std::size_t>(m.rowIndex[k]) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    {
        std::vector<std::size_t> cursor(start.begin(), start.end() - 1);
        for (std::size_t k = 0; k < n; ++k) order[cursor[static_cast<std::size_t>(m.rowIndex[k])]++] = k;
    }
    for (std::size_t r = 0; r + 1 < start.size(); ++r)
        std::stable_sort(order.begin() + std::ptrdiff_t(start[r]), order.begin() + std::ptrdiff_t(start[r + 1]), byColumn);
    return order;
}

// Sorts by row, then by column, summing entries of one position.
Count sumDuplicates(Matrix& m) {
    const std::size_t n = m.rowIndex.size();
    const std::uint64_t rowStarts = std::min<std::uint64_t>(std::uint64_t(m.rows), 4 * std::uint64_t(n) + 1024) + 1;
    requireHostMemory(std::uint64_t(n) * (8 + 16) + rowStarts * 16,
                      "summing the duplicate entries of " + std::to_string(n) + " entries");
    const std::vector<std::size_t> order = rowMajorOrder(m);
    Matrix out;  // the header without the entries (copying m would copy them all first)
    out.layout = m.layout, out.field = m.field, out.symmetry = m.symmetry;
    out.rows = m.rows, out.cols = m.cols;
    out.comments = m.comments;
    out.rowIndex.reserve(n), out.colIndex.reserve(n);
    if (!m.isPattern()) out.real.reserve(n);
    if (m.isComplex()) out.imag.reserve(n);
    for (std::size_t p = 0; p < n; ++p) {
        const std::size_t k = order[p];
        const bool same = p > 0 && m.rowIndex[order[p - 1]] == m.rowIndex[k] && m.colIndex[order[p - 1]] == m.colIndex[k];
        if (same) {
            if (!m.isPattern()) out.real.back() += m.real[k];
            if (m.isComplex()) out.imag.back() += m.imag[k];
            continue;
        }
        out.rowIndex.push_back(m.rowIndex[k]);
        out.colIndex.push_back(m.colIndex[k]);
        if (!m.isPattern()) out.real.push_back(m.real[k]);
        if (m.isComplex()) out.imag.push_back(m.imag[k]);
    }
    const Count summed = Count(n - out.rowIndex.size());
    m = std::move(out);
    return summed;
}

} // namespace

DistinctEntriesReport makeEntriesDistinct(Matrix& matrix, unsigned threads) {
    DistinctEntriesReport report;
    const bool sizesAgree = matrix.colIndex.size() == matrix.rowIndex.size() &&
                            matrix.real.size() == (matrix.isPattern() ? 0 : matrix.rowIndex.size()) &&
                            matrix.imag.size() == (matrix.isComplex() ? matrix.rowIndex.size() : 0);
    if (!sizesAgree || matrix.rows < 0 || matrix.cols < 0) return report;  // computeStats says what is wrong
    if (matrix.layout == Layout::Array) {
        // A dense array lists every position once (column-major): only its zeros go.
        report.wasArray = true;
        report.arrayZerosDropped = dropArrayZeros(matrix);
        matrix.layout = Layout::Coordinate;
        return report;
    }
    timings::start();
    const SliceOrder order = orderOfAll(matrix, threads);
    timings::mark("read.order");
    if (!order.inside || order.rowMajor || order.columnMajor) return report;
    report.duplicatesSummed = sumDuplicates(matrix);
    return report;
}

} // namespace spyglass
