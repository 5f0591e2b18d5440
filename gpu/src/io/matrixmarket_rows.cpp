// One rank's rows of a Matrix Market file (spyglass/matrixmarket_rows.h). Two passes of the parallel
// reader's chunk parser over the mapped text: the first counts the full matrix's entries per row (and
// finds the file's first error, as the whole reader would), the second keeps the rank's rows. Beside
// the per-row counts only the chunks in flight and the rank's own entries are held.
#include "io/mappedfile.h"
#include "io/matrixmarket_chunks.h"

#include "spyglass/error.h"
#include "spyglass/hostmemory.h"
#include "spyglass/matrixmarket_rows.h"
#include "spyglass/multigpu.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace spyglass {
namespace {

// What pass 1 keeps of a chunk: enough to place pass 2's entries and to name the file's first error.
struct ChunkFacts {
    Count entries = 0;
    std::int64_t newlines = 0;
    bool failed = false;
    std::int64_t errorLine = 0;
    Count errorEntry = 0;
    std::string problem;
};

// The entries a rank keeps from one chunk, in file order.
struct KeptEntries {
    std::vector<Index> rowIndex, colIndex;
    std::vector<double> real, imag;
    // Symmetric files: the stored entries of the rank's rows and which of them were written above the
    // diagonal, for the check that such an entry does not repeat a stored one.
    std::vector<Index> storedRow, storedCol;
    std::vector<mm::MirroredEntry> mirrored;  // entry: index into storedRow; line: the file's
};

// Runs job(k) for every chunk k on up to `threads` threads (this one among them); the first
// exception is rethrown once every thread has stopped.
void forEachChunk(std::size_t chunks, unsigned threads, const std::function<void(std::size_t)>& job) {
    std::atomic<std::size_t> next{0};
    std::atomic<bool> stop{false};
    std::exception_ptr error;
    std::mutex errorMutex;
    auto work = [&] {
        for (;;) {
            const std::size_t k = next++;
            if (k >= chunks || stop) return;
            try {
                job(k);
            } catch (...) {
                std::lock_guard<std::mutex> lock(errorMutex);
                if (!error) error = std::current_exception();
                stop = true;
                return;
            }
        }
    };
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < std::min<std::size_t>(threads, chunks); ++t) helpers.emplace_back(work);
    work();
    for (std::thread& helper : helpers) helper.join();
    if (error) std::rethrow_exception(error);
}

class RankRowsReader {
public:
    RankRowsReader(const std::string& path, int rank, int ranks, std::size_t valueBytes, const ReadOptions& options)
        : m_path(path), m_rank(rank), m_ranks(ranks), m_valueBytes(valueBytes), m_options(options), m_file(path) {}

    RankRows read() {
        const std::string_view text = m_file.bytes();
        if (text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b)
            throw InputError(m_path + ": reading one rank's rows needs an uncompressed file (gunzip it on the shared path)");
        m_header = mm::parseHeader(text, m_path, m_options);
        const std::string_view body = text.substr(m_header.bodyOffset);
        m_threads = mm::readerThreads(m_options);
        m_chunks = mm::splitAtLines(body, mm::chunkBytesFor(m_options, body.size(), m_threads));
        m_mirror = m_header.shell.symmetry != Symmetry::General;
        m_totalBytes = 2.0 * std::max<std::size_t>(body.size(), 1);

        countRows();
        RankRows result;
        result.rank = m_rank;
        result.ranks = m_ranks;
        result.blockStarts = csrRowBlocks(m_rowCounts, m_header.shell.cols, m_ranks, m_valueBytes);
        result.rowBegin = result.blockStarts[std::size_t(m_rank)];
        result.rowEnd = result.blockStarts[std::size_t(m_rank) + 1];
        std::vector<Count>().swap(m_rowCounts);  // what the blocks needed; the rank's rows need none of it
        result.entries = keepRows(result.rowBegin, result.rowEnd);
        if (m_options.progress) m_options.progress(1.0);
        return result;
    }

private:
    mm::ChunkResult parse(std::size_t k) {
        return mm::parseChunk(m_chunks[k], m_header.shell, m_options, [this](std::size_t bytes) { reportProgress(bytes); });
    }

    void reportProgress(std::size_t bytes) {
        std::lock_guard<std::mutex> lock(m_progressMutex);
        m_parsedBytes += bytes;
        if (m_options.progress) m_options.progress(std::min(0.99, double(m_parsedBytes) / m_totalBytes));
    }

