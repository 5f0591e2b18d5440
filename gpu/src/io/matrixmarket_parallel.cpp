// The parallel Matrix Market body reader: worker threads take chunks in file order, parse each into
// its own small buffers, and copy it into the matrix as soon as the entries before it are counted
// (then its buffers are freed). So beside the matrix only the chunks in flight exist: a few MB per
// thread, never a second copy of the entries. Errors are resolved in file order afterwards, so the
// message and line are those the one-pass serial parser would give, whatever the chunking.
#include "core/hugepages.h"
#include "io/matrixmarket_chunks.h"
#include "io/matrixmarket_text.h"

#include "spyglass/error.h"

#include <algorithm>
#include <cstdint>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <thread>

namespace spyglass::mm {

unsigned readerThreads(const ReadOptions& options) {
    if (options.threads > 0) return options.threads;
    return std::max(1u, std::thread::hardware_concurrency());
}

std::size_t chunkBytesFor(const ReadOptions& options, std::size_t bodyBytes, unsigned threads) {
    if (options.chunkBytes > 0) return options.chunkBytes;
    // About 8 chunks per thread balances uneven lines; 256 KB keeps per-chunk overhead negligible and
    // 16 MB keeps the chunks in flight small.
    constexpr std::size_t kMin = std::size_t(256) << 10, kMax = std::size_t(16) << 20, kStream = std::size_t(8) << 20;
    if (bodyBytes == 0) return kStream;
    return std::clamp(bodyBytes / (std::size_t(threads) * 8), kMin, kMax);
}

std::vector<std::string_view> splitAtLines(std::string_view body, std::size_t chunkBytes) {
    std::vector<std::string_view> chunks;
    std::size_t start = 0;
    chunkBytes = std::max<std::size_t>(chunkBytes, 1);
    while (start < body.size()) {
        std::size_t cut = body.size();
        if (body.size() - start > chunkBytes) {
            const std::size_t newline = body.find('\n', start + chunkBytes - 1);
            if (newline != std::string_view::npos) cut = newline + 1;
        }
        chunks.push_back(body.substr(start, cut - start));
        start = cut;
    }
    return chunks;
}

namespace {

std::uint64_t upperOf(std::uint64_t key) { return key & 0xffffffffu; }
std::uint64_t lowerOf(std::uint64_t key) { return key >> 32; }

} // namespace

void checkMirroredEntriesAreUnique(const Matrix& matrix, const std::vector<MirroredEntry>& mirrored,
                                   const std::string& source) {
    if (mirrored.empty()) return;
    std::vector<MirroredEntry> byKey = mirrored;
    std::sort(byKey.begin(), byKey.end(), [](const MirroredEntry& a, const MirroredEntry& b) {
        return a.key != b.key ? a.key < b.key : a.line < b.line;
    });
    std::int64_t collisionLine = std::numeric_limits<std::int64_t>::max();
    std::uint64_t collisionKey = 0;
    auto noteCollision = [&](std::uint64_t key, std::int64_t line) {
        if (line < collisionLine) {
            collisionLine = line;
            collisionKey = key;
        }
    };
    for (std::size_t k = 1; k < byKey.size(); ++k) {
        if (byKey[k].key == byKey[k - 1].key) noteCollision(byKey[k].key, byKey[k].line);
    }
    std::size_t nextMirrored = 0;
    for (Count e = 0; e < matrix.stored(); ++e) {
        if (nextMirrored < mirrored.size() && mirrored[nextMirrored].entry == e) {
            ++nextMirrored;
            continue;
        }
        const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(matrix.rowIndex[e])) << 32) |
                                  static_cast<std::uint32_t>(matrix.colIndex[e]);
        auto it = std::lower_bound(byKey.begin(), byKey.end(), key,
                                   [](const MirroredEntry& a, std::uint64_t k) { return a.key < k; });
        if (it != byKey.end() && it->key == key) noteCollision(key, it->line);
    }
    if (collisionLine != std::numeric_limits<std::int64_t>::max()) {
        const std::string lowerPos = "(" + std::to_string(lowerOf(collisionKey) + 1) + "," +
                                     std::to_string(upperOf(collisionKey) + 1) + ")";
        const std::string upperPos = "(" + std::to_string(upperOf(collisionKey) + 1) + "," +
                                     std::to_string(lowerOf(collisionKey) + 1) + ")";
        throw ParseError(source, collisionLine,
                         "entry " + upperPos + " above the diagonal duplicates " + lowerPos + " of the stored lower triangle");
    }
}

