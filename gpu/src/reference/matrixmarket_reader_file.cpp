// Loading a Matrix Market file into memory (plain or gzip, told apart by the magic bytes, not the
// name) before the parser runs over it in one pass.
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
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

struct GzCloser {
    void operator()(gzFile_s* file) const { gzclose(file); }
};
using GzPtr = std::unique_ptr<gzFile_s, GzCloser>;

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

std::string loadGzip(const std::string& path, long long fileSize, const ReadOptions& options) {
    GzPtr gz(gzopen(path.c_str(), "rb"));
    if (!gz) {
        throw Error(systemError(path, "open"));
    }
    gzbuffer(gz.get(), 1u << 20);
    std::string text;
    text.reserve(static_cast<std::size_t>(std::max(0LL, fileSize)) * 3);
    std::unique_ptr<char[]> chunk(new char[kReadChunk]);
    for (;;) {
        checkCancel(options);
        const int got = gzread(gz.get(), chunk.get(), static_cast<unsigned>(kReadChunk));
        int errorCode = Z_OK;
        const char* message = gzerror(gz.get(), &errorCode);
        if (got < 0 || (errorCode != Z_OK && errorCode != Z_STREAM_END)) {
            // Z_BUF_ERROR here means the compressed stream stopped early: a truncated download.
            // The line is where the usable text ends, so the user sees how far the file got.
            const std::int64_t line = 1 + std::count(text.begin(), text.end(), '\n');
            const std::string what = errorCode == Z_BUF_ERROR ? "gzip data ends early (truncated file)"
                                                              : "damaged gzip data";
            throw ParseError(path, line, what + " (zlib: " + std::string(message ? message : "?") + ")");
        }
        text.append(chunk.get(), static_cast<std::size_t>(got));
        reportLoad(options, kGzipLoadShare, static_cast<long long>(gzoffset(gz.get())), fileSize);
        if (got == 0) {
            return text;
        }
    }
}

// A read-only mapping of a regular file: the parser reads the page cache directly, with no copy
// of a possibly multi-GB file.
class MappedFile {
public:
    MappedFile(std::FILE* file, long long size) : m_size(static_cast<std::size_t>(size)) {
        if (size > 0) {
            void* address = ::mmap(nullptr, m_size, PROT_READ, MAP_PRIVATE, ::fileno(file), 0);
            if (address != MAP_FAILED) {
                m_data = static_cast<const char*>(address);
                ::madvise(address, m_size, MADV_SEQUENTIAL);
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
    std::string_view text() const { return std::string_view(m_data, m_size); }

private:
    const char* m_data = nullptr;
    std::size_t m_size = 0;
};

bool isRegularFile(std::FILE* file) {
    struct stat info {};
    return ::fstat(::fileno(file), &info) == 0 && S_ISREG(info.st_mode);
}

} // namespace

Matrix readMatrixMarket(const std::string& path, const ReadOptions& options) {
    FilePtr file(std::fopen(path.c_str(), "rb"));
    if (!file) {
        throw Error(systemError(path, "open"));
    }
    long long fileSize = -1;
    if (std::fseek(file.get(), 0, SEEK_END) == 0) {
        fileSize = std::ftell(file.get());
        std::rewind(file.get());
    }
    unsigned char magic[2] = {0, 0};
    const std::size_t magicBytes = std::fread(magic, 1, 2, file.get());
    std::rewind(file.get());
    const bool gzip = magicBytes == 2 && magic[0] == 0x1f && magic[1] == 0x8b;

    if (!gzip && fileSize > 0 && isRegularFile(file.get())) {
        const MappedFile mapping(file.get(), fileSize);
        if (mapping.mapped()) {
            file.reset();
            return parseMatrixMarket(mapping.text(), path, options);
        }
    }

    std::string text;
    double loadShare = kPlainLoadShare;
    if (gzip) {
        file.reset();
        loadShare = kGzipLoadShare;
        text = loadGzip(path, fileSize, options);
    } else {
        text = loadPlain(file.get(), path, fileSize, options);
        file.reset();
    }

    ReadOptions parseOptions = options;
    if (options.progress) {
        parseOptions.progress = [&options, loadShare](double fraction) {
            options.progress(loadShare + (1.0 - loadShare) * fraction);
        };
    }
    return parseMatrixMarket(text, path, parseOptions);
}

} // namespace spyglass
