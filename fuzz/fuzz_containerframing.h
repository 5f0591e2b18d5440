#pragma once
// The container harnesses try every input twice: as is, and with its declared length and CRC-32
// repaired, so that mutations reach the section and encoding checks behind the CRC (most would only
// ever fail it).
#include "fuzz_memorybudget.h"
#include "spyglass/container.h"

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace fuzzframing {

inline void putLe(std::string& bytes, std::size_t at, std::uint64_t v, int width) {
    for (int i = 0; i < width; ++i) bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// Rewrites the magic, the file-length field, the trailer tag and the CRC so that only the structure
// is left to be wrong.
inline std::string repairFraming(std::string bytes) {
    using namespace spyglass::container;
    if (bytes.size() < kHeaderBytes + kTrailerBytes) return bytes;
    std::memcpy(bytes.data(), "SPYGLSMX", 8);
    putLe(bytes, 40, bytes.size(), 8);
    std::memcpy(bytes.data() + bytes.size() - 4, "SGEN", 4);
    const std::size_t crcAt = bytes.size() - kTrailerBytes;
    putLe(bytes, crcAt, crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(crcAt)), 4);
    return bytes;
}

// One fuzz input through `parse` twice, as is and with its framing repaired, within the memory budget
// (the readers named `what` in its report).
template <typename Parse>
int parseBothFramings(const std::uint8_t* data, std::size_t size, const char* what, Parse&& parse) {
    const std::string raw(reinterpret_cast<const char*>(data), size);
    const fuzzbudget::Budget budget(size);
    parse(raw);
    parse(repairFraming(raw));
    budget.check(what);
    return 0;
}

} // namespace fuzzframing
