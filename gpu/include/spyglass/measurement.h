#pragma once
// The one measurement engine: every time the GUI, the CLI, the JSON reports and the benchmark tables
// show is measured here, the same way. A measurement is
//   - the first call of the work, timed on its own and reported apart as "cold" (the first launch of
//     a kernel in a process loads its module, a vendor library its kernels: a user's first call does
//     pay it, but it is not the cost of the computation);
//   - `warmup` untimed calls;
//   - `repeats` timed calls: the median, min and max of those are the figure shown.
// GPU work is timed with CUDA events on the work's stream (cuda/measure.h), with the L2 cache flushed
// and any input the work overwrites restored before every call, outside the events; CPU work by the
// steady clock. Set-up (handles, plans, workspaces, pointer arrays), upload and download are timed once
// and reported apart, never inside the median. docs/measurement.md describes it for users.
#include <functional>
#include <vector>
#include <string>

namespace spyglass {

// How many calls a measurement makes. The defaults are the benchmarks'.
struct TimingOptions {
    int warmup = 3;   // untimed calls after the cold one, >= 0
    int repeats = 20; // timed calls, >= 1
};

// Throws InputError naming `what` unless warmup >= 0 and 1 <= repeats <= 100000.
void requireValidTiming(const char* what, const TimingOptions& timing);

enum class TimingClock {
    None,        // nothing was measured
    CudaEvents,  // GPU work: events recorded on the work's stream around each call
    SteadyClock  // CPU work: std::chrono::steady_clock around each call
};
const char* toString(TimingClock clock);

struct Measurement {
    TimingClock clock = TimingClock::None;
    double medianMs = 0, minMs = 0, maxMs = 0;  // over the timed calls only
    int warmup = 0, repeats = 0;
    // The first call, timed alone before the warm-up (module loading and library start-up land
    // here); < 0 when not measured.
    double coldMs = -1;
    bool cacheFlushed = false;  // GPU: the L2 cache was flushed before every call
    // Timed once each and never part of the median; < 0 when that step did not happen.
    double setupMs = -1;     // handles, plans, descriptors, workspaces, pointer arrays, device buffers
    double uploadMs = -1;    // host -> device copies of the inputs
    double downloadMs = -1;  // device -> host copies of the results

    bool measured() const { return repeats > 0; }
    // One sentence for a tooltip or a report: what was timed, how, and what was kept apart.
    std::string howMeasured() const;
};

// Times `run` (which returns the milliseconds it measured itself, e.g. with CUDA events, or < 0 to
// be timed by the steady clock here) as described above. `prepare`, when given, runs untimed before
// every call (restore an input the work overwrites). With timeCold false there is no separate cold
// call (the caller's own first call was that, or the work has no first-use cost).
Measurement measureRepeated(const std::function<double()>& run, const TimingOptions& timing,
                            const std::function<void()>& prepare = {}, bool timeCold = true);

// The median of a sample (the mean of the two middle values for an even count); 0 when empty.
double medianOf(std::vector<double> values);

// Device-to-device copy bandwidth of the first GPU in GB/s (read + write of a 256 MiB copy, median of
// 20 after 3 warm-up copies), measured once per process and then remembered: the ceiling the GUI, the
// CLI and the benchmarks read memory-bound times against. 0 without a device.
double deviceCopyBandwidthGBs();

// The share of the copy bandwidth a run reached: bytes / (ms * 1e6) / deviceCopyBandwidthGBs(); 0
// when any figure is missing.
double copyBandwidthShare(double bytes, double milliseconds);

} // namespace spyglass
