// Method D on a valued matrix: the valued hybrid SpMV (dense regions stored densely with their values,
// the rest CSR with values) against cuSPARSE CSR SpMV on the same fp32 matrix, in one process.
// The matrix: 64 dense 2048 x 2048 blocks at 50-90 % fill plus 10 M scattered entries in 1 M x 1 M
// (--quick: 16 blocks and 1 M scattered in 256 K x 256 K), random fp32 values. The regions are found by
// detection (detectAndEncodeHybridValued, the entry `spyglass-cli spmv --format hybrid` uses), never
// taken from the generator. Kernel time: CUDA events around one launch, warm-up, median of repeats;
// structures, the cuSPARSE handle, descriptors and workspace made once outside the timer. Both results
// are checked against an fp64 CPU reference with the bound (row length + 2) x eps(fp32) x sum |a x|
// per row; a wrong result (or a check that did not run) exits non-zero.
//   bench_hybrid_valued [--quick] [--repeats N] [--out STEM]     (default STEM bench/results/hybrid_valued)
#include "bench_support.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/cuda/hybrid_valued_device_api.h"
#include "spyglass/cuda/segdia_device_api.h"

#include "spyglass/backend.h"
#include "spyglass/benchmark.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

using namespace spyglass;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

struct Settings {
    bool quick = false;
    int repeats = 30;
    std::string out = "bench/results/hybrid_valued";
};

// xorshift64*: 200 M values in well under a second, the same on every platform.
struct Random {
    std::uint64_t state;
    std::uint64_t next() {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        return state * 0x2545F4914F6CDD1Dull;
    }
    // Uniform in [-1, -0.25] U [0.25, 1]: never zero, so every generated entry stays an entry.
    float value() {
        const std::uint64_t r = next();
        const float magnitude = 0.25f + 0.75f * float((r >> 40) & 0xFFFFFF) / float(1 << 24);
        return (r & 1) ? magnitude : -magnitude;
    }
};

CsrMatrix<float> blockyValued(const BlockyMatrixSpec& spec) {
    GeneratedBinary g = generateBlockyBinary(spec);
    CsrMatrix<float> a;
    a.rows = g.pattern.rows;
    a.cols = g.pattern.cols;
    a.rowPtr = std::move(g.pattern.rowPtr);
    a.colIndex = std::move(g.pattern.colIndex);
    Random rng{spec.seed * 0x9E3779B97F4A7C15ull + 1};
    a.values.resize(a.colIndex.size());
    for (float& v : a.values) v = rng.value();
    return a;
}

// fp64 reference y and the per-row error bound.
struct Reference {
    std::vector<double> y, bound;
};

Reference reference(const CsrMatrix<float>& a, const std::vector<float>& x) {
    Reference r;
    r.y.resize(std::size_t(a.rows));
    r.bound.resize(std::size_t(a.rows));
    const double eps = std::numeric_limits<float>::epsilon();
    for (Index i = 0; i < a.rows; ++i) {
        double sum = 0, magnitude = 0;
        for (Count k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) {
            const double term = double(a.values[k]) * double(x[a.colIndex[k]]);
            sum += term;
            magnitude += std::fabs(term);
        }
        r.y[i] = sum;
        r.bound[i] = double(a.rowPtr[i + 1] - a.rowPtr[i] + 2) * eps * magnitude;
    }
    return r;
}

// Number of rows outside the bound (0 = correct); the worst error relative to its bound goes to `worst`.
Count check(const Reference& ref, const std::vector<float>& y, double& worst) {
    Count bad = 0;
    worst = 0;
    if (y.size() != ref.y.size()) return Count(ref.y.size()) + 1;
    for (std::size_t i = 0; i < y.size(); ++i) {
        const double error = std::fabs(double(y[i]) - ref.y[i]);
        if (!(error <= ref.bound[i])) ++bad;
        if (ref.bound[i] > 0) worst = std::max(worst, error / ref.bound[i]);
    }
    return bad;
}

