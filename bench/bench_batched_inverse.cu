// Method E benchmark: Spyglass's batched Gauss-Jordan kernels against cuBLAS (getrf+getri as the
// baseline, matinv beside it) on the same data in one process. Kernel-only time (CUDA events,
// median after warm-up, buffers rotated so that small batches do not run from L2), end-to-end time
// with pinned host memory (H2D, kernel, D2H), achieved GB/s against the 2*batch*n^2*size floor as a
// fraction of the measured device copy bandwidth, and the max residual of each run.
//
//   bench_batched_inverse [--quick] [--out STEM] [--n 8,16] [--batch 1000000] [--type f32|c64] [--no-lte]
// (STEM.md and STEM.json are written; the filters keep only the rows asked for, for quick checks)
#include "cuda/batchedinverse_kernels.h"
#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"
#include "cuda/event_timer.h"
#include "spyglass/backend.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/batchgenerators.h"
#include "spyglass/benchmark.h"

#include <algorithm>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

using namespace spyglass;
using spyglass::bench::Report;
using spyglass::bench::Row;

namespace {

template <typename T> const char* typeName();
template <> const char* typeName<float>() { return "f32"; }
template <> const char* typeName<std::complex<float>>() { return "c64"; }

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
    std::string type;                  // empty: f32 and c64
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

template <typename T> double residualOf(DeviceBatch<T>& batch, int copy, cudaStream_t stream) {
    const std::int64_t sample = std::min<std::int64_t>(batch.count, 20000);
    const std::size_t size = std::size_t(batch.n) * batch.n;
    std::vector<T> out(size * sample);
    std::vector<int> info(sample);
    batch.out[copy].download(out.data(), out.size(), stream);
    batch.info.download(info.data(), info.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int code : info)
        if (code != 0) return -1;  // random matrices must all invert; a negative error flags it
    return maxInverseResidual(batch.host.data(), out.data(), info.data(), batch.n, sample);
}

template <typename T>
void runSize(Report& report, const Config& config, int n, std::int64_t count, const std::vector<T>& pool,
             cudaStream_t stream) {
    DeviceBatch<T> batch;
    prepare(batch, pool, n, count, stream);
    const std::size_t size = std::size_t(n) * n;
    const double floorBytes = 2.0 * count * size * sizeof(T);
    const std::string name = "inverse " + std::to_string(n) + "x" + std::to_string(n) + " " + typeName<T>() + " batch " +
                             std::to_string(count);
    const bool huge = count * size * sizeof(T) > (std::size_t(1) << 30);
    const int warmup = huge ? 1 : 3, repeats = config.quick ? 5 : (huge ? 7 : 20);
    cuda::EventTimer timer(stream);

    cuda::CublasBatchedInverse<T> cublas(n, count, stream);
    for (InverseKernel vendor : {InverseKernel::CublasGetrfGetri, InverseKernel::CublasMatinv}) {
        int copy = 0;
        auto run = [&] {
            copy = (copy + 1) % batch.copies;
            // getrf overwrites its input: refresh the work copy outside the timed region.
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(batch.work[copy].data(), batch.in[copy].data(), size * count * sizeof(T),
                                                cudaMemcpyDeviceToDevice, stream));
            timer.start();
            cublas.run(vendor, batch.work[copy].data(), batch.out[copy].data(), batch.info.data());
            return double(timer.stopMilliseconds());
        };
        Row row;
        row.benchmark = name + " kernel";
        row.variant = toString(vendor);
        row.isBaseline = vendor == InverseKernel::CublasGetrfGetri;
        row.time = bench::measure(run, warmup, repeats);
        row.bytes = floorBytes;
        row.error = residualOf(batch, copy, stream);
        report.add(row);
        report.print(row);
    }
    // (kernel, matrices per block): the thread-per-matrix kernels also with smaller blocks.
    std::vector<std::pair<InverseKernel, int>> ours = {{InverseKernel::SeedSharedMemory, 0}, {InverseKernel::LaneGroupRows, 0}};
    if (n <= 8)
        for (InverseKernel perMatrix : {InverseKernel::ThreadPerMatrix, InverseKernel::ThreadPerMatrixPipelined})
            for (int perBlock : {0, 64, 32}) ours.insert(ours.end() - 1, {perMatrix, perBlock});
    for (const auto& [kernel, perBlock] : ours) {
        int copy = 0;
        auto run = [&] {
            copy = (copy + 1) % batch.copies;
            timer.start();
            cuda::launchInverseKernel(kernel, batch.in[copy].data(), batch.out[copy].data(), batch.info.data(), n, count,
                                      perBlock, stream);
            return double(timer.stopMilliseconds());
        };
        Row row;
        row.benchmark = name + " kernel";
        row.variant = std::string("spyglass ") + toString(kernel) + (perBlock ? " B=" + std::to_string(perBlock) : "");
        if (kernel == cuda::resolveAutoInverseKernel(n, sizeof(T)) && perBlock == 0) row.note = "auto";
        row.time = bench::measure(run, warmup, repeats);
        row.bytes = floorBytes;
        row.error = residualOf(batch, copy, stream);
        report.add(row);
        report.print(row);
    }

