// Beyond one GPU (docs/scale.md): the same work on one GPU and on 2, 4, ... up to every GPU of the
// host, in one run (a scaling table).
//   bench_multigpu [--quick] [--only power|cap|svd|inverse] [--iterations K] [--matrices DIR] [--out STEM]
// - Power iteration (spyglass-cli power's code) on a 3-D 7-point stencil (CSR, and segmented DIA
//   whose step is one fused pass), on the same stencil with a random long-range coupling a row (every
//   rank needs all of x; its exchange overlaps the own-column multiply and is set against NCCL's own
//   all-gather measured in this run) and on watt_2 scaled along the diagonal, each past 2 GB as CSR:
//   iteration time (CUDA events, median of the timed iterations), communication share, exchange,
//   GB/s and the fraction of the GPUs' copy bandwidth; the N-GPU x must equal the one-GPU x within
//   rounding, the one-GPU SpMV must equal the CPU reference (or, for segmented DIA, the one-GPU CSR
//   run's x and Rayleigh quotient).
// - A matrix above a per-GPU memory cap: refused on one GPU (out of memory), runs on two.
// - Batched SVD 10^6 16x16 f32 and batched inverse 10^6 8x8 f32, streamed from page-locked host
//   memory: one GPU against all of them, the same bits required; each row's note ends with how the
//   last run streamed (streams, chunk and its copy model, slot set-up) and whether fewer GPUs ran
//   than were asked for ("2 GPUs asked, 1 used: ...").
// A wrong or unchecked row exits 1; the targets of issue #19 are printed with what this run measured.
#include "bench_support.h"
#include "spyglass/cuda/copybandwidth.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/backend.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/batchedsvd.h"
#include "spyglass/batchedinverse_generators.h"
#include "spyglass/benchmark.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/segdia_generators.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/multigpu.h"
#include "spyglass/segdia_spmv.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

using namespace spyglass;

namespace {

struct Settings {
    bool quick = false;
    std::string only;
    int iterations = 60;
    std::string out = "bench/results/multigpu";
    std::string matrices = std::getenv("SPYGLASS_DATA") ? std::string(std::getenv("SPYGLASS_DATA")) + "/matrices"
                                                        : std::string("tests/data/matrices");
};

double measureCopyBandwidth(int device) {
    SPYGLASS_CUDA_CHECK(cudaSetDevice(device));
    const double gbs = cuda::copyBandwidthGBs(std::size_t(1) << 30, 3, 20);
    SPYGLASS_CUDA_CHECK(cudaSetDevice(0));
    return gbs;
}

// The host<->device ceiling of a streamed batch: every GPU at once copies `in` bytes from page-locked
// host memory and `out` bytes back, on two streams (both directions at once), as the batches do.
// Returns GB/s over all GPUs (median of 3).
double measureHostLink(int gpus, std::size_t in, std::size_t out) {
    struct Buffers {
        void* hostIn = nullptr;
        void* hostOut = nullptr;
        cuda::DeviceBuffer<unsigned char> deviceIn, deviceOut;
        cudaStream_t up = nullptr, down = nullptr;
    };
    std::vector<Buffers> buffers(static_cast<std::size_t>(gpus));
    for (int g = 0; g < gpus; ++g) {
        SPYGLASS_CUDA_CHECK(cudaSetDevice(g));
        Buffers& b = buffers[g];
        SPYGLASS_CUDA_CHECK(cudaMallocHost(&b.hostIn, in));
        SPYGLASS_CUDA_CHECK(cudaMallocHost(&b.hostOut, out));
        std::memset(b.hostIn, 1, in);
        b.deviceIn.resize(in);
        b.deviceOut.resize(out);
        SPYGLASS_CUDA_CHECK(cudaStreamCreateWithFlags(&b.up, cudaStreamNonBlocking));
        SPYGLASS_CUDA_CHECK(cudaStreamCreateWithFlags(&b.down, cudaStreamNonBlocking));
    }
    const auto t = bench::measure([&] {
        const auto start = std::chrono::steady_clock::now();
        for (int g = 0; g < gpus; ++g) {
            SPYGLASS_CUDA_CHECK(cudaSetDevice(g));
            Buffers& b = buffers[g];
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(b.deviceIn.data(), b.hostIn, in, cudaMemcpyHostToDevice, b.up));
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(b.hostOut, b.deviceOut.data(), out, cudaMemcpyDeviceToHost, b.down));
        }
        for (int g = 0; g < gpus; ++g) {
            SPYGLASS_CUDA_CHECK(cudaSetDevice(g));
            SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(buffers[g].up));
            SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(buffers[g].down));
        }
        return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }, 1, 3);
    for (int g = 0; g < gpus; ++g) {
        SPYGLASS_CUDA_CHECK(cudaSetDevice(g));
        cudaStreamDestroy(buffers[g].up);
        cudaStreamDestroy(buffers[g].down);
        cudaFreeHost(buffers[g].hostIn);
        cudaFreeHost(buffers[g].hostOut);
        buffers[g].deviceIn.release();
        buffers[g].deviceOut.release();
    }
    SPYGLASS_CUDA_CHECK(cudaSetDevice(0));
    return double(gpus) * double(in + out) / (t.medianMs * 1e6);
}

