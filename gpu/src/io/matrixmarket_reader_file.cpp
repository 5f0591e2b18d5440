// Opening a Matrix Market file (plain or gzip, told apart by the magic bytes, not the name): a regular
// file is mapped and parsed in place, gzip streams through a decompressing thread
// (matrixmarket_gzip.cpp), pipes are read whole first.
#include "io/matrixmarket_chunks.h"

#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace spyglass {
namespace {

constexpr std::size_t kReadChunk = std::size_t(8) << 20;
// Share of the progress bar given to loading; decompression costs about as much as parsing.
constexpr double kPlainLoadShare = 0.1;
constexpr double kGzipLoadShare = 0.5;

std::string systemError(const std::string& path, const char* action) {
    return "cannot " + std::string(action) + " " + path + ": " + std::strerror(errno);
}

struct FileCloser {
    void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

void checkCancel(const ReadOptions& options) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
        throw CancelledError();
    }
}

void reportLoad(const ReadOptions& options, double share, long long done, long long total) {
    if (options.progress && total > 0) {
        options.progress(share * std::min(1.0, static_cast<double>(done) / static_cast<double>(total)));
    }
}

std::string loadPlain(std::FILE* file, const std::string& path, long long fileSize, const ReadOptions& options) {
    std::string text;
    text.reserve(static_cast<std::size_t>(std::max(0LL, fileSize)));
    std::unique_ptr<char[]> chunk(new char[kReadChunk]);
    for (;;) {
        checkCancel(options);
        const std::size_t got = std::fread(chunk.get(), 1, kReadChunk, file);
        text.append(chunk.get(), got);
        reportLoad(options, kPlainLoadShare, static_cast<long long>(text.size()), fileSize);
        if (got < kReadChunk) {
            if (std::ferror(file)) {
                throw Error(systemError(path, "read"));
            }
            return text;
        }
    }
}

bool hasGzipMagic(const unsigned char* bytes, std::size_t size) {
    return size >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

// A read-only mapping of a regular file: the parsers read the page cache directly, with no copy
// of a possibly multi-GB file.
class MappedFile {
public:
    MappedFile(std::FILE* file, long long size) : m_size(static_cast<std::size_t>(size)) {
        if (size > 0) {
            void* address = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, ::fileno(file), 0);
            if (address != MAP_FAILED) {
                m_data = static_cast<const char*>(address);
                ::madvise(address, m_size, MADV_WILLNEED);  // chunks are read by many threads at once
            }
        }
    }
    ~MappedFile() {
        if (m_data != nullptr) {
            ::munmap(const_cast<char*>(m_data), m_size);
        }
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;
    bool mapped() const { return m_data != nullptr; }
    // Drops the whole pages inside text from this process: parsed chunks then stop counting towards
    // its memory (a multi-GB file is otherwise resident twice over, as text and as the matrix).
    // Read-only file pages fault back in from the page cache if they are read again.
    void release(std::string_view text) const {
        const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
        const auto first = (reinterpret_cast<std::uintptr_t>(text.data()) + page - 1) / page * page;
        const auto last = (reinterpret_cast<std::uintptr_t>(text.data()) + text.size()) / page * page;
        if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
    }
    std::string_view text() const { return std::string_view(m_data, m_size); }

private:
    const char* m_data = nullptr;
    std::size_t m_size = 0;
};

// Pipes and other unseekable inputs arrive as bytes; gzip among them is inflated here.
std::string inflateInMemory(const std::string& path, const std::string& compressed, const ReadOptions& options) {
    z_stream stream{};
    constexpr int kAutoDetectGzip = 15 + 32;
    if (inflateInit2(&stream, kAutoDetectGzip) != Z_OK) {
        throw Error("cannot read " + path + ": zlib initialisation failed");
    }
    std::string text;
    std::unique_ptr<char[]> chunk(new char[kReadChunk]);
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
    stream.avail_in = static_cast<uInt>(compressed.size());
    for (;;) {
        checkCancel(options);
        stream.next_out = reinterpret_cast<Bytef*>(chunk.get());
        stream.avail_out = static_cast<uInt>(kReadChunk);
        const int result = inflate(&stream, Z_NO_FLUSH);
        text.append(chunk.get(), kReadChunk - stream.avail_out);
        if (result == Z_STREAM_END) {
            if (stream.avail_in == 0) {
                break;
            }
            inflateReset(&stream);  // concatenated gzip members, as `cat a.gz b.gz` makes
            continue;
        }
        if (result != Z_OK) {
            const std::string detail = stream.msg ? stream.msg : "unexpected end of data";
            inflateEnd(&stream);
            mm::failGzip(path, std::count(text.begin(), text.end(), '\n'), result == Z_BUF_ERROR, detail.c_str());
        }
    }
    inflateEnd(&stream);
    return text;
}

ReadOptions withLoadShare(const ReadOptions& options, double loadShare) {
    ReadOptions parseOptions = options;
    if (options.progress) {
        parseOptions.progress = [&options, loadShare](double fraction) {
            options.progress(loadShare + (1.0 - loadShare) * fraction);
        };
    }
    return parseOptions;
}

} // namespace

Matrix readMatrixMarket(const std::string& path, const ReadOptions& options) {
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        throw Error(systemError(path, "open"));
    }
    struct stat info {};
    if (::fstat(::fileno(file.get()), &info) != 0) {
        throw Error(systemError(path, "inspect"));
    }
    if (S_ISDIR(info.st_mode)) {
        errno = EISDIR;
        throw Error(systemError(path, "read"));
    }

    if (!S_ISREG(info.st_mode)) {
        std::string bytes = loadPlain(file.get(), path, -1, options);
        file.reset();
        if (hasGzipMagic(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size())) {
            bytes = inflateInMemory(path, bytes, options);
        }
        return parseMatrixMarket(bytes, path, withLoadShare(options, kGzipLoadShare));
    }

    const long long fileSize = static_cast<long long>(info.st_size);
    unsigned char magic[2] = {0, 0};
    const std::size_t magicBytes = std::fread(magic, 1, 2, file.get());
    std::rewind(file.get());
    if (hasGzipMagic(magic, magicBytes)) {
        file.reset();
        return mm::readGzipStream(path, fileSize, options);
    }
    if (fileSize > 0) {
        const MappedFile mapping(file.get(), fileSize);
        if (mapping.mapped()) {
            file.reset();
            const double total = static_cast<double>(fileSize);
            return mm::parseText(
                mapping.text(), path, options, [total](std::size_t done) { return static_cast<double>(done) / total; },
                [&mapping](std::string_view chunk) { mapping.release(chunk); });
        }
    }
    const std::string text = loadPlain(file.get(), path, fileSize, options);
    file.reset();
    return parseMatrixMarket(text, path, withLoadShare(options, kPlainLoadShare));
}

} // namespace spyglass
