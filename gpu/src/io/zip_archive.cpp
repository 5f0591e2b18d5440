#include "io/zip_archive.h"

#include "spyglass/error.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace spyglass::zip {

namespace {

constexpr std::uint32_t kLocalHeader = 0x04034b50, kCentralHeader = 0x02014b50, kEnd = 0x06054b50;
// Deflate's best case: a 258-byte match in under 2 bits, so about 1032 bytes out per byte in; the
// slack covers the stream's block headers and end code on tiny members.
constexpr std::uint64_t kMaxDeflateRatio = 1032, kDeflateSlack = 1024;
constexpr std::uint32_t kZip64End = 0x06064b50, kZip64Locator = 0x07064b50;

[[noreturn]] void fail(const std::string& where, std::uint64_t offset, const std::string& what) {
    throw InputError(where + ": byte " + std::to_string(offset) + ": " + what);
}

std::uint64_t readLe(std::string_view bytes, std::uint64_t at, int width, const std::string& where) {
    if (at > bytes.size() || bytes.size() - at < std::uint64_t(width)) fail(where, at, "the archive ends inside a record");
    std::uint64_t v = 0;
    for (int i = width - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
    return v;
}

} // namespace

std::uint64_t maxInflatedBytes(std::uint64_t compressedBytes) { return compressedBytes * kMaxDeflateRatio + kDeflateSlack; }

std::vector<Member> listMembers(std::string_view archive, const std::string& where) {
    // The end-of-central-directory record: the last 22 bytes, or further back by a comment (< 64 KiB).
    if (archive.size() < 22) fail(where, 0, "too short for a ZIP archive");
    std::uint64_t end = archive.size() - 22;
    const std::uint64_t lowest = archive.size() > 22 + 65535 ? archive.size() - 22 - 65535 : 0;
    while (readLe(archive, end, 4, where) != kEnd) {
        if (end == lowest) fail(where, archive.size(), "no end-of-central-directory record (not a ZIP archive, or cut short)");
        --end;
    }
    std::uint64_t entries = readLe(archive, end + 10, 2, where);
    std::uint64_t directorySize = readLe(archive, end + 12, 4, where);
    std::uint64_t directoryOffset = readLe(archive, end + 16, 4, where);
    if (entries == 0xFFFF || directorySize == 0xFFFFFFFF || directoryOffset == 0xFFFFFFFF) {
        // ZIP64: the locator sits just before the end record and points at the ZIP64 end record.
        if (end < 20 || readLe(archive, end - 20, 4, where) != kZip64Locator) fail(where, end, "ZIP64 fields without a ZIP64 locator");
        const std::uint64_t zip64End = readLe(archive, end - 20 + 8, 8, where);
        if (readLe(archive, zip64End, 4, where) != kZip64End) fail(where, zip64End, "no ZIP64 end-of-central-directory record");
        entries = readLe(archive, zip64End + 32, 8, where);
        directorySize = readLe(archive, zip64End + 40, 8, where);
        directoryOffset = readLe(archive, zip64End + 48, 8, where);
    }
    if (directoryOffset > archive.size() || directorySize > archive.size() - directoryOffset)
        fail(where, end, "the central directory lies outside the archive");
    if (entries > directorySize / 46) fail(where, end, std::to_string(entries) + " entries cannot fit a directory of " + std::to_string(directorySize) + " bytes");

    std::vector<Member> members;
    std::uint64_t at = directoryOffset;
    for (std::uint64_t e = 0; e < entries; ++e) {
        if (readLe(archive, at, 4, where) != kCentralHeader) fail(where, at, "expected a central directory entry");
        Member m;
        m.method = static_cast<std::uint16_t>(readLe(archive, at + 10, 2, where));
        m.crc = static_cast<std::uint32_t>(readLe(archive, at + 16, 4, where));
        m.compressedSize = readLe(archive, at + 20, 4, where);
        m.size = readLe(archive, at + 24, 4, where);
        const std::uint64_t nameLength = readLe(archive, at + 28, 2, where);
        const std::uint64_t extraLength = readLe(archive, at + 30, 2, where);
        const std::uint64_t commentLength = readLe(archive, at + 32, 2, where);
        m.localHeaderOffset = readLe(archive, at + 42, 4, where);
        if (at + 46 + nameLength + extraLength + commentLength > archive.size()) fail(where, at, "a directory entry runs past the archive");
        m.name.assign(archive.substr(at + 46, nameLength));
        // ZIP64 extra field (id 1): the 64-bit values, in this order, of the fields that read 0xFFFFFFFF.
        std::uint64_t extra = at + 46 + nameLength;
        const std::uint64_t extraEnd = extra + extraLength;
        while (extra + 4 <= extraEnd) {
            const std::uint64_t id = readLe(archive, extra, 2, where), length = readLe(archive, extra + 2, 2, where);
            if (extra + 4 + length > extraEnd) fail(where, extra, "an extra field of " + m.name + " runs past its entry");
            if (id == 1) {
                std::uint64_t field = extra + 4;
                auto take = [&](std::uint64_t& value) {
                    if (value != 0xFFFFFFFF) return;
                    if (field + 8 > extra + 4 + length) fail(where, field, "the ZIP64 field of " + m.name + " is too short");
                    value = readLe(archive, field, 8, where);
                    field += 8;
                };
                take(m.size);
                take(m.compressedSize);
                take(m.localHeaderOffset);
            }
            extra += 4 + length;
        }
        members.push_back(std::move(m));
        at += 46 + nameLength + extraLength + commentLength;
    }
    return members;
}

namespace {

// The member's packed bytes, after the checks of what it declares against them (its place in the
// archive, a stored member's two sizes, deflate's maximum ratio); `data` is their offset.
std::string_view packedBytes(std::string_view archive, const Member& m, const std::string& where, std::uint64_t& data) {
    const std::uint64_t at = m.localHeaderOffset;
    if (readLe(archive, at, 4, where) != kLocalHeader) fail(where, at, "expected the local header of " + m.name);
    data = at + 30 + readLe(archive, at + 26, 2, where) + readLe(archive, at + 28, 2, where);
    if (data > archive.size() || m.compressedSize > archive.size() - data)
        fail(where, at, m.name + ": its " + std::to_string(m.compressedSize) + " bytes run past the archive");
    if (m.method == 0 && m.compressedSize != m.size) fail(where, at, m.name + ": a stored member whose sizes differ");
    if (m.method == 8) {
        if (m.compressedSize > 0xFFFFFFFFu) fail(where, data, m.name + ": deflated members over 4 GB are not read");
        // Deflate gives at most 258 bytes per 2 bits: a declaration past that is a lie, refused before
        // anything is allocated for it.
        const std::uint64_t possible = maxInflatedBytes(m.compressedSize);
        if (m.size > possible)
            fail(where, at, "member " + m.name + " declares " + std::to_string(m.size) + " bytes, but its " + std::to_string(m.compressedSize) +
                                " bytes of deflated data can give at most " + std::to_string(possible));
    }
    return archive.substr(data, m.compressedSize);
}

} // namespace

std::string extract(std::string_view archive, const Member& m, const std::string& where, std::uint64_t maxBytes) {
    const std::uint64_t at = m.localHeaderOffset;
    std::uint64_t data = 0;
    const std::string_view packed = packedBytes(archive, m, where, data);
    if (m.size > maxBytes)
        fail(where, at, m.name + ": " + std::to_string(m.size) + " bytes unpacked is more than the " + std::to_string(maxBytes) + " allowed");
    std::string out;
    if (m.method == 0) {
        out.assign(packed);
    } else if (m.method == 8) {
        // The buffer grows as inflate fills it (doubling, never past the declared size), so a member
        // whose data ends early never costs what it declared.
        out.resize(std::size_t(std::min<std::uint64_t>(m.size, std::max<std::uint64_t>(std::uint64_t(1) << 16, 4 * packed.size()))));
        z_stream z{};
        if (inflateInit2(&z, -15) != Z_OK) fail(where, data, "zlib could not start");
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
        z.avail_in = static_cast<uInt>(packed.size());
        std::uint64_t produced = 0;
        int status = Z_OK;
        bool tooLong = false;
        // Output in steps of at most 1 GiB (zlib's counters are 32-bit); once the declared size is
        // reached, one scratch byte tells a stream that ends there from one that has more.
        while (status == Z_OK) {
            unsigned char scratch = 0;
            const bool full = produced == m.size;
            if (!full && produced == out.size()) out.resize(std::size_t(std::min<std::uint64_t>(m.size, 2 * std::uint64_t(out.size()))));
            z.next_out = full ? &scratch : reinterpret_cast<Bytef*>(out.data() + produced);
            z.avail_out = full ? 1u : static_cast<uInt>(std::min<std::uint64_t>(out.size() - produced, 1u << 30));
            const uInt before = z.avail_out;
            status = inflate(&z, Z_NO_FLUSH);
            const uInt made = before - z.avail_out;
            if (full && made > 0) tooLong = true;
            if (!full) produced += made;
            if (tooLong || (status == Z_OK && made == 0 && z.avail_in == 0)) break;  // too much, or input ran out
        }
        inflateEnd(&z);
        if (tooLong || status != Z_STREAM_END || produced != m.size)
            fail(where, data, m.name + ": the deflated data is damaged or does not give the declared " + std::to_string(m.size) + " bytes" +
                                  (tooLong ? "" : " (it gives " + std::to_string(produced) + ")"));
    } else {
        fail(where, at, m.name + ": compression method " + std::to_string(m.method) + " (only stored and deflated are read)");
    }
    const std::uint32_t crc = static_cast<std::uint32_t>(crc32_z(0L, reinterpret_cast<const Bytef*>(out.data()), out.size()));
    if (crc != m.crc) fail(where, data, m.name + ": CRC-32 mismatch (the member is damaged)");
    return out;
}

std::string extractPrefix(std::string_view archive, const Member& m, const std::string& where, std::size_t maxBytes) {
    std::uint64_t data = 0;
    const std::string_view packed = packedBytes(archive, m, where, data);
    const std::size_t wanted = std::size_t(std::min<std::uint64_t>(maxBytes, m.size));
    if (m.method == 0) return std::string(packed.substr(0, wanted));
    if (m.method != 8) return {};
    std::string out(wanted, '\0');
    z_stream z{};
    if (inflateInit2(&z, -15) != Z_OK) fail(where, data, "zlib could not start");
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
    z.avail_in = static_cast<uInt>(packed.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = static_cast<uInt>(out.size());
    int status = Z_OK;
    while (status == Z_OK && z.avail_out > 0 && z.avail_in > 0) status = inflate(&z, Z_NO_FLUSH);
    out.resize(out.size() - z.avail_out);
    inflateEnd(&z);
    return out;
}

std::string storeMembers(const std::vector<std::pair<std::string, std::string>>& members, const std::string& what) {
    auto le = [](std::string& s, std::uint64_t v, int width) {
        for (int i = 0; i < width; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
    };
    std::string out, directory;
    for (const auto& [name, data] : members) {
        if (out.size() + data.size() > 0xFFFFFFF0ull)
            throw InputError(what + ": the archive would pass 4 GB (ZIP64 is not written); write Matrix Market instead");
        const std::uint32_t crc = static_cast<std::uint32_t>(crc32_z(0L, reinterpret_cast<const Bytef*>(data.data()), data.size()));
        const std::uint64_t offset = out.size();
        le(out, kLocalHeader, 4), le(out, 20, 2), le(out, 0, 2), le(out, 0, 2), le(out, 0, 2), le(out, 0x21, 2);
        le(out, crc, 4), le(out, data.size(), 4), le(out, data.size(), 4), le(out, name.size(), 2), le(out, 0, 2);
        out += name;
        out += data;
        le(directory, kCentralHeader, 4), le(directory, 20, 2), le(directory, 20, 2), le(directory, 0, 2), le(directory, 0, 2);
        le(directory, 0, 2), le(directory, 0x21, 2), le(directory, crc, 4), le(directory, data.size(), 4), le(directory, data.size(), 4);
        le(directory, name.size(), 2), le(directory, 0, 2), le(directory, 0, 2), le(directory, 0, 2), le(directory, 0, 2);
        le(directory, 0x81A40000u, 4), le(directory, offset, 4);  // regular file, rw-r--r--
        directory += name;
    }
    const std::uint64_t directoryOffset = out.size();
    out += directory;
    le(out, kEnd, 4), le(out, 0, 2), le(out, 0, 2), le(out, members.size(), 2), le(out, members.size(), 2);
    le(out, directory.size(), 4), le(out, directoryOffset, 4), le(out, 0, 2);
    return out;
}

} // namespace spyglass::zip
