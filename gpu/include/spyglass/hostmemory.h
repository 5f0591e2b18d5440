#pragma once
// A pre-flight check for work whose arrays are sized by a matrix's declared dimensions rather than its
// entries: a 60-byte Matrix Market file may declare 2^31 rows, and row pointers, x and y would then be
// zero-filled page by page until the kernel's OOM killer ends the process without a word.
#include <cstdint>
#include <string>

namespace spyglass {

// Physical memory of this machine in bytes (0 when it cannot be told).
std::uint64_t hostMemoryBytes();
// Throws OutOfMemoryError naming `what`, the bytes needed and the bytes present when `bytes` exceeds
// the physical memory; does nothing when the memory cannot be told.
void requireHostMemory(std::uint64_t bytes, const std::string& what);

} // namespace spyglass