double maxDifference(const std::vector<double>& a, const std::vector<double>& b) {
    double d = 0;
    for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
    return std::isnan(d) ? std::numeric_limits<double>::quiet_NaN() : d;
}

std::vector<int> firstGpus(int n) {
    std::vector<int> d(static_cast<std::size_t>(n));
    std::iota(d.begin(), d.end(), 0);
    return d;
}

std::string fixed(double v, int digits = 2) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, v);
    return text;
}

// A batched run streamed from host memory on `devices` (1 warm-up, 3 timed): its time without the
// set-up (page-locking the caller's arrays, the host-link probe once per process); kernelMs gets the
// last run's compute, summed over the GPUs, and streamNote its streams, chunk and any fallback to
// fewer GPUs (the library's streamNote).
template <typename Options, typename Backend, typename Run>
bench::TimingSummary timeStreamed(Backend backend, std::vector<int> devices, double& kernelMs, std::string& streamNote, Run run) {
    Options options;
    options.backend = backend;
    options.devices = std::move(devices);
    return bench::measure([&] {
        const auto info = run(options);
        kernelMs = info.computeMs;
        streamNote = info.device + ": " + info.streamNote;
        return info.totalMs - info.setupMs;
    }, 1, 3);
}

// The 1-GPU row every multi-GPU row of a benchmark is compared with.
bench::Row oneGpuBaseline(const std::string& name, const bench::TimingSummary& time, double bytes) {
    bench::Row row;
    row.benchmark = name;
    row.variant = "1 GPU";
    row.isBaseline = true;
    row.time = time;
    row.bytes = bytes;
    return row;
}

// The row of a run on `gpus` GPUs, beside its one-GPU baseline.
bench::Row manyGpuRow(const bench::Row& baseline, int gpus, const bench::TimingSummary& time) {
    bench::Row row;
    row.benchmark = baseline.benchmark;
    row.variant = std::to_string(gpus) + " GPUs";
    row.time = time;
    row.bytes = baseline.bytes;
    return row;
}

// A row's bandwidth against the measured host<->device ceiling of `gpus` GPUs, the kernels' time and
// how the last run streamed (streams, chunk, whether fewer GPUs ran than were asked for).
std::string hostLinkNote(const bench::Row& row, int gpus, double ceiling, double kernelMs, const std::string& streamNote) {
    return fixed(100 * row.gbPerSecond() / ceiling, 1) + " % of the host<->device ceiling of " + std::to_string(gpus) +
           " GPU(s) (" + fixed(ceiling, 1) + " GB/s, measured); kernels " + fixed(kernelMs, 1) + " ms summed over the GPUs; " +
           streamNote;
}

struct Context {
    Settings settings;
    bench::Report* report = nullptr;
    int gpus = 1;
    std::vector<int> counts;  // the GPU counts set beside one GPU: 2, 4, ... up to every GPU of the host
    double copyGBs = 0;       // one GPU's device-to-device copy bandwidth, measured in this run
};

// 2, 4, 8, ... below `gpus`, then `gpus` itself: a scaling table's columns.
std::vector<int> scalingCounts(int gpus) {
    std::vector<int> counts;
    for (int g = 2; g < gpus; g *= 2) counts.push_back(g);
    if (gpus >= 2) counts.push_back(gpus);
    return counts;
}

// Bytes one iteration must move on all ranks together: every slice once, x read once per rank's
// span, y written once.
template <typename T>
double iterationBytes(const PartitionedMatrix<T>& m) {
    double bytes = 0;
    for (std::size_t p = 0; p < m.plan.parts.size(); ++p)
        bytes += double(m.partBytes(int(p))) + double(sizeof(T)) * (double(m.plan.parts[p].xEnd - m.plan.parts[p].xBegin) + m.plan.parts[p].rows());
    return bytes;
}

// What one matrix's rows measured: the speed-up of every GPU over one (0 when not measured), the one-GPU
// iteration's share of copy bandwidth and its run (for another format of the same matrix to agree with).
struct PowerCaseResult {
    double oneGpuCopyShare = 0;
    PowerIterationResult oneGpu;
    std::map<int, double> speedup;               // by GPU count
    std::map<int, PowerIterationResult> runs;    // by GPU count
    std::map<int, PartitionPlan> plans;          // by GPU count
    double speedupOn(int gpus) const {
        const auto it = speedup.find(gpus);
        return it == speedup.end() ? 0 : it->second;
    }
};