// Written through raw pointers: the sized matrix grows on another thread while chunks are copied into
// its sized part.
void fillArrayPositions(const Matrix& m, Index* rowOut, Index* colOut, Count first, Count count) {
    if (count == 0) return;
    const Index rows = m.rows;
    const Index offset = m.symmetry == Symmetry::General ? -1 : m.symmetry == Symmetry::SkewSymmetric ? 1 : 0;
    auto firstRowOf = [offset](Index c) { return offset < 0 ? 0 : c + offset; };
    Index row = 0, col = 0;
    if (offset < 0) {
        col = static_cast<Index>(first / rows);
        row = static_cast<Index>(first % rows);
    } else {
        Count remaining = first;
        for (;;) {
            const Count length = std::max<Count>(0, Count(rows) - firstRowOf(col));
            if (remaining < length) break;
            remaining -= length;
            ++col;
        }
        row = static_cast<Index>(firstRowOf(col) + remaining);
    }
    for (Count k = first; k < first + count; ++k) {
        while (row >= rows) {  // next column (skips the empty last skew column)
            ++col;
            row = firstRowOf(col);
        }
        rowOut[static_cast<std::size_t>(k - first)] = row;
        colOut[static_cast<std::size_t>(k - first)] = col;
        ++row;
    }
}

namespace {

class BodyReader {
public:
    BodyReader(Header header, BodySource& source, const std::string& sourceName, const ReadOptions& options)
        : m_header(std::move(header)), m_matrix(m_header.shell), m_source(source), m_sourceName(sourceName),
          m_options(options) {
        m_matrix.comments = std::move(m_header.shell.comments);
        // The shell keeps no comments: every chunk parser reads it, nothing needs them there.
    }

    Matrix read() {
        const unsigned threads = readerThreads(m_options);
        m_backlogLimit = 2 * std::size_t(threads);
        const bool sized = m_source.entryBound >= 0;
        std::vector<std::thread> workers;
        workers.reserve(threads);
        try {
            for (unsigned t = 0; t < threads; ++t) workers.emplace_back([this] { work(); });
        } catch (...) {
            stopAndJoin(workers);
            throw;
        }
        // While the first chunks parse, this thread sizes the matrix: the zero-fill of a multi-GB
        // matrix then costs no wall time.
        try {
            const Count capacity = std::min(m_header.declared, sized ? m_source.entryBound : m_source.reserveHint);
            allocate(capacity, sized);
        } catch (...) {
            stopAndJoin(workers);
            throw;
        }
        copyClaimed(claimReady());
        for (std::thread& worker : workers) worker.join();
        copyClaimed(claimReady());  // chunks that finished before the matrix was sized
        return finish();
    }

private:
    struct Slot {
        Chunk chunk;
        ChunkResult result;
        bool parsed = false;
        bool skipped = false;  // after an error: never parsed
        bool placed = false;   // offset and first line known
        bool copied = false;
        Count offset = 0;
        std::int64_t firstLine = 0;  // newlines in the body before the chunk
        std::size_t index = 0;
    };

    void stopAndJoin(std::vector<std::thread>& workers) {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stop = true;
        }
        m_roomForMore.notify_all();
        for (std::thread& worker : workers) worker.join();
    }

