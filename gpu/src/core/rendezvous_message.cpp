// Encoding and checking the TCP rendezvous message (rendezvous_message.h).
#include "core/rendezvous_message.h"

#include "spyglass/error.h"

namespace spyglass::rendezvous {
namespace {

constexpr char kMagic[4] = {'S', 'G', 'R', 'V'};
constexpr std::uint16_t kVersion = 1;

void put(std::string& out, std::uint32_t value, int bytes) {
    for (int k = 0; k < bytes; ++k) out += static_cast<char>((value >> (8 * k)) & 0xff);
}

std::uint32_t get(std::string_view bytes, std::size_t at, int count) {
    std::uint32_t value = 0;
    for (int k = 0; k < count; ++k) value |= std::uint32_t(static_cast<unsigned char>(bytes[at + std::size_t(k)])) << (8 * k);
    return value;
}

[[noreturn]] void malformed(const std::string& problem) { throw InputError("malformed rendezvous message: " + problem); }

} // namespace

std::string encodeMessage(const RendezvousMessage& message) {
    std::string out(kMagic, sizeof kMagic);
    put(out, kVersion, 2);
    put(out, static_cast<std::uint32_t>(message.runId.size()), 2);
    put(out, message.rank, 4);
    put(out, message.worldSize, 4);
    put(out, static_cast<std::uint32_t>(message.blob.size()), 4);
    out += message.runId;
    out.append(reinterpret_cast<const char*>(message.blob.data()), message.blob.size());
    return out;
}

std::size_t messageLength(std::string_view bytes) {
    // The magic is checked as soon as its bytes arrive: a stranger speaking another protocol is
    // turned away without waiting for a whole header.
    for (std::size_t k = 0; k < sizeof kMagic && k < bytes.size(); ++k)
        if (bytes[k] != kMagic[k]) malformed("it does not start with SGRV");
    if (bytes.size() < kMessageHeaderBytes) return 0;
    const std::uint32_t version = get(bytes, 4, 2);
    if (version != kVersion) malformed("version " + std::to_string(version) + ", expected " + std::to_string(kVersion));
    const std::uint32_t runIdLength = get(bytes, 6, 2);
    const std::uint32_t rank = get(bytes, 8, 4), world = get(bytes, 12, 4), blobLength = get(bytes, 16, 4);
    if (runIdLength == 0 || runIdLength > kMaxRendezvousRunId)
        malformed("a run id of " + std::to_string(runIdLength) + " characters (1 to " + std::to_string(kMaxRendezvousRunId) + ")");
    if (world == 0 || world > kMaxRendezvousWorld) malformed("world size " + std::to_string(world));
    if (rank >= world) malformed("rank " + std::to_string(rank) + " in a world of " + std::to_string(world));
    if (blobLength > kMaxRendezvousBlob)
        malformed(std::to_string(blobLength) + " bytes to share (at most " + std::to_string(kMaxRendezvousBlob) + ")");
    return kMessageHeaderBytes + runIdLength + blobLength;
}

RendezvousMessage decodeMessage(std::string_view bytes) {
    const std::size_t length = messageLength(bytes);
    if (length == 0 || bytes.size() < length) malformed("it ends after " + std::to_string(bytes.size()) + " bytes");
    if (bytes.size() > length)
        malformed(std::to_string(bytes.size() - length) + " bytes after the end of the message");
    RendezvousMessage message;
    const std::size_t runIdLength = get(bytes, 6, 2);
    message.rank = get(bytes, 8, 4);
    message.worldSize = get(bytes, 12, 4);
    message.runId = std::string(bytes.substr(kMessageHeaderBytes, runIdLength));
    for (const char c : message.runId)
        if (!isRunIdCharacter(c)) malformed("the run id holds a character other than letters, digits and . _ - :");
    const std::string_view blob = bytes.substr(kMessageHeaderBytes + runIdLength);
    message.blob.assign(blob.begin(), blob.end());
    return message;
}

} // namespace spyglass::rendezvous