    // The positions of a chunk's values: the parser's for coordinate files, from the shape for arrays.
    void positionsOf(const mm::ChunkResult& r, Count first, std::vector<Index>& rows, std::vector<Index>& cols) const {
        if (m_header.shell.layout == Layout::Coordinate) {
            rows = r.rowIndex;
            cols = r.colIndex;
            return;
        }
        rows.resize(std::size_t(r.entries));
        cols.resize(std::size_t(r.entries));
        mm::fillArrayPositions(m_header.shell, rows.data(), cols.data(), first, r.entries);
    }

    // Pass 1: entries per row of the full matrix (a stored entry off the diagonal of a symmetric kind
    // counts in both rows), and every chunk's facts; then the file's first error, if any.
    void countRows() {
        const Index rows = m_header.shell.rows;
        // The block cut needs a count per declared row (16 bytes a row while counting): refused with
        // the size named when this host cannot hold it, rather than failing inside the allocation.
        requireHostMemory(std::uint64_t(rows) * 16, m_path + ": counting the entries of " + std::to_string(rows) + " declared rows");
        std::unique_ptr<std::atomic<Count>[]> counts(new std::atomic<Count>[std::size_t(rows)]());
        const bool coordinate = m_header.shell.layout == Layout::Coordinate;
        m_facts.assign(m_chunks.size(), ChunkFacts{});
        forEachChunk(m_chunks.size(), m_threads, [&](std::size_t k) {
            const mm::ChunkResult r = parse(k);
            m_facts[k] = {r.entries, r.newlines, r.failed, r.errorLine, r.errorEntry, r.problem};
            if (!coordinate || r.failed) return;
            for (Count e = 0; e < r.entries; ++e) {
                const Index i = r.rowIndex[std::size_t(e)], j = r.colIndex[std::size_t(e)];
                counts[std::size_t(i)].fetch_add(1, std::memory_order_relaxed);
                if (m_mirror && i != j) counts[std::size_t(j)].fetch_add(1, std::memory_order_relaxed);
            }
        });
        checkEntriesInFileOrder();
        m_rowCounts.resize(std::size_t(rows));
        for (Index r = 0; r < rows; ++r) m_rowCounts[std::size_t(r)] = counts[std::size_t(r)].load();
        if (!coordinate) countArrayRows();
    }

    // An array's positions follow from the shape: counted in steps, never all held at once.
    void countArrayRows() {
        constexpr Count kStep = Count(1) << 16;
        std::vector<Index> rows(kStep), cols(kStep);
        for (Count first = 0; first < m_header.declared; first += kStep) {
            const Count count = std::min(kStep, m_header.declared - first);
            mm::fillArrayPositions(m_header.shell, rows.data(), cols.data(), first, count);
            for (Count e = 0; e < count; ++e) {
                ++m_rowCounts[std::size_t(rows[std::size_t(e)])];
                if (m_mirror && rows[std::size_t(e)] != cols[std::size_t(e)]) ++m_rowCounts[std::size_t(cols[std::size_t(e)])];
            }
        }
    }

    // The first problem in file order, as the whole-file reader reports it (BodyReader::finish).
    void checkEntriesInFileOrder() {
        const Count declared = m_header.declared;
        Count before = 0;
        std::int64_t lines = 0;
        m_firstEntry.assign(m_chunks.size(), 0);
        const std::string extra = "more entries than the " + std::to_string(declared) + " declared in the size line";
        for (std::size_t k = 0; k < m_chunks.size(); ++k) {
            const ChunkFacts& facts = m_facts[k];
            m_firstEntry[k] = before;
            if (facts.failed && before + facts.errorEntry < declared)
                throw ParseError(m_path, m_header.bodyLine + lines + facts.errorLine, facts.problem);
            if (facts.failed || before + facts.entries > declared)
                throw ParseError(m_path, m_header.bodyLine + lines + mm::lineOfDataLine(m_chunks[k], declared - before), extra);
            before += facts.entries;
            lines += facts.newlines;
        }
        if (before < declared)
            throw ParseError(m_path, m_header.bodyLine + lines,
                             "file ends after " + std::to_string(before) + " of " + std::to_string(declared) +
                                 (m_header.shell.layout == Layout::Array ? " array values" : " entries"));
        m_linesBefore.assign(m_chunks.size(), 0);
        for (std::size_t k = 1; k < m_chunks.size(); ++k) m_linesBefore[k] = m_linesBefore[k - 1] + m_facts[k - 1].newlines;
    }