    void allocate(Count capacity, bool sized) {
        const auto n = static_cast<std::size_t>(capacity);
        m_matrix.rowIndex.reserve(n);
        m_matrix.colIndex.reserve(n);
        if (!m_matrix.isPattern()) m_matrix.real.reserve(n);
        if (m_matrix.isComplex()) m_matrix.imag.reserve(n);
        memory::adviseHugePages(m_matrix.rowIndex);
        memory::adviseHugePages(m_matrix.colIndex);
        memory::adviseHugePages(m_matrix.real);
        memory::adviseHugePages(m_matrix.imag);
        if (!sized) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_allocated = true;
        } else {
            // The capacity is reserved, so growing within it never moves the arrays: chunks are copied
            // through these pointers into the part already sized (and zero-filled) while this thread
            // sizes the rest step by step. So the parsing threads need not wait for the whole
            // single-threaded zero-fill of a multi-GB matrix before the first chunk can be stored.
            m_rowOut = m_matrix.rowIndex.data();
            m_colOut = m_matrix.colIndex.data();
            m_realOut = m_matrix.real.data();
            m_imagOut = m_matrix.imag.data();
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                m_sized = true;
            }
            constexpr std::size_t kSizingStep = std::size_t(1) << 20;
            for (std::size_t done = 0;;) {
                const std::size_t next = std::min(n, done + kSizingStep);
                m_matrix.rowIndex.resize(next);
                m_matrix.colIndex.resize(next);
                if (!m_matrix.isPattern()) m_matrix.real.resize(next);
                if (m_matrix.isComplex()) m_matrix.imag.resize(next);
                {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    m_sizedEntries = static_cast<Count>(next);
                    m_allocated = next == n;
                }
                if (next == n) break;
                copyClaimed(claimReady());  // frees backlog room for threads waiting on it
                m_roomForMore.notify_all();
                done = next;
            }
        }
        m_roomForMore.notify_all();
    }

    void work() {
        for (;;) {
            Slot* slot = nullptr;
            {
                // Until the matrix is sized, parsed chunks wait in memory: keep that backlog short
                // (on a busy machine the sizing thread may get little time).
                std::unique_lock<std::mutex> lock(m_mutex);
                m_roomForMore.wait(lock, [this] { return m_stop || m_allocated || m_ready.size() < m_backlogLimit; });
            }
            {
                std::unique_lock<std::mutex> fetchLock(m_fetchMutex);
                {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    if (m_stop || m_sourceDone || m_firstFailed != kNone) return;
                }
                Chunk chunk;
                bool more = false;
                try {
                    more = m_source.next(chunk);
                } catch (...) {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    m_sourceError = std::current_exception();
                    m_sourceDone = true;
                    return;
                }
                std::lock_guard<std::mutex> lock(m_mutex);
                if (!more) {
                    m_sourceDone = true;
                    return;
                }
                m_slots.emplace_back();
                slot = &m_slots.back();
                slot->index = m_slots.size() - 1;
                slot->chunk = std::move(chunk);
            }
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                slot->skipped = slot->index >= m_firstFailed;  // after the first error: cannot matter
            }
            if (!slot->skipped) {
                try {
                    slot->result = parseChunk(slot->chunk.text, m_header.shell, m_options,
                                              [this](std::size_t bytes) { reportProgress(bytes); });
                } catch (const CancelledError&) {
                    std::lock_guard<std::mutex> lock(m_mutex);
                    m_cancelled = true;
                    m_stop = true;
                    return;
                } catch (...) {  // out of memory, mostly
                    std::lock_guard<std::mutex> lock(m_mutex);
                    if (!m_workerError) m_workerError = std::current_exception();
                    m_stop = true;
                    return;
                }
            }
            if (!slot->skipped && m_source.parsed) m_source.parsed(slot->chunk.text);
            {
                std::lock_guard<std::mutex> lock(m_mutex);
                slot->parsed = true;
                if (slot->result.failed) markFailedFrom(slot->index);
                place();
            }
            copyClaimed(claimReady());
        }
    }

    // Called from the parsing threads, one at a time; the cancel check inside the lock means that
    // once a progress call asks to cancel, no further call is made.
    void reportProgress(std::size_t bytes) {
        std::lock_guard<std::mutex> lock(m_progressMutex);
        if (m_options.cancel != nullptr && m_options.cancel->load(std::memory_order_relaxed)) throw CancelledError();
        m_parsedBytes += bytes;
        if (!m_options.progress || !m_source.fraction) return;
        const double fraction = std::min(1.0, m_source.fraction(m_parsedBytes));
        if (fraction > m_lastFraction) {
            m_lastFraction = fraction;
            m_options.progress(fraction);
        }
    }

    // Gives every parsed chunk whose predecessors are all counted its offset and first line, in order,
    // up to the first failed chunk or the one that holds more entries than declared. Under m_mutex.
    // Once that chunk is found nothing more is placed: it is still the next slot, and placing it again
    // would count its entries twice (its offset past the declared count).
    void place() {
        while (m_stopAt == kNone && m_nextPlace < m_slots.size() && m_slots[m_nextPlace].parsed) {
            Slot& slot = m_slots[m_nextPlace];
            if (slot.skipped) return;
            slot.placed = true;
            slot.offset = m_entriesBefore;
            slot.firstLine = m_linesBefore;
            if (slot.result.failed) {
                m_stopAt = m_nextPlace;
                return;
            }
            m_entriesBefore += slot.result.entries;
            m_linesBefore += slot.result.newlines;
            if (m_entriesBefore > m_header.declared) {
                m_stopAt = m_nextPlace;
                markFailedFrom(m_nextPlace);
                return;
            }
            ++m_nextPlace;
            m_ready.push_back(&slot);
        }
    }

    // Chunks after `index` cannot matter once it holds an error. Under m_mutex.
    void markFailedFrom(std::size_t index) { m_firstFailed = std::min(m_firstFailed, index + 1); }

    std::vector<Slot*> claimReady() {
        std::lock_guard<std::mutex> lock(m_mutex);
        std::vector<Slot*> claimed;
        if (m_sized) {
            // m_ready is in file order: claim the chunks that lie wholly in the sized part.
            std::size_t count = 0;
            while (count < m_ready.size() && m_ready[count]->offset + m_ready[count]->result.entries <= m_sizedEntries)
                ++count;
            claimed.assign(m_ready.begin(), m_ready.begin() + static_cast<std::ptrdiff_t>(count));
            m_ready.erase(m_ready.begin(), m_ready.begin() + static_cast<std::ptrdiff_t>(count));
        } else if (m_allocated) {
            // A growing matrix is appended to in file order, one chunk at a time, under this lock.
            for (Slot* slot : m_ready) appendChunk(*slot);
            m_ready.clear();
        }
        return claimed;
    }

    void appendChunk(Slot& slot) {
        ChunkResult& r = slot.result;
        const auto n = static_cast<std::size_t>(r.entries);
        if (m_matrix.layout == Layout::Coordinate) {
            m_matrix.rowIndex.insert(m_matrix.rowIndex.end(), r.rowIndex.begin(), r.rowIndex.end());
            m_matrix.colIndex.insert(m_matrix.colIndex.end(), r.colIndex.begin(), r.colIndex.end());
        } else {
            m_matrix.rowIndex.resize(m_matrix.rowIndex.size() + n);
            m_matrix.colIndex.resize(m_matrix.colIndex.size() + n);
            fillArrayPositions(m_matrix, m_matrix.rowIndex.data() + slot.offset, m_matrix.colIndex.data() + slot.offset,
                               slot.offset, r.entries);
        }
        m_matrix.real.insert(m_matrix.real.end(), r.real.begin(), r.real.end());
        m_matrix.imag.insert(m_matrix.imag.end(), r.imag.begin(), r.imag.end());
        release(slot);
    }

    // Copies chunks into the sized matrix; several threads do this at once, each on its own chunks.
    void copyClaimed(const std::vector<Slot*>& slots) {
        for (Slot* slot : slots) {
            copyEntries(*slot, slot->result.entries);
            release(*slot);
        }
    }

    void copyEntries(const Slot& slot, Count count) {
        const ChunkResult& r = slot.result;
        const auto at = static_cast<std::size_t>(slot.offset);
        const auto n = static_cast<std::size_t>(count);
        if (m_matrix.layout == Layout::Coordinate) {
            std::copy_n(r.rowIndex.begin(), n, m_rowOut + at);
            std::copy_n(r.colIndex.begin(), n, m_colOut + at);
        } else {
            fillArrayPositions(m_matrix, m_rowOut + at, m_colOut + at, slot.offset, count);
        }
        if (!m_matrix.isPattern()) std::copy_n(r.real.begin(), n, m_realOut + at);
        if (m_matrix.isComplex()) std::copy_n(r.imag.begin(), n, m_imagOut + at);
    }

    // Frees a joined chunk's buffers and bytes; its mirrored entries stay for the final check.
    static void release(Slot& slot) {
        slot.copied = true;
        // Swapped with empty vectors: `v = {}` would keep the capacity, and with it every chunk.
        std::vector<Index>().swap(slot.result.rowIndex);
        std::vector<Index>().swap(slot.result.colIndex);
        std::vector<double>().swap(slot.result.real);
        std::vector<double>().swap(slot.result.imag);
        slot.chunk = Chunk{};
    }

    [[noreturn]] void failAt(std::int64_t line, const std::string& problem) const {
        throw ParseError(m_sourceName, line, problem);
    }

    // The first `count` entries in file order are joined; the matrix keeps exactly those.
    std::vector<MirroredEntry> mirroredBefore(Count count) const {
        std::vector<MirroredEntry> all;
        for (const Slot& slot : m_slots) {
            if (!slot.placed) break;
            for (const MirroredEntry& m : slot.result.mirrored) {
                const Count entry = slot.offset + m.entry;
                if (entry < count) all.push_back({m.key, entry, m_header.bodyLine + slot.firstLine + m.line});
            }
        }
        return all;
    }

    void truncateTo(Count count) {
        const auto n = static_cast<std::size_t>(count);
        m_matrix.rowIndex.resize(n);
        m_matrix.colIndex.resize(n);
        if (!m_matrix.isPattern()) m_matrix.real.resize(n);
        if (m_matrix.isComplex()) m_matrix.imag.resize(n);
    }

    Matrix finish() {
        if (m_cancelled || (m_options.cancel != nullptr && m_options.cancel->load())) throw CancelledError();
        if (m_workerError) std::rethrow_exception(m_workerError);
        const Count declared = m_header.declared;
        const bool array = m_matrix.layout == Layout::Array;
        if (m_stopAt != kNone) {
            // A located problem: a parse error, or the entry past the declared count, in chunk m_stopAt.
            Slot& slot = m_slots[m_stopAt];
            const ChunkResult& r = slot.result;
            if (r.failed && slot.offset + r.errorEntry < declared) failAt(m_header.bodyLine + slot.firstLine + r.errorLine, r.problem);
            // More entries than declared: the serial parser would have read `declared` entries, checked
            // the mirrors among them, and then met the extra one.
            const Count inChunk = declared - slot.offset;
            if (!array) {
                if (m_sized) {
                    copyEntries(slot, inChunk);
                    truncateTo(declared);
                } else {
                    appendPartial(slot, inChunk);
                }
                checkMirroredEntriesAreUnique(m_matrix, mirroredBefore(declared), m_sourceName);
            }
            const std::int64_t local = lineOfDataLine(slot.chunk.text, inChunk);
            failAt(m_header.bodyLine + slot.firstLine + local,
                   "more entries than the " + std::to_string(declared) + " declared in the size line");
        }
        if (m_sourceError) std::rethrow_exception(m_sourceError);
        const Count total = m_entriesBefore;
        if (total < declared) {
            failAt(m_header.bodyLine + m_linesBefore, "file ends after " + std::to_string(total) + " of " +
                                                          std::to_string(declared) + (array ? " array values" : " entries"));
        }
        if (m_sized) truncateTo(total);  // the capacity is the declared count: equal here
        if (!array) checkMirroredEntriesAreUnique(m_matrix, mirroredBefore(total), m_sourceName);
        if (m_options.progress) m_options.progress(1.0);
        return std::move(m_matrix);
    }

    void appendPartial(const Slot& slot, Count count) {
        const ChunkResult& r = slot.result;
        const auto n = static_cast<std::size_t>(count);
        m_matrix.rowIndex.insert(m_matrix.rowIndex.end(), r.rowIndex.begin(), r.rowIndex.begin() + n);
        m_matrix.colIndex.insert(m_matrix.colIndex.end(), r.colIndex.begin(), r.colIndex.begin() + n);
        if (!m_matrix.isPattern()) m_matrix.real.insert(m_matrix.real.end(), r.real.begin(), r.real.begin() + n);
        if (m_matrix.isComplex()) m_matrix.imag.insert(m_matrix.imag.end(), r.imag.begin(), r.imag.begin() + n);
    }

    static constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

    Header m_header;
    Matrix m_matrix;
    BodySource& m_source;
    const std::string& m_sourceName;
    const ReadOptions& m_options;

    std::mutex m_fetchMutex;  // one thread asks the source at a time, so chunks arrive in file order
    std::mutex m_mutex;       // everything below
    std::deque<Slot> m_slots; // stable addresses while it grows
    std::vector<Slot*> m_ready;       // placed, waiting to be copied
    std::condition_variable m_roomForMore;
    std::size_t m_backlogLimit = 2;
    bool m_stop = false, m_sourceDone = false, m_cancelled = false;
    bool m_allocated = false;  // fully: reserved (growing matrix), or sized to the capacity
    bool m_sized = false;      // a sized matrix, whose first m_sizedEntries entries can be stored
    Count m_sizedEntries = 0;
    // The sized matrix's arrays, fixed once reserved; written by many threads, each its own chunks.
    Index* m_rowOut = nullptr;
    Index* m_colOut = nullptr;
    double* m_realOut = nullptr;
    double* m_imagOut = nullptr;
    std::exception_ptr m_sourceError, m_workerError;
    std::size_t m_firstFailed = kNone;  // chunks at or after this index need not be parsed
    std::size_t m_nextPlace = 0;
    std::size_t m_stopAt = kNone;
    Count m_entriesBefore = 0;
    std::int64_t m_linesBefore = 0;

    std::mutex m_progressMutex;
    std::size_t m_parsedBytes = 0;
    double m_lastFraction = -1.0;
};

} // namespace