    // End to end from pinned host memory: H2D, inverse, D2H (the allocation is the caller's, once).
    PinnedBuffer<T> hostIn(size * count), hostOut(size * count);
    std::copy(batch.host.begin(), batch.host.end(), hostIn.data);
    for (bool vendor : {true, false}) {
        auto run = [&] {
            timer.start();
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(batch.work[0].data(), hostIn.data, size * count * sizeof(T),
                                                cudaMemcpyHostToDevice, stream));
            if (vendor) cublas.run(InverseKernel::CublasGetrfGetri, batch.work[0].data(), batch.out[0].data(), batch.info.data());
            else cuda::launchInverseKernel(InverseKernel::Auto, batch.work[0].data(), batch.out[0].data(), batch.info.data(), n,
                                           count, 0, stream);
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(hostOut.data, batch.out[0].data(), size * count * sizeof(T),
                                                cudaMemcpyDeviceToHost, stream));
            return double(timer.stopMilliseconds());
        };
        Row row;
        row.benchmark = name + " end-to-end";
        row.variant = vendor ? "cublas-getrf-getri + copies" : "spyglass auto + copies";
        row.isBaseline = vendor;
        row.time = bench::measure(run, warmup, repeats);
        row.bytes = floorBytes;
        row.note = "pinned host, H2D+inverse+D2H";
        report.add(row);
        report.print(row);
    }
}

template <typename T> void runType(Report& report, const Config& config, cudaStream_t stream) {
    if (!config.type.empty() && config.type != typeName<T>()) return;
    const std::vector<std::int64_t> counts = !config.counts.empty() ? config.counts
                                             : config.quick ? std::vector<std::int64_t>{1200, 100000}
                                                            : std::vector<std::int64_t>{1200, 10000, 1000000};
    for (int n : config.orders) {
        BatchSpec spec;
        spec.n = n;
        spec.count = 4096;
        spec.seed = 2026 + n;
        const std::vector<T> pool = generateBatch<T>(spec);
        for (std::int64_t count : counts) runSize<T>(report, config, n, count, pool, stream);
    }
}

// The LTE case: 1200 complex 8x8 MMSE matrices (20 MHz, one 0.5 ms sub-frame), end to end.
void runLte(Report& report, cudaStream_t stream) {
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
    cuda::EventTimer timer(stream);
    for (int variant = 0; variant < 3; ++variant) {
        const InverseKernel kernel = variant == 0 ? InverseKernel::CublasGetrfGetri
                                   : variant == 1 ? InverseKernel::Auto : InverseKernel::SeedSharedMemory;
        auto run = [&] {
            timer.start();
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(in.data(), hostIn.data, elements * sizeof(T), cudaMemcpyHostToDevice, stream));
            if (variant == 0) cublas.run(kernel, in.data(), out.data(), info.data());
            else cuda::launchInverseKernel(kernel, in.data(), out.data(), info.data(), n, count, 0, stream);
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(hostOut.data, out.data(), elements * sizeof(T), cudaMemcpyDeviceToHost, stream));
            return double(timer.stopMilliseconds());
        };
        Row row;
        row.benchmark = "LTE slot: 1200 x 8x8 c64 MMSE (H^H H + s^2 I, 10 dB) end-to-end";
        row.variant = variant == 0 ? "cublas-getrf-getri + copies" : std::string("spyglass ") + toString(kernel) + " + copies";
        row.isBaseline = variant == 0;
        row.time = bench::measure(run, 5, 50);
        row.bytes = 2.0 * elements * sizeof(T);
        std::vector<int> infoHost(count);
        info.download(infoHost.data(), count, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        row.error = maxInverseResidual(host.data(), hostOut.data, infoHost.data(), n, count);
        row.note = row.time.medianMs < 0.1 ? "under 100 us" : "over 100 us";
        report.add(row);
        report.print(row);
    }
}

} // namespace

int main(int argc, char** argv) {
    Config config;
    std::string stem = "bench/results/batched_inverse";
    try {
        for (int a = 1; a < argc; ++a) {
            const bool hasValue = a + 1 < argc;
            if (!std::strcmp(argv[a], "--quick")) config.quick = true;
            else if (!std::strcmp(argv[a], "--no-lte")) config.lte = false;
            else if (!std::strcmp(argv[a], "--out") && hasValue) stem = argv[++a];
            else if (!std::strcmp(argv[a], "--type") && hasValue) {
                config.type = argv[++a];
                if (config.type != "f32" && config.type != "c64") throw InputError("--type: f32 or c64, got " + config.type);
            } else if (!std::strcmp(argv[a], "--n") && hasValue) {
                config.orders.clear();
                for (std::int64_t n : parseList("--n", argv[++a])) {
                    if (n > kMaxGpuInverseOrder) throw InputError("--n: orders go up to 32, got " + std::to_string(n));
                    config.orders.push_back(static_cast<int>(n));
                }
            } else if (!std::strcmp(argv[a], "--batch") && hasValue) config.counts = parseList("--batch", argv[++a]);
            else {
                std::fprintf(stderr,
                             "usage: %s [--quick] [--out STEM] [--n LIST] [--batch LIST] [--type f32|c64] [--no-lte]\n",
                             argv[0]);
                return 2;
            }
        }
        const DeviceInfo device = cudaDeviceInfo();
        if (!device.present) {
            std::fprintf(stderr, "bench_batched_inverse: no CUDA device (%s)\n", device.reason.c_str());
            return 1;
        }
        cuda::CudaStream stream;
        const double copyGBs = measuredCopyBandwidth(stream.get());
        const double h2dGBs = measuredHostToDeviceBandwidth(stream.get());
        std::printf("device %s: device copy %.0f GB/s (read+write), pinned H2D %.1f GB/s\n", device.name.c_str(), copyGBs, h2dGBs);
        Report report("Method E: batched inverse (full-pivot Gauss-Jordan) vs cuBLAS", device.name);
        report.setPeakBandwidth(copyGBs);
        if (config.lte) runLte(report, stream.get());
        runType<float>(report, config, stream.get());
        runType<std::complex<float>>(report, config, stream.get());
        report.write(stem);
        std::printf("wrote %s.md and %s.json (pinned H2D %.1f GB/s)\n", stem.c_str(), stem.c_str(), h2dGBs);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_batched_inverse: %s\n", e.what());
        return 1;
    }
    return 0;
}
