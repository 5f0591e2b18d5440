#pragma once
// Little-endian fields and typed array sections shared by the container's encodings (hybrid,
// segmented DIA, bit-flag). Written field by field so that no struct padding or host byte order
// leaks into the format; every array's length is checked against the count the caller derived from
// already-validated data before anything is allocated.
#include "core/hugepages.h"
#include "core/parallel_ranges.h"
#include "spyglass/container.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

namespace spyglass::container_io {

template <typename T>
void put(std::string& out, T value) {
    if constexpr (std::is_floating_point_v<T>) {
        using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        Bits bits;
        std::memcpy(&bits, &value, sizeof bits);
        put<Bits>(out, bits);
    } else {
        for (std::size_t b = 0; b < sizeof(T); ++b)
            out.push_back(static_cast<char>((static_cast<std::uint64_t>(value) >> (8 * b)) & 0xFF));
    }
}

template <typename T>
T get(std::string_view bytes, std::size_t offset) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    // The file's layout is the memory layout: one load. The byte loop below is not merged into one by
    // the compiler, and the decoders read every slot and column through here (a third of a reopen).
    T value;
    std::memcpy(&value, bytes.data() + offset, sizeof value);
    return value;
#else
    if constexpr (std::is_floating_point_v<T>) {
        using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        const Bits bits = get<Bits>(bytes, offset);
        T value;
        std::memcpy(&value, &bits, sizeof value);
        return value;
    } else {
        std::uint64_t value = 0;
        for (std::size_t b = 0; b < sizeof(T); ++b)
            value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[offset + b])) << (8 * b);
        return static_cast<T>(value);
    }
#endif
}

// n values of T from bytes [at, at + n * sizeof(T)): on a little-endian host the file's layout is the
// memory layout, so one memcpy (reopening a big export is bound by this copy); elsewhere field by field.
template <typename T>
void copyLittleEndian(std::string_view bytes, std::size_t at, std::size_t n, T* out) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n > 0) std::memcpy(out, bytes.data() + at, n * sizeof(T));
#else
    for (std::size_t k = 0; k < n; ++k) out[k] = get<T>(bytes, at + k * sizeof(T));
#endif
}

// copyLittleEndian in slices on threads: a big export's arrays are most of its reopening time.
template <typename T>
void copyLittleEndianOnThreads(std::string_view bytes, std::size_t at, std::size_t n, T* out) {
    constexpr std::size_t kMinBytesPerThread = std::size_t(8) << 20;
    const std::vector<std::size_t> bounds = parallel::evenBounds(n, parallel::threadsFor(n * sizeof(T), kMinBytesPerThread));
    parallel::forEachRange(bounds, [&](std::size_t, std::size_t first, std::size_t last) {
        copyLittleEndian(bytes, at + first * sizeof(T), last - first, out + first);
    });
}

// n values of T sized on 2 MB pages (512 times fewer faults while resize zero-fills them) and copied
// from bytes [at, ...) on threads.
template <typename T>
std::vector<T> copiedArray(std::string_view bytes, std::size_t at, std::size_t n) {
    std::vector<T> values;
    memory::resizeOnHugePages(values, n);
    copyLittleEndianOnThreads(bytes, at, n, values.data());
    return values;
}

template <typename T>
std::string packArray(const std::vector<T>& values) {
    std::string out;
    out.reserve(values.size() * sizeof(T));
    for (const T& v : values) put<T>(out, v);
    return out;
}

// The checksum of a container, computed on threads of its own while the caller checks and decodes the
// sections (a reopen's checksum took as long as its structure checks, one after the other). Every
// error of the decode must then give way to a checksum mismatch, as when the checksum came first:
// verify() in the decode's catch, then rethrow.
class DeferredChecksum {
public:
    DeferredChecksum() = default;
    ~DeferredChecksum();
    DeferredChecksum(const DeferredChecksum&) = delete;
    DeferredChecksum& operator=(const DeferredChecksum&) = delete;

    // Starts computing the CRC-32 of `covered` against `stored` (the trailer at byte `at` of source).
    void start(std::string_view covered, std::uint32_t stored, const std::string& source, std::uint64_t at);
    // Waits for it; ContainerFormatError "checksum mismatch" when it differs. Nothing started: returns.
    void verify();

private:
    std::thread m_thread;
    std::uint32_t m_stored = 0, m_actual = 0;
    std::string m_source;
    std::uint64_t m_at = 0;
    bool m_started = false;
};

// parseContainer / parseKnownContainer without copying the sections: each section's `mapped` views
// `bytes`, which must outlive the Container. Same checks, same errors.
// With `deferred`, the checksum is started there instead of checked before the sections are read.
Container parseContainerInPlace(std::string_view bytes, const std::string& source, const std::vector<std::uint32_t>& knownIds,
                                DeferredChecksum* deferred = nullptr);
Container parseKnownContainerInPlace(std::string_view bytes, const std::string& source, DeferredChecksum* deferred = nullptr);
// The framing of parseContainerInPlace without the checksum, every known section kept; nothing when
// it is not well framed. What it says is a hint for work started early, never trusted: the full
// parse follows.
std::optional<Container> peekContainerInPlace(std::string_view bytes);

// "segmented-DIA container, section 0x0204 (offsets)": how every error names where it is.
inline std::string sectionLabel(const char* encoding, std::uint32_t id, const char* name) {
    static const char* hex = "0123456789ABCDEF";
    std::string idText = "0x";
    for (int shift = 12; shift >= 0; shift -= 4) idText += hex[(id >> shift) & 0xF];
    return std::string(encoding) + ", section " + idText + " (" + name + ")";
}

// The section, or a ContainerFormatError saying it is missing.
inline const ContainerSection& require(const Container& c, std::uint32_t id, const char* encoding, const char* name,
                                       const std::string& source) {
    const ContainerSection* s = c.find(id);
    if (!s) throw ContainerFormatError(source, container::kHeaderBytes, sectionLabel(encoding, id, name) + ": missing");
    return *s;
}

// Section `s` holds exactly expectedCount entries of T, or a ContainerFormatError naming the section
// and both counts.
template <typename T>
void requireEntries(const ContainerSection& s, std::uint64_t expectedCount, const char* encoding, const char* name,
                    const std::string& source) {
    if (s.bytes().size() % sizeof(T) != 0 || s.bytes().size() / sizeof(T) != expectedCount)
        throw ContainerFormatError(source, s.offset, sectionLabel(encoding, s.id, name) + ": holds " +
                                                         std::to_string(s.bytes().size()) + " bytes, expected " +
                                                         std::to_string(expectedCount) + " entries of " +
                                                         std::to_string(sizeof(T)) + " bytes");
}

// Exactly expectedCount entries of T (requireEntries), unpacked.
template <typename T>
std::vector<T> unpackArray(const ContainerSection& s, std::uint64_t expectedCount, const char* encoding, const char* name,
                           const std::string& source) {
    requireEntries<T>(s, expectedCount, encoding, name, source);
    return copiedArray<T>(s.bytes(), 0, static_cast<std::size_t>(expectedCount));
}

} // namespace spyglass::container_io
