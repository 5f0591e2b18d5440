// The measurement engine's host half (measurement.h): the cold call, warm-up, timed calls, median;
// the sentence that says how a figure was measured; the copy-bandwidth ceiling's share.
#include "spyglass/measurement.h"

#include "spyglass/error.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

namespace spyglass {

void requireValidTiming(const char* what, const TimingOptions& timing) {
    if (timing.warmup < 0 || timing.repeats < 1 || timing.repeats > 100000 || timing.warmup > 100000)
        throw InputError(std::string(what) + ": warm-up runs must be 0..100000 and timed runs 1..100000 (got " +
                         std::to_string(timing.warmup) + " and " + std::to_string(timing.repeats) + ")");
}

const char* toString(TimingClock clock) {
    switch (clock) {
    case TimingClock::None: return "not measured";
    case TimingClock::CudaEvents: return "CUDA events";
    case TimingClock::SteadyClock: return "steady clock";
    }
    return "?";
}

double medianOf(std::vector<double> values) {
    if (values.empty()) return 0;
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

Measurement measureRepeated(const std::function<double()>& run, const TimingOptions& timing,
                            const std::function<void()>& prepare, bool timeCold) {
    if (!run) throw InputError("measurement: no run callback given");
    requireValidTiming("measurement", timing);
    bool selfTimed = true;  // every call must agree on who keeps time
    auto call = [&] {
        if (prepare) prepare();
        const auto start = std::chrono::steady_clock::now();
        const double reported = run();
        const double hostMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (reported < 0) selfTimed = false;
        return reported < 0 ? hostMs : reported;
    };
    Measurement m;
    if (timeCold) m.coldMs = call();
    for (int i = 0; i < timing.warmup; ++i) call();
    std::vector<double> times;
    times.reserve(static_cast<std::size_t>(timing.repeats));
    for (int i = 0; i < timing.repeats; ++i) times.push_back(call());
    m.clock = selfTimed ? TimingClock::CudaEvents : TimingClock::SteadyClock;
    m.warmup = timing.warmup;
    m.repeats = timing.repeats;
    m.minMs = *std::min_element(times.begin(), times.end());
    m.maxMs = *std::max_element(times.begin(), times.end());
    m.medianMs = medianOf(std::move(times));
    return m;
}

std::string Measurement::howMeasured() const {
    if (!measured()) return "not measured";
    char text[640];
    int used = std::snprintf(text, sizeof text, "median of %d timed runs (min %.4g, max %.4g ms) after %d warm-up runs, %s%s",
                             repeats, minMs, maxMs, warmup,
                             clock == TimingClock::CudaEvents ? "CUDA events on the work's stream" : "steady clock",
                             cacheFlushed ? ", L2 cache flushed before each run" : "");
    auto append = [&](const char* label, double ms) {
        if (ms >= 0 && used > 0 && used < int(sizeof text))
            used += std::snprintf(text + used, sizeof text - std::size_t(used), "; %s %.4g ms", label, ms);
    };
    append("first (cold) run, module loading included, apart:", coldMs);
    append("set-up apart:", setupMs);
    append("upload apart:", uploadMs);
    append("download apart:", downloadMs);
    return text;
}

double copyBandwidthShare(double bytes, double milliseconds) {
    const double ceiling = deviceCopyBandwidthGBs();
    if (bytes <= 0 || milliseconds <= 0 || ceiling <= 0) return 0;
    return bytes / (milliseconds * 1e6) / ceiling;
}

} // namespace spyglass
