// A checked bit-flag form to the coordinate Matrix, on threads. P (the line starts) already says where
// every line's entries go, so lines split over threads by entries with nothing to count first. A
// column-major form is transposed by a counting pass per range of columns instead of a sort of every
// entry: each range writes its entries of a row after those of the ranges before it, so every row's
// columns come out ascending, whatever the number of threads.
#include "core/hugepages.h"
#include "core/parallel_ranges.h"
#include "core/stagetimings.h"
#include "io/container_to_matrix.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace spyglass::container_decode {

namespace {

// A quarter of a million entries or flag words (well under a millisecond) per thread at least.
constexpr std::size_t kMinWorkPerThread = std::size_t(1) << 18;

// Calls visit(line, pos, k) for every flag of lines [first, last), k its index into the values.
template <typename Visit>
void forEachFlag(const BitFlagMatrix<double>& b, std::size_t first, std::size_t last, Visit visit) {
    for (std::size_t line = first; line < last; ++line) {
        auto k = static_cast<std::size_t>(b.lineStart[line]);
        for (Index w = 0; w < b.wordsPerLine; ++w) {
            std::uint64_t word = b.word(static_cast<Index>(line), w);
            while (word != 0) {
                const int bit = __builtin_ctzll(word);
                word &= word - 1;
                visit(static_cast<Index>(line), static_cast<Index>(w * b.wordBits + bit), k++);
            }
        }
    }
}

// Ranges of lines with about the same entries plus flag words each.
std::vector<std::size_t> lineBounds(const BitFlagMatrix<double>& b, std::size_t parts) {
    if (parts <= 1) return {0, static_cast<std::size_t>(b.lines())};
    const auto lines = static_cast<std::size_t>(b.lines());
    const auto wordsPerLine = static_cast<Count>(b.wordsPerLine);
    struct Work {  // entries before line l plus its flag words, without a second array
        const std::vector<Count>& starts;
        Count wordsPerLine;
        Count operator[](std::size_t l) const { return starts[l] + static_cast<Count>(l) * wordsPerLine; }
    };
    return parallel::balancedBounds(Work{b.lineStart, wordsPerLine}, lines, parts);
}

// The row and column arrays, each zero-filled on its own thread when there are two.
void sizeIndexArrays(Matrix& m, std::size_t entries) {
    const auto rows = [&] { memory::resizeOnHugePages(m.rowIndex, entries); };
    const auto cols = [&] { memory::resizeOnHugePages(m.colIndex, entries); };
    if (parallel::threadCount() < 2) {
        rows();
        cols();
        return;
    }
    parallel::onThreads(2, [&](std::size_t t) { t == 0 ? rows() : cols(); });
}

// Turns counts[p * rows + r] (range p's entries in row r) into where range p's first entry of row r
// goes: rows in order, within a row the ranges in order.
void countsToCursors(std::vector<Count>& counts, std::size_t rows, std::size_t parts) {
    std::vector<Count> rowStart(rows + 1, 0);
    const std::vector<std::size_t> rowBounds = parallel::evenBounds(rows, parts);
    parallel::forEachRange(rowBounds, [&](std::size_t, std::size_t first, std::size_t last) {
        for (std::size_t r = first; r < last; ++r) {
            Count total = 0;
            for (std::size_t p = 0; p < parts; ++p) total += counts[p * rows + r];
            rowStart[r + 1] = total;
        }
    });
    std::partial_sum(rowStart.begin(), rowStart.end(), rowStart.begin());
    parallel::forEachRange(rowBounds, [&](std::size_t, std::size_t first, std::size_t last) {
        for (std::size_t r = first; r < last; ++r) {
            Count at = rowStart[r];
            for (std::size_t p = 0; p < parts; ++p) {
                const Count here = counts[p * rows + r];
                counts[p * rows + r] = at;
                at += here;
            }
        }
    });
}

// Column-major to row order: per range of columns, its entries per row counted, then written after
// those of the ranges before it.
void transposeByCounting(const BitFlagMatrix<double>& b, std::size_t work, Index* rows, Index* cols, double* values) {
    const auto entries = static_cast<std::size_t>(b.lineStart.back());
    const auto rowCount = static_cast<std::size_t>(b.rows);
    // A counter per row per range: no more ranges than keep them within the entries' own size.
    const std::size_t parts =
        std::max<std::size_t>(1, std::min(parallel::threadsFor(work, kMinWorkPerThread), entries / std::max<std::size_t>(rowCount, 1)));
    const std::vector<std::size_t> bounds = lineBounds(b, parts);
    // cursor[p * rows + r]: first the entries range p has in row r, then where its next one goes.
    std::vector<Count> cursor(parts * rowCount, 0);
    parallel::forEachRange(bounds, [&](std::size_t p, std::size_t first, std::size_t last) {
        Count* counts = cursor.data() + p * rowCount;
        forEachFlag(b, first, last, [&](Index, Index pos, std::size_t) { ++counts[pos]; });
    });
    countsToCursors(cursor, rowCount, parts);
    parallel::forEachRange(bounds, [&](std::size_t p, std::size_t first, std::size_t last) {
        Count* next = cursor.data() + p * rowCount;
        forEachFlag(b, first, last, [&](Index line, Index pos, std::size_t k) {
            const auto to = static_cast<std::size_t>(next[pos]++);
            rows[to] = pos;
            cols[to] = line;
            if (values) values[to] = b.values[k];
        });
    });
}

// Column-major to row order when the rows far outnumber the entries: the entries sorted by row, stably
// (columns were visited ascending), with memory that follows the entries, on one thread.
void transposeBySorting(const BitFlagMatrix<double>& b, Index* rows, Index* cols, double* values) {
    struct Flag {
        Index row, col;
        std::size_t k;
    };
    std::vector<Flag> flags;
    flags.reserve(static_cast<std::size_t>(b.lineStart.back()));
    forEachFlag(b, 0, static_cast<std::size_t>(b.lines()), [&](Index line, Index pos, std::size_t k) { flags.push_back({pos, line, k}); });
    std::stable_sort(flags.begin(), flags.end(), [](const Flag& x, const Flag& y) { return x.row < y.row; });
    for (std::size_t i = 0; i < flags.size(); ++i) {
        rows[i] = flags[i].row;
        cols[i] = flags[i].col;
        if (values) values[i] = b.values[flags[i].k];
    }
}

} // namespace

