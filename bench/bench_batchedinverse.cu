// Method E benchmark: Spyglass's batched Gauss-Jordan kernels against cuBLAS (getrf+getri as the
// baseline, matinv beside it) on the same data in one process. Kernel-only time (CUDA events,
// median after warm-up, buffers rotated so that small batches do not run from L2), end-to-end time
// with pinned host memory (H2D, kernel, D2H), achieved GB/s against the 2*batch*n^2*size floor as a
// fraction of the measured device copy bandwidth, and the max residual of each run. cuBLAS runs as a
// user who keeps its handle and its arrays of matrix pointers runs it: both are built for every
// buffer before any timing. Every row's residual is checked against 4n (a backward-stable inverse
// gives a small multiple of n); a row above it, or one whose check could not run (a matrix flagged),
// makes the program exit 1 after writing the tables. The issue's targets are printed and appended.
// Streamed rows (issue 31): the same end to end through StreamedInverseGraph, the batch in chunks
// whose copies overlap, captured in one CUDA graph built outside the timer and launched between the
// same events; for the LTE slot with the library's choice, with copies in 2, 4 and 8 chunks and
// zero-copy (the kernel reads and writes page-locked host memory), beside the PCIe floor: the same
// bytes in and out with no inverse, by the copy engines and by a copy kernel over page-locked memory.
//
//   bench_batchedinverse [--quick] [--out STEM] [--n 8,16] [--batch 1000000] [--type f32|c64|f64|c128] [--no-lte]
// (STEM.md, with the targets section, and STEM.json are written; the filters keep only the rows asked
// for, for quick checks, and the targets they leave out read "not run")
#include "bench_support.h"
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/cuda/batchedinverse_streamedgraph.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/atomicfile.h"
#include "spyglass/backend.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/batchedinverse_generators.h"
#include "spyglass/batchedinverse_streamed.h"
#include "spyglass/benchmark.h"

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace spyglass;
using spyglass::bench::Report;
using spyglass::bench::Row;

namespace {

using bench::typeName;

// Pinned host memory for the end-to-end rows (pageable copies would measure the staging copy).
template <typename T> struct PinnedBuffer {
    T* data = nullptr;
    explicit PinnedBuffer(std::size_t count) { SPYGLASS_CUDA_CHECK(cudaMallocHost(&data, count * sizeof(T))); }
    ~PinnedBuffer() { cudaFreeHost(data); }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
};

double measuredCopyBandwidth(cudaStream_t stream) {
    const std::size_t bytes = std::size_t(1) << 30;
    cuda::DeviceBuffer<char> a(bytes), b(bytes);
    SPYGLASS_CUDA_CHECK(cudaMemsetAsync(a.data(), 1, bytes, stream));
    cuda::EventTimer timer(stream);
    const auto t = bench::measure([&] {
        timer.start();
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice, stream));
        return double(timer.stopMilliseconds());
    }, 2, 10);
    return 2.0 * bytes / (t.medianMs * 1e6);  // read + write
}

double measuredHostToDeviceBandwidth(cudaStream_t stream) {
    const std::size_t bytes = std::size_t(256) << 20;
    PinnedBuffer<char> host(bytes);
    std::memset(host.data, 1, bytes);
    cuda::DeviceBuffer<char> device(bytes);
    cuda::EventTimer timer(stream);
    const auto t = bench::measure([&] {
        timer.start();
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data, bytes, cudaMemcpyHostToDevice, stream));
        return double(timer.stopMilliseconds());
    }, 2, 10);
    return bytes / (t.medianMs * 1e6);
}

struct Config {
    bool quick = false;
    bool lte = true;
    std::vector<int> orders = {2, 4, 8, 16, 32};
    std::vector<std::int64_t> counts;  // empty: 1200, 1e4, 1e6 (quick: 1200, 1e5)
    std::string type;                  // empty: f32 and c64 (f64 and c128 only when asked for)
};

// "8,16" -> {8, 16}; throws on anything that is not a positive integer list.
std::vector<std::int64_t> parseList(const char* option, const char* text) {
    std::vector<std::int64_t> values;
    const char* p = text;
    while (*p) {
        char* end = nullptr;
        const long long v = std::strtoll(p, &end, 10);
        if (end == p || v <= 0 || (*end && *end != ','))
            throw InputError(std::string(option) + ": expected a comma-separated list of positive integers, got '" +
                             text + "'");
        values.push_back(v);
        p = *end ? end + 1 : end;
    }
    if (values.empty()) throw InputError(std::string(option) + ": empty list");
    return values;
}

// The matrices of one size and type: a pool of distinct random matrices tiled to the batch, in
// enough rotating copies that one timed run never finds its data in L2.
template <typename T> struct DeviceBatch {
    int n = 0;
    std::int64_t count = 0;
    int copies = 1;
    std::vector<T> host;  // the first batch, for residuals
    std::vector<cuda::DeviceBuffer<T>> in, out, work;
    cuda::DeviceBuffer<int> info;
    int next = 0;
};

