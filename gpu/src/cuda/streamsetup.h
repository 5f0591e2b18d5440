#pragma once
// How a streamed batch will run (issue #32): which of the GPUs asked for, how many matrices a
// chunk, and the note the run reports (streams, chunk, the model's figures, a fallback and why).
// The figures come from the host-link probe (hostlinkprobe.h, once per process and GPU set) and from
// earlier runs of the same problem in this process (spyglass/streamplan.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace spyglass::cuda {

struct StreamTimes;  // cuda/batchedsvd_streaming.h

struct StreamSetup {
    std::vector<int> devices;  // the GPUs used: the first ones of those asked
    std::int64_t chunk = 1;    // matrices a chunk
    int chunks = 0;            // in all, over the GPUs used
    std::string note;
};

// `key` names the problem for the run history (operation, type, shape, kernel); per matrix:
// `inBytes` uploaded, `outBytes` downloaded, `deviceBytes` held on the device while its chunk runs.
// `freeMemory`: the first GPU's, the budget when no memory cap is set (80 % of it, over the slots).
StreamSetup planStreamedRun(const std::string& key, const std::vector<int>& asked, std::int64_t count, std::int64_t requested,
                            std::size_t inBytes, std::size_t outBytes, std::size_t deviceBytes, std::size_t freeMemory);

// After a run: its streaming time (set-up excluded) and the kernels' time summed over the GPUs,
// for the next plans of the same problem.
void recordStreamedRun(const std::string& key, const StreamSetup& setup, std::int64_t count, double streamMs, double kernelMs);

// "; slot buffers made in A ms, freed in B ms (...)": the note's account of the host time a run spent
// allocating and freeing its slots (streamBatch's StreamTimes), so that a table shows it.
std::string describeStreamTimes(const StreamTimes& times);

} // namespace spyglass::cuda
