// libFuzzer harness for the .npz and .npy readers (spyglass/npz.h, with the ZIP reader under them).
// Property: any byte string is either a matrix whose arrays agree with its size (every index in range,
// one value per entry, one imaginary part per value for complex), or an InputError - never a crash, a
// sanitizer report or a huge allocation (the entry limit is applied before unpacking).
#include "fuzz_matrixcheck.h"
#include "spyglass/error.h"
#include "spyglass/npz.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>


extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    constexpr spyglass::Count kLimit = 1 << 20;
    try {
        checkMatrixArrays(spyglass::parseNpz(bytes, "fuzz.npz", kLimit));
    } catch (const spyglass::InputError&) {
    }
    try {
        checkMatrixArrays(spyglass::parseNpy(bytes, "fuzz.npy", kLimit));
    } catch (const spyglass::InputError&) {
    }
    return 0;
}
