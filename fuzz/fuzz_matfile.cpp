// libFuzzer harness for the .mat reader (spyglass/matfile.h, matio under it). matio reads only from a
// path, so each input is written to a file in /dev/shm (memory) and read from there.
// The parser runs here in the fuzzer's process (matfile::readInProcess), not in the sandbox child the
// application uses, so that libFuzzer sees its coverage and ASan its memory.
// Property: any byte string is either a matrix whose arrays agree with its size (every index in range,
// one value per entry, one imaginary part per value for complex), or an InputError - never a crash or
// a sanitizer report in our code. The entry limit and the version 5 framing check are applied before
// matio reads, so a hostile header cannot make it allocate past libFuzzer's malloc limit.
//
// Version 7.3 (HDF5) inputs, a 7.3 text over a 0x0200 version field (what reaches HDF5 after the
// reader's header check), are skipped unless SPYGLASS_FUZZ_MAT73=1: HDF5 1.10.8 (Debian 12) over-reads
// a heap buffer in H5Dread on a corrupted deflated chunk (fuzz/known/hdf5_1.10.8_chunk_overread.mat,
// found by this harness), inside the library, before anything of ours sees the data. With it on, the
// harness finds that within seconds and stops.
#include "fuzz_matrixcheck.h"
#include "fuzz_memorybudget.h"
#include "spyglass/error.h"
#include "io/matfile_inprocess.h"
#include "spyglass/matfile.h"

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

const std::string& scratchPath() {
    static const std::string path = "/dev/shm/spyglass_fuzz_matfile_" + std::to_string(::getpid()) + ".mat";
    return path;
}

// The header check lets a file through to HDF5 only when its text says 7.3 and its version field
// (bytes 124-125, in the order bytes 126-127 give) is 0x0200.
bool reachesHdf5(const std::uint8_t* data, std::size_t size) {
    if (size < 128 || std::memcmp(data, "MATLAB 7.3 MAT-file", 19) != 0) return false;
    return std::memcmp(data + 124, "\x00\x02IM", 4) == 0 || std::memcmp(data + 124, "\x02\x00MI", 4) == 0;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const bool version73 = std::getenv("SPYGLASS_FUZZ_MAT73") != nullptr && std::string(std::getenv("SPYGLASS_FUZZ_MAT73")) == "1";
    if (!version73 && reachesHdf5(data, size)) return 0;
    const std::string& path = scratchPath();
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) std::abort();
    if (size > 0 && std::fwrite(data, 1, size, file) != size) std::abort();
    std::fclose(file);
    constexpr spyglass::Count kLimit = 1 << 20;
    const fuzzbudget::Budget budget(size);
    try {
        for (const spyglass::MatVariable& v : spyglass::matfile::listVariablesInProcess(path))
            if (v.name.empty()) std::abort();
    } catch (const spyglass::InputError&) {
    }
    try {
        checkMatrixArrays(spyglass::matfile::readInProcess(path, {}, kLimit, nullptr));
    } catch (const spyglass::InputError&) {
    }
    budget.check("MATLAB reader (matio in process)");
    return 0;
}