template <typename T>
void prepare(DeviceBatch<T>& batch, const std::vector<T>& pool, int n, std::int64_t count, cudaStream_t stream) {
    const std::size_t size = std::size_t(n) * n, poolCount = pool.size() / size;
    batch.n = n;
    batch.count = count;
    batch.host.resize(size * count);
    for (std::int64_t b = 0; b < count; ++b)
        std::copy_n(pool.begin() + (b % poolCount) * size, size, batch.host.begin() + b * size);
    const double bytes = 2.0 * size * sizeof(T) * count;
    batch.copies = std::max(1, std::min(16, int(400e6 / bytes)));
    batch.in.clear();
    batch.out.clear();
    batch.work.clear();
    for (int c = 0; c < batch.copies; ++c) {
        batch.in.emplace_back(size * count);
        batch.in.back().upload(batch.host, stream);
        batch.out.emplace_back(size * count);
        batch.work.emplace_back(size * count);
    }
    batch.info.resize(count);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

// Residual bound of a row: the tests' bound for a backward-stable inverse (tst_batchedinverse).
double residualBound(int n) { return 4.0 * n; }

// Everything the run collects: the table, the rows that failed their check, the targets' inputs.
struct Run {
    Report report;
    std::vector<std::string> problems;
    double copyGBs = 0;
};

// Adds a row after checking its residual: negative means the check could not run (a random matrix
// was flagged singular), above the bound means a wrong inverse; either is a problem of the run.
void record(Run& run, Row row, int n) {
    char text[300];
    // The residual is the row's check in the table (Row::setCheck): a row whose check could not run
    // keeps its bound unchecked, which the report's verdict fails too.
    if (row.error >= 0) row.setCheck(row.error, residualBound(n));
    else row.errorBound = residualBound(n);
    if (row.error < 0) {
        std::snprintf(text, sizeof text, "%s / %s: a matrix was flagged, the residual check did not run",
                      row.benchmark.c_str(), row.variant.c_str());
        run.problems.push_back(text);
        row.note += row.note.empty() ? "CHECK FAILED" : "; CHECK FAILED";
    } else if (!(row.error <= residualBound(n))) {
        std::snprintf(text, sizeof text, "%s / %s: residual %.3g above the bound %.0f", row.benchmark.c_str(),
                      row.variant.c_str(), row.error, residualBound(n));
        run.problems.push_back(text);
        row.note += row.note.empty() ? "RESIDUAL ABOVE BOUND" : "; RESIDUAL ABOVE BOUND";
    }
    run.report.add(row);
    run.report.print(row);
}

// A timed run must not have built cuBLAS pointer arrays (they were bound before timing).
template <typename T>
void requireNoBindingInTimedRuns(Run& run, const cuda::CublasBatchedInverse<T>& cublas, std::int64_t before,
                                 const std::string& where) {
    if (cublas.pointerArraysBuilt() != before)
        run.problems.push_back(where + ": cuBLAS pointer arrays were built inside the timed region");
}

// How many matrices a residual check covers: O(n^3) each on the CPU, so fewer for large orders.
std::int64_t residualSample(int n, std::int64_t count) {
    return std::min<std::int64_t>(count, std::max<std::int64_t>(2000, 20000 * 64 / (std::int64_t(n) * n)));
}

// Max residual over the first and the last sample/2 matrices (the tail catches a wrong last
// block), or -1 when one of them was flagged: random matrices must all invert.
template <typename T>
double checkedResidual(const std::vector<T>& a, const T* out, const int* info, int n, std::int64_t count,
                       std::int64_t sample) {
    const std::size_t size = std::size_t(n) * n;
    const std::int64_t head = (sample + 1) / 2, tailStart = count - sample / 2;
    double worst = 0;
    using Range = std::pair<std::int64_t, std::int64_t>;
    for (const Range& range : {Range{0, head}, Range{tailStart, count}}) {
        const auto [first, last] = range;
        for (std::int64_t b = first; b < last; ++b)
            if (info[b] != 0) return -1;
        worst = std::max(worst, maxInverseResidual(a.data() + first * size, out + first * size, info + first, n, last - first));
    }
    return worst;
}

// The residual of a run whose results are on the device: head and tail downloaded.
template <typename T> double residualOf(DeviceBatch<T>& batch, int copy, cudaStream_t stream) {
    const std::int64_t count = batch.count, sample = residualSample(batch.n, count);
    const std::int64_t head = (sample + 1) / 2, tail = sample / 2, tailStart = count - tail;
    const std::size_t size = std::size_t(batch.n) * batch.n;
    std::vector<T> outHead(size * head), outTail(size * tail);
    std::vector<int> infoHead(head), infoTail(tail);
    SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(outHead.data(), batch.out[copy].data(), outHead.size() * sizeof(T),
                                        cudaMemcpyDeviceToHost, stream));
    SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(outTail.data(), batch.out[copy].data() + tailStart * size,
                                        outTail.size() * sizeof(T), cudaMemcpyDeviceToHost, stream));
    SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(infoHead.data(), batch.info.data(), head * sizeof(int), cudaMemcpyDeviceToHost, stream));
    SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(infoTail.data(), batch.info.data() + tailStart, tail * sizeof(int),
                                        cudaMemcpyDeviceToHost, stream));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int code : infoHead)
        if (code != 0) return -1;
    for (int code : infoTail)
        if (code != 0) return -1;
    double worst = maxInverseResidual(batch.host.data(), outHead.data(), infoHead.data(), batch.n, head);
    if (tail > 0)
        worst = std::max(worst, maxInverseResidual(batch.host.data() + tailStart * size, outTail.data(), infoTail.data(),
                                                   batch.n, tail));
    return worst;
}

// The streamed row made with the library's own chunk count: the one the LTE target reads.
const char* const kStreamedDefaultNote = "streamed, the library's chunk count";

template <typename T> std::string streamedVariant(const cuda::StreamedInverseGraph<T>& graph) {
    const std::string kernel = toString(graph.kernelUsed());
    if (graph.zeroCopy()) return "spyglass " + kernel + ", zero-copy (CUDA graph: the kernel reads and writes page-locked host memory)";
    return "spyglass " + kernel + ", streamed in " + std::to_string(graph.chunks()) + " chunks (CUDA graph) + copies";
}

// One streamed end-to-end row: the graph is built (and its kernel warmed up) before the timer, on
// the row's own pinned arrays; each timed run is one graph launch between the harness's events.
template <typename T>
Row streamedRow(const std::string& benchmark, const std::vector<T>& host, const T* hostIn, T* hostOut, int* hostInfo, int n,
                std::int64_t count, int chunks, StreamedTransfer transfer, int warmup, int repeats, cudaStream_t stream) {
    cuda::StreamedInverseGraph<T> graph(hostIn, hostOut, hostInfo, n, count, chunks, InverseKernel::Auto, transfer);
    const std::size_t elements = std::size_t(n) * n * count;
    std::fill(hostOut, hostOut + elements, T(0));
    std::fill(hostInfo, hostInfo + count, 12345);  // every status must be written by the graph
    cuda::EventTimer timer(stream);
    auto timed = [&] {
        timer.start();
        graph.launch(stream);
        return double(timer.stopMilliseconds());
    };
    Row row;
    row.benchmark = benchmark;
    row.variant = streamedVariant(graph);
    row.time = bench::measure(timed, warmup, repeats);
    row.bytes = 2.0 * elements * sizeof(T);
    if (chunks == 0 && transfer == StreamedTransfer::Automatic) row.note = kStreamedDefaultNote;
    row.error = checkedResidual(host, hostOut, hostInfo, n, count, residualSample(n, count));
    return row;
}

// Issue 31's ceiling rows (8x8 f32): the pipelined kernel's elimination with kCeilingExtraPasses more
// passes over each matrix in registers, at the pipelined kernel's occupancy, beside the same kernel
// with none. The targets section bounds one pass over the batch by T(1 + E) / (1 + E): the
// elimination's own time when memory is a small share, against what 92 % of the copy bandwidth
// leaves. (T(1 + E) - T(1)) / E is no bound: this kernel's plain per-thread loads make T(1) memory-
// bound, and the extra passes hide under them: 8 passes added 0.08 ms to 0.98 ms on the H200.
constexpr int kCeilingExtraPasses = 24;
const char* const kCeilingSuffix = " elimination ceiling";

