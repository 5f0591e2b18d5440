#pragma once
// Opt-in phase timings of a command (SPYGLASS_TIMINGS=1 in the environment): "name: seconds" lines on
// stderr, so that a run on a big machine shows where the time goes without a profiler. Off by default:
// stdout and stderr stay exactly as they are.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace spyglass::cli {

class PhaseTimings {
public:
    PhaseTimings() {
        const char* value = std::getenv("SPYGLASS_TIMINGS");
        m_enabled = value != nullptr && *value != '\0' && std::strcmp(value, "0") != 0;
        m_last = Clock::now();
    }
    // Prints the seconds since the previous mark (or construction) under `phase`.
    void mark(const char* phase) {
        const Clock::time_point now = Clock::now();
        if (m_enabled) std::fprintf(stderr, "timing %-8s %.3f s\n", phase, std::chrono::duration<double>(now - m_last).count());
        m_last = now;
    }

private:
    using Clock = std::chrono::steady_clock;
    bool m_enabled = false;
    Clock::time_point m_last;
};

} // namespace spyglass::cli
