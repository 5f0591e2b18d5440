// One entry point for every matrix file: the container, .npz, .npy or .mat by their magic bytes, else
// Matrix Market. "FILE.mat:VAR" names one variable of a .mat file.
#include "spyglass/matrixfile.h"

#include "core/parallel_ranges.h"
#include "core/stagetimings.h"
#include "io/container_matrix_proving.h"

#include "spyglass/container.h"
#include "spyglass/error.h"
#include "spyglass/harwellboeing.h"
#include "spyglass/matfile.h"
#include "spyglass/npz.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

namespace spyglass {

namespace {
constexpr char kContainerMagic[] = "SPYGLSMX";  // docs/container-format.md, offset 0

void checkCancel(const ReadOptions& options) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) throw CancelledError();
}
} // namespace

const char* toString(MatrixFileKind kind) {
    switch (kind) {
    case MatrixFileKind::Container: return "Spyglass container";
    case MatrixFileKind::Npz: return "SciPy sparse .npz";
    case MatrixFileKind::Npy: return "NumPy .npy";
    case MatrixFileKind::HarwellBoeing: return "Harwell-Boeing";
    case MatrixFileKind::Mat: return "MATLAB .mat";
    case MatrixFileKind::MatrixMarket: break;
    }
    return "Matrix Market";
}

MatrixFileKind matrixFileKind(const std::string& path) {
    if (splitMatFilePath(path)) return MatrixFileKind::Mat;
    std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) throw Error("cannot open " + path + ": " + std::strerror(errno));
    // Enough for the four header lines of a Harwell-Boeing file (80 columns each).
    char magic[512] = {};
    const std::size_t got = std::fread(magic, 1, sizeof magic, file.get());
    // A pipe or a directory reads short here; Matrix Market reading then reports it properly.
    const std::string_view head(magic, got);
    constexpr std::size_t kMagic = sizeof kContainerMagic - 1;
    if (got >= kMagic && std::memcmp(magic, kContainerMagic, kMagic) == 0) return MatrixFileKind::Container;
    if (looksLikeNpz(head)) return MatrixFileKind::Npz;
    if (looksLikeNpy(head)) return MatrixFileKind::Npy;
    if (looksLikeMatFile(head)) return MatrixFileKind::Mat;
    if (head.rfind("%%MatrixMarket", 0) != 0 && looksLikeHarwellBoeing(head)) return MatrixFileKind::HarwellBoeing;
    return MatrixFileKind::MatrixMarket;
}

namespace {

// readMatrixFile; `rowMajorDistinct` (when given) tells whether the reader's own checks proved the
// entries strictly row-major inside the shape (container_matrix_proving.h).
Matrix readAnyMatrixFile(const std::string& path, const ReadOptions& options, MatrixFileKind* kind, bool* rowMajorDistinct) {
    if (rowMajorDistinct) *rowMajorDistinct = false;
    checkCancel(options);
    if (const std::optional<MatFilePath> split = splitMatFilePath(path)) {
        if (kind) *kind = MatrixFileKind::Mat;
        Matrix matrix = readMatFile(split->file, split->variable, options.maxEntries, options.cancel);
        if (options.progress) options.progress(1.0);
        return matrix;
    }
    // A pipe must not be sniffed (the bytes read would be lost to the reader), so only a regular file
    // can be a container; the rest (pipes, directories, missing files) is Matrix Market's to report.
    struct stat info {};
    const bool regular = ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
    const MatrixFileKind found = regular ? matrixFileKind(path) : MatrixFileKind::MatrixMarket;
    if (kind) *kind = found;
    if (found == MatrixFileKind::MatrixMarket) return readMatrixMarket(path, options);
    Matrix matrix;
    if (found == MatrixFileKind::Container) {
        // The container's checks and decode run on `threads` threads too, as the text parser does.
        const parallel::ThreadCount threads(options.threads);
        matrix = container_decode::readContainerMatrixProving(path, nullptr, options.maxEntries, rowMajorDistinct);
        timings::mark("read.unmapped");
    } else if (found == MatrixFileKind::Mat) {
        matrix = readMatFile(path, {}, options.maxEntries, options.cancel);  // matio reads from the path
    } else {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw Error("cannot open " + path + ": " + std::strerror(errno));
        std::string bytes(static_cast<std::size_t>(info.st_size), '\0');
        if (!in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()))) throw Error("cannot read " + path);
        checkCancel(options);
        matrix = found == MatrixFileKind::Npz   ? parseNpz(bytes, path, options.maxEntries)
                 : found == MatrixFileKind::Npy ? parseNpy(bytes, path, options.maxEntries)
                                                : parseHarwellBoeing(bytes, path, options.maxEntries);
    }
    checkCancel(options);
    if (options.progress) options.progress(1.0);
    return matrix;
}

} // namespace

Matrix readMatrixFile(const std::string& path, const ReadOptions& options, MatrixFileKind* kind) {
    return readAnyMatrixFile(path, options, kind, nullptr);
}

Matrix readDistinctMatrixFile(const std::string& path, const ReadOptions& options, DistinctEntriesReport* report, MatrixFileKind* kind) {
    bool proven = false;
    Matrix matrix = readAnyMatrixFile(path, options, kind, &proven);
    DistinctEntriesReport removed;
    if (proven) {
        removed.orderProvenByReader = true;
    } else {
        removed = makeEntriesDistinct(matrix, options.threads);
    }
    if (report) *report = removed;
    return matrix;
}

} // namespace spyglass