template <typename T>
void recordEliminationCeiling(Run& run, DeviceBatch<T>& batch, const std::string& name, int n, std::int64_t count,
                              double floorBytes, int warmup, int repeats, cuda::EventTimer& timer, cudaStream_t stream) {
    const std::size_t shared = static_cast<std::size_t>(cuda::pipelinedInverseSharedBytes(n, sizeof(T)));
    const int warps = cuda::eliminationCeilingWarpsPerSm<T>(n, shared);
    for (int extra : {0, kCeilingExtraPasses}) {
        int copy = 0;
        auto timed = [&] {
            copy = (copy + 1) % batch.copies;
            timer.start();
            cuda::launchEliminationCeiling(batch.in[copy].data(), batch.out[copy].data(), batch.info.data(), n, count, extra,
                                           shared, stream);
            return double(timer.stopMilliseconds());
        };
        Row row;
        row.benchmark = name + kCeilingSuffix;
        row.variant = "spyglass pipelined elimination, 1 + " + std::to_string(extra) + " passes per matrix";
        row.note = std::to_string(warps) + " warps per SM (the pipelined kernel's shared memory per block, unused)";
        row.time = bench::measure(timed, warmup, repeats);
        row.bytes = floorBytes;
        row.error = residualOf(batch, copy, stream);
        record(run, row, n);
    }
}

// Issue 31's data-path rows (8x8 f32): what moving the batch's bytes costs with no elimination at all.
// The TMA kernel with the elimination skipped (its own loads and stores); two copy kernels: a
// persistent one (grid-stride, 16-byte loads and stores, four in flight a thread), the shape a kernel
// takes when its threads keep data across work, and one whose blocks each move 4 KiB (a 16-byte
// element a thread) and leave, so that the hardware hands out the pieces in address order: the
// fastest copy the SMs make (bench/results/h200/batched_inverse_tma_trials.md); and cudaMemcpy of the
// same bytes; and the paired-lanes kernel's loads and stores (below). Each output must be the input,
// bit for bit, over the first and last 1000 matrices.
const char* const kDataPathSuffix = " data path";

// Issue 31's paired-lanes rows (8x8 f32, benchmark only, batchedinverse_pairedlanes.cu): two lanes a
// matrix make a warp's tile 4 KiB, small enough for blocks that each take one tile a warp and leave to
// pass 92 % of the copy bandwidth with their loads and stores alone; with the elimination split over
// the pair, the same kernel shows what that shape costs the inverse.
const char* const kPairedLanesDataPathVariant =
    "spyglass paired lanes (two a matrix, 4 KiB tiles, blocks that leave), loads and stores only (benchmark only)";
const char* const kPairedLanesVariant = "spyglass paired lanes (two a matrix, 4 KiB tiles, blocks that leave; benchmark only)";

__global__ void elementCopyKernel(const uint4* __restrict__ from, uint4* __restrict__ to, long long chunks) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < chunks) __stcs(to + i, __ldcs(from + i));
}

__global__ void plainCopyKernel(const uint4* __restrict__ from, uint4* __restrict__ to, long long chunks) {
    const long long stride = static_cast<long long>(blockDim.x) * gridDim.x;
    long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    for (; i + 3 * stride < chunks; i += 4 * stride) {
        uint4 v[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) v[u] = __ldcs(from + i + u * stride);
#pragma unroll
        for (int u = 0; u < 4; ++u) __stcs(to + i + u * stride, v[u]);
    }
    for (; i < chunks; i += stride) __stcs(to + i, __ldcs(from + i));
}

void recordDataPath(Run& run, DeviceBatch<float>& batch, const std::string& name, std::int64_t count, double floorBytes,
                    int warmup, int repeats, cuda::EventTimer& timer, cudaStream_t stream) {
    const std::size_t size = 64, bytes = size * count * sizeof(float);
    int sms = 0, device = 0;
    SPYGLASS_CUDA_CHECK(cudaGetDevice(&device));
    SPYGLASS_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    const char* const variants[] = {"spyglass thread-per-matrix-tma, loads and stores only (the elimination skipped)",
                                    "plain copy kernel, 16-byte loads and stores (no inverse)",
                                    "copy kernel, one 16-byte element a thread, blocks that leave (no inverse)",
                                    "cudaMemcpy device to device (no inverse)",
                                    kPairedLanesDataPathVariant};
    for (int v = 0; v < 5; ++v) {
        int copy = 0;
        auto timed = [&] {
            copy = (copy + 1) % batch.copies;
            const float* in = batch.in[copy].data();
            float* out = batch.out[copy].data();
            timer.start();
            if (v == 0) cuda::launchTmaDataPath(in, out, batch.info.data(), count, stream);
            else if (v == 1)
                plainCopyKernel<<<4 * sms, 256, 0, stream>>>(reinterpret_cast<const uint4*>(in), reinterpret_cast<uint4*>(out),
                                                             static_cast<long long>(bytes / 16));
            else if (v == 2)
                elementCopyKernel<<<static_cast<unsigned>((bytes / 16 + 255) / 256), 256, 0, stream>>>(
                    reinterpret_cast<const uint4*>(in), reinterpret_cast<uint4*>(out), static_cast<long long>(bytes / 16));
            else if (v == 3) SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, stream));
            else cuda::launchPairedLanesInverse(in, out, batch.info.data(), count, false, stream);
            return double(timer.stopMilliseconds());
        };
        Row row;
        row.benchmark = name + kDataPathSuffix;
        row.variant = variants[v];
        row.time = bench::measure(timed, warmup, repeats);
        SPYGLASS_CUDA_CHECK(cudaGetLastError());
        row.bytes = floorBytes;
        const std::int64_t sample = std::min<std::int64_t>(count, 1000);
        std::vector<float> head(size * sample), tail(size * sample);
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(head.data(), batch.out[copy].data(), head.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(tail.data(), batch.out[copy].data() + (count - sample) * size, tail.size() * sizeof(float),
                                            cudaMemcpyDeviceToHost, stream));
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        double differing = 0;
        for (std::size_t e = 0; e < head.size(); ++e) {
            differing += std::memcmp(&head[e], &batch.host[e], sizeof(float)) != 0;
            differing += std::memcmp(&tail[e], &batch.host[(count - sample) * size + e], sizeof(float)) != 0;
        }
        row.setCheck(differing, 0);
        row.note = "error: entries that differ from the input";
        if (differing > 0) run.problems.push_back(row.benchmark + " / " + row.variant + ": the output is not the input");
        run.report.add(row);
        run.report.print(row);
    }
}

