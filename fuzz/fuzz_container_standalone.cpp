// libFuzzer harness for the header-only container reader users build into their own code
// (include-standalone/spyglass_container.hpp), run differentially against the library's reader: any
// byte string is refused by the standalone reader with FormatError or TooLargeError (never a crash,
// sanitizer report or huge allocation), and a file both readers accept decodes to the same matrix
// (shape and every entry, sorted by row then column, values bit for bit). As in fuzz_container, every
// input is also tried with its length field and CRC-32 repaired, so mutations reach past the framing.
#include "../include-standalone/spyglass_container.hpp"
#include "fuzz_containerframing.h"
#include "fuzz_memorybudget.h"
#include "spyglass/container.h"
#include "spyglass/error.h"

#include <zlib.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace {

constexpr std::int64_t kMaxEntries = 1 << 20;  // keeps the harness inside its memory cap

using Entry = std::tuple<std::int64_t, std::int64_t, std::uint64_t>;  // row, column, value bits

std::uint64_t bitsOf(double v) {
    std::uint64_t b;
    std::memcpy(&b, &v, sizeof b);
    return b;
}

void tryBoth(const std::string& bytes) {
    std::optional<std::vector<Entry>> standalone, library;
    std::int64_t rows = -1, cols = -1;
    try {
        const spyglass_container::Coo coo = spyglass_container::toCoo(spyglass_container::parse(bytes, "<fuzz>"), kMaxEntries);
        rows = coo.rows, cols = coo.cols;
        std::vector<Entry> e;
        for (std::size_t k = 0; k < coo.rowIndex.size(); ++k) e.emplace_back(coo.rowIndex[k], coo.colIndex[k], bitsOf(coo.values[k]));
        standalone = std::move(e);
    } catch (const spyglass_container::FormatError&) {
    } catch (const spyglass_container::TooLargeError&) {
    }
    try {
        const spyglass::Matrix m = spyglass::parseContainerMatrix(bytes, "<fuzz>", nullptr, kMaxEntries);
        if (standalone && (m.rows != rows || m.cols != cols)) __builtin_trap();
        std::vector<Entry> e;
        for (std::size_t k = 0; k < m.rowIndex.size(); ++k) e.emplace_back(m.rowIndex[k], m.colIndex[k], bitsOf(m.isPattern() ? 1.0 : m.real[k]));
        std::sort(e.begin(), e.end());
        library = std::move(e);
    } catch (const spyglass::InputError&) {
    }
    if (standalone && library && *standalone != *library) __builtin_trap();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    return fuzzframing::parseBothFramings(data, size, "standalone container reader", tryBoth);
}
