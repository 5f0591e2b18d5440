#pragma once
// Method E end to end for one batch shape that comes again and again (the LTE slot: 1200 MMSE 8x8
// c64 matrices every 0.5 ms): host -> device -> Spyglass kernel -> host in chunks whose copies
// overlap (the upload of chunk k+1 runs while chunk k inverts and chunk k-1 comes back), the whole
// pipeline captured once in a CUDA graph so that one launch replaces a dozen. For a one-off batch,
// invertBatched is simpler and as fast; this pays off when the same shape is inverted many times.
//
// The object owns page-locked staging for the input, the output and the statuses: a graph's copy
// nodes bake in their host addresses, and copies from pageable memory would neither overlap nor be
// capturable, so the only host memory the graph can use safely is memory that lives exactly as long
// as the graph and is certainly pinned. The caller writes the batch into input() and reads output()
// and info() after run(); run(in, out, info) stages other host arrays (a host copy each way).
//
// Small batches skip the copies (zero-copy, StreamedTransfer): the kernel reads the page-locked input
// and writes the page-locked output and statuses over PCIe itself, so reads and writes overlap with
// each other and with the elimination, and no copy pays its fixed start-up cost (LTE slot on the
// H200: figures in docs/method-e-batchedinverse.md, "Streamed end to end").
//
// Results are bit for bit those of invertBatched with the same kernel (kernelUsed()): every chunk
// gets its own device buffers (aligned as a whole batch's are), so each matrix goes through the same
// kernel; the zero-copy form runs that kernel on the staging itself.
#include "spyglass/batchedinverse.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace spyglass {

// The chunk count used when the caller gives none: as many chunks as keep each at least
// kStreamedInverseMinChunkBytes of input and kStreamedInverseMinChunkMatrices matrices, at most
// kStreamedInverseMaxChunks (why in docs/method-e-batchedinverse.md, "Streamed end to end").
// 1200 x 8x8 c64 (614 KB): 4 chunks of 300; 1200 x 8x8 f32: 2 chunks of 600; 50 matrices: 1.
constexpr std::size_t kStreamedInverseMinChunkBytes = std::size_t(128) << 10;
constexpr std::int64_t kStreamedInverseMinChunkMatrices = 64;
constexpr int kStreamedInverseMaxChunks = 8;
int streamedInverseChunkCount(int n, std::size_t elementBytes, std::int64_t count);

// How the batch crosses PCIe. Automatic: zero-copy when no chunk count is given, the kernel is Auto
// or LaneEntries and streamedInverseZeroCopyFits; copies otherwise. In zero-copy form Auto means
// LaneEntries (the kernel with the shortest latency per matrix: the one that lets the writes of
// early matrices overlap the reads of later ones). ZeroCopy takes chunks 0 or 1 and any Spyglass
// kernel.
enum class StreamedTransfer { Automatic, Copies, ZeroCopy };
// Zero-copy won on the H200 host for every order at 1200 matrices (8x8 c64: 25 us against 48 us
// with copies) and lost at 10000 2x2 and 4x4 f32 (42 against 24 us, 66 against 53 us), whose
// lanes read a few bytes each over PCIe: small batches only, by count and by bytes.
constexpr std::size_t kStreamedInverseZeroCopyMaxBytes = std::size_t(1) << 20;
constexpr std::int64_t kStreamedInverseZeroCopyMaxMatrices = 4096;
bool streamedInverseZeroCopyFits(int n, std::size_t elementBytes, std::int64_t count);

template <typename T>
class StreamedBatchedInverse {
public:
    // count >= 1 matrices of order n (1..32). chunks: 0 = streamedInverseChunkCount, more than
    // count is cut to count. kernel: a Spyglass kernel that supports n (Auto resolved as
    // invertBatched resolves it, or as LaneEntries in zero-copy form). Allocates everything and
    // builds the graph on the current GPU.
    // Throws InputError for bad arguments, BackendUnavailableError without a GPU, OutOfMemoryError
    // when the buffers do not fit, DeviceError for any other CUDA failure.
    StreamedBatchedInverse(int n, std::int64_t count, int chunks = 0, InverseKernel kernel = InverseKernel::Auto,
                           StreamedTransfer transfer = StreamedTransfer::Automatic);
    ~StreamedBatchedInverse();
    StreamedBatchedInverse(StreamedBatchedInverse&&) noexcept;
    StreamedBatchedInverse& operator=(StreamedBatchedInverse&&) noexcept;
    StreamedBatchedInverse(const StreamedBatchedInverse&) = delete;
    StreamedBatchedInverse& operator=(const StreamedBatchedInverse&) = delete;

    int order() const;
    std::int64_t count() const;
    int chunks() const;
    std::int64_t chunkSize() const;  // matrices per chunk; the last chunk may hold fewer
    InverseKernel kernelUsed() const;
    bool zeroCopy() const;  // the kernel reads and writes the staging itself (one chunk)

    // The page-locked staging (count*n*n elements; count statuses, as InverseRunInfo::info).
    T* input();
    const T* output() const;
    const int* info() const;

    // Inverts input() into output() and info(): one graph launch, then waits for it. One run at a
    // time per object (they share the buffers).
    void run();
    // Copies `input` into the staging (skipped when it is input()), run(), then copies the results
    // to `output` and `info` (skipped when they are output() and info(); info may be null).
    void run(const T* input, T* output, int* info);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

} // namespace spyglass
