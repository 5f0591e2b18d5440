// One entry point for every matrix file: the container by its magic bytes, else Matrix Market.
#include "spyglass/matrixfile.h"

#include "spyglass/container.h"
#include "spyglass/error.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

namespace spyglass {

namespace {
constexpr char kContainerMagic[] = "SPYGLSMX";  // docs/container-format.md, offset 0

void checkCancel(const ReadOptions& options) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) throw CancelledError();
}
} // namespace

const char* toString(MatrixFileKind kind) {
    return kind == MatrixFileKind::Container ? "Spyglass container" : "Matrix Market";
}

MatrixFileKind matrixFileKind(const std::string& path) {
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) throw Error("cannot open " + path + ": " + std::strerror(errno));
    char magic[sizeof kContainerMagic - 1] = {};
    const std::size_t got = std::fread(magic, 1, sizeof magic, file.get());
    // A pipe or a directory reads short here; Matrix Market reading then reports it properly.
    return got == sizeof magic && std::memcmp(magic, kContainerMagic, sizeof magic) == 0 ? MatrixFileKind::Container
                                                                                          : MatrixFileKind::MatrixMarket;
}

Matrix readMatrixFile(const std::string& path, const ReadOptions& options, MatrixFileKind* kind) {
    checkCancel(options);
    // A pipe must not be sniffed (the bytes read would be lost to the reader), so only a regular file
    // can be a container; the rest (pipes, directories, missing files) is Matrix Market's to report.
    struct stat info {};
    const bool regular = ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
    const MatrixFileKind found = regular ? matrixFileKind(path) : MatrixFileKind::MatrixMarket;
    if (kind) *kind = found;
    if (found == MatrixFileKind::MatrixMarket) return readMatrixMarket(path, options);
    Matrix matrix = readContainerMatrix(path, nullptr, options.maxEntries);
    checkCancel(options);
    if (options.progress) options.progress(1.0);
    return matrix;
}

} // namespace spyglass
