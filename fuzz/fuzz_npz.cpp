// libFuzzer harness for the .npz and .npy readers (spyglass/npz.h, with the ZIP reader under them).
// Property: any byte string is either a matrix whose arrays agree with its size (every index in range,
// one value per entry, one imaginary part per value for complex), or an InputError - never a crash, a
// sanitizer report or a huge allocation (the entry limit is applied before unpacking). Each input is
// also read as a user's file is, with the default entry limit, and the reading's peak memory must
// stay within fuzz_memorybudget.h's budget: a ZIP member declaring more than its deflated data can
// give, or an array larger than its bytes, must be refused before anything is sized by it.
#include "fuzz_matrixcheck.h"
#include "fuzz_memorybudget.h"
#include "spyglass/error.h"
#include "spyglass/npz.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>


extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    constexpr spyglass::Count kLimit = 1 << 20;
    constexpr spyglass::Count kDefaultLimit = spyglass::Count(2) * 1000 * 1000 * 1000;  // ReadOptions::maxEntries
    const fuzzbudget::Budget budget(size);
    for (const spyglass::Count limit : {kLimit, kDefaultLimit}) {
    try {
        checkMatrixArrays(spyglass::parseNpz(bytes, "fuzz.npz", limit));
    } catch (const spyglass::InputError&) {
    }
    try {
        checkMatrixArrays(spyglass::parseNpy(bytes, "fuzz.npy", limit));
    } catch (const spyglass::InputError&) {
    }
    }
    budget.check("npz/npy reader");
    return 0;
}
