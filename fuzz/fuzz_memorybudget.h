#pragma once
// The memory budget a reader keeps, checked on every fuzz input: the peak of live heap bytes while
// the input is read may pass what was live before by at most 64 MB + 16 x the input's size (the
// bound docs/reliability.md states for a hostile file). Counted through the sanitizer's malloc and
// free hooks, so it sees every allocation (std::vector, std::string, zlib, matio), from every thread.
// An input over budget aborts: libFuzzer keeps it as a crash-* reproducer.
#include <sanitizer/allocator_interface.h>

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace fuzzbudget {

inline std::atomic<std::size_t> g_live{0}, g_peak{0};

inline void onMalloc(const volatile void*, std::size_t size) {
    const std::size_t now = g_live.fetch_add(size, std::memory_order_relaxed) + size;
    std::size_t peak = g_peak.load(std::memory_order_relaxed);
    while (now > peak && !g_peak.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
    }
}

inline void onFree(const volatile void* p) {
    if (p != nullptr) g_live.fetch_sub(__sanitizer_get_allocated_size(const_cast<const void*>(p)), std::memory_order_relaxed);
}

// Measures from its construction; check() aborts when the peak since then is over budget.
class Budget {
public:
    explicit Budget(std::size_t inputSize) : m_input(inputSize) {
        static const bool installed = __sanitizer_install_malloc_and_free_hooks(&onMalloc, &onFree) != 0;
        (void)installed;
        m_base = g_live.load(std::memory_order_relaxed);
        g_peak.store(m_base, std::memory_order_relaxed);
    }
    void check(const char* what) const {
        const std::size_t peak = g_peak.load(std::memory_order_relaxed);
        const std::size_t budget = (std::size_t(64) << 20) + 16 * m_input;
        if (peak > m_base && peak - m_base > budget) {
            std::fprintf(stderr, "==fuzzbudget== %s: peak %zu bytes over the budget of %zu (64 MB + 16 x %zu input bytes)\n", what,
                         peak - m_base, budget, m_input);
            std::abort();
        }
    }

private:
    std::size_t m_input, m_base = 0;
};

} // namespace fuzzbudget