    // Pass 2: the entries of rows [rowBegin, rowEnd) of the full matrix, chunk by chunk, joined in
    // file order.
    Matrix keepRows(Index rowBegin, Index rowEnd) {
        const Matrix& shell = m_header.shell;
        const bool hasReal = shell.field != Field::Pattern, hasImag = shell.field == Field::Complex;
        const bool skew = shell.symmetry == Symmetry::SkewSymmetric;
        const bool conjugate = skew || shell.symmetry == Symmetry::Hermitian;
        // Only a coordinate file of a symmetric kind can write an entry above the diagonal.
        const bool checkMirrors = m_mirror && shell.layout == Layout::Coordinate;
        auto mine = [rowBegin, rowEnd](Index row) { return row >= rowBegin && row < rowEnd; };
        std::vector<KeptEntries> kept(m_chunks.size());
        forEachChunk(m_chunks.size(), m_threads, [&](std::size_t k) {
            const mm::ChunkResult r = parse(k);
            std::vector<Index> rows, cols;
            positionsOf(r, m_firstEntry[k], rows, cols);
            KeptEntries& out = kept[k];
            std::size_t nextMirrored = 0;
            for (Count e = 0; e < r.entries; ++e) {
                const auto at = std::size_t(e);
                const Index i = rows[at], j = cols[at];
                if (mine(i)) {
                    out.rowIndex.push_back(i);
                    out.colIndex.push_back(j);
                    if (hasReal) out.real.push_back(r.real[at]);
                    if (hasImag) out.imag.push_back(r.imag[at]);
                }
                if (m_mirror && i != j && mine(j)) {
                    out.rowIndex.push_back(j);
                    out.colIndex.push_back(i);
                    if (hasReal) out.real.push_back(skew ? -r.real[at] : r.real[at]);
                    if (hasImag) out.imag.push_back(conjugate ? -r.imag[at] : r.imag[at]);
                }
                if (!checkMirrors || !mine(i)) continue;
                while (nextMirrored < r.mirrored.size() && r.mirrored[nextMirrored].entry < e) ++nextMirrored;
                if (nextMirrored < r.mirrored.size() && r.mirrored[nextMirrored].entry == e)
                    out.mirrored.push_back({r.mirrored[nextMirrored].key, Count(out.storedRow.size()),
                                            m_header.bodyLine + m_linesBefore[k] + r.mirrored[nextMirrored].line});
                out.storedRow.push_back(i);
                out.storedCol.push_back(j);
            }
        });
        return join(kept, hasReal, hasImag);
    }

    Matrix join(std::vector<KeptEntries>& kept, bool hasReal, bool hasImag) {
        Matrix out = m_header.shell.generalHeader(Layout::Coordinate);
        out.comments = m_header.shell.comments;
        Matrix stored;  // the rank's stored entries, for the mirror check
        std::vector<mm::MirroredEntry> mirrored;
        for (KeptEntries& chunk : kept) {
            out.rowIndex.insert(out.rowIndex.end(), chunk.rowIndex.begin(), chunk.rowIndex.end());
            out.colIndex.insert(out.colIndex.end(), chunk.colIndex.begin(), chunk.colIndex.end());
            if (hasReal) out.real.insert(out.real.end(), chunk.real.begin(), chunk.real.end());
            if (hasImag) out.imag.insert(out.imag.end(), chunk.imag.begin(), chunk.imag.end());
            for (mm::MirroredEntry m : chunk.mirrored) {
                m.entry += stored.stored();
                mirrored.push_back(m);
            }
            stored.rowIndex.insert(stored.rowIndex.end(), chunk.storedRow.begin(), chunk.storedRow.end());
            stored.colIndex.insert(stored.colIndex.end(), chunk.storedCol.begin(), chunk.storedCol.end());
            chunk = KeptEntries{};
        }
        // A clash lies in one row (the lower entry's), so the rank holding that row finds it.
        mm::checkMirroredEntriesAreUnique(stored, mirrored, m_path);
        return out;
    }

    const std::string& m_path;
    int m_rank, m_ranks;
    std::size_t m_valueBytes;
    const ReadOptions& m_options;
    MappedFile m_file;
    mm::Header m_header;
    unsigned m_threads = 1;
    bool m_mirror = false;
    std::vector<std::string_view> m_chunks;
    std::vector<ChunkFacts> m_facts;
    std::vector<Count> m_firstEntry;          // entries before each chunk
    std::vector<std::int64_t> m_linesBefore;  // body lines before each chunk
    std::vector<Count> m_rowCounts;
    std::mutex m_progressMutex;
    std::size_t m_parsedBytes = 0;
    double m_totalBytes = 1;
};

} // namespace

RankRows readMatrixMarketRows(const std::string& path, int rank, int ranks, std::size_t valueBytes, const ReadOptions& options) {
    if (ranks < 1 || rank < 0 || rank >= ranks)
        throw InputError(path + ": rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " is not a rank of the run");
    if (valueBytes == 0) throw InputError(path + ": the values' size must be positive");
    return RankRowsReader(path, rank, ranks, valueBytes, options).read();
}

} // namespace spyglass
