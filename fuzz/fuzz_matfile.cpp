// libFuzzer harness for the .mat reader (spyglass/matfile.h, matio under it). matio reads only from a
// path, so each input is written to a file in /dev/shm (memory) and read from there.
// Property: any byte string is either a matrix whose arrays agree with its size (every index in range,
// one value per entry, one imaginary part per value for complex), or an InputError - never a crash or
// a sanitizer report in our code. The entry limit is applied before entries are unpacked; matio itself
// allocates what a hostile header declares, which libFuzzer's malloc limit reports.
#include "spyglass/error.h"
#include "spyglass/matfile.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void check(const spyglass::Matrix& m) {
    const std::size_t n = m.rowIndex.size();
    if (m.colIndex.size() != n) std::abort();
    if (m.field != spyglass::Field::Pattern && m.real.size() != n) std::abort();
    if (m.field == spyglass::Field::Complex && m.imag.size() != n) std::abort();
    for (std::size_t k = 0; k < n; ++k)
        if (m.rowIndex[k] < 0 || m.rowIndex[k] >= m.rows || m.colIndex[k] < 0 || m.colIndex[k] >= m.cols) std::abort();
}

const std::string& scratchPath() {
    static const std::string path = "/dev/shm/spyglass_fuzz_matfile_" + std::to_string(::getpid()) + ".mat";
    return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string& path = scratchPath();
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) std::abort();
    if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
    std::fclose(file);
    constexpr spyglass::Count kLimit = 1 << 20;
    try {
        for (const spyglass::MatVariable& v : spyglass::listMatVariables(path))
            if (v.name.empty()) std::abort();
    } catch (const spyglass::InputError&) {
    }
    try {
        check(spyglass::readMatFile(path, {}, kLimit));
    } catch (const spyglass::InputError&) {
    }
    return 0;
}
