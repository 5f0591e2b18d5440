// The public .mat functions: matio and HDF5 parse in a child process under limits (io/sandbox.h),
// and the variable list or the matrix comes back through a pipe, checked again on this side as any
// other untrusted input. A crash or a limit hit there is "FILE: the MATLAB reader stopped: ...".
#include "io/matfile_inprocess.h"
#include "io/matio_access.h"
#include "io/sandbox.h"
#include "spyglass/error.h"
#include "spyglass/matfile.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

namespace spyglass {

namespace {

constexpr std::size_t kMaxName = 4096;
constexpr std::uint64_t kMaxVariables = 1000000;  // as the reader's own walk

std::uint64_t fileSizeOf(const std::string& path) {
    struct stat info {};
    return ::stat(path.c_str(), &info) == 0 && info.st_size > 0 ? std::uint64_t(info.st_size) : 0;
}

// A positive number from the environment, else fallback.
double fromEnvironment(const char* name, double fallback) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') return fallback;
    char* end = nullptr;
    const double v = std::strtod(text, &end);
    return end != text && *end == '\0' && v > 0 ? v : fallback;
}

// What the parser may use, from the file's size: the data cannot hold more than deflate's maximum ratio
// (about 1032) times the file, and the reader keeps at most three copies of it (matio's arrays, the
// matrix, the frame), plus a fixed part for the libraries themselves. A tiny hostile file so gets
// about 128 MB, a real one room for its matrix. SPYGLASS_MAT_READER_MEMORY_MB and
// SPYGLASS_MAT_READER_SECONDS set the limits outright.
sandbox::Limits limitsFor(const std::string& path) {
    const std::uint64_t size = fileSizeOf(path);
    sandbox::Limits limits;
    double memory = double(std::uint64_t(128) << 20) + 3.0 * 1032.0 * double(size);
#if defined(__SANITIZE_ADDRESS__)
    memory += double(std::uint64_t(4) << 30);  // ASan's quarantine and allocator regions
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    memory += double(std::uint64_t(4) << 30);
#endif
#endif
    memory = fromEnvironment("SPYGLASS_MAT_READER_MEMORY_MB", memory / double(1 << 20)) * double(1 << 20);
    limits.memoryBytes = std::uint64_t(std::min(memory, 1e18));
    const double cpu = fromEnvironment("SPYGLASS_MAT_READER_SECONDS", 10.0 + double(size) / double(16 << 20));
    limits.cpuSeconds = unsigned(std::min(std::ceil(cpu), 1e6));
    limits.wallSeconds = 2.0 * limits.cpuSeconds + 5.0;
    return limits;
}

// SPYGLASS_MAT_READER_FAULT=crash|hang|memory makes the child fail that way before it parses: how the
// tests show that a parser crash, hang or runaway allocation in any build (not only under ASan, where
// the known HDF5 over-read ends the child) leaves the application with a reader error.
void injectFault() {
    const char* fault = std::getenv("SPYGLASS_MAT_READER_FAULT");
    if (fault == nullptr) return;
    const std::string which(fault);
    if (which == "crash") std::raise(SIGSEGV);
    if (which == "hang")
        for (;;) ::pause();
    if (which == "memory")
        for (std::vector<std::vector<char>> hog;;) hog.emplace_back(std::size_t(64) << 20, '\1');
}

// Runs `child` in the sandbox with matio's lock held here across the fork (no other thread of this
// process is then inside matio or HDF5, whose state the child inherits).
void runMatReader(const std::string& path, const std::function<void(sandbox::Writer&)>& child,
                  const std::function<void(sandbox::Reader&)>& parent, const std::atomic<bool>* cancel) {
    const sandbox::Limits limits = limitsFor(path);
    matio::Access held;
    sandbox::run(
        "MATLAB", path, limits,
        [&](sandbox::Writer& writer) {
            matio::Access::inForkedChild();
            injectFault();
            child(writer);
        },
        parent, cancel);
}

void writeMatrix(sandbox::Writer& out, const Matrix& m) {
    out.value<std::uint8_t>(std::uint8_t(m.layout));
    out.value<std::uint8_t>(std::uint8_t(m.field));
    out.value<std::uint8_t>(std::uint8_t(m.symmetry));
    out.value<Index>(m.rows);
    out.value<Index>(m.cols);
    out.value<std::uint64_t>(m.rowIndex.size());
    out.bytes(m.rowIndex.data(), m.rowIndex.size() * sizeof(Index));
    out.bytes(m.colIndex.data(), m.colIndex.size() * sizeof(Index));
    out.value<std::uint64_t>(m.real.size());
    out.bytes(m.real.data(), m.real.size() * sizeof(double));
    out.value<std::uint64_t>(m.imag.size());
    out.bytes(m.imag.data(), m.imag.size() * sizeof(double));
}

// n values into v, in pieces: a count the child declares is never allocated before the data for it
// has arrived.
template <typename T>
void readArray(sandbox::Reader& in, std::vector<T>& v, std::uint64_t n) {
    constexpr std::uint64_t kPiece = std::uint64_t(1) << 20;
    v.clear();
    v.reserve(std::size_t(std::min(n, kPiece)));
    for (std::uint64_t done = 0; done < n;) {
        const std::uint64_t piece = std::min(kPiece, n - done);
        v.resize(std::size_t(done + piece));
        in.bytes(v.data() + done, std::size_t(piece) * sizeof(T));
        done += piece;
    }
}

Matrix readMatrix(sandbox::Reader& in, Count maxEntries) {
    Matrix m;
    const auto layout = in.value<std::uint8_t>(), field = in.value<std::uint8_t>(), symmetry = in.value<std::uint8_t>();
    if (layout > std::uint8_t(Layout::Array) || field > std::uint8_t(Field::Pattern) || symmetry > std::uint8_t(Symmetry::Hermitian))
        in.malformed("unknown layout, field or symmetry");
    m.layout = Layout(layout), m.field = Field(field), m.symmetry = Symmetry(symmetry);
    m.rows = in.value<Index>();
    m.cols = in.value<Index>();
    if (m.rows < 0 || m.cols < 0) in.malformed("a negative size");
    const auto entries = in.value<std::uint64_t>();
    const Count limit = maxEntries > 0 ? maxEntries : std::numeric_limits<Count>::max();
    if (entries > std::uint64_t(limit)) in.malformed(std::to_string(entries) + " entries, more than the limit");
    readArray(in, m.rowIndex, entries);
    readArray(in, m.colIndex, entries);
    const auto reals = in.value<std::uint64_t>();
    if (reals != (m.isPattern() ? 0 : entries)) in.malformed(std::to_string(reals) + " values for " + std::to_string(entries) + " entries");
    readArray(in, m.real, reals);
    const auto imags = in.value<std::uint64_t>();
    if (imags != (m.isComplex() ? entries : 0)) in.malformed(std::to_string(imags) + " imaginary parts for " + std::to_string(entries) + " entries");
    readArray(in, m.imag, imags);
    for (std::size_t k = 0; k < m.rowIndex.size(); ++k)
        if (m.rowIndex[k] < 0 || m.rowIndex[k] >= m.rows || m.colIndex[k] < 0 || m.colIndex[k] >= m.cols)
            in.malformed("entry " + std::to_string(k) + " lies outside the matrix");
    return m;
}

} // namespace