// The largest difference of two runs' x relative to the largest |x|, and of their last Rayleigh
// quotients relative to the first's: the same iteration in another format differs only by rounding.
double runsDiffer(const PowerIterationResult& a, const PowerIterationResult& b) {
    double largest = 0;
    for (double v : b.x) largest = std::max(largest, std::abs(v));
    const double x = maxDifference(a.x, b.x) / std::max(largest, 1e-300);
    const double rayleigh = std::abs(a.rayleigh.back() - b.rayleigh.back()) / std::abs(b.rayleigh.back());
    return std::max(x, rayleigh);
}

// One matrix: one GPU (the baseline), then each of c.counts GPUs (`partition(p)` cuts it for p GPUs;
// one partitioning is held at a time). The one-GPU run is checked against the CPU reference's SpMV
// (csrForCheck) or against the one-GPU run of the same matrix in another format (sameMatrix), else only
// for a finite result.
PowerCaseResult powerCase(Context& c, const std::string& name, const std::function<PartitionedMatrix<double>(int)>& partition,
                          const CsrMatrix<double>* csrForCheck, const PowerIterationResult* sameMatrix = nullptr) {
    PowerCaseResult out;
    const PartitionedMatrix<double> one = partition(1);
    PartitionRunOptions options;
    options.backend = PartitionBackend::Cuda;
    options.iterations = c.settings.iterations;
    options.warmup = 5;
    options.devices = {0};
    const PowerIterationResult base = powerIteration(one, options);
    bench::Row baseRow;
    baseRow.benchmark = name;
    baseRow.variant = "1 GPU";
    baseRow.isBaseline = true;
    baseRow.time = {base.iterationMs, base.iterationMinMs, base.iterationMaxMs, base.timedIterations};
    baseRow.bytes = iterationBytes(one);
    out.oneGpuCopyShare = baseRow.gbPerSecond() / c.copyGBs;
    baseRow.note = fixed(100 * out.oneGpuCopyShare, 1) + " % of copy bandwidth; communication " +
                   fixed(100 * base.communicationShare(), 1) + " %; set-up " + fixed(base.setupMs / 1e3, 2) + " s" +
                   (base.fusedStep ? "; fused step (one pass: multiply and dot products)" : "");
    if (csrForCheck) {
        // The one-GPU SpMV against the CPU reference on x = the start vector (one multiply).
        const std::vector<double> x = powerStartVector(csrForCheck->cols);
        PartitionRunOptions spmvOptions;
        spmvOptions.backend = PartitionBackend::Cuda;
        spmvOptions.devices = {0};
        const std::vector<double> gpu = partitionedSpmv(one, x, spmvOptions);
        const std::vector<double> cpu = spmvReference(*csrForCheck, x);
        double scale = 0;
        for (double v : cpu) scale = std::max(scale, std::abs(v));
        baseRow.setCheck(maxDifference(gpu, cpu) / scale, 1e-13);
    } else if (sameMatrix) {
        baseRow.setCheck(runsDiffer(base, *sameMatrix), 1e-10);
        baseRow.note += "; x and rayleigh against the csr run";
    } else {
        baseRow.setCheck(std::isfinite(base.rayleigh.back()) ? 0 : 1, 0);
    }
    c.report->add(baseRow);
    c.report->print(baseRow);
    out.oneGpu = base;
    for (int gpus : c.counts) {
        const PartitionedMatrix<double> many = partition(gpus);
        options.devices = firstGpus(gpus);
        const PowerIterationResult split = powerIteration(many, options);
        bench::Row row;
        row.benchmark = name;
        row.variant = std::to_string(gpus) + " GPUs (" + toString(many.plan.exchange) + ", " + fixed(many.plan.exchangeBytes() / 1e6, 3) +
                      " MB an iteration)";
        row.time = {split.iterationMs, split.iterationMinMs, split.iterationMaxMs, split.timedIterations};
        row.bytes = iterationBytes(many);
        row.note = fixed(100 * row.gbPerSecond() / (c.copyGBs * gpus), 1) + " % of " + std::to_string(gpus) +
                   " GPUs' copy bandwidth; communication " + fixed(100 * split.communicationShare(), 1) + " %; exchange " +
                   fixed(split.exchangeMs, 4) + " ms" +
                   (split.overlappedExchange ? ", " + fixed(split.hiddenExchangeMs, 4) + " ms of it hidden behind the own-column multiply" : "") +
                   (split.fusedStep ? "; fused step" : "") + "; imbalance " + fixed(many.plan.imbalance(), 3) + "; rayleigh " +
                   std::to_string(split.rayleigh.back());
        // The same iteration up to the order of the dot products: x within 1e-12 of the one-GPU x.
        row.setCheck(maxDifference(split.x, base.x), 1e-12);
        c.report->add(row);
        c.report->print(row);
        std::printf("  %s on %d GPUs: rayleigh %.17g (1 GPU %.17g)\n", name.c_str(), gpus, split.rayleigh.back(), base.rayleigh.back());
        out.speedup[gpus] = base.iterationMs / split.iterationMs;
        out.runs[gpus] = split;
        out.plans[gpus] = many.plan;
    }
    return out;
}