template <typename T>
void runSize(Run& run, const Config& config, int n, std::int64_t count, const std::vector<T>& pool, cudaStream_t stream) {
    DeviceBatch<T> batch;
    prepare(batch, pool, n, count, stream);
    const std::size_t size = std::size_t(n) * n, bytes = size * count * sizeof(T);
    const double floorBytes = 2.0 * count * size * sizeof(T);
    const std::string name = "inverse " + std::to_string(n) + "x" + std::to_string(n) + " " + typeName<T>() + " batch " +
                             std::to_string(count);
    const bool huge = bytes > (std::size_t(1) << 30);
    const int warmup = huge ? 1 : 3, repeats = config.quick ? 5 : (huge ? 7 : 20);
    cuda::EventTimer timer(stream);

    // The handle and every buffer's pointer arrays exist before the first timed call, as in a user's
    // program that inverts batches in the same buffers again and again.
    cuda::CublasBatchedInverse<T> cublas(n, count, stream);
    for (int c = 0; c < batch.copies; ++c) cublas.bind(batch.work[c].data(), batch.out[c].data());
    const std::int64_t bound = cublas.pointerArraysBuilt();
    for (InverseKernel vendor : {InverseKernel::CublasGetrfGetri, InverseKernel::CublasMatinv}) {
        // getrf overwrites its input: each work copy is refreshed from its pristine copy after its
        // timed run (outside the timer), so that every timed run reads data as cold as ours do.
        for (int c = 0; c < batch.copies; ++c)
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(batch.work[c].data(), batch.in[c].data(), bytes, cudaMemcpyDeviceToDevice, stream));
        int copy = 0;
        auto timed = [&] {
            copy = (copy + 1) % batch.copies;
            timer.start();
            cublas.run(vendor, batch.work[copy].data(), batch.out[copy].data(), batch.info.data());
            const double ms = timer.stopMilliseconds();
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(batch.work[copy].data(), batch.in[copy].data(), bytes, cudaMemcpyDeviceToDevice,
                                                stream));
            return ms;
        };
        Row row;
        row.benchmark = name + " kernel";
        row.variant = toString(vendor);
        row.isBaseline = vendor == InverseKernel::CublasGetrfGetri;
        row.time = bench::measure(timed, warmup, repeats);
        row.bytes = floorBytes;
        row.error = residualOf(batch, copy, stream);
        requireNoBindingInTimedRuns(run, cublas, bound, row.benchmark + " / " + row.variant);
        record(run, row, n);
    }
    // (kernel, matrices per block): the thread-per-matrix kernels also with smaller blocks. Same
    // rotation over the copies as cuBLAS.
    std::vector<std::pair<InverseKernel, int>> ours = {{InverseKernel::SeedSharedMemory, 0}, {InverseKernel::LaneGroupRows, 0}};
    if (n <= 8)
        for (InverseKernel perMatrix : {InverseKernel::ThreadPerMatrix, InverseKernel::ThreadPerMatrixPipelined,
                                        InverseKernel::ThreadPerMatrixStaged})
            for (int perBlock : {0, 64, 32}) ours.insert(ours.end() - 1, {perMatrix, perBlock});
    // The TMA kernel where it takes the shape (elsewhere it would run the pipelined one); its tile is a warp's 32.
    if (cuda::tmaInverseSupports(n, sizeof(T))) ours.insert(ours.end() - 1, {InverseKernel::ThreadPerMatrixTma, 0});
    if (n <= 8) ours.push_back({InverseKernel::LaneEntries, 0});
    for (const auto& choice : ours) {
        const InverseKernel kernel = choice.first;
        const int perBlock = choice.second;
        int copy = 0;
        auto timed = [&] {
            copy = (copy + 1) % batch.copies;
            timer.start();
            cuda::launchInverseKernel(kernel, batch.in[copy].data(), batch.out[copy].data(), batch.info.data(), n, count,
                                      perBlock, stream);
            return double(timer.stopMilliseconds());
        };
        Row row;
        row.benchmark = name + " kernel";
        row.variant = std::string("spyglass ") + toString(kernel) + (perBlock ? " B=" + std::to_string(perBlock) : "");
        if (kernel == cuda::resolveAutoInverseKernel(n, sizeof(T), count) && perBlock == 0) row.note = "auto";
        row.time = bench::measure(timed, warmup, repeats);
        row.bytes = floorBytes;
        row.error = residualOf(batch, copy, stream);
        record(run, row, n);
    }
    if constexpr (std::is_same_v<T, float>)
        if (n == 8) {
            recordEliminationCeiling(run, batch, name, n, count, floorBytes, warmup, repeats, timer, stream);
            recordDataPath(run, batch, name, count, floorBytes, warmup, repeats, timer, stream);
            int copy = 0;
            auto timed = [&] {
                copy = (copy + 1) % batch.copies;
                timer.start();
                cuda::launchPairedLanesInverse(batch.in[copy].data(), batch.out[copy].data(), batch.info.data(), count, true, stream);
                return double(timer.stopMilliseconds());
            };
            Row row;
            row.benchmark = name + " kernel";
            row.variant = kPairedLanesVariant;
            row.time = bench::measure(timed, warmup, repeats);
            row.bytes = floorBytes;
            row.error = residualOf(batch, copy, stream);
            record(run, row, n);
        }

    // End to end from pinned host memory: H2D, inverse, D2H (the allocation is the caller's, once;
    // so are cuBLAS's pointer arrays for the buffers it uses here, bound above with copy 0).
    PinnedBuffer<T> hostIn(size * count), hostOut(size * count);
    std::copy(batch.host.begin(), batch.host.end(), hostIn.data);
    std::vector<int> info(count);
    for (bool vendor : {true, false}) {
        auto timed = [&] {
            timer.start();
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(batch.work[0].data(), hostIn.data, bytes, cudaMemcpyHostToDevice, stream));
            if (vendor) cublas.run(InverseKernel::CublasGetrfGetri, batch.work[0].data(), batch.out[0].data(), batch.info.data());
            else cuda::launchInverseKernel(InverseKernel::Auto, batch.work[0].data(), batch.out[0].data(), batch.info.data(), n,
                                           count, 0, stream);
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(hostOut.data, batch.out[0].data(), bytes, cudaMemcpyDeviceToHost, stream));
            return double(timer.stopMilliseconds());
        };
        std::fill(hostOut.data, hostOut.data + size * count, T(0));
        Row row;
        row.benchmark = name + " end-to-end";
        row.variant = vendor ? "cublas-getrf-getri + copies" : "spyglass auto + copies";
        row.isBaseline = vendor;
        row.time = bench::measure(timed, warmup, repeats);
        row.bytes = floorBytes;
        row.note = "pinned host, H2D+inverse+D2H";
        batch.info.download(info.data(), count, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        row.error = checkedResidual(batch.host, hostOut.data, info.data(), n, count, residualSample(n, count));
        if (vendor) requireNoBindingInTimedRuns(run, cublas, bound, row.benchmark + " / " + row.variant);
        record(run, row, n);
    }
    // Streamed, the library's choice, then copies and zero-copy each forced: where launches and
    // copies, not the kernel, set the time (the copies' graph also holds a second copy of the batch on
    // the device). The pair shows where the library's zero-copy size limit should sit.
    if (count <= 10000) {
        PinnedBuffer<int> hostInfo(count);
        for (StreamedTransfer transfer : {StreamedTransfer::Automatic, StreamedTransfer::Copies, StreamedTransfer::ZeroCopy})
            record(run,
                   streamedRow(name + " end-to-end", batch.host, hostIn.data, hostOut.data, hostInfo.data, n, count, 0, transfer,
                               warmup, repeats, stream),
                   n);
    }
}