int run(const Settings& settings, const DeviceInfo& device) {
    BlockyMatrixSpec spec;
    spec.rows = spec.cols = settings.quick ? (1 << 18) : (1 << 20);
    spec.rectangles = settings.quick ? 16 : 64;
    spec.blockSize = 2048;
    spec.fillMin = 0.5;
    spec.fillMax = 0.9;
    spec.scattered = settings.quick ? 1000000 : 10000000;
    spec.seed = 20261124;
    auto start = Clock::now();
    const CsrMatrix<float> a = blockyValued(spec);
    std::printf("matrix %d x %d, %lld entries (%d blocks of %d^2 at 50-90 %% + %lld scattered), fp32, generated in %.0f ms\n",
                a.rows, a.cols, (long long)a.nnz(), spec.rectangles, spec.blockSize, (long long)spec.scattered, msSince(start));

    start = Clock::now();
    DetectionResult detected;
    const HybridValuedMatrix<float> hybrid = detectAndEncodeHybridValued(a, DetectionOptions{}, &detected);
    const double encodeMs = msSince(start);
    Count regionCells = 0;
    for (const auto& b : hybrid.blocks) regionCells += b.region.cells();
    std::printf("detection + encoding %.0f ms: %zu regions detected, %zu kept (%lld cells, %lld explicit zeros), residual %lld entries%s%s\n",
                encodeMs, detected.regions.size(), hybrid.blocks.size(), (long long)regionCells,
                (long long)hybrid.explicitZeros(), (long long)hybrid.residual.nnz(),
                hybrid.csrFallback ? "; CSR fallback: " : "", hybrid.fallbackReason.c_str());

    std::vector<float> x(std::size_t(a.cols));
    Random rng{7};
    for (float& v : x) v = rng.value();
    start = Clock::now();
    const Reference ref = reference(a, x);
    std::printf("fp64 CPU reference in %.0f ms\n", msSince(start));

    cuda::CudaStream stream;
    cuda::DeviceBuffer<float> dx, dyHybrid(std::size_t(a.rows)), dyVendor(std::size_t(a.rows));
    dx.upload(x, stream.get());
    cuda::HybridValuedDeviceMatrix<float> ours;
    ours.upload(hybrid, stream.get());
    cuda::CusparseCsrSpmv<float> vendor(a, dx.data(), dyVendor.data(), stream.get());

    // Results first: a fast wrong answer is not a result.
    ours.multiply(dx.data(), dyHybrid.data(), stream.get());
    vendor.multiply(stream.get());
    const std::vector<float> yHybrid = dyHybrid.toHost(stream.get()), yVendor = dyVendor.toHost(stream.get());
    double worstHybrid = 0, worstVendor = 0;
    const Count badHybrid = check(ref, yHybrid, worstHybrid), badVendor = check(ref, yVendor, worstVendor);
    std::printf("check against the fp64 reference: hybrid %lld rows outside the bound (worst %.3f of it), cuSPARSE %lld (worst %.3f)\n",
                (long long)badHybrid, worstHybrid, (long long)badVendor, worstVendor);

    bench::Report report("Valued hybrid SpMV (method D on a valued matrix) vs cuSPARSE CSR", device.name);
    const std::string name = std::to_string(a.rows) + "^2, " + std::to_string(spec.rectangles) + " blocks 2048^2 50-90 % + " +
                             std::to_string(spec.scattered / 1000000) + " M scattered, fp32";
    const double vector = 4.0 * (double(a.rows) + double(a.cols));
    cuda::EventTimer timer(stream.get());
    // Times `multiply` by events (5 untimed calls first) for `row` of this matrix, then adds and prints it.
    auto timedRow = [&](bench::Row row, auto&& multiply) {
        row.benchmark = name;
        row.time = bench::measure([&] {
            timer.start();
            multiply();
            return double(timer.stopMilliseconds());
        }, 5, settings.repeats);
        report.add(row);
        report.print(row);
        return row;
    };
    bench::Row base;
    base.variant = "cuSPARSE CSR SpMV (ALG1, 32-bit indices)";
    base.isBaseline = true;
    base.bytes = vendor.bytesMoved();
    // Each row's check in the table: the worst error over its rounding bound (<= 1), infinite when a
    // row is outside a zero bound.
    const auto checkFigure = [](Count bad, double worst) { return bad == 0 ? worst : std::numeric_limits<double>::infinity(); };
    base.setCheck(checkFigure(badVendor, worstVendor), 1.0);
    base.note = "error: worst |y - y_ref| / bound";
    timedRow(base, [&] { vendor.multiply(stream.get()); });
    bench::Row hybridRow;
    hybridRow.variant = "spyglass valued hybrid (" + std::to_string(hybrid.blocks.size()) + " detected regions)";
    hybridRow.bytes = double(ours.uploadedBytes()) + vector;
    hybridRow.setCheck(checkFigure(badHybrid, worstHybrid), 1.0);
    hybridRow.note = "regions by detection; error: worst |y - y_ref| / bound";
    const bench::Row row = timedRow(hybridRow, [&] { ours.multiply(dx.data(), dyHybrid.data(), stream.get()); });
    // The timed runs must still give the checked result.
    const std::vector<float> yAgain = dyHybrid.toHost(stream.get());
    const bool stable = yAgain == yHybrid;

    const double speedup = report.speedupOverBaseline(row);
    std::printf("\ntargets\n");
    std::printf("| target | wanted | measured | met |\n|---|---|---|---|\n");
    std::printf("| valued hybrid SpMV vs cuSPARSE CSR (kernel) | >= 2.00x | %.2fx | %s |\n", speedup, speedup >= 2.0 ? "yes" : "NO");
    std::printf("| result within rounding of the fp64 reference | 0 rows outside | %lld | %s |\n", (long long)badHybrid,
                badHybrid == 0 ? "yes" : "NO");
    std::printf("| regions found by detection | > 0 | %zu | %s |\n", hybrid.blocks.size(), hybrid.blocks.empty() ? "NO" : "yes");
    report.write(settings.out);
    std::printf("wrote %s.md and %s.json\n", settings.out.c_str(), settings.out.c_str());
    if (badHybrid != 0 || badVendor != 0 || !stable) {
        std::fprintf(stderr, "bench_hybrid_valued: WRONG RESULT (hybrid %lld rows, cuSPARSE %lld rows outside the bound%s)\n",
                     (long long)badHybrid, (long long)badVendor, stable ? "" : "; the hybrid result changed between runs");
        return 1;
    }
    if (hybrid.blocks.empty()) {
        std::fprintf(stderr, "bench_hybrid_valued: detection kept no region: the dense path was not measured\n");
        return 1;
    }
    return report.printVerdict();
}

} // namespace

int main(int argc, char** argv) {
    Settings settings;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) settings.quick = true;
        else if (!std::strcmp(argv[i], "--repeats") && i + 1 < argc) settings.repeats = std::max(1, std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) settings.out = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--quick] [--repeats N] [--out STEM]\n", argv[0]);
            return 2;
        }
    }
    const DeviceInfo device = cudaDeviceInfo();
    if (!bench::deviceReady(device, "bench_hybrid_valued")) return 1;
    return bench::exitCodeOf("bench_hybrid_valued", [&] {
        return run(settings, device);
    });
}
