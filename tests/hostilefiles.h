#pragma once
// Small hostile files, made on the fly: each declares far more than it holds (or crashes a parser),
// so a reader that sizes anything by a declaration, or a parser running in the application's own
// process, shows it at once. Shared by tst_hostile (library and spyglass-cli) and tst_gui_mainwindow
// (the window keeps its matrix). Each comes with a piece of the message that must name the problem.
#include "testfiles.h"

#include "spyglass/container.h"

#include <QDir>
#include <QString>

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace hostilefiles {

struct HostileFile {
    QString name;     // file name, also the test row
    QString path;     // where it was written
    QString message;  // a piece of the refusal that names the problem
};

inline void le(std::string& s, std::uint64_t v, int width) {
    for (int i = 0; i < width; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

// A .npy of a 1-D float64 array with the given values.
inline std::string npy(const std::string& descr, const std::string& shape, const std::string& data) {
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header.push_back(' ');
    header.push_back('\n');
    std::string out("\x93NUMPY\x01\x00", 8);
    le(out, header.size(), 2);
    return out + header + data;
}

// Raw deflate of data followed by `zeros` zero bytes, fed in 1 MiB pieces: the zeros are never held
// whole (a test process's peak memory would otherwise show in every child it spawns, as ru_maxrss).
inline std::string rawDeflate(const std::string& data, std::size_t zeros = 0) {
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
    std::string out, buffer(std::size_t(1) << 16, '\0');
    const std::string zeroPiece(std::size_t(1) << 20, '\0');
    auto feed = [&](const char* p, std::size_t n, int flush) {
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(p));
        z.avail_in = static_cast<uInt>(n);
        do {
            z.next_out = reinterpret_cast<Bytef*>(buffer.data());
            z.avail_out = static_cast<uInt>(buffer.size());
            deflate(&z, flush);
            out.append(buffer.data(), buffer.size() - z.avail_out);
        } while (z.avail_out == 0);
    };
    feed(data.data(), data.size(), Z_NO_FLUSH);
    for (std::size_t left = zeros; left > 0;) {
        const std::size_t n = std::min(left, zeroPiece.size());
        feed(zeroPiece.data(), n, Z_NO_FLUSH);
        left -= n;
    }
    feed(nullptr, 0, Z_FINISH);
    deflateEnd(&z);
    return out;
}

struct ZipMember {
    std::string name, data;
    bool deflate = false;
    std::uint64_t declaredSize = 0;  // 0: the true size; else what the headers claim (ZIP64 past 4 GB)
    std::size_t trailingZeros = 0;   // zero bytes after data (deflated members only)
};

// A ZIP archive as numpy.savez_compressed writes one, except that a member may declare any size.
inline std::string zipArchive(const std::vector<ZipMember>& members) {
    std::string out, directory;
    for (const ZipMember& m : members) {
        const std::string packed = m.deflate ? rawDeflate(m.data, m.trailingZeros) : m.data;
        const std::uint64_t size = m.declaredSize ? m.declaredSize : m.data.size() + m.trailingZeros;
        const bool zip64 = size >= 0xFFFFFFFFull;
        uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(m.data.data()), uInt(m.data.size()));
        const std::string zeroPiece(std::size_t(1) << 20, '\0');
        for (std::size_t left = m.trailingZeros; left > 0;) {
            const std::size_t n = std::min(left, zeroPiece.size());
            crc = crc32(crc, reinterpret_cast<const Bytef*>(zeroPiece.data()), uInt(n));
            left -= n;
        }
        std::string extra;
        if (zip64) le(extra, 1, 2), le(extra, 8, 2), le(extra, size, 8);
        const std::uint64_t offset = out.size();
        le(out, 0x04034b50, 4), le(out, 45, 2), le(out, 0, 2), le(out, m.deflate ? 8 : 0, 2), le(out, 0, 2), le(out, 0x21, 2);
        le(out, crc, 4), le(out, packed.size(), 4), le(out, zip64 ? 0xFFFFFFFFull : size, 4), le(out, m.name.size(), 2), le(out, extra.size(), 2);
        out += m.name + extra + packed;
        le(directory, 0x02014b50, 4), le(directory, 45, 2), le(directory, 45, 2), le(directory, 0, 2), le(directory, m.deflate ? 8 : 0, 2);
        le(directory, 0, 2), le(directory, 0x21, 2), le(directory, crc, 4), le(directory, packed.size(), 4);
        le(directory, zip64 ? 0xFFFFFFFFull : size, 4), le(directory, m.name.size(), 2), le(directory, extra.size(), 2), le(directory, 0, 2);
        le(directory, 0, 2), le(directory, 0, 2), le(directory, 0x81A40000u, 4), le(directory, offset, 4);
        directory += m.name + extra;
    }
    const std::uint64_t directoryOffset = out.size();
    out += directory;
    le(out, 0x06054b50, 4), le(out, 0, 2), le(out, 0, 2), le(out, members.size(), 2), le(out, members.size(), 2);
    le(out, directory.size(), 4), le(out, directoryOffset, 4), le(out, 0, 2);
    return out;
}

// A 1 x 1 CSR matrix as scipy.sparse.save_npz(compressed=True) writes it, with the given data.npy.
inline std::string csrNpzWithData(const ZipMember& data) {
    std::string indptr, indices, shape;
    le(indptr, 0, 8), le(indptr, 1, 8), le(indices, 0, 4), le(shape, 1, 8), le(shape, 1, 8);
    return zipArchive({{"indices.npy", npy("<i4", "(1,)", indices), true},
                       {"indptr.npy", npy("<i8", "(2,)", indptr), true},
                       {"format.npy", npy("|S3", "()", "csr"), true},
                       {"shape.npy", npy("<i8", "(2,)", shape), true},
                       data});
}

// data.npy declaring dataSize (0: its true size) and followed by trailingZeros zero bytes its header
// does not account for.
inline std::string csrNpz(std::uint64_t dataSize, std::size_t trailingZeros = 0) {
    std::string value;
    le(value, 0x3FF0000000000000ull, 8);  // 1.0
    return csrNpzWithData({"data.npy", npy("<f8", "(1,)", value), true, dataSize, trailingZeros});
}

// Members each honest (every header promises what the archive declares) but disagreeing with each
// other: data.npy holds `values` zeros (deflated ~1000x) beside the 1-entry indices.npy.
inline std::string disagreeingCsrNpz(std::uint64_t values) {
    return csrNpzWithData({"data.npy", npy("<f8", "(" + std::to_string(values) + ",)", ""), true, 0, std::size_t(values * 8)});
}

inline std::string harwellBoeing(long long rows, long long cols, long long entries) {
    char line3[128];
    std::snprintf(line3, sizeof line3, "%-14s%14lld%14lld%14lld%14d", "RUA", rows, cols, entries, 0);
    return std::string("Hostile                                                                 KEY     \n") +
           "             3             1             1             1\n" + line3 + "\n" +
           "(10I8)          (10I8)          (4E20.12)           \n" + "       1       2\n       1\n  1.0E+00\n";
}

inline std::string gzipped(const std::string& text) {
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    std::string out(deflateBound(&z, text.size()) + 64, '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    z.avail_in = static_cast<uInt>(text.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

// A container cut in half: its length field and checksum promise what is not there.
inline std::string truncatedContainer() {
    spyglass::Container c;
    c.encoding = spyglass::ContainerEncoding::BitFlag;
    c.rows = 2000000000;
    c.cols = 2000000000;
    c.sections.push_back({spyglass::container::kBitFlagSummary, 0, std::string(64, '\x7F')});
    c.sections.push_back({spyglass::container::kBitFlagFlags, 0, std::string(256, '\xFF')});
    const std::string whole = spyglass::serializeContainer(c);
    return whole.substr(0, whole.size() / 2);
}

// A well-framed segmented-DIA container (checksum right) whose summary declares 100 M nonzeros while
// it stores 8 slots: nothing may be sized from that count before the slots are counted.
inline std::string segdiaDeclaringMillions() {
    spyglass::Container c;
    c.encoding = spyglass::ContainerEncoding::SegmentedDia;
    c.rows = 1000000;
    c.cols = 1000000;
    std::string summary;
    le(summary, 3, 4);           // f64 slots
    le(summary, 0, 4);           // field real
    le(summary, 1000000, 4);     // rows per segment
    le(summary, 1, 4);           // segments
    le(summary, 1, 4);           // blocks
    le(summary, 1, 4);           // version 1
    le(summary, 100000000, 8);   // nonzeros
    c.sections.push_back({spyglass::container::kSegdiaSummary, 0, summary});
    c.sections.push_back({spyglass::container::kSegdiaValues, 0, std::string(64, '\x01')});
    return spyglass::serializeContainer(c);
}

// Every hostile file, written into dir.
inline std::vector<HostileFile> writeAll(const QDir& dir) {
    struct Made {
        const char* name;
        std::string bytes;
        const char* message;
    };
    const std::vector<Made> made = {
        {"declares_4gb.npz", csrNpz(0xFFFFFFF0ull), "declares 4294967280 bytes, but its"},
        {"declares_20gb.npz", csrNpz(20000000000ull), "declares 20000000000 bytes, but its"},
        // Honest ZIP sizes, but 128 MB of deflated zeros behind a 1-element array's header.
        {"zeros_after_header.npz", csrNpz(0, std::size_t(128) << 20), "data.npy: its header promises 136 bytes, the archive declares 134217864"},
        // Each member honest, together inconsistent: refused from the headers, before 128 MB is unpacked.
        {"disagreeing_members.npz", disagreeingCsrNpz(std::uint64_t(16) << 20), "indices.npy has 1 entries, data.npy's length needs 16777216"},
        {"huge_shape.npy", npy("<f8", "(2000000000, 1000)", std::string(16, '\0')), "bytes of data, the array has 16"},
        {"trillion.mtx", "%%MatrixMarket matrix coordinate real general\n1000000 1000000 1000000000000\n1 1 1\n",
         "declares 1000000000000 entries, more than the limit"},
        // Under the entry limit: the reading ends where the file does, and the message names that line.
        {"billion.mtx", "%%MatrixMarket matrix coordinate real general\n1000000 1000000 1500000000\n1 1 1\n", "billion.mtx:4"},
        {"billion.mtx.gz", gzipped("%%MatrixMarket matrix coordinate real general\n1000000 1000000 1500000000\n1 1 1\n"), "billion.mtx.gz:4"},
        {"huge_counts.rua", harwellBoeing(2000000000, 2000000000, 1900000000), "entries need at least 2 fields each"},
        {"truncated.spy", truncatedContainer(), "truncated.spy"},
        {"declares_millions.spy", segdiaDeclaringMillions(), "declares_millions.spy"},
    };
    std::vector<HostileFile> files;
    for (const Made& m : made) {
        const QString path = dir.filePath(QString::fromLatin1(m.name));
        if (testfiles::writeBytes(path, m.bytes).isEmpty()) return {};
        files.push_back({QString::fromLatin1(m.name), path, QString::fromLatin1(m.message)});
    }
    return files;
}

// HDF5 1.10.8 over-reads a heap buffer on this file (found by fuzz_matfile). Under ASan the sandbox's
// child dies of the report and the read ends in "the MATLAB reader stopped"; without a sanitizer the
// over-read goes unseen and HDF5 hands back a 27 x 51 array of whatever it read. Either way the
// process that asked lives on.
inline QString knownHdf5CrashInput() { return QStringLiteral(SPYGLASS_SOURCE_DIR "/fuzz/known/hdf5_1.10.8_chunk_overread.mat"); }

} // namespace hostilefiles