template <typename T> void runType(Run& run, const Config& config, cudaStream_t stream, bool onlyWhenAsked = false) {
    if ((!config.type.empty() || onlyWhenAsked) && config.type != typeName<T>()) return;
    const std::vector<std::int64_t> counts = !config.counts.empty() ? config.counts
                                             : config.quick ? std::vector<std::int64_t>{1200, 100000}
                                                            : std::vector<std::int64_t>{1200, 10000, 1000000};
    for (int n : config.orders) {
        BatchSpec spec;
        spec.n = n;
        spec.count = 4096;
        spec.seed = 2026 + n;
        const std::vector<T> pool = generateBatch<T>(spec);
        for (std::int64_t count : counts) runSize<T>(run, config, n, count, pool, stream);
    }
}

const char* const kLteBenchmark = "LTE slot: 1200 x 8x8 c64 MMSE (H^H H + s^2 I, 10 dB) end-to-end";
const char* const kPcieFloorBenchmark = "LTE slot's bytes (614400 in, 614400 out), no inverse: the PCIe floor";

__global__ void copyKernel(const uint4* __restrict__ from, uint4* __restrict__ to, std::size_t chunks) {
    const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < chunks) to[i] = from[i];
}

// What moving the slot's bytes costs with no inverse at all, each way the rows above move them: by
// the copy engines (H2D then D2H), and by one copy kernel from page-locked memory to page-locked
// memory (zero-copy both ways). Each is captured in a CUDA graph and timed as a launch of it, like
// the streamed rows, so that both sides pay the same launch cost. The LTE target reads the faster.
void recordPcieFloor(Run& run, const void* hostIn, void* hostOut, void* deviceIn, void* deviceOut, std::size_t bytes,
                     cudaStream_t stream) {
    cuda::EventTimer timer(stream);
    const std::size_t chunks = bytes / sizeof(uint4);
    const unsigned blocks = static_cast<unsigned>((chunks + 255) / 256);
    for (int zeroCopy = 0; zeroCopy < 2; ++zeroCopy) {
        cuda::CudaStream capture;
        cudaGraph_t graph = nullptr;
        cudaGraphExec_t exec = nullptr;
        SPYGLASS_CUDA_CHECK(cudaStreamBeginCapture(capture.get(), cudaStreamCaptureModeThreadLocal));
        if (zeroCopy)
            copyKernel<<<blocks, 256, 0, capture.get()>>>(static_cast<const uint4*>(hostIn), static_cast<uint4*>(hostOut), chunks);
        else {
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(deviceIn, hostIn, bytes, cudaMemcpyHostToDevice, capture.get()));
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(hostOut, deviceOut, bytes, cudaMemcpyDeviceToHost, capture.get()));
        }
        SPYGLASS_CUDA_CHECK(cudaStreamEndCapture(capture.get(), &graph));
        SPYGLASS_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        SPYGLASS_CUDA_CHECK(cudaGraphUpload(exec, stream));
        auto timed = [&] {
            timer.start();
            SPYGLASS_CUDA_CHECK(cudaGraphLaunch(exec, stream));
            return double(timer.stopMilliseconds());
        };
        Row row;
        row.benchmark = kPcieFloorBenchmark;
        row.variant = zeroCopy ? "copy kernel, page-locked host to page-locked host (CUDA graph)"
                               : "H2D copy then D2H copy, copy engines (CUDA graph)";
        row.time = bench::measure(timed, 5, 50);
        row.bytes = 2.0 * bytes;
        row.setInformational("a floor: the bytes moved, no result to check");
        run.report.add(row);
        run.report.print(row);
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
    }
}

