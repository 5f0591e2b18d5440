#pragma once
// How a batch streamed from page-locked host memory is cut and spread (docs/scale.md, issue #32):
// the chunk size from a measured copy model, and how many of the GPUs asked for are worth using.
// Plain arithmetic on measured figures, no CUDA, so that the CPU tests check it; the measuring is
// gpu/src/cuda/hostlinkprobe.cpp and the streaming gpu/src/cuda/batchedsvd_streaming.h.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace spyglass {

// One chunk's copy on one GPU while the other direction runs too: overheadMs + bytes / rate. Fitted
// from two copy sizes (hostlinkprobe.cpp); overheadMs is what a chunk costs whatever its size (the
// copy's start, the host's wait on the slot's stream).
struct CopyModel {
    double overheadMs = 0;
    double gbPerSecond = 0;  // one direction
    double chunkMs(double bytes) const { return overheadMs + bytes / (gbPerSecond * 1e6); }
};

// Bytes a chunk in the busier direction moves. A share of `shareBytes` in chunks of c bytes through
// the three-slot pipeline takes about (share / c) * overhead + share / rate + 2 c / rate: each chunk
// pays the overhead, and the first upload and the last download (one chunk each) overlap nothing.
// The minimum is at c = sqrt(share * overhead * rate / 2). Clamped to [minBytes, maxBytes]: below a
// few MB a chunk's kernel no longer fills the GPU; above, the pipeline's fill and drain grow.
constexpr std::size_t kStreamChunkMinBytes = std::size_t(4) << 20;
constexpr std::size_t kStreamChunkMaxBytes = std::size_t(64) << 20;
std::size_t modelChunkBytes(double shareBytes, const CopyModel& model, std::size_t minBytes = kStreamChunkMinBytes,
                            std::size_t maxBytes = kStreamChunkMaxBytes);

// The matrices a chunk holds: `requested` when > 0, else modelChunkBytes of the busier direction
// (`bytesPerMatrix`, the larger of the input and output bytes of one matrix); at most what one of
// `slots` slots may take of `deviceBudget` at `deviceBytesPerMatrix`, at most the largest share, at
// least 1. `chunks`: in all, over `gpus` GPUs.
struct StreamCut {
    std::int64_t chunk = 1;
    int chunks = 0;
};
StreamCut cutStream(std::int64_t count, std::int64_t requested, int gpus, std::size_t bytesPerMatrix,
                    std::size_t deviceBytesPerMatrix, std::size_t deviceBudget, int slots, const CopyModel& model);

// Milliseconds the streamed batch is expected to take on the first k GPUs (index k - 1): the host
// link moving `bytes` (both directions) at the rate measured with k GPUs copying at once, or the
// kernels (`kernelMs` for the whole batch on one GPU, 0 when not known yet) shared by k, whichever
// is longer, plus the pipeline's fill and drain (`fillMs`).
std::vector<double> predictStreamMs(const std::vector<double>& linkGBsByGpus, double bytes, double kernelMs, double fillMs);

// How many GPUs to use: `asked` unless fewer are expected to be as fast. estimateMs[k - 1] is the
// time on the first k GPUs: a measurement of this batch (measuredMs > 0, from an earlier run in this
// process) wins over the model (modelMs). More GPUs must be at least `margin` faster to be used, so
// that the streamed path is never slower than fewer GPUs when the two are within noise.
struct StreamGpuChoice {
    int gpus = 1;
    std::string reason;  // empty when every GPU asked is used
};
StreamGpuChoice chooseStreamGpus(int asked, const std::vector<double>& modelMs, const std::vector<double>& measuredMs,
                                 const std::vector<double>& linkGBsByGpus, double margin = 0.03);

// What earlier streamed runs of the same problem took in this process, per GPU count: the wall
// time per matrix of the best warm run (the first run on a GPU count is cold and only counted) and
// the kernels' time per matrix (summed over the GPUs, the latest run's). Thread-safe; `key`
// names the problem (operation, type, shape, kernel), so that a batch of another kind is not judged
// by it. A measurement cache like the copy bandwidth's, kept for the process's life.
void recordStreamRun(const std::string& key, int gpus, std::int64_t count, double wallMs, double kernelMs);
double streamRunWallMs(const std::string& key, int gpus, std::int64_t count);  // 0: never measured
double streamRunKernelMs(const std::string& key, std::int64_t count);           // any GPU count; 0: never
void clearStreamRuns();

} // namespace spyglass
