#pragma once
// The TCP rendezvous's one message, both ways (a rank checking in, rank 0 answering with its bytes):
//
//   "SGRV"  u16 version (1)  u16 run id length  u32 rank  u32 world size  u32 blob length
//   run id  blob                                                   (integers little-endian)
//
// Read from a socket anyone can reach, so every field is checked before it is believed.
#include "spyglass/rendezvous.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace spyglass::rendezvous {

struct RendezvousMessage {
    std::uint32_t rank = 0;
    std::uint32_t worldSize = 0;
    std::string runId;
    std::vector<std::uint8_t> blob;
};

constexpr std::size_t kMessageHeaderBytes = 20;
// A world larger than any machine room; beyond it a number is taken as damage, not as a size.
constexpr std::uint32_t kMaxRendezvousWorld = 1u << 20;

// The characters a run id may hold: it is written into file lines and messages as it is.
inline bool isRunIdCharacter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
           c == '-' || c == ':';
}

std::string encodeMessage(const RendezvousMessage& message);
// The length of the message that bytes start with: 0 while its header has not all arrived, else the
// whole message's length (which may exceed bytes.size(): read on). InputError for a header that
// cannot start a message (magic, version, a length or a rank out of range).
std::size_t messageLength(std::string_view bytes);
// Exactly one message (InputError for anything else, trailing bytes included).
RendezvousMessage decodeMessage(std::string_view bytes);

} // namespace spyglass::rendezvous
