#pragma once
// Big arrays sized with resize() are zero-filled on one thread, page by page. Asking for 2 MB pages
// over their capacity first makes that 512 times fewer page faults (and as many fewer pages to free
// when the matrix goes): tens of milliseconds for a GB matrix. Advice only; without transparent huge
// pages (or on another system) nothing changes.
#include <cstddef>
#include <cstdint>
#include <vector>

#include <sys/mman.h>

namespace spyglass::memory {

template <typename T>
void adviseHugePages(const std::vector<T>& array) {
#ifdef MADV_HUGEPAGE
    constexpr std::uintptr_t kHuge = std::uintptr_t(2) << 20;
    const auto begin = reinterpret_cast<std::uintptr_t>(array.data());
    const std::uintptr_t end = begin + array.capacity() * sizeof(T);
    const std::uintptr_t first = (begin + kHuge - 1) / kHuge * kHuge, last = end / kHuge * kHuge;
    if (last > first) ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#else
    (void)array;
#endif
}

// resize(n) of an empty array, with the advice given before the pages are touched.
template <typename T>
void resizeOnHugePages(std::vector<T>& array, std::size_t n) {
    array.reserve(n);
    adviseHugePages(array);
    array.resize(n);
}

} // namespace spyglass::memory
