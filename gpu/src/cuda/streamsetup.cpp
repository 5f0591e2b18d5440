#include "cuda/streamsetup.h"

#include "cuda/batchedsvd_streaming.h"
#include "cuda/hostlinkprobe.h"
#include "spyglass/backend.h"
#include "spyglass/streamplan.h"
#include "core/fixedtext.h"

#include <algorithm>
#include <cstdio>

namespace spyglass::cuda {


StreamSetup planStreamedRun(const std::string& key, const std::vector<int>& asked, std::int64_t count, std::int64_t requested,
                            std::size_t inBytes, std::size_t outBytes, std::size_t deviceBytes, std::size_t freeMemory) {
    StreamSetup setup;
    setup.devices = asked;
    const HostLinkProbe probe = probeHostLink(asked);
    const std::size_t cap = deviceMemoryCap();
    const std::size_t budget = cap ? cap : freeMemory / 10 * 8;
    const std::size_t busier = std::max(inBytes, outBytes);
    const int askedGpus = static_cast<int>(asked.size());
    StreamCut cut = cutStream(count, requested, askedGpus, busier, deviceBytes, budget, kStreamSlots, probe.chunk);

    // One GPU asked: nothing to choose. Several: the model (link measured for each count, kernels
    // from an earlier run) or, once this problem ran warm on both counts, the measured times.
    StreamGpuChoice choice;
    choice.gpus = askedGpus;
    if (askedGpus > 1 && count > 0) {
        const double fillMs = 2 * probe.chunk.chunkMs(double(cut.chunk) * double(busier));
        const std::vector<double> model =
            predictStreamMs(probe.gbsByGpus, double(count) * double(inBytes + outBytes), streamRunKernelMs(key, count), fillMs);
        std::vector<double> measured;
        for (int k = 1; k <= askedGpus; ++k) measured.push_back(streamRunWallMs(key, k, count));
        choice = chooseStreamGpus(askedGpus, model, measured, probe.gbsByGpus);
        if (choice.gpus < askedGpus) {
            setup.devices.resize(static_cast<std::size_t>(choice.gpus));
            cut = cutStream(count, requested, choice.gpus, busier, deviceBytes, budget, kStreamSlots, probe.chunk);
        }
    }
    setup.chunk = cut.chunk;
    setup.chunks = cut.chunks;
    setup.note = std::to_string(kStreamSlots) + " streams a GPU, chunks of " + std::to_string(cut.chunk) + " matrices (" +
                 fixedText(double(cut.chunk) * double(busier) / 1e6, 1) + " MB the busier way; " +
                 (requested > 0 ? std::string("asked for") : "copy model " + fixedText(probe.chunk.overheadMs * 1e3, 0) + " us + " +
                                                              fixedText(probe.chunk.gbPerSecond, 1) + " GB/s a direction") +
                 ")";
    if (!choice.reason.empty()) setup.note += "; " + choice.reason;
    std::string nodes;
    for (std::size_t g = 0; g < setup.devices.size(); ++g)
        nodes += (g ? "," : "") + (probe.numaNodes[g] < 0 ? std::string("?") : std::to_string(probe.numaNodes[g]));
    setup.note += "; NUMA node(s) " + nodes;
    if (probe.probeMs > 0) setup.note += "; host link probed in " + fixedText(probe.probeMs, 1) + " ms (once, in the set-up)";
    return setup;
}

std::string describeStreamTimes(const StreamTimes& times) {
    const std::string slots = times.slotsKept == 0 ? std::string()
                              : times.slotsMade == 0
                                  ? " (every slot kept from an earlier run)"
                                  : " (" + std::to_string(times.slotsKept) + " of " + std::to_string(times.slotsKept + times.slotsMade) +
                                        " slots kept from an earlier run)";
    return "; slot buffers made in " + fixedText(times.slotsMs, 2) + " ms" + slots + ", freed in " + fixedText(times.releaseMs, 2) +
           " ms (slowest GPU, inside the streaming time)";
}

void recordStreamedRun(const std::string& key, const StreamSetup& setup, std::int64_t count, double streamMs, double kernelMs) {
    recordStreamRun(key, static_cast<int>(setup.devices.size()), count, streamMs, kernelMs);
}

} // namespace spyglass::cuda
