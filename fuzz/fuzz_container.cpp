// libFuzzer harness for the export container readers (parseContainer; the hybrid (binary and valued),
// segmented-DIA and bit-flag decoders; parseContainerMatrix). Property: any byte string is either a valid container
// whose decoding is self-consistent (it re-serialises and reads back), or it throws InputError
// (ContainerFormatError) - never a crash, sanitizer report or huge allocation.
// Most mutations would only ever fail the CRC; so every input is tried twice: as is, and with its
// declared length and CRC-32 repaired, so that the section and encoding checks behind the CRC are
// reached too.
#include "spyglass/container.h"
#include "fuzz_containerframing.h"
#include "fuzz_memorybudget.h"
#include "spyglass/error.h"

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace {

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
    return fuzzframing::parseBothFramings(data, size, "container readers", tryParse);
}
