// libFuzzer harness for the Matrix Market parser (parseMatrixMarket, in memory).
// Property: any byte string either parses into a self-consistent Matrix or throws InputError
// (ParseError) - never a crash, a sanitizer report, another exception type or a huge allocation.
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

namespace {

void require(bool condition)
{
    // abort() makes libFuzzer record the input as a crash, like a sanitizer report.
    if (!condition)
        std::abort();
}

void checkConsistent(const spyglass::Matrix& m)
{
    require(m.rows >= 0 && m.cols >= 0);
    require(m.rowIndex.size() == m.colIndex.size());
    if (m.isPattern())
        require(m.real.empty());
    else
        require(m.real.size() == m.rowIndex.size());
    require(m.imag.size() == (m.isComplex() ? m.rowIndex.size() : 0));
    for (std::size_t k = 0; k < m.rowIndex.size(); ++k) {
        require(m.rowIndex[k] >= 0 && m.rowIndex[k] < m.rows);
        require(m.colIndex[k] >= 0 && m.colIndex[k] < m.cols);
    }
    require(m.expandedEntries() >= m.stored());
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    spyglass::ReadOptions options;
    // A small cap keeps the fuzzer from spending its time on legitimately large declared sizes;
    // the cap itself is part of what is tested (it must be checked before allocating).
    options.maxEntries = 1 << 16;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const spyglass::Matrix m = spyglass::parseMatrixMarket(text, "<fuzz>", options);
        checkConsistent(m);
    } catch (const spyglass::InputError&) {
        // Expected for malformed input.
    }
    return 0;
}
