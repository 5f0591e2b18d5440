#include "spyglass/hostmemory.h"

#include "spyglass/error.h"

#include <unistd.h>

#include <cstdio>

namespace spyglass {

std::uint64_t hostMemoryBytes() {
    const long pages = sysconf(_SC_PHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || pageSize <= 0) return 0;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(pageSize);
}

void requireHostMemory(std::uint64_t bytes, const std::string& what) {
    const std::uint64_t present = hostMemoryBytes();
    // Physical, not currently free, memory: refuse only what could never run here.
    if (present == 0 || bytes <= present) return;
    char text[160];
    std::snprintf(text, sizeof text, " needs %.1f GiB of host memory, this machine has %.1f GiB",
                  static_cast<double>(bytes) / (1u << 30), static_cast<double>(present) / (1u << 30));
    throw OutOfMemoryError(what + text, __FILE__, __LINE__);
}

} // namespace spyglass