Matrix matrixFromBitFlag(BitFlagMatrix<double>&& b, Field field) {
    Matrix out = coordinateMatrix(b.rows, b.cols, field);
    const auto entries = static_cast<std::size_t>(b.lineStart.back());
    const auto lines = static_cast<std::size_t>(b.lines());
    const std::size_t work = entries + lines * static_cast<std::size_t>(b.wordsPerLine);
    sizeIndexArrays(out, entries);
    Index* rows = out.rowIndex.data();
    Index* cols = out.colIndex.data();
    if (b.order == BitFlagOrder::RowMajor) {
        // Storage order is row order, columns ascending: the values M are the matrix's as they stand.
        parallel::forEachRange(lineBounds(b, parallel::threadsFor(work, kMinWorkPerThread)),
                               [&](std::size_t, std::size_t first, std::size_t last) {
                                   forEachFlag(b, first, last, [&](Index line, Index pos, std::size_t k) {
                                       rows[k] = line;
                                       cols[k] = pos;
                                   });
                               });
        if (field != Field::Pattern) out.real = std::move(b.values);
        timings::mark("read.fill");
        return out;
    }
    if (field != Field::Pattern) memory::resizeOnHugePages(out.real, entries);
    double* values = field != Field::Pattern ? out.real.data() : nullptr;
    // A counter per row is sized by the declared row count, which a small file may set to 2^31 around a
    // few entries: only where the rows are not many more than the entries.
    if (static_cast<std::size_t>(b.rows) <= 2 * entries + 1024) transposeByCounting(b, work, rows, cols, values);
    else transposeBySorting(b, rows, cols, values);
    timings::mark("read.fill");
    return out;
}

} // namespace spyglass::container_decode
