// libFuzzer harness for the export container readers (parseContainer; the hybrid (binary and valued),
// segmented-DIA and bit-flag decoders; parseContainerMatrix). Property: any byte string is either a valid container
// whose decoding is self-consistent (it re-serialises and reads back), or it throws InputError
// (ContainerFormatError) - never a crash, sanitizer report or huge allocation.
// Most mutations would only ever fail the CRC; so every input is tried twice: as is, and with its
// declared length and CRC-32 repaired, so that the section and encoding checks behind the CRC are
// reached too.
#include "spyglass/bitflag.h"
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

// The matrix a reopen gives against the CSR of the reference decoder: same entries, same order, the
// values bit for bit (a pattern's are all 1 and not stored).
void requireSameEntries(const spyglass::Matrix& got, const spyglass::CsrMatrix<double>& want)
{
    const std::size_t n = want.colIndex.size();
    if (got.rows != want.rows || got.cols != want.cols || got.rowIndex.size() != n || got.colIndex != want.colIndex ||
        (!got.isPattern() && (got.real.size() != n || (n > 0 && std::memcmp(got.real.data(), want.values.data(), n * sizeof(double)) != 0))))
        __builtin_trap();
    for (std::size_t r = 0; r + 1 < want.rowPtr.size(); ++r)
        for (auto k = want.rowPtr[r]; k < want.rowPtr[r + 1]; ++k)
            if (got.rowIndex[static_cast<std::size_t>(k)] != static_cast<spyglass::Index>(r)) __builtin_trap();
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
        // The reopen's own decode (lines on threads, a counting transpose for column-major) must give
        // the entries of the reference decode.
        if (m.nonzeros <= (1 << 20)) requireSameEntries(spyglass::parseContainerMatrix(bytes, "<fuzz>"), spyglass::decodeBitFlag(m));
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