Matrix parseBody(Header header, BodySource& source, const std::string& sourceName, const ReadOptions& options) {
    return BodyReader(std::move(header), source, sourceName, options).read();
}

Matrix parseText(std::string_view text, const std::string& sourceName, const ReadOptions& options,
                 const std::function<double(std::size_t)>& fraction, const std::function<void(std::string_view)>& parsed) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) throw CancelledError();
    Header header = parseHeader(text, sourceName, options);
    const std::string_view body = text.substr(header.bodyOffset);
    const unsigned threads = readerThreads(options);
    std::vector<std::string_view> chunks = splitAtLines(body, chunkBytesFor(options, body.size(), threads));
    std::size_t next = 0;
    BodySource source;
    source.next = [&](Chunk& chunk) {
        if (next == chunks.size()) return false;
        chunk.text = chunks[next++];
        return true;
    };
    const std::size_t bodyOffset = header.bodyOffset;
    source.fraction = [&fraction, bodyOffset](std::size_t parsed) { return fraction(bodyOffset + parsed); };
    const Count minBytes = header.shell.layout == Layout::Coordinate ? kMinCoordinateEntryBytes : kMinArrayEntryBytes;
    source.entryBound = static_cast<Count>(body.size()) / minBytes + 1;
    source.parsed = parsed;
    return parseBody(std::move(header), source, sourceName, options);
}

} // namespace spyglass::mm

namespace spyglass {

Matrix parseMatrixMarket(std::string_view text, const std::string& sourceName, const ReadOptions& options) {
    const double total = static_cast<double>(std::max<std::size_t>(text.size(), 1));
    return mm::parseText(text, sourceName, options, [total](std::size_t done) { return static_cast<double>(done) / total; });
}

} // namespace spyglass
