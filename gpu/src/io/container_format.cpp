// The container framing: header, typed sections, CRC-32 trailer. Little-endian on disk regardless of
// the host, written field by field so that no struct padding leaks into the format.
#include "core/stagetimings.h"
#include "io/container_io.h"

#include "spyglass/atomicfile.h"
#include "spyglass/container.h"

#include <libdeflate.h>
#include <zlib.h>  // crc32_combine: joins the pieces' CRCs

#include <algorithm>
#include <cstring>
#include <fstream>
#include <optional>
#include <system_error>

namespace spyglass {

namespace {

constexpr char kMagic[8] = {'S', 'P', 'Y', 'G', 'L', 'S', 'M', 'X'};
constexpr char kEndMarker[4] = {'S', 'G', 'E', 'N'};

using container_io::get;
using container_io::put;

// libdeflate's CRC-32 (the zlib/gzip polynomial, the same values as zlib's crc32) folds with
// carry-less multiplies: about ten times zlib's table-driven speed, which made the checksum most of
// reopening a 100 MB export on 16 cores.
std::uint32_t crcOfSerial(std::string_view bytes) {
    return libdeflate_crc32(0, bytes.data(), bytes.size());
}

// The same CRC-32, pieces on threads joined with crc32_combine: checking a big export's checksum is a
// pass over the whole file, which one thread does at a few GB/s. Pieces of 4 MB or more, so that a
// 100 MB export uses every core of a 16-core host (at 32 MB it used 3).
std::uint32_t crcOf(std::string_view bytes) {
    constexpr std::size_t kPieceMin = std::size_t(4) << 20;
    const std::size_t threads = parallel::threadsFor(bytes.size(), kPieceMin);
    if (threads < 2) return crcOfSerial(bytes);
    const std::vector<std::size_t> bounds = parallel::evenBounds(bytes.size(), threads);
    std::vector<std::uint32_t> crcs(threads);
    parallel::forEachRange(bounds, [&](std::size_t part, std::size_t first, std::size_t last) {
        crcs[part] = crcOfSerial(bytes.substr(first, last - first));
    });
    uLong crc = crcs[0];
    for (std::size_t t = 1; t < threads; ++t)
        crc = crc32_combine(crc, crcs[t], static_cast<z_off_t>(bounds[t + 1] - bounds[t]));
    return static_cast<std::uint32_t>(crc);
}

} // namespace

const ContainerSection* Container::find(std::uint32_t id) const {
    for (const ContainerSection& section : sections)
        if (section.id == id) return &section;
    return nullptr;
}

std::string serializeContainer(const Container& c) {
    std::size_t total = container::kHeaderBytes + container::kTrailerBytes;
    for (const ContainerSection& s : c.sections) total += container::kSectionHeaderBytes + s.payload.size();
    std::string out;
    out.reserve(total);
    out.append(kMagic, sizeof kMagic);
    put<std::uint32_t>(out, c.version);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(c.encoding));
    put<std::int64_t>(out, c.rows);
    put<std::int64_t>(out, c.cols);
    put<std::uint32_t>(out, static_cast<std::uint32_t>(c.sections.size()));
    put<std::uint32_t>(out, 0);  // header flags, none defined in version 1
    put<std::uint64_t>(out, total);
    for (const ContainerSection& s : c.sections) {
        put<std::uint32_t>(out, s.id);
        put<std::uint32_t>(out, s.flags);
        put<std::uint64_t>(out, s.payload.size());
        out += s.payload;
    }
    put<std::uint32_t>(out, crcOf(out));
    out.append(kEndMarker, sizeof kEndMarker);
    return out;
}