// The LTE case: 1200 complex 8x8 MMSE matrices (20 MHz, one 0.5 ms sub-frame), end to end.
void runLte(Run& run, cudaStream_t stream) {
    using T = std::complex<float>;
    const int n = 8;
    const std::int64_t count = 1200;
    BatchSpec spec;
    spec.kind = BatchKind::LteChannel;
    spec.n = n;
    spec.count = count;
    spec.snrDb = 10;
    const std::vector<T> host = generateBatch<T>(spec);
    const std::size_t elements = host.size();
    PinnedBuffer<T> hostIn(elements), hostOut(elements);
    std::copy(host.begin(), host.end(), hostIn.data);
    cuda::DeviceBuffer<T> in(elements), out(elements);
    cuda::DeviceBuffer<int> info(count);
    cuda::CublasBatchedInverse<T> cublas(n, count, stream);
    cublas.bind(in.data(), out.data());
    const std::int64_t bound = cublas.pointerArraysBuilt();
    cuda::EventTimer timer(stream);
    // cuBLAS both ways (matinvBatched is its faster kernel at 1200 x 8x8), then Spyglass's.
    for (int variant = 0; variant < 4; ++variant) {
        const InverseKernel kernel = variant == 0   ? InverseKernel::CublasGetrfGetri
                                     : variant == 1 ? InverseKernel::CublasMatinv
                                     : variant == 2 ? InverseKernel::Auto
                                                    : InverseKernel::SeedSharedMemory;
        const bool vendor = variant < 2;
        auto timed = [&] {
            timer.start();
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(in.data(), hostIn.data, elements * sizeof(T), cudaMemcpyHostToDevice, stream));
            if (vendor) cublas.run(kernel, in.data(), out.data(), info.data());
            else cuda::launchInverseKernel(kernel, in.data(), out.data(), info.data(), n, count, 0, stream);
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(hostOut.data, out.data(), elements * sizeof(T), cudaMemcpyDeviceToHost, stream));
            return double(timer.stopMilliseconds());
        };
        std::fill(hostOut.data, hostOut.data + elements, T(0));
        Row row;
        row.benchmark = kLteBenchmark;
        row.variant = vendor ? std::string(toString(kernel)) + " + copies" : std::string("spyglass ") + toString(kernel) + " + copies";
        row.isBaseline = variant == 0;
        row.time = bench::measure(timed, 5, 50);
        row.bytes = 2.0 * elements * sizeof(T);
        std::vector<int> infoHost(count);
        info.download(infoHost.data(), count, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        row.error = checkedResidual(host, hostOut.data, infoHost.data(), n, count, count);
        if (variant == 2) row.note = "auto";
        if (vendor) requireNoBindingInTimedRuns(run, cublas, bound, row.variant);
        record(run, row, n);
    }
    // Zero-copy: the kernel reads the matrices from page-locked host memory and writes the inverses
    // and statuses straight back over PCIe (unified addressing maps cudaMallocHost memory into the
    // GPU), so the two directions overlap inside one kernel and no copy pays its fixed start-up cost.
    PinnedBuffer<int> hostInfo(count);
    for (InverseKernel kernel : {InverseKernel::Auto, InverseKernel::ThreadPerMatrixStaged, InverseKernel::LaneGroupRows,
                                 InverseKernel::LaneEntries}) {
        auto timed = [&] {
            timer.start();
            cuda::launchInverseKernel(kernel, hostIn.data, hostOut.data, hostInfo.data, n, count, 0, stream);
            return double(timer.stopMilliseconds());
        };
        std::fill(hostOut.data, hostOut.data + elements, T(0));
        std::fill(hostInfo.data, hostInfo.data + count, 12345);  // every status must be written
        Row row;
        row.benchmark = kLteBenchmark;
        row.variant = std::string("spyglass ") + toString(kernel) + ", zero-copy (reads and writes page-locked host memory)";
        row.time = bench::measure(timed, 5, 50);
        row.bytes = 2.0 * elements * sizeof(T);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        row.error = checkedResidual(host, hostOut.data, hostInfo.data, n, count, count);
        record(run, row, n);
    }
    // Streamed: the library's choice, then copies in fixed chunk counts beside it, so that the table
    // shows whether the rule picked well. The same pinned input; every row checks every matrix.
    record(run, streamedRow(kLteBenchmark, host, hostIn.data, hostOut.data, hostInfo.data, n, count, 0,
                            StreamedTransfer::Automatic, 5, 50, stream), n);
    for (int chunks : {1, 2, 4, 8})
        record(run, streamedRow(kLteBenchmark, host, hostIn.data, hostOut.data, hostInfo.data, n, count, chunks,
                                StreamedTransfer::Copies, 5, 50, stream), n);
    recordPcieFloor(run, hostIn.data, hostOut.data, in.data(), out.data(), elements * sizeof(T), stream);
}

