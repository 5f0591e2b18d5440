#pragma once
// What every timing command of spyglass-cli prints about a measurement (spyglass/measurement.h), the
// same lines and JSON fields as the GUI's tables (app/core/timingtext.h) and the benchmark tables:
// median (min-max) of the timed runs, the cold first call, set-up, upload and download apart, the
// share of copy bandwidth, and the ratio to the vendor when it ran too.
#include "cliargs.h"

#include "core/batchrunfigures.h"
#include "core/timingtext.h"

#include <QJsonObject>
#include <QString>

#include <cstdio>
#include <utility>
#include <vector>

namespace spyglass::cli {

// --warmup W (default 3) and --repeats N (default 20).
TimingOptions takeTiming(ArgParser& parser);
// The usage text of those two options.
inline constexpr const char* kTimingUsage = "[--warmup W] [--repeats N]";

// "compute time", "first call", "set-up time", "upload", "download", "bandwidth" lines.
void printTiming(const Measurement& m, double bytesMoved, std::FILE* out = stdout);
// "vs vendor  3.21x NAME (0.4 ms)"; nothing when either did not run.
void printSpeedup(const QString& vendorName, const Measurement& vendor, const Measurement& ours, std::FILE* out = stdout);
// "wall time" of a batched run's whole call, with the chunks it was split into: streamed over
// `devices` GPUs when some were named (--gpus), else to fit the one GPU.
void printWallTime(double totalMs, int chunks, std::size_t devices, std::FILE* out = stdout);
// The JSON of one measured run: "timing" (app::timingJson), "bytes_moved", "copy_bandwidth_share".
QJsonObject measuredJson(const Measurement& m, double bytesMoved);
// measuredJson of a batched run (svd, invert) with what every batched run reports: "command", "batch",
// "type", "backend", "device", then the command's own `fields`.
QJsonObject batchRunJson(const char* command, const app::BatchRunFigures& run, const QJsonObject& fields);
// Adds "vendor" (its measured JSON with nameKey: name) and "speedup_over_vendor" (the vendor's median
// over ours) when the vendor ran.
void addVendorJson(QJsonObject& o, const Measurement& ours, const Measurement& vendor, double vendorBytes, const char* nameKey,
                   const QString& name);
// --vendor: the vendor's paths on the same batch, one after the other, the fastest kept (a Result with
// no measurement when none applies). choose(request, path) sets a path on a copy of the request that
// writes no file and runs on one GPU; run(request) runs it.
template <typename Result, typename Request, typename Path, typename Choose, typename Run>
Result fastestVendorPath(Request request, const std::vector<Path>& paths, Choose choose, Run run) {
    request.outputFile.clear();
    request.devices.clear();
    Result fastest;
    for (const Path& path : paths) {
        choose(request, path);
        Result result = run(request);
        if (!fastest.timing.measured() || result.timing.medianMs < fastest.timing.medianMs) fastest = std::move(result);
    }
    return fastest;
}

// Prints an object as indented JSON on stdout.
void printJson(const QJsonObject& object);

} // namespace spyglass::cli