namespace {

// The framing checks; `inPlace` leaves each section's bytes in `bytes` (mapped) instead of copying them;
// `checkCrc` false skips the checksum (a peek: nothing from it is trusted before the full parse).
Container parseFraming(std::string_view bytes, const std::string& source, const std::vector<std::uint32_t>& knownIds, bool inPlace,
                       bool checkCrc = true, container_io::DeferredChecksum* deferred = nullptr) {
    using container::kHeaderBytes;
    using container::kTrailerBytes;
    const std::uint64_t size = bytes.size();
    if (size < kHeaderBytes + kTrailerBytes)
        throw ContainerFormatError(source, size, "truncated: " + std::to_string(size) + " bytes, a container has at least " +
                                                     std::to_string(kHeaderBytes + kTrailerBytes));
    if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        throw ContainerFormatError(source, 0, "not a Spyglass container (magic SPYGLSMX missing)");
    Container c;
    c.version = get<std::uint32_t>(bytes, 8);
    if (c.version != container::kVersion)
        throw ContainerFormatError(source, 8, "unsupported container version " + std::to_string(c.version) +
                                                  " (this reader knows version " + std::to_string(container::kVersion) + ")");
    const std::uint64_t declared = get<std::uint64_t>(bytes, 40);
    if (declared != size)
        throw ContainerFormatError(source, 40, "header says the file has " + std::to_string(declared) + " bytes, it has " +
                                                   std::to_string(size) + (size < declared ? " (truncated)" : " (trailing data)"));
    if (std::memcmp(bytes.data() + size - 4, kEndMarker, sizeof kEndMarker) != 0)
        throw ContainerFormatError(source, size - 4, "end marker missing");
    if (checkCrc && deferred) {
        deferred->start(bytes.substr(0, size - kTrailerBytes), get<std::uint32_t>(bytes, size - kTrailerBytes), source, size - kTrailerBytes);
    } else if (checkCrc) {
        const std::uint32_t storedCrc = get<std::uint32_t>(bytes, size - kTrailerBytes);
        const std::uint32_t actualCrc = crcOf(bytes.substr(0, size - kTrailerBytes));
        timings::mark("read.crc");
        if (storedCrc != actualCrc)
            throw ContainerFormatError(source, size - kTrailerBytes, "checksum mismatch: the file is damaged");
    }
    const std::uint32_t encoding = get<std::uint32_t>(bytes, 12);
    if (encoding < 1 || encoding > 3) throw ContainerFormatError(source, 12, "unknown encoding " + std::to_string(encoding));
    c.encoding = static_cast<ContainerEncoding>(encoding);
    const std::int64_t rows = get<std::int64_t>(bytes, 16), cols = get<std::int64_t>(bytes, 24);
    if (rows < 0 || rows > 2147483647) throw ContainerFormatError(source, 16, "row count " + std::to_string(rows) + " out of range");
    if (cols < 0 || cols > 2147483647) throw ContainerFormatError(source, 24, "column count " + std::to_string(cols) + " out of range");
    c.rows = static_cast<Index>(rows);
    c.cols = static_cast<Index>(cols);
    const std::uint32_t sectionCount = get<std::uint32_t>(bytes, 32);
    if (get<std::uint32_t>(bytes, 36) != 0) throw ContainerFormatError(source, 36, "unknown header flags");
    std::uint64_t offset = kHeaderBytes;
    const std::uint64_t end = size - kTrailerBytes;
    for (std::uint32_t k = 0; k < sectionCount; ++k) {
        if (end - offset < container::kSectionHeaderBytes)
            throw ContainerFormatError(source, offset, "section " + std::to_string(k) + " of " + std::to_string(sectionCount) +
                                                           ": header runs past the end of the sections");
        ContainerSection s;
        s.id = get<std::uint32_t>(bytes, offset);
        s.flags = get<std::uint32_t>(bytes, offset + 4);
        const std::uint64_t length = get<std::uint64_t>(bytes, offset + 8);
        if (length > end - offset - container::kSectionHeaderBytes)
            throw ContainerFormatError(source, offset + 8, "section id " + std::to_string(s.id) + " declares " +
                                                               std::to_string(length) + " bytes, only " +
                                                               std::to_string(end - offset - container::kSectionHeaderBytes) + " remain");
        s.offset = offset + container::kSectionHeaderBytes;
        if (c.find(s.id)) throw ContainerFormatError(source, offset, "section id " + std::to_string(s.id) + " appears twice");
        const bool known = std::find(knownIds.begin(), knownIds.end(), s.id) != knownIds.end();
        if (!known && !(s.flags & container::kSectionOptional))
            throw ContainerFormatError(source, offset, "unknown required section id " + std::to_string(s.id));
        if (known && inPlace) s.mapped = bytes.substr(static_cast<std::size_t>(s.offset), static_cast<std::size_t>(length));
        else if (known) s.payload.assign(bytes.data() + s.offset, static_cast<std::size_t>(length));
        offset = s.offset + length;
        if (known) c.sections.push_back(std::move(s));
    }
    if (offset != end)
        throw ContainerFormatError(source, offset, std::to_string(end - offset) + " bytes after the last section");
    return c;
}

} // namespace

Container parseContainer(std::string_view bytes, const std::string& source, const std::vector<std::uint32_t>& knownIds) {
    return parseFraming(bytes, source, knownIds, false);
}

Container container_io::parseContainerInPlace(std::string_view bytes, const std::string& source,
                                              const std::vector<std::uint32_t>& knownIds, DeferredChecksum* deferred) {
    return parseFraming(bytes, source, knownIds, true, true, deferred);
}

container_io::DeferredChecksum::~DeferredChecksum() {
    if (m_thread.joinable()) m_thread.join();
}

void container_io::DeferredChecksum::start(std::string_view covered, std::uint32_t stored, const std::string& source, std::uint64_t at) {
    m_stored = stored;
    m_source = source;
    m_at = at;
    const std::size_t threads = parallel::threadCount();  // the caller's --threads reaches the checksum's threads
    try {
        m_thread = std::thread([this, covered, threads] {
            const parallel::ThreadCount count(threads);
            m_actual = crcOf(covered);
        });
    } catch (const std::system_error&) {  // no thread to spare: checked here and now
        m_actual = crcOf(covered);
    }
    m_started = true;
}

void container_io::DeferredChecksum::verify() {
    if (!m_started) return;
    if (m_thread.joinable()) m_thread.join();
    timings::mark("read.crc.wait");
    if (m_actual != m_stored) throw ContainerFormatError(m_source, m_at, "checksum mismatch: the file is damaged");
}

std::optional<Container> container_io::peekContainerInPlace(std::string_view bytes) {
    try {
        return parseFraming(bytes, "<peek>", allContainerSectionIds(), true, false);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

void writeContainerFile(const std::string& path, const Container& container) {
    writeFileAtomically(path, serializeContainer(container));
}

std::string readFileBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in) throw InputError(path + ": cannot open for reading");
    const std::streamoff size = in.tellg();
    if (size < 0) throw InputError(path + ": cannot tell the file size");
    std::string bytes(static_cast<std::size_t>(size), '\0');
    in.seekg(0);
    if (!in.read(bytes.data(), size)) throw InputError(path + ": read failed");
    return bytes;
}

} // namespace spyglass
