#pragma once
// Finer phases of a reader under SPYGLASS_TIMINGS=1, beside the CLI's own "timing read" line: each
// mark prints "timing read.crc 0.012 s" (seconds since the previous mark or start) on stderr, so that
// a run on a big machine shows which stage of a reopen does not scale, without a profiler. Free
// functions over per-thread state, so that the stages nested in a reader need no timer passed down;
// off (one cached getenv) each costs a branch.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace spyglass::timings {

inline bool enabled() {
    static const bool on = [] {
        const char* value = std::getenv("SPYGLASS_TIMINGS");
        return value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
    }();
    return on;
}

inline std::chrono::steady_clock::time_point& lastMark() {
    thread_local std::chrono::steady_clock::time_point last = std::chrono::steady_clock::now();
    return last;
}

// The read begins: the next mark counts from here.
inline void start() {
    if (enabled()) lastMark() = std::chrono::steady_clock::now();
}

inline void mark(const char* stage) {
    if (!enabled()) return;
    const auto now = std::chrono::steady_clock::now();
    std::fprintf(stderr, "timing %-8s %.3f s\n", stage, std::chrono::duration<double>(now - lastMark()).count());
    lastMark() = now;
}

// A stage that ran on another thread (its own clock): printed like a mark, the main thread's clock untouched.
inline void report(const char* stage, double seconds) {
    if (enabled()) std::fprintf(stderr, "timing %-8s %.3f s\n", stage, seconds);
}

} // namespace spyglass::timings
