// Gzip Matrix Market files stream: a decompressing thread inflates blocks of whole lines into a
// short queue and the parsing threads take them from there, so inflating (one core: zlib cannot
// split a stream) overlaps parsing and the decompressed text is never held whole.
#include "io/matrixmarket_chunks.h"

#include "spyglass/error.h"

#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

namespace spyglass::mm {

[[noreturn]] void failGzip(const std::string& path, std::int64_t newlinesBefore, bool truncated, const char* detail) {
    throw ParseError(path, 1 + newlinesBefore,
                     std::string(truncated ? "gzip data ends early (truncated file)" : "damaged gzip data") +
                         " (zlib: " + (detail ? detail : "?") + ")");
}

namespace {

// Reads decompressed bytes and counts their newlines (for the line of a gzip error).
class GzipReader {
public:
    explicit GzipReader(const std::string& path) : m_path(path), m_file(gzopen(path.c_str(), "rb")) {
        if (m_file == nullptr) throw Error("cannot open " + path + ": " + std::strerror(errno));
        gzbuffer(m_file, 1u << 20);
    }
    ~GzipReader() { gzclose(m_file); }
    GzipReader(const GzipReader&) = delete;
    GzipReader& operator=(const GzipReader&) = delete;

    // Appends up to `bytes` decompressed bytes to text; returns how many (0 at the end).
    std::size_t appendTo(std::string& text, std::size_t bytes) {
        const std::size_t before = text.size();
        text.resize(before + bytes);
        const int got = gzread(m_file, text.data() + before, static_cast<unsigned>(bytes));
        int errorCode = Z_OK;
        const char* message = gzerror(m_file, &errorCode);
        if (got < 0 || (errorCode != Z_OK && errorCode != Z_STREAM_END)) {
            // The line is where the usable text ends (this read's bytes included), whatever the read
            // sizes. Z_BUF_ERROR means the compressed stream stopped early: a truncated download.
            const auto usable = static_cast<std::ptrdiff_t>(before) + std::max(got, 0);
            const std::int64_t lines = m_newlines + std::count(text.begin() + static_cast<std::ptrdiff_t>(before),
                                                               text.begin() + usable, '\n');
            failGzip(m_path, lines, errorCode == Z_BUF_ERROR, message);
        }
        text.resize(before + static_cast<std::size_t>(got));
        m_newlines += std::count(text.begin() + static_cast<std::ptrdiff_t>(before), text.end(), '\n');
        m_consumed.store(static_cast<long long>(gzoffset(m_file)), std::memory_order_relaxed);
        return static_cast<std::size_t>(got);
    }
    long long compressedBytesConsumed() const { return m_consumed.load(std::memory_order_relaxed); }

private:
    std::string m_path;
    gzFile m_file;
    std::int64_t m_newlines = 0;
    std::atomic<long long> m_consumed{0};
};

class GzipBody {
public:
    GzipBody(GzipReader& reader, std::string start, std::size_t chunkBytes, std::size_t queueLimit)
        : m_reader(reader), m_chunkBytes(chunkBytes), m_queueLimit(queueLimit) {
        m_thread = std::thread([this, start = std::move(start)]() mutable { produce(std::move(start)); });
    }
    ~GzipBody() {
        {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_stopping = true;
        }
        m_changed.notify_all();
        m_thread.join();
    }
    GzipBody(const GzipBody&) = delete;
    GzipBody& operator=(const GzipBody&) = delete;

    bool next(Chunk& chunk) {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_changed.wait(lock, [this] { return !m_queue.empty() || m_done; });
        if (!m_queue.empty()) {
            chunk.owner = std::move(m_queue.front());
            chunk.text = *chunk.owner;
            m_queue.pop_front();
            m_changed.notify_all();
            return true;
        }
        if (m_error) std::rethrow_exception(m_error);
        return false;
    }

private:
    void produce(std::string carry) {
        try {
            bool atEnd = false;
            while (!atEnd) {
                auto block = std::make_shared<std::string>();
                block->reserve(m_chunkBytes + carry.size() + (std::size_t(1) << 16));
                block->swap(carry);
                std::size_t cut = std::string::npos;
                // Read until the block holds a whole line past chunkBytes (a line longer than a block
                // makes the block longer) or the input ends.
                while (cut == std::string::npos) {
                    const std::size_t want = block->size() < m_chunkBytes ? m_chunkBytes - block->size() : m_chunkBytes;
                    if (m_reader.appendTo(*block, want) == 0) {
                        atEnd = true;
                        break;
                    }
                    if (block->size() >= m_chunkBytes) cut = block->rfind('\n');
                    if (stopping()) return;
                }
                if (!atEnd) {
                    carry.assign(*block, cut + 1, std::string::npos);
                    block->resize(cut + 1);
                }
                if (!block->empty() && !push(std::move(block))) return;
            }
        } catch (...) {
            std::lock_guard<std::mutex> lock(m_mutex);
            m_error = std::current_exception();
        }
        std::lock_guard<std::mutex> lock(m_mutex);
        m_done = true;
        m_changed.notify_all();
    }

    bool stopping() {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_stopping;
    }

    // Waits for room in the queue (bounded: the decompressed text in memory stays a few chunks).
    bool push(std::shared_ptr<const std::string> block) {
        std::unique_lock<std::mutex> lock(m_mutex);
        m_changed.wait(lock, [this] { return m_queue.size() < m_queueLimit || m_stopping; });
        if (m_stopping) return false;
        m_queue.push_back(std::move(block));
        m_changed.notify_all();
        return true;
    }

    GzipReader& m_reader;
    const std::size_t m_chunkBytes, m_queueLimit;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<std::shared_ptr<const std::string>> m_queue;
    bool m_done = false, m_stopping = false;
    std::exception_ptr m_error;
    std::thread m_thread;
};

} // namespace

Matrix readGzipStream(const std::string& path, long long fileSize, const ReadOptions& options) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) throw CancelledError();
    GzipReader reader(path);
    // The header is read here, on the calling thread: as much text as the size line needs.
    std::string head;
    std::size_t bodyOffset = std::string::npos;
    constexpr std::size_t kHeadStep = std::size_t(1) << 16;
    for (;;) {
        bodyOffset = bodyOffsetIfComplete(head);
        if (bodyOffset != std::string::npos) break;
        if (reader.appendTo(head, kHeadStep) == 0) break;
    }
    Header header = parseHeader(head, path, options);  // at the end of input it reports what is missing
    const unsigned threads = readerThreads(options);
    const std::size_t chunkBytes = chunkBytesFor(options, 0, threads);
    GzipBody body(reader, head.substr(header.bodyOffset), chunkBytes, std::size_t(2) * threads);
    head = {};

    BodySource source;
    source.next = [&body](Chunk& chunk) { return body.next(chunk); };
    // Decompression leads parsing by a few chunks at most; the compressed bytes read are the measure.
    const double total = static_cast<double>(std::max(1LL, fileSize));
    source.fraction = [&reader, total](std::size_t) {
        return 0.99 * static_cast<double>(reader.compressedBytesConsumed()) / total;
    };
    source.entryBound = -1;  // unknown until the end: the matrix grows in file order
    // Text Matrix Market compresses 3-5x and an entry takes >= 4 bytes: 2 entries per compressed
    // byte is more than any real file holds, so a valid file's matrix is reserved once, exactly
    // (the declared count), while a tiny file declaring 10^9 entries reserves little.
    source.reserveHint = 2 * static_cast<Count>(std::max(0LL, fileSize)) + 1024;
    return parseBody(std::move(header), source, path, options);
}

} // namespace spyglass::mm
