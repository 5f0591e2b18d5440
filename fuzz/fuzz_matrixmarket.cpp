// libFuzzer harness for the Matrix Market parser (parseMatrixMarket, in memory).
// Property: any byte string either parses into a self-consistent Matrix or throws InputError
// (ParseError) - never a crash, a sanitizer report, another exception type or a huge allocation.
// And the parallel path agrees: the input cut into chunks of a few bytes on 3 threads gives the same
// matrix, or the same error at the same line, as one chunk on one thread.
#include "fuzz_memorybudget.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
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

bool sameBits(const std::vector<double>& a, const std::vector<double>& b)
{
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// "OK" with the matrix, or the error text (source, line and problem).
std::string outcome(std::string_view text, const spyglass::ReadOptions& options, spyglass::Matrix& m)
{
    try {
        m = spyglass::parseMatrixMarket(text, "<fuzz>", options);
        checkConsistent(m);
        return "OK";
    } catch (const spyglass::InputError& error) {
        return error.what();  // expected for malformed input
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const fuzzbudget::Budget budget(size);
    spyglass::ReadOptions options;
    // A small cap keeps the fuzzer from spending its time on legitimately large declared sizes;
    // the cap itself is part of what is tested (it must be checked before allocating).
    options.maxEntries = 1 << 16;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    spyglass::ReadOptions serial = options;
    serial.threads = 1;
    serial.chunkBytes = std::size_t(1) << 40;  // one chunk
    spyglass::ReadOptions parallel = options;
    parallel.threads = 3;
    parallel.chunkBytes = 1 + size % 7;  // chunk edges at every kind of line
    spyglass::Matrix a, b;
    const std::string first = outcome(text, serial, a);
    const std::string second = outcome(text, parallel, b);
    require(first == second);
    if (first == "OK") {
        require(a.layout == b.layout && a.field == b.field && a.symmetry == b.symmetry && a.rows == b.rows &&
                a.cols == b.cols && a.comments == b.comments);
        require(a.rowIndex == b.rowIndex && a.colIndex == b.colIndex && sameBits(a.real, b.real) &&
                sameBits(a.imag, b.imag));
    }
    // As a user's file is read: the default entry limit (2e9), every thread; the reservation is
    // bounded by the bytes present, so the peak stays within the budget.
    spyglass::Matrix c;
    outcome(text, spyglass::ReadOptions(), c);
    budget.check("Matrix Market reader");
    return 0;
}
