#pragma once
// The host<->device link of a set of GPUs, measured once per process and set (a short probe, tens
// of milliseconds): what the streamed batches cut their chunks by and decide their GPU count on
// (spyglass/streamplan.h). Copies go both ways at once on two streams per GPU, from page-locked
// memory, as the streamed batches move their data.
#include "spyglass/streamplan.h"

#include <string>
#include <vector>

namespace spyglass::cuda {

struct HostLinkProbe {
    CopyModel chunk;                   // the first GPU alone: a chunk's copy, fixed cost + bytes / rate
    std::vector<double> gbsByGpus;     // both directions' bytes / time, the first k GPUs copying at once (k = index + 1)
    std::vector<int> numaNodes;        // per GPU, from sysfs (-1: not known)
    double probeMs = 0;                // what the probe took (0 when it came from the cache)
};

// Measured on the first call for `devices` (in that order), then cached; thread-safe.
HostLinkProbe probeHostLink(const std::vector<int>& devices);

// The NUMA node of a GPU's PCI device (/sys/bus/pci/devices/<bus id>/numa_node), -1 when unknown.
int gpuNumaNode(int device);

} // namespace spyglass::cuda
