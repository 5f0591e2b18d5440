#pragma once
// The part of the ZIP format (PKWARE APPNOTE 6.3) that NumPy's .npz files use: the central directory
// (with ZIP64 sizes and offsets, which numpy.savez always asks for), members stored or deflated,
// CRC-32 checked. Internal to the .npz reader; every inconsistency is an InputError naming the
// member and the byte offset.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spyglass::zip {

struct Member {
    std::string name;
    std::uint16_t method = 0;  // 0 stored, 8 deflated
    std::uint32_t crc = 0;
    std::uint64_t compressedSize = 0, size = 0;
    std::uint64_t localHeaderOffset = 0;
};

// The members listed by the central directory. `where` names the file in messages.
std::vector<Member> listMembers(std::string_view archive, const std::string& where);
// The most bytes deflated data of this size can give (deflate's maximum ratio, about 1032 to 1).
std::uint64_t maxInflatedBytes(std::uint64_t compressedBytes);
// A member's bytes (inflated and CRC-checked); refuses members larger than maxBytes, a stored member
// whose sizes differ and a deflated one declaring more than its data can give, all before inflating.
// The buffer grows as the data inflates, so what a member declares is never allocated up front.
std::string extract(std::string_view archive, const Member& member, const std::string& where, std::uint64_t maxBytes);

// The first maxBytes (at most) of a member, inflated without the CRC check: enough to read a .npy
// header before deciding to unpack the rest. Shorter (possibly empty) where the data is damaged.
std::string extractPrefix(std::string_view archive, const Member& member, const std::string& where, std::size_t maxBytes);

// An archive of stored (uncompressed) members, as numpy.savez writes them by default. No ZIP64:
// InputError (starting with `what`) past 4 GB.
std::string storeMembers(const std::vector<std::pair<std::string, std::string>>& members, const std::string& what);

} // namespace spyglass::zip