// A 3-D stencil with one random long-range coupling a row, made symmetric (two entries a row more):
// every rank reads all of x, so the exchange is an all-gather of the whole vector each iteration.
CsrMatrix<double> coupledOperator(Index n, std::uint64_t seed) {
    CooMatrix<double> coo = generators::laplacian3d(n, n, n);
    const Index rows = coo.rows;
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<Index> pick(0, rows - 1);
    const std::size_t stencil = coo.values.size();
    coo.rowIndex.reserve(stencil + 2 * std::size_t(rows));
    coo.colIndex.reserve(stencil + 2 * std::size_t(rows));
    coo.values.reserve(stencil + 2 * std::size_t(rows));
    for (Index i = 0; i < rows; ++i) {
        const Index j = pick(rng);
        for (const auto& [r, col] : {std::pair{i, j}, std::pair{j, i}}) {
            coo.rowIndex.push_back(r);
            coo.colIndex.push_back(col);
            coo.values.push_back(-0.1);
        }
    }
    return cooToCsr(coo);
}

void addSpeedupTarget(Context& c, const std::string& goal, double speedup, double needed, bool measured, const std::string& context = {}) {
    bench::Target t;
    t.goal = goal;
    if (measured) {
        t.measured = fixed(speedup) + "x" + context;
        t.status = speedup >= needed ? bench::Target::Status::Met : bench::Target::Status::NotMet;
    }
    c.report->addTarget(t);
}

} // namespace