// The issue's targets (issue 3 "Targets"), read off this run's rows; "not run" where a filter left
// a row out. cuBLAS = the faster of getrf+getri and matinv in the same run; Spyglass = Auto.
std::string targetsSection(const Run& run) {
    const auto& rows = run.report.rows();
    auto find = [&](const std::string& benchmark, auto predicate) -> const Row* {
        for (const Row& r : rows)
            if (r.benchmark == benchmark && predicate(r)) return &r;
        return nullptr;
    };
    auto autoRow = [&](const std::string& b) { return find(b, [](const Row& r) { return r.note.rfind("auto", 0) == 0; }); };
    auto vendorRow = [&](const std::string& b) {
        const Row* getri = find(b, [](const Row& r) { return r.variant == "cublas-getrf-getri"; });
        const Row* matinv = find(b, [](const Row& r) { return r.variant == "cublas-matinv"; });
        if (!getri || !matinv) return getri ? getri : matinv;
        return matinv->time.medianMs < getri->time.medianMs ? matinv : getri;
    };
    std::ostringstream md;
    char line[1024];
    md << "\n## Targets (this run; Spyglass = the Auto kernel, cuBLAS = the faster of getrf+getri and matinv)\n\n"
          "| target | measured | met |\n|---|---|---|\n";
    auto ratioTarget = [&](const std::string& label, int n, const char* type, double need) {
        const std::string b = "inverse " + std::to_string(n) + "x" + std::to_string(n) + " " + type + " batch 1000000 kernel";
        const Row* ours = autoRow(b);
        const Row* vendor = vendorRow(b);
        if (!ours || !vendor) {
            md << "| " << label << " | not run | - |\n";
            return;
        }
        const double ratio = vendor->time.medianMs / ours->time.medianMs;
        std::snprintf(line, sizeof line, "| %s | %.4f ms (%s) vs %.4f ms (%s) = %.2fx | %s |\n", label.c_str(),
                      ours->time.medianMs, ours->variant.c_str(), vendor->time.medianMs, vendor->variant.c_str(), ratio,
                      ratio >= need ? "yes" : "NO");
        md << line;
    };
    ratioTarget("10^6 x 8x8 f32 >= 4x cuBLAS (kernel only)", 8, "f32", 4.0);
    // The share of the copy bandwidth: the first target, and issue 31's (the floor is the batch's bytes
    // in and out at the copy bandwidth measured in this run).
    for (const auto& [percent, label] : {std::pair<int, const char*>{50, ""}, {92, " (issue 31)"}}) {
        const Row* ours = autoRow("inverse 8x8 f32 batch 1000000 kernel");
        if (!ours || run.copyGBs <= 0) {
            md << "| 10^6 x 8x8 f32 >= " << percent << " % of device copy bandwidth" << label << " | not run | - |\n";
            continue;
        }
        const double share = ours->gbPerSecond() / run.copyGBs;
        std::snprintf(line, sizeof line,
                      "| 10^6 x 8x8 f32 >= %d %% of device copy bandwidth%s | %.0f GB/s of %.0f GB/s = %.0f %% | %s |\n",
                      percent, label, ours->gbPerSecond(), run.copyGBs, 100 * share, 100 * share >= percent ? "yes" : "NO");
        md << line;
    }
    {
        // What 92 % asks of the elimination: one pass over the batch, at most T(1 + E) / (1 + E) from the
        // ceiling rows, against the time 92 % of the copy bandwidth leaves for the whole kernel.
        const std::string b = std::string("inverse 8x8 f32 batch 1000000") + kCeilingSuffix;
        const Row* more = find(b, [](const Row& r) { return r.variant.find("1 + 0 passes") == std::string::npos; });
        const Row* ours = autoRow("inverse 8x8 f32 batch 1000000 kernel");
        if (!more || !ours || run.copyGBs <= 0) {
            md << "| 10^6 x 8x8 f32: the elimination alone, one pass (what 92 % needs, for information) | not run | - |\n";
        } else {
            const double pass = more->time.medianMs / (kCeilingExtraPasses + 1);
            const double allowed = ours->bytes / (0.92 * run.copyGBs * 1e6);
            std::snprintf(line, sizeof line,
                          "| 10^6 x 8x8 f32: the elimination alone, one pass (what 92 %% needs, for information) | at most "
                          "%.4f ms per pass (1 + %d passes in %.4f ms, %s), against %.4f ms for the whole kernel at 92 %% "
                          "of %.0f GB/s; Auto takes %.4f ms | %s |\n",
                          pass, kCeilingExtraPasses, more->time.medianMs, more->note.c_str(), allowed, run.copyGBs,
                          ours->time.medianMs,
                          pass <= allowed ? "fits: what falls short is the overlap with the loads and stores"
                                          : "not shown to fit");
            md << line;
        }
    }
    {
        // What 92 % asks of the data path: the bytes moved with no elimination, by the TMA kernel's own
        // loads and stores and by a plain copy kernel, against the same allowance.
        const std::string b = std::string("inverse 8x8 f32 batch 1000000") + kDataPathSuffix;
        const Row* tma = find(b, [](const Row& r) { return r.variant.find("tma") != std::string::npos; });
        const Row* plain = find(b, [](const Row& r) { return r.variant.find("plain copy") != std::string::npos; });
        const Row* element = find(b, [](const Row& r) { return r.variant.find("one 16-byte element") != std::string::npos; });
        const Row* memcpyRow = find(b, [](const Row& r) { return r.variant.find("cudaMemcpy") != std::string::npos; });
        const Row* ours = autoRow("inverse 8x8 f32 batch 1000000 kernel");
        if (!tma || !plain || !element || !memcpyRow || !ours || run.copyGBs <= 0) {
            md << "| 10^6 x 8x8 f32: the data path alone (what 92 % needs, for information) | not run | - |\n";
        } else {
            const double allowed = ours->bytes / (0.92 * run.copyGBs * 1e6);
            auto share = [&](const Row* r) { return 100 * r->gbPerSecond() / run.copyGBs; };
            std::snprintf(line, sizeof line,
                          "| 10^6 x 8x8 f32: the data path alone (what 92 %% needs, for information) | the TMA kernel's loads "
                          "and stores alone %.4f ms (%.0f %%), a persistent copy kernel %.4f ms (%.0f %%), a copy whose "
                          "blocks move 4 KiB and leave %.4f ms (%.0f %%), cudaMemcpy of these bytes %.4f ms (%.0f %%), "
                          "against %.4f ms for the whole kernel at 92 %% of %.0f GB/s | %s |\n",
                          tma->time.medianMs, share(tma), plain->time.medianMs, share(plain), element->time.medianMs,
                          share(element), memcpyRow->time.medianMs, share(memcpyRow), allowed, run.copyGBs,
                          tma->time.medianMs <= allowed ? "fits"
                          : element->time.medianMs <= allowed
                              ? "does not fit: the TMA kernel's loads and stores alone take longer than 92 % allows; only "
                                "a copy that keeps nothing across work moves the bytes in time"
                              : "does not fit: the loads and stores alone take longer than 92 % allows");
            md << line;
        }
    }
    {
        // What a tile small enough for 92 % costs: the paired-lanes kernel's loads and stores alone, and
        // with the elimination split over the pair, against the same allowance.
        const std::string b = "inverse 8x8 f32 batch 1000000";
        const Row* moved = find(b + kDataPathSuffix, [](const Row& r) { return r.variant == kPairedLanesDataPathVariant; });
        const Row* inverted = find(b + " kernel", [](const Row& r) { return r.variant == kPairedLanesVariant; });
        const Row* ours = autoRow(b + " kernel");
        if (!moved || !inverted || !ours || run.copyGBs <= 0) {
            md << "| 10^6 x 8x8 f32: tiles small enough for 92 % (for information) | not run | - |\n";
        } else {
            const double allowed = ours->bytes / (0.92 * run.copyGBs * 1e6);
            auto share = [&](const Row* r) { return 100 * r->gbPerSecond() / run.copyGBs; };
            const bool movedFits = moved->time.medianMs <= allowed, invertedFits = inverted->time.medianMs <= allowed;
            std::snprintf(line, sizeof line,
                          "| 10^6 x 8x8 f32: tiles small enough for 92 %% (for information) | two lanes a matrix, 4 KiB tiles in "
                          "blocks that leave: loads and stores alone %.4f ms (%.1f %%), with the elimination split over the "
                          "pair %.4f ms (%.0f %%), against %.4f ms at 92 %% of %.0f GB/s | %s |\n",
                          moved->time.medianMs, share(moved), inverted->time.medianMs, share(inverted), allowed, run.copyGBs,
                          invertedFits ? "fits"
                          : movedFits  ? "the loads and stores fit; split over two lanes, the elimination does not"
                                       : "does not fit: even the loads and stores take longer than 92 % allows");
            md << line;
        }
    }
    for (const char* type : {"f32", "c64"}) {
        ratioTarget(std::string("10^6 x 4x4 ") + type + " faster than cuBLAS", 4, type, 1.0);
        ratioTarget(std::string("10^6 x 2x2 ") + type + " faster than cuBLAS", 2, type, 1.0);
        ratioTarget(std::string("10^6 x 32x32 ") + type + " not slower than cuBLAS", 32, type, 1.0);
    }
    {
        const Row* lte = autoRow(kLteBenchmark);
        if (!lte) md << "| LTE slot, 1200 x 8x8 c64 end to end < 100 us | not run | - |\n";
        else {
            std::snprintf(line, sizeof line, "| LTE slot, 1200 x 8x8 c64 end to end < 100 us | %.1f us (%s) | %s |\n",
                          1000 * lte->time.medianMs, lte->variant.c_str(), lte->time.medianMs < 0.1 ? "yes" : "NO");
            md << line;
        }
        // Issue 31: the streamed path with the chunk count the library chooses by itself.
        const Row* streamed = find(kLteBenchmark, [](const Row& r) { return r.note == kStreamedDefaultNote; });
        if (!streamed) md << "| LTE slot, 1200 x 8x8 c64 end to end <= 30 us | not run | - |\n";
        else {
            // The floor: the faster way of moving the same bytes with no inverse (recordPcieFloor).
            double floorMs = 0;
            for (const Row& r : rows)
                if (r.benchmark == kPcieFloorBenchmark && (floorMs == 0 || r.time.medianMs < floorMs)) floorMs = r.time.medianMs;
            char floorText[96] = "";
            if (floorMs > 0)
                std::snprintf(floorText, sizeof floorText, "; PCIe floor %.1f us: the row takes %.2fx the floor", 1000 * floorMs,
                              streamed->time.medianMs / floorMs);
            std::snprintf(line, sizeof line, "| LTE slot, 1200 x 8x8 c64 end to end <= 30 us | %.1f us (%s%s) | %s |\n",
                          1000 * streamed->time.medianMs, streamed->variant.c_str(), floorText,
                          streamed->time.medianMs <= 0.030 ? "yes" : "NO");
            md << line;
        }
    }
    // Accuracy: Auto's residual against cuBLAS getrf+getri's on the same inputs, every kernel row.
    double worstRatio = 0;
    std::string worstAt;
    for (const Row& r : rows) {
        if (r.note.rfind("auto", 0) != 0 || r.benchmark.find(" kernel") == std::string::npos) continue;
        const Row* getri = find(r.benchmark, [](const Row& v) { return v.variant == "cublas-getrf-getri"; });
        if (!getri || !(getri->error > 0)) continue;
        if (r.error / getri->error > worstRatio) {
            worstRatio = r.error / getri->error;
            worstAt = r.benchmark;
        }
    }
    if (worstAt.empty()) md << "| residual <= cuBLAS's on the same inputs | not run | - |\n";
    else {
        std::snprintf(line, sizeof line, "| residual <= cuBLAS's on the same inputs | worst ours/cuBLAS %.2f (%s) | %s |\n",
                      worstRatio, worstAt.c_str(), worstRatio <= 1.0 ? "yes" : "NO");
        md << line;
    }
    std::snprintf(line, sizeof line,
                  "| every row's residual checked and <= 4n, no cuBLAS set-up in a timed run | %zu failed checks, %zu rows | %s |\n",
                  run.problems.size(), rows.size(), run.problems.empty() ? "yes" : "NO");
    md << line;
    return md.str();
}

} // namespace