std::vector<MatVariable> listMatVariables(const std::string& path) {
    std::vector<MatVariable> list;
    runMatReader(
        path,
        [&](sandbox::Writer& out) {
            const std::vector<MatVariable> found = matfile::listVariablesInProcess(path);
            out.value<std::uint64_t>(found.size());
            for (const MatVariable& v : found) {
                out.string(v.name.substr(0, kMaxName));
                out.string(v.matlabClass.substr(0, kMaxName));
                out.value<Index>(v.rows);
                out.value<Index>(v.cols);
                out.value<std::uint8_t>(v.sparse);
                out.value<std::uint8_t>(v.complex);
            }
        },
        [&](sandbox::Reader& in) {
            const auto count = in.value<std::uint64_t>();
            if (count > kMaxVariables) in.malformed(std::to_string(count) + " variables");
            for (std::uint64_t k = 0; k < count; ++k) {
                MatVariable v;
                v.name = in.string(kMaxName);
                v.matlabClass = in.string(kMaxName);
                v.rows = in.value<Index>();
                v.cols = in.value<Index>();
                v.sparse = in.value<std::uint8_t>() != 0;
                v.complex = in.value<std::uint8_t>() != 0;
                if (v.name.empty() || v.rows < 0 || v.cols < 0) in.malformed("a variable without a name or with a negative size");
                list.push_back(std::move(v));
            }
        },
        nullptr);
    return list;
}

Matrix readMatFile(const std::string& path, const std::string& variable, Count maxEntries, const std::atomic<bool>* cancel) {
    if (cancel != nullptr && cancel->load(std::memory_order_relaxed)) throw CancelledError();
    Matrix matrix;
    runMatReader(
        path, [&](sandbox::Writer& out) { writeMatrix(out, matfile::readInProcess(path, variable, maxEntries, nullptr)); },
        [&](sandbox::Reader& in) { matrix = readMatrix(in, maxEntries); }, cancel);
    return matrix;
}

} // namespace spyglass