int main(int argc, char** argv) {
    Context c;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (arg == "--quick") c.settings.quick = true;
        else if (arg == "--only") c.settings.only = next();
        else if (arg == "--iterations") c.settings.iterations = std::max(10, std::atoi(next().c_str()));
        else if (arg == "--matrices") c.settings.matrices = next();
        else if (arg == "--out") c.settings.out = next();
        else {
            std::fprintf(stderr, "usage: bench_multigpu [--quick] [--only power|cap|svd|inverse] [--iterations K] [--matrices DIR] [--out STEM]\n");
            return 2;
        }
    }
    const DeviceInfo device = cudaDeviceInfo();
    if (!bench::deviceReady(device, "bench_multigpu")) return 1;
    c.gpus = cudaDeviceCount();
    c.counts = scalingCounts(c.gpus);
    c.copyGBs = measureCopyBandwidth(0);
    bench::Report report("Beyond one GPU: power iteration and batches over " + std::to_string(c.gpus) + " GPU(s)",
                         std::to_string(c.gpus) + " x " + device.name);
    // No single reference bandwidth: a row on N GPUs is compared with N GPUs' copy bandwidth (power
    // iteration) or with the host<->device ceiling measured for N GPUs (batches), in its note.
    c.report = &report;
    std::printf("%d x %s, copy bandwidth %.0f GB/s (GPU 0)\n", c.gpus, device.name.c_str(), c.copyGBs);
    auto wanted = [&](const char* what) { return c.settings.only.empty() || c.settings.only == what; };

    double stencilSpeedup = 0, bandedSpeedup = 0, svdSpeedup = 0, inverseSpeedup = 0, stencilCopyShare = -1;
    double stencilSegSpeedup4 = 0, stencilSegCopyShare = -1, coupledSpeedup = 0, coupledSpeedup4 = 0;
    std::map<int, double> coupledExchangeShare;  // by GPU count: the exchange's share of NCCL's all-gather bandwidth
    std::map<int, std::string> coupledFloorNote;
    std::map<int, double> coupledCeiling;  // by GPU count: one GPU's iteration / NCCL's all-gather of the shares alone
    bool capRan = false, capRefused = false;
    std::string capNote;
    if (wanted("power") || wanted("cap")) {
        // 3-D stencil: 340^3 = 39.3 M rows, 275 M nonzeros, 3.3 GB as CSR (f64, 32-bit indices).
        const Index n = c.settings.quick ? 120 : 340;
        const std::string name = "power, laplacian3d " + std::to_string(n) + "^3 csr f64";
        std::printf("generating %s ...\n", name.c_str());
        CooMatrix<double> coo = generators::laplacian3d(n, n, n);
        const CsrMatrix<double> csr = cooToCsr(coo);
        std::printf("  %lld nonzeros, %.2f GB as CSR\n", (long long)csr.nnz(),
                    (csr.nnz() * 12.0 + (csr.rows + 1) * 4.0) / 1e9);
        if (wanted("power")) {
            const PowerCaseResult asCsr = powerCase(c, name, [&](int p) { return partitionMatrix(csr, p); }, &csr);
            // The same stencil as segmented DIA, where a step is one fused pass (method B's format).
            const SegmentedDiaMatrix<double> seg = buildSegmentedDia(coo, {1024, true, SegmentedDiaRemainder::Auto});
            std::printf("  %.2f GB as segmented DIA\n", computeSegmentedDiaStats(seg).bytes / 1e9);
            const PowerCaseResult asSeg = powerCase(c, "power, laplacian3d " + std::to_string(n) + "^3 segdia f64",
                                                    [&](int p) { return partitionMatrix(seg, p); }, nullptr, &asCsr.oneGpu);
            stencilSpeedup = asCsr.speedupOn(2);
            stencilSegSpeedup4 = asSeg.speedupOn(4);
            stencilSegCopyShare = asSeg.oneGpuCopyShare;
            stencilCopyShare = std::max(asCsr.oneGpuCopyShare, asSeg.oneGpuCopyShare);
            for (const auto& [gpus, speedup] : asSeg.speedup)
                std::printf("  segmented DIA on %d GPUs %.2fx (csr %.2fx)\n", gpus, speedup, asCsr.speedupOn(gpus));
            std::printf("  one GPU at %.1f %% of copy bandwidth as segmented DIA (csr %.1f %%)\n", 100 * asSeg.oneGpuCopyShare,
                        100 * asCsr.oneGpuCopyShare);
        }
        coo = {};
        if (wanted("cap") && c.gpus >= 2) {
            const PartitionedMatrix<double> one = partitionMatrix(csr, 1);
            const PartitionedMatrix<double> many = partitionMatrix(csr, c.gpus);
            // A cap below what one GPU needs (the matrix, a full-length x and y), above what each of
            // the ranks needs: one GPU refuses, all of them run.
            const double x = double(one.plan.cols) * sizeof(double);
            double rankNeed = 0;
            for (std::size_t p = 0; p < many.plan.parts.size(); ++p)
                rankNeed = std::max(rankNeed, double(many.partBytes(int(p))) + x + many.plan.parts[p].rows() * sizeof(double));
            const double oneNeed = double(one.partBytes(0)) + 2 * x;
            const std::size_t cap = static_cast<std::size_t>((oneNeed + rankNeed) / 2);
            setDeviceMemoryCap(cap);
            PartitionRunOptions options;
            options.backend = PartitionBackend::Cuda;
            options.iterations = 10;
            options.warmup = 2;
            options.devices = {0};
            try {
                powerIteration(one, options);
            } catch (const OutOfMemoryError& e) {
                capRefused = true;
                std::printf("  one GPU under a %.2f GB cap: %s\n", cap / 1e9, e.what());
            }
            options.devices = firstGpus(c.gpus);
            PowerIterationResult split;
            try {
                split = powerIteration(many, options);
                capRan = std::isfinite(split.rayleigh.back());
            } catch (const Error& e) {
                std::printf("  %d GPUs under the cap: %s\n", c.gpus, e.what());
            }
            setDeviceMemoryCap(0);
            std::size_t largest = 0;
            for (std::size_t b : split.deviceBytes) largest = std::max(largest, b);
            capNote = "cap " + fixed(cap / 1e9) + " GB per GPU, matrix " + fixed(one.partBytes(0) / 1e9) + " GB: 1 GPU " +
                      (capRefused ? "out of memory" : "ran (cap not hit)") + ", " + std::to_string(c.gpus) + " GPUs ran, largest rank " +
                      fixed(largest / 1e9) + " GB";
            bench::Row row;
            row.benchmark = "matrix above a per-GPU memory cap";
            row.variant = std::to_string(c.gpus) + " GPUs";
            row.time = {split.iterationMs, split.iterationMinMs, split.iterationMaxMs, split.timedIterations};
            row.note = capNote;
            row.setCheck(capRefused && capRan && largest <= cap ? 0 : 1, 0);
            report.add(row);
            report.print(row);
        }
    }
    if (wanted("power")) {
        // The coupled operator: 280^3 = 22 M rows, 198 M nonzeros, 2.4 GB as CSR (f64).
        const Index n = c.settings.quick ? 100 : 280;
        const std::string name = "power, laplacian3d " + std::to_string(n) + "^3 + a random coupling a row (symmetric) csr f64";
        std::printf("generating %s ...\n", name.c_str());
        const CsrMatrix<double> csr = coupledOperator(n, 7);
        std::printf("  %lld nonzeros, %.2f GB as CSR\n", (long long)csr.nnz(), (csr.nnz() * 12.0 + (csr.rows + 1) * 4.0) / 1e9);
        const PowerCaseResult run = powerCase(c, name, [&](int p) { return partitionMatrix(csr, p); }, &csr);
        coupledSpeedup = run.speedupOn(2);
        coupledSpeedup4 = run.speedupOn(4);
        for (const auto& [gpus, plan] : run.plans) {
            // NCCL's own all-gather of the largest share, in this process on these GPUs: the floor.
            std::size_t largest = 0;
            for (const RowPartition& p : plan.parts) largest = std::max(largest, std::size_t(p.rows()) * sizeof(double));
            const AllGatherFloor floor = measureNcclAllGather(firstGpus(gpus), largest);
            const double exchangeMs = run.runs.at(gpus).exchangeMs;
            coupledExchangeShare[gpus] = exchangeMs > 0 ? floor.ms / exchangeMs : 0;
            // Every step must bring every rank all of x: no iteration is shorter than that all-gather,
            // however well the multiply hides it.
            coupledCeiling[gpus] = floor.ms > 0 ? run.oneGpu.iterationMs / floor.ms : 0;
            coupledFloorNote[gpus] = "exchange " + fixed(exchangeMs, 4) + " ms, NCCL all-gather of the same shares " +
                                     fixed(floor.ms, 4) + " ms (" + fixed(floor.busGBs, 1) + " GB/s bus bandwidth)";
            std::printf("  %d GPUs: %s\n", gpus, coupledFloorNote[gpus].c_str());
        }
    }
    if (wanted("power")) {
        // watt_2 (SuiteSparse, banded, bandwidth 127) 15000 times along the diagonal: 27.8 M rows,
        // 173 M nonzeros, 2.1 GB as CSR; as segmented DIA too (method B's format).
        const Index copies = c.settings.quick ? 1500 : 15000;
        const std::string base = "power, watt_2 x" + std::to_string(copies) + " along the diagonal";
        std::printf("generating %s ...\n", base.c_str());
        const Matrix watt = readMatrixMarket(c.settings.matrices + "/watt_2.mtx");
        CooMatrix<double> coo = generators::tiledAlongDiagonal(toCoo<double>(watt), copies);
        const SegmentedDiaMatrix<double> seg = buildSegmentedDia(coo, {1024, true, SegmentedDiaRemainder::Auto});
        const CsrMatrix<double> csr = cooToCsr(coo);
        coo = {};  // 2.8 GB of coordinates not needed any more
        std::printf("  %lld nonzeros, %.2f GB as CSR, %.2f GB as segmented DIA\n", (long long)csr.nnz(),
                    (csr.nnz() * 12.0 + (csr.rows + 1) * 4.0) / 1e9, computeSegmentedDiaStats(seg).bytes / 1e9);
        const PowerCaseResult asCsr = powerCase(c, base + " csr f64", [&](int p) { return partitionMatrix(csr, p); }, &csr);
        bandedSpeedup = asCsr.speedupOn(2);
        const PowerCaseResult asSeg = powerCase(c, base + " segdia f64", [&](int p) { return partitionMatrix(seg, p); }, nullptr, &asCsr.oneGpu);
        for (const auto& [gpus, speedup] : asSeg.speedup) std::printf("  segmented DIA on %d GPUs %.2fx\n", gpus, speedup);
    }
    if (wanted("svd")) {
        const int m = 16, n = 16;
        const std::int64_t count = c.settings.quick ? 100000 : 1000000;
        const std::string name = "svd " + std::to_string(count) + " x 16x16 f32, streamed from page-locked memory";
        const std::vector<float> a = generateSvdBatch<float>(SvdBatchKind::Random, m, n, count, 3);
        std::vector<float> u(a.size()), v(a.size()), sigma(std::size_t(count) * n);
        double kernelMs = 0;
        std::string streamNote;
        auto run = [&](std::vector<int> devices) {
            return timeStreamed<SvdOptions>(SvdBackend::Cuda, std::move(devices), kernelMs, streamNote, [&](const SvdOptions& options) {
                return svdBatched(a.data(), u.data(), sigma.data(), v.data(), m, n, count, options);
            });
        };
        const std::size_t inBytes = a.size() * sizeof(float), outBytes = (u.size() + v.size() + sigma.size()) * sizeof(float);
        auto ceilingNote = [&](int gpus, const bench::Row& row) {
            // Each GPU's share of the batch's traffic, all GPUs copying at once.
            return hostLinkNote(row, gpus, measureHostLink(gpus, inBytes / gpus / 2, outBytes / gpus / 2), kernelMs, streamNote);
        };
        bench::Row baseRow = oneGpuBaseline(name, run({0}), double(a.size() + u.size() + v.size() + sigma.size()) * sizeof(float));
        const std::vector<float> sigmaOne = sigma;
        const SvdAccuracy accuracy = svdAccuracy(a.data(), u.data(), sigma.data(), v.data(), m, n, std::min<std::int64_t>(count, 4096));
        baseRow.setCheck(std::max({accuracy.reconstruction, accuracy.uOrthogonality, accuracy.vOrthogonality}), 1e-5 * n);
        baseRow.note = "reconstruction " + std::to_string(accuracy.reconstruction) + " (first 4096); " + ceilingNote(1, baseRow);
        report.add(baseRow);
        report.print(baseRow);
        for (int gpus : c.counts) {
            bench::Row row = manyGpuRow(baseRow, gpus, run(firstGpus(gpus)));
            std::int64_t differ = 0;
            for (std::size_t i = 0; i < sigma.size(); ++i) differ += sigma[i] != sigmaOne[i];
            row.setCheck(double(differ), 0);  // the same kernels on the same matrices: the same bits
            row.note = "singular values equal to the one-GPU run bit for bit; " + ceilingNote(gpus, row);
            report.add(row);
            report.print(row);
            if (gpus == 2) svdSpeedup = baseRow.time.medianMs / row.time.medianMs;
        }
        // The same batch held in memory allocated page-locked (cudaMallocHost) rather than registered
        // afterwards (cudaHostRegister of the caller's vectors, what the library does): does the kind of
        // host memory limit the streamed rate?
        struct Pinned {
            float* p = nullptr;
            explicit Pinned(std::size_t n) { SPYGLASS_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&p), n * sizeof(float))); }
            ~Pinned() { cudaFreeHost(p); }
        } pa(a.size()), pu(u.size()), pv(v.size()), ps(sigma.size());
        std::memcpy(pa.p, a.data(), a.size() * sizeof(float));
        for (int gpus = 1; gpus <= std::min(c.gpus, 2); ++gpus) {
            bench::Row row;
            row.benchmark = name;
            row.variant = std::to_string(gpus) + " GPU(s), arrays from cudaMallocHost";
            row.time = timeStreamed<SvdOptions>(SvdBackend::Cuda, firstGpus(gpus), kernelMs, streamNote, [&](const SvdOptions& options) {
                return svdBatched(pa.p, pu.p, ps.p, pv.p, m, n, count, options);
            });
            row.bytes = baseRow.bytes;
            std::int64_t differ = 0;
            for (std::size_t i = 0; i < sigma.size(); ++i) differ += ps.p[i] != sigmaOne[i];
            row.setCheck(double(differ), 0);
            row.note = ceilingNote(gpus, row);
            report.add(row);
            report.print(row);
        }
    }
    if (wanted("inverse")) {
        const int n = 8;
        const std::int64_t count = c.settings.quick ? 100000 : 1000000;
        const std::string name = "inverse " + std::to_string(count) + " x 8x8 f32, streamed from page-locked memory";
        BatchSpec spec;
        spec.n = n;
        spec.count = count;
        spec.seed = 9;
        const std::vector<float> a = generateBatch<float>(spec);
        std::vector<float> x(a.size());
        double kernelMs = 0;
        std::string streamNote;
        auto run = [&](std::vector<int> devices) {
            return timeStreamed<InverseOptions>(InverseBackend::Cuda, std::move(devices), kernelMs, streamNote,
                                                [&](const InverseOptions& options) {
                                                    return invertBatched(a.data(), x.data(), n, count, options);
                                                });
        };
        const std::size_t bytes = a.size() * sizeof(float);
        auto ceilingNote = [&](int gpus, const bench::Row& row) {
            return hostLinkNote(row, gpus, measureHostLink(gpus, bytes / gpus, bytes / gpus), kernelMs, streamNote);
        };
        bench::Row baseRow = oneGpuBaseline(name, run({0}), 2.0 * double(a.size()) * sizeof(float));
        const std::vector<float> xOne = x;
        std::vector<int> info(std::size_t(std::min<std::int64_t>(count, 4096)), 0);
        baseRow.setCheck(maxInverseResidual(a.data(), x.data(), info.data(), n, std::int64_t(info.size())), 1e3);
        baseRow.note = "residual of the first 4096 (||AX-I|| / (||A|| ||X|| eps)); " + ceilingNote(1, baseRow);
        report.add(baseRow);
        report.print(baseRow);
        for (int gpus : c.counts) {
            bench::Row row = manyGpuRow(baseRow, gpus, run(firstGpus(gpus)));
            row.setCheck(x == xOne ? 0 : 1, 0);
            row.note = "inverses equal to the one-GPU run bit for bit; " + ceilingNote(gpus, row);
            report.add(row);
            report.print(row);
            if (gpus == 2) inverseSpeedup = baseRow.time.medianMs / row.time.medianMs;
        }
    }

    const bool two = c.gpus >= 2;
    addSpeedupTarget(c, "power iteration, 3-D stencil >= 2 GB: >= 1.8x one GPU on 2 GPUs", stencilSpeedup, 1.8,
                     two && wanted("power") && !c.settings.quick);
    addSpeedupTarget(c, "power iteration, scaled banded SuiteSparse (watt_2) >= 2 GB: >= 1.8x one GPU on 2 GPUs", bandedSpeedup, 1.8,
                     two && wanted("power") && !c.settings.quick);
    addSpeedupTarget(c, "power iteration, coupled operator >= 2 GB (issue #32): >= 1.7x one GPU on 2 GPUs", coupledSpeedup, 1.7,
                     two && wanted("power") && !c.settings.quick);
    const bool four = std::find(c.counts.begin(), c.counts.end(), 4) != c.counts.end();
    addSpeedupTarget(c, "power iteration, coupled operator >= 2 GB (issue #32): >= 3.0x one GPU on 4 GPUs", coupledSpeedup4, 3.0,
                     four && wanted("power") && !c.settings.quick,
                     coupledCeiling.count(4) ? " (the ceiling on this host is " + fixed(coupledCeiling[4]) +
                                                   "x: one GPU's iteration / NCCL's all-gather of the 4 shares alone)"
                                             : std::string());
    // The stencil's 4-GPU target is set against a one-GPU baseline at >= 80 % of copy bandwidth: the
    // segmented-DIA run, whose step is one fused pass (the CSR baseline is at about half).
    bench::Target stencil4;
    stencil4.goal = "power iteration, 3-D stencil (issue #32): >= 3.6x one GPU on 4 GPUs, the one-GPU baseline >= 80 % of copy "
                    "bandwidth (segmented DIA)";
    if (four && wanted("power") && !c.settings.quick) {
        stencil4.measured = fixed(stencilSegSpeedup4) + "x, baseline at " + fixed(100 * stencilSegCopyShare, 1) + " %";
        stencil4.status = stencilSegSpeedup4 >= 3.6 && stencilSegCopyShare >= 0.8 ? bench::Target::Status::Met : bench::Target::Status::NotMet;
    }
    report.addTarget(stencil4);
    for (int gpus : c.counts.empty() ? std::vector<int>{2} : c.counts) {
        bench::Target floorShare;
        floorShare.goal = "coupled operator's exchange on " + std::to_string(gpus) +
                          " GPUs (issue #32): >= 70 % of NCCL's all-gather bandwidth measured in this run";
        const auto share = coupledExchangeShare.find(gpus);
        if (share != coupledExchangeShare.end() && !c.settings.quick) {
            floorShare.measured = fixed(100 * share->second, 1) + " % (" + coupledFloorNote[gpus] + ")";
            floorShare.status = share->second >= 0.7 ? bench::Target::Status::Met : bench::Target::Status::NotMet;
        }
        report.addTarget(floorShare);
    }
    bench::Target copyShare;
    copyShare.goal = "power iteration on one GPU, 3-D stencil (issue #32): >= 80 % of copy bandwidth (the better format)";
    if (stencilCopyShare >= 0 && !c.settings.quick) {
        copyShare.measured = fixed(100 * stencilCopyShare, 1) + " %";
        copyShare.status = stencilCopyShare >= 0.8 ? bench::Target::Status::Met : bench::Target::Status::NotMet;
    }
    report.addTarget(copyShare);
    bench::Target cap;
    cap.goal = "a matrix larger than --gpu-memory-cap on one GPU runs on two";
    if (two && wanted("cap")) {
        cap.measured = capNote;
        cap.status = capRefused && capRan ? bench::Target::Status::Met : bench::Target::Status::NotMet;
    }
    report.addTarget(cap);
    addSpeedupTarget(c, "batched SVD 10^6 x 16x16 f32: >= 1.9x one GPU on 2 GPUs", svdSpeedup, 1.9, two && wanted("svd") && !c.settings.quick);
    // Issue #32's streaming targets (both directions in flight, chunks from the copy model, fewer GPUs
    // when more are not faster: a fallback shows as about 1.00x and in the row's note).
    addSpeedupTarget(c, "streamed batched SVD 10^6 x 16x16 f32 (issue #32): >= 1.6x one GPU on 2 GPUs", svdSpeedup, 1.6,
                     two && wanted("svd") && !c.settings.quick);
    addSpeedupTarget(c, "streamed batched inverse 10^6 x 8x8 f32 (issue #32): >= 1.3x one GPU on 2 GPUs", inverseSpeedup, 1.3,
                     two && wanted("inverse") && !c.settings.quick);
    report.write(c.settings.out);
    report.printTargets();
    return report.printVerdict();
}
