// libFuzzer harness for the Harwell-Boeing / Rutherford-Boeing reader (spyglass/harwellboeing.h).
// Property: any text is either a matrix whose arrays agree with its size and symmetry (every index in
// range, symmetric kinds in their lower triangle, one value per entry), or an InputError - never a
// crash, a sanitizer report or a huge allocation (entries are capped before anything is sized).
#include "fuzz_matrixcheck.h"
#include "fuzz_memorybudget.h"
#include "spyglass/error.h"
#include "spyglass/harwellboeing.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // With a small entry limit, and with the default one a user's file gets, within the memory budget.
    const fuzzbudget::Budget budget(size);
    for (const spyglass::Count limit : {spyglass::Count(1) << 20, spyglass::Count(2) * 1000 * 1000 * 1000})
    try {
        const spyglass::Matrix m = spyglass::parseHarwellBoeing(text, "fuzz.rua", limit);
        checkMatrixArrays(m);
        for (std::size_t k = 0; k < m.rowIndex.size(); ++k)
            if (m.symmetry != spyglass::Symmetry::General && m.rowIndex[k] < m.colIndex[k]) std::abort();
    } catch (const spyglass::InputError&) {
    }
    budget.check("Harwell-Boeing reader");
    return 0;
}
