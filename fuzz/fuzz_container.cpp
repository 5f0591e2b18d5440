// libFuzzer harness for the export container readers (parseContainer; the hybrid (binary and valued),
// segmented-DIA and bit-flag decoders; parseContainerMatrix). Property: any byte string is either a valid container
// whose decoding is self-consistent (it re-serialises and reads back), or it throws InputError
// (ContainerFormatError) - never a crash, sanitizer report or huge allocation.
// Most mutations would only ever fail the CRC; so every input is tried twice: as is, and with its
// declared length and CRC-32 repaired, so that the section and encoding checks behind the CRC are
// reached too.
#include "spyglass/container.h"
#include "fuzz_memorybudget.h"
#include "spyglass/error.h"

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace {

void putU32(std::string& bytes, std::size_t at, std::uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

void putU64(std::string& bytes, std::size_t at, std::uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        bytes[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}

// Rewrites the file-length field and the CRC so that only the structure is left to be wrong.
std::string repairFraming(std::string bytes)
{
    using namespace spyglass::container;
    if (bytes.size() < kHeaderBytes + kTrailerBytes)
        return bytes;
    std::memcpy(bytes.data(), "SPYGLSMX", 8);
    putU64(bytes, 40, bytes.size());
    std::memcpy(bytes.data() + bytes.size() - 4, "SGEN", 4);
    const std::size_t crcAt = bytes.size() - kTrailerBytes;
    const uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), static_cast<uInt>(crcAt));
    putU32(bytes, crcAt, static_cast<std::uint32_t>(crc));
    return bytes;
}

void tryParse(std::string_view bytes)
{
    try {
        const spyglass::HybridBinaryMatrix hybrid = spyglass::parseHybridContainer(bytes, "<fuzz>");
        // A container that was accepted must survive a round trip unchanged.
        const std::string again = spyglass::serializeContainer(spyglass::hybridToContainer(hybrid));
        (void)spyglass::parseHybridContainer(again, "<fuzz-roundtrip>");
    } catch (const spyglass::InputError&) {
    }
    try {
        // The valued hybrid form (summary flag bit 1): accepted files re-serialise and read back equal.
        spyglass::Field field = spyglass::Field::Real;
        const spyglass::HybridValuedMatrix<double> valued = spyglass::parseHybridValuedContainer(bytes, "<fuzz>", &field);
        const std::string again = spyglass::serializeContainer(spyglass::hybridValuedToContainer(valued, field));
        const spyglass::HybridValuedMatrix<double> back = spyglass::parseHybridValuedContainer(again, "<fuzz-roundtrip>");
        // Bitwise: NaN values are legal and must survive too.
        if (back.blocks.size() != valued.blocks.size() || back.residual.values.size() != valued.residual.values.size() ||
            std::memcmp(back.residual.values.data(), valued.residual.values.data(),
                        valued.residual.values.size() * sizeof(double)) != 0)
            __builtin_trap();
    } catch (const spyglass::InputError&) {
    }
    try {
        const spyglass::SegmentedDiaMatrix<double> m = spyglass::parseSegmentedDiaContainer(bytes, "<fuzz>");
        const std::string again = spyglass::serializeContainer(spyglass::segmentedDiaToContainer(m));
        (void)spyglass::parseSegmentedDiaContainer(again, "<fuzz-roundtrip>");
    } catch (const spyglass::InputError&) {
    }
    try {
        const spyglass::BitFlagMatrix<double> m = spyglass::parseBitFlagContainer(bytes, "<fuzz>");
        const std::string again = spyglass::serializeContainer(spyglass::bitFlagToContainer(m));
        (void)spyglass::parseBitFlagContainer(again, "<fuzz-roundtrip>");
    } catch (const spyglass::InputError&) {
    }
    try {
        // Decoding expands: a 300-byte hybrid file may hold 2^40 ones. The limit keeps the harness
        // inside its memory cap; the refusal itself is what is tested for larger ones.
        (void)spyglass::parseContainerMatrix(bytes, "<fuzz>", nullptr, 1 << 20);
    } catch (const spyglass::InputError&) {
    }
    try {
        (void)spyglass::parseContainer(bytes, "<fuzz>", {});
    } catch (const spyglass::InputError&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string raw(reinterpret_cast<const char*>(data), size);
    const fuzzbudget::Budget budget(size);
    tryParse(raw);
    tryParse(repairFraming(raw));
    budget.check("container readers");
    return 0;
}
