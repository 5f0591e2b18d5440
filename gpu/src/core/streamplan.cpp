#include "spyglass/streamplan.h"
#include "core/fixedtext.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <utility>

namespace spyglass {

std::size_t modelChunkBytes(double shareBytes, const CopyModel& model, std::size_t minBytes, std::size_t maxBytes) {
    maxBytes = std::max(minBytes, maxBytes);
    if (!(model.gbPerSecond > 0) || !(shareBytes > 0)) return maxBytes;  // nothing measured: the old fixed size's order
    const double overheadS = std::max(0.0, model.overheadMs) * 1e-3;
    const double best = std::sqrt(shareBytes * overheadS * model.gbPerSecond * 1e9 / 2);
    return static_cast<std::size_t>(std::clamp(best, double(minBytes), double(maxBytes)));
}

StreamCut cutStream(std::int64_t count, std::int64_t requested, int gpus, std::size_t bytesPerMatrix,
                    std::size_t deviceBytesPerMatrix, std::size_t deviceBudget, int slots, const CopyModel& model) {
    StreamCut cut;
    if (count <= 0) return cut;
    gpus = std::max(1, gpus);
    const std::int64_t share = (count + gpus - 1) / gpus;
    std::int64_t chunk = requested;
    if (chunk <= 0) {
        const double shareBytes = double(share) * double(bytesPerMatrix);
        chunk = std::int64_t(modelChunkBytes(shareBytes, model) / std::max<std::size_t>(1, bytesPerMatrix));
    }
    const std::int64_t fits = std::int64_t(deviceBudget / std::max(1, slots) / std::max<std::size_t>(1, deviceBytesPerMatrix));
    cut.chunk = std::max<std::int64_t>(1, std::min<std::int64_t>({chunk, share, fits}));
    // Shares differ by at most one matrix: the first (count % gpus) ones are one larger.
    const std::int64_t base = count / gpus, extra = count % gpus;
    std::int64_t chunks = 0;
    for (int g = 0; g < gpus; ++g) {
        const std::int64_t own = base + (g < extra ? 1 : 0);
        chunks += (own + cut.chunk - 1) / cut.chunk;
    }
    cut.chunks = static_cast<int>(chunks);
    return cut;
}

std::vector<double> predictStreamMs(const std::vector<double>& linkGBsByGpus, double bytes, double kernelMs, double fillMs) {
    std::vector<double> ms(linkGBsByGpus.size(), 0);
    for (std::size_t k = 0; k < ms.size(); ++k) {
        const double link = linkGBsByGpus[k] > 0 ? bytes / (linkGBsByGpus[k] * 1e6) : 0;
        ms[k] = std::max(link, kernelMs / double(k + 1)) + fillMs;
    }
    return ms;
}


StreamGpuChoice chooseStreamGpus(int asked, const std::vector<double>& modelMs, const std::vector<double>& measuredMs,
                                 const std::vector<double>& linkGBsByGpus, double margin) {
    StreamGpuChoice choice;
    choice.gpus = std::max(1, asked);
    auto estimate = [&](int k, bool& measured) {
        const std::size_t i = std::size_t(k - 1);
        measured = i < measuredMs.size() && measuredMs[i] > 0;
        if (measured) return measuredMs[i];
        return i < modelMs.size() ? modelMs[i] : 0.0;
    };
    // The fewest GPUs whose time the asked count does not beat by the margin; a count with no
    // estimate at all (0) is never chosen over one that has one.
    bool askedMeasured = false;
    const double askedMs = estimate(choice.gpus, askedMeasured);
    if (!(askedMs > 0)) return choice;
    for (int k = 1; k < choice.gpus; ++k) {
        bool measured = false;
        const double ms = estimate(k, measured);
        if (!(ms > 0) || askedMs < ms * (1 - margin)) continue;
        const int asked_ = choice.gpus;
        choice.gpus = k;
        choice.reason = std::to_string(asked_) + " GPUs asked, " + std::to_string(k) + " used: ";
        if (measured && askedMeasured) {
            choice.reason += "this batch took " + fixedText(askedMs, 2) + " ms on " + std::to_string(asked_) + " GPUs, " + fixedText(ms, 2) +
                             " ms on " + std::to_string(k) + " (measured earlier in this process)";
        } else {
            choice.reason += "the host link is the bound (" + fixedText(linkGBsByGpus[std::size_t(k - 1)], 1) + " GB/s on " +
                             std::to_string(k) + ", " + fixedText(linkGBsByGpus[std::size_t(asked_ - 1)], 1) + " on " +
                             std::to_string(asked_) + ", measured; model " + fixedText(ms, 2) + " against " + fixedText(askedMs, 2) + " ms)";
        }
        return choice;
    }
    return choice;
}

namespace {
// The first run on a set of GPUs is cold (modules loaded, memory mapped on each GPU): it is
// counted but not used; the best warm run stands for the set.
struct RunRecord {
    int runs = 0;
    double wallMsPerMatrix = 0, kernelMsPerMatrix = 0;
};
struct Runs {
    std::mutex mutex;
    std::map<std::pair<std::string, int>, RunRecord> byGpus;
};
Runs& runs() {
    static Runs r;
    return r;
}
} // namespace

void recordStreamRun(const std::string& key, int gpus, std::int64_t count, double wallMs, double kernelMs) {
    if (count <= 0 || !(wallMs > 0)) return;
    Runs& r = runs();
    std::lock_guard<std::mutex> lock(r.mutex);
    RunRecord& record = r.byGpus[{key, gpus}];
    const double wall = wallMs / double(count);
    if (++record.runs == 2 || (record.runs > 2 && wall < record.wallMsPerMatrix)) record.wallMsPerMatrix = wall;
    if (kernelMs > 0) record.kernelMsPerMatrix = kernelMs / double(count);
}

double streamRunWallMs(const std::string& key, int gpus, std::int64_t count) {
    Runs& r = runs();
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto it = r.byGpus.find({key, gpus});
    return it == r.byGpus.end() || it->second.runs < 2 ? 0 : it->second.wallMsPerMatrix * double(count);
}

double streamRunKernelMs(const std::string& key, std::int64_t count) {
    Runs& r = runs();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (auto it = r.byGpus.lower_bound({key, 0}); it != r.byGpus.end() && it->first.first == key; ++it)
        if (it->second.kernelMsPerMatrix > 0) return it->second.kernelMsPerMatrix * double(count);
    return 0;
}

void clearStreamRuns() {
    Runs& r = runs();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.byGpus.clear();
}

} // namespace spyglass