int main(int argc, char** argv) {
    Config config;
    std::string stem = "bench/results/batched_inverse";
    return bench::exitCodeOf("bench_batchedinverse", [&] {
        for (int a = 1; a < argc; ++a) {
            const bool hasValue = a + 1 < argc;
            if (!std::strcmp(argv[a], "--quick")) config.quick = true;
            else if (!std::strcmp(argv[a], "--no-lte")) config.lte = false;
            else if (!std::strcmp(argv[a], "--out") && hasValue) stem = argv[++a];
            else if (!std::strcmp(argv[a], "--type") && hasValue) {
                config.type = argv[++a];
                if (config.type != "f32" && config.type != "c64" && config.type != "f64" && config.type != "c128")
                    throw InputError("--type: f32, c64, f64 or c128, got " + config.type);
            } else if (!std::strcmp(argv[a], "--n") && hasValue) {
                config.orders.clear();
                for (std::int64_t n : parseList("--n", argv[++a])) {
                    if (n > kMaxGpuInverseOrder) throw InputError("--n: orders go up to 32, got " + std::to_string(n));
                    config.orders.push_back(static_cast<int>(n));
                }
            } else if (!std::strcmp(argv[a], "--batch") && hasValue) config.counts = parseList("--batch", argv[++a]);
            else {
                std::fprintf(stderr,
                             "usage: %s [--quick] [--out STEM] [--n LIST] [--batch LIST] [--type f32|c64|f64|c128] [--no-lte]\n",
                             argv[0]);
                return 2;
            }
        }
        const DeviceInfo device = cudaDeviceInfo();
        if (!device.present) {
            std::fprintf(stderr, "bench_batchedinverse: no CUDA device (%s)\n", device.reason.c_str());
            return 1;
        }
        cuda::CudaStream stream;
        const double copyGBs = measuredCopyBandwidth(stream.get());
        const double h2dGBs = measuredHostToDeviceBandwidth(stream.get());
        std::printf("device %s: device copy %.0f GB/s (read+write), pinned H2D %.1f GB/s\n", device.name.c_str(), copyGBs, h2dGBs);
        Run run{Report("Method E: batched inverse (full-pivot Gauss-Jordan) vs cuBLAS", device.name), {}, copyGBs};
        run.report.setPeakBandwidth(copyGBs);
        if (config.lte) runLte(run, stream.get());
        runType<float>(run, config, stream.get());
        runType<std::complex<float>>(run, config, stream.get());
        // f64 and c128 on request (--type f64|c128): Auto's rules for them follow the shapes of the
        // same bytes (8x8 f64 is 8x8 c64's 512 bytes), measured there.
        runType<double>(run, config, stream.get(), true);
        runType<std::complex<double>>(run, config, stream.get(), true);
        const std::string targets = targetsSection(run);
        std::printf("%s", targets.c_str());
        std::string markdown = run.report.toMarkdown();
        char note[200];
        std::snprintf(note, sizeof note, "\n- Pinned host-to-device bandwidth: %.1f GB/s. Error column: max ||AX-I||_1 / "
                      "(||A||_1 ||X||_1 eps) over the first and last matrices of the batch; bound 4n.\n", h2dGBs);
        markdown += note;
        markdown += targets;
        writeFileAtomically(stem + ".md", markdown);
        writeFileAtomically(stem + ".json", run.report.toJson());
        std::printf("wrote %s.md and %s.json\n", stem.c_str(), stem.c_str());
        const int verdict = run.report.printVerdict();
        if (!run.problems.empty()) {
            for (const std::string& problem : run.problems) std::fprintf(stderr, "bench_batchedinverse: %s\n", problem.c_str());
            std::fprintf(stderr, "bench_batchedinverse: %zu failed checks\n", run.problems.size());
            return 1;
        }
        return verdict;
    });
}
