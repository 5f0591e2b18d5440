// A checked bit-flag form to the coordinate Matrix, on threads. P (the line starts) already says where
// every line's entries go, so lines split over threads by entries with nothing to count first. A
// column-major form is transposed by blocks of rows (one flag word of every column) instead of a sort
// of every entry: each thread owns its rows, so every row's columns come out ascending, whatever the
// number of threads.
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
// Flag words of one column visited together by the column-major transpose: a 64-byte cache line.
constexpr std::size_t kTileWords = 8;

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

// Column-major to row order a block of rows at a time. Word w of every column holds rows
// [w * wordBits, (w + 1) * wordBits): ranges of words are ranges of rows, one per thread. Its rows are
// counted, then each block's words are visited column by column, so that a row's entries come in
// ascending column order and every write lands in the short stretch of output that the block's rows
// own (a whole column at a time scatters its entries over all of the output: a cache miss each).
// Blocks go kTileWords at a time, one cache line of each column's flags and a few of its values.
void transposeByRowBlocks(const BitFlagMatrix<double>& b, std::size_t work, Index* rows, Index* cols, double* values) {
    const auto rowCount = static_cast<std::size_t>(b.rows), colCount = static_cast<std::size_t>(b.cols);
    const auto blocks = static_cast<std::size_t>(b.wordsPerLine);
    const auto bits = static_cast<std::size_t>(b.wordBits);
    const std::size_t parts = std::min(parallel::threadsFor(work, kMinWorkPerThread), blocks);
    const std::vector<std::size_t> bounds = parallel::evenBounds(blocks, parts);
    // next[r]: where row r's next entry goes (its row start once counted). cursor[p * cols + c]: the
    // index into the values of column c's first flag in range p's rows (P[c] plus the ranges before).
    // parts <= blocks, so the cursors take at most the flags' own size.
    std::vector<Count> next(rowCount + 1, 0), cursor(parts * colCount, 0);
    parallel::forEachRange(bounds, [&](std::size_t p, std::size_t first, std::size_t last) {
        Count* inRange = cursor.data() + p * colCount;
        for (std::size_t tile = first; tile < last; tile += kTileWords)
            for (std::size_t c = 0; c < colCount; ++c)
                for (std::size_t w = tile; w < std::min(last, tile + kTileWords); ++w) {
                    std::uint64_t word = b.word(static_cast<Index>(c), static_cast<Index>(w));
                    inRange[c] += static_cast<Count>(__builtin_popcountll(word));
                    for (; word != 0; word &= word - 1) ++next[w * bits + static_cast<std::size_t>(__builtin_ctzll(word)) + 1];
                }
    });
    std::partial_sum(next.begin(), next.end(), next.begin());
    parallel::forEachRange(parallel::evenBounds(colCount, parts), [&](std::size_t, std::size_t first, std::size_t last) {
        for (std::size_t c = first; c < last; ++c) {
            Count at = b.lineStart[c];
            for (std::size_t p = 0; p < parts; ++p) {
                const Count here = cursor[p * colCount + c];
                cursor[p * colCount + c] = at;
                at += here;
            }
        }
    });
    parallel::forEachRange(bounds, [&](std::size_t p, std::size_t first, std::size_t last) {
        Count* k = cursor.data() + p * colCount;
        for (std::size_t tile = first; tile < last; tile += kTileWords)
            for (std::size_t c = 0; c < colCount; ++c)
                for (std::size_t w = tile; w < std::min(last, tile + kTileWords); ++w)
                    for (std::uint64_t word = b.word(static_cast<Index>(c), static_cast<Index>(w)); word != 0; word &= word - 1) {
                        const std::size_t row = w * bits + static_cast<std::size_t>(__builtin_ctzll(word));
                        const auto to = static_cast<std::size_t>(next[row]++);
                        rows[to] = static_cast<Index>(row);
                        cols[to] = static_cast<Index>(c);
                        if (values) values[to] = b.values[static_cast<std::size_t>(k[c])];
                        ++k[c];
                    }
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
    if (b.order == BitFlagOrder::RowMajor) timings::mark("read.alloc");
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
    timings::mark("read.alloc");
    double* values = field != Field::Pattern ? out.real.data() : nullptr;
    // A counter per row is sized by the declared row count, which a small file may set to 2^31 around a
    // few entries: only where the rows are not many more than the entries.
    if (static_cast<std::size_t>(b.rows) <= 2 * entries + 1024) transposeByRowBlocks(b, work, rows, cols, values);
    else transposeBySorting(b, rows, cols, values);
    timings::mark("read.fill");
    return out;
}

} // namespace spyglass::container_decode
