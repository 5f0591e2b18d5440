// Method B benchmark: segmented DIA (merged row segments) against cuSPARSE CSR SpMV, plain DIA and
// HDIA on the same matrices in one run; the device-to-device copy bandwidth is measured first so
// every row can say what fraction of it the SpMV reaches.
//   bench_spmv_dia [--quick] [--sweep] [--only NAME] [--group all|stencils|scaled] [--matrices DIR] [--out STEM]
//   (STEM.md and STEM.json are written). bench/results/spmv_dia.* is `--group stencils`,
//   bench/results/spmv_dia_scaled.* is `--group scaled --out bench/results/spmv_dia_scaled`.
#include "cuda/device_buffer.h"
#include "cuda/event_timer.h"
#include "cuda/segdia_device.h"
#include "spyglass/backend.h"
#include "spyglass/benchmark.h"
#include "spyglass/convert.h"
#include "spyglass/matrixgenerators_dia.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/segmenteddia.h"
#include "spyglass/spmv.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>

using namespace spyglass;

namespace {

struct Settings {
    bool quick = false, sweep = false;
    std::string only;  // run only cases whose name contains this
    std::string group = "all";  // stencils: generated matrices; scaled: the real banded ones scaled up
    std::string out = "bench/results/spmv_dia";
    Index threshold = 1024;
    int rowsPerThread = 4;
    // Real banded matrices to scale up: $SPYGLASS_DATA/matrices when set (the device bundle), else
    // the repository's test set.
    std::string matrices = std::getenv("SPYGLASS_DATA") ? std::string(std::getenv("SPYGLASS_DATA")) + "/matrices"
                                                        : std::string("tests/data/matrices");
};

double measureCopyBandwidth() {
    const std::size_t bytes = std::size_t(1) << 30;
    cuda::DeviceBuffer<unsigned char> a(bytes), b(bytes);
    SPYGLASS_CUDA_CHECK(cudaMemset(a.data(), 1, bytes));
    cuda::EventTimer timer;
    const auto t = bench::measure([&] {
        timer.start();
        SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(b.data(), a.data(), bytes, cudaMemcpyDeviceToDevice));
        return double(timer.stopMilliseconds());
    }, 3, 20);
    return 2.0 * double(bytes) / (t.medianMs * 1e6);  // read + write
}

// Worst |y - reference| over the precision bound of its row (<= 1: within the bound).
template <typename T>
double worstErrorRatio(const std::vector<T>& got, const std::vector<T>& want, const CsrMatrix<T>& a, const std::vector<T>& x) {
    const double eps = std::numeric_limits<T>::epsilon();
    double worst = 0;
    for (Index i = 0; i < a.rows; ++i) {
        double magnitude = 0;
        for (Count k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) magnitude += std::abs(double(a.values[k]) * double(x[a.colIndex[k]]));
        const double rowLength = double(a.rowPtr[i + 1] - a.rowPtr[i] + 1);
        const double bound = 2.0 * rowLength * eps * magnitude + std::numeric_limits<T>::denorm_min();
        worst = std::max(worst, std::abs(double(got[i]) - double(want[i])) / bound);
    }
    return worst;
}

template <typename T>
void runCase(bench::Report& report, const Settings& settings, const std::string& name, const CooMatrix<double>& coo64) {
    const std::string benchmark = name + (sizeof(T) == 4 ? " f32" : " f64");
    const CooMatrix<T> coo = convertValues<T>(coo64);
    const auto csr = cooToCsr(coo);
    std::vector<T> x(static_cast<std::size_t>(coo.cols));
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> dist(-1, 1);
    for (auto& v : x) v = T(dist(rng));
    const auto reference = spmvReference(csr, x);

    cuda::DeviceBuffer<T> dx, dy(static_cast<std::size_t>(coo.rows));
    dx.upload(x);
    cuda::EventTimer timer;
    const int warmup = 5, repeats = settings.quick ? 10 : 50;
    const auto finish = [&](bench::Row row) {
        std::vector<T> y(static_cast<std::size_t>(coo.rows));
        dy.download(y.data(), y.size());
        SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
        row.error = worstErrorRatio(y, reference, csr, x);
        report.print(row);
        report.add(row);
        SPYGLASS_CUDA_CHECK(cudaMemset(dy.data(), 0xff, dy.bytes()));  // a skipped row then shows as NaN
    };
    const auto timed = [&](const std::function<void()>& launch) {
        return bench::measure([&] {
            timer.start();
            launch();
            return double(timer.stopMilliseconds());
        }, warmup, repeats);
    };

    {
        cuda::CusparseCsrSpmv<T> op(csr, dx.data(), dy.data());
        bench::Row row{benchmark, "cuSPARSE CSR (cusparseSpMV)", true};
        row.time = timed([&] { op.multiply(); });
        row.bytes = op.bytesMoved();
        row.flops = 2.0 * double(csr.nnz());
        row.note = "nnz " + std::to_string(csr.nnz());
        finish(row);
    }
    const auto segmentedRow = [&](const SegmentedDiaMatrix<T>& m, const std::string& variant, int rowsPerThread,
                                  cuda::SegmentedDiaLoads loads, int remainderWidth = 0) {
        const auto stats = computeSegmentedDiaStats(m);
        cuda::DeviceSegmentedDia<T> op(m);
        bench::Row row{benchmark, variant, false};
        row.time = timed([&] { op.multiply(dx.data(), dy.data(), nullptr, rowsPerThread, loads, remainderWidth); });
        row.bytes = op.bytesMoved();
        row.flops = 2.0 * double(csr.nnz());
        char note[300];
        std::snprintf(note, sizeof note,
                      "padding %.3f (DIA part), remainder %lld nnz / %.1f MB in %lld segments, %lld segments -> %lld blocks, "
                      "%zu merges, work max/min %lld/%lld",
                      stats.paddingRatio, (long long)stats.remainderNonzeros, double(stats.remainderBytes) / 1e6,
                      (long long)stats.remainderSegments, (long long)stats.segments, (long long)stats.blocks,
                      m.mergeSteps.size(), (long long)stats.maxBlockWork, (long long)stats.minBlockWork);
        row.note = note;
        finish(row);
    };
    const auto segmented = buildSegmentedDia(coo, {settings.threshold, true, SegmentedDiaRemainder::Auto});
    const std::string t = std::to_string(settings.threshold);
    constexpr auto vector16 = cuda::SegmentedDiaLoads::Vector16, scalar = cuda::SegmentedDiaLoads::Scalar;
    segmentedRow(segmented, "segmented DIA T=" + t + " v16", 0, vector16);
    if (!segmented.remainderValues.empty()) {
        // How the remainder is summed: owner threads (the default, above) against sub-warps into
        // shared memory, width per segment from the mean row length (the first version) or fixed.
        segmentedRow(segmented, "segmented DIA T=" + t + " v16, remainder by sub-warps (width from mean)", 0, vector16, -1);
        segmentedRow(segmented, "segmented DIA T=" + t + " v16, remainder by sub-warps of 4", 0, vector16, 4);
    }
    // The plain byte rule (weight 1), where it builds something else than the default weight.
    // Skipped on the 83 M-nonzero Laplacian, whose full diagonals it builds the same (one build less).
    const auto plainBytes = coo.nnz() < 60'000'000 ? buildSegmentedDia(coo, {settings.threshold, true, SegmentedDiaRemainder::Auto, 1.0})
                                                   : segmented;
    if (plainBytes.remainderValues.size() != segmented.remainderValues.size())
        segmentedRow(plainBytes, "segmented DIA T=" + t + " v16, plain byte rule (weight 1)", 0, vector16);
    if (!segmented.remainderValues.empty() || !plainBytes.remainderValues.empty())
        segmentedRow(buildSegmentedDia(coo, {settings.threshold, true, SegmentedDiaRemainder::Off}),
                     "segmented DIA T=" + t + " v16, remainder off (the seed's pure DIA)", 0, vector16);
    if (name.find(".mtx") != std::string::npos && !settings.quick)  // the real matrices: a shorter segment too
        segmentedRow(buildSegmentedDia(coo, {512, true, SegmentedDiaRemainder::Auto}), "segmented DIA T=512 v16", 0, vector16);
    segmentedRow(segmented, "segmented DIA T=" + t + " r" + std::to_string(settings.rowsPerThread) + " (scalar loads)",
                 settings.rowsPerThread, scalar);
    if (settings.sweep) {
        segmentedRow(segmented, "segmented DIA T=" + t + " v16 x2", 8, vector16);
        for (int r : {1, 2, 4})
            if (r != settings.rowsPerThread)
                segmentedRow(segmented, "segmented DIA T=" + t + " r" + std::to_string(r) + " (scalar loads)", r, scalar);
        for (Index other : {Index(256), Index(512), Index(2048)}) {
            const auto m = buildSegmentedDia(coo, {other, true});
            segmentedRow(m, "segmented DIA T=" + std::to_string(other) + " v16", 0, vector16);
            for (int r : {1, 2, 4})
                segmentedRow(m, "segmented DIA T=" + std::to_string(other) + " r" + std::to_string(r) + " (scalar loads)", r, scalar);
        }
    }
    segmentedRow(buildHdia(coo, settings.threshold), "HDIA (rows " + t + ", no merge) v16", 0, vector16);
    segmentedRow(buildHdia(coo, 256), "HDIA (rows 256, no merge) v16", 0, vector16);
    try {
        const auto dia = buildDia(coo, Count(3) << 29);  // up to 1.6 G slots: the CFD case fits an H100
        cuda::DeviceDia<T> op(dia);
        bench::Row row{benchmark, "plain DIA (Bell-Garland)", false};
        row.time = timed([&] { op.multiply(dx.data(), dy.data()); });
        row.bytes = op.bytesMoved();
        row.flops = 2.0 * double(csr.nnz());
        char note[120];
        std::snprintf(note, sizeof note, "padding %.3f, %zu diagonals", double(dia.storedSlots()) / double(dia.nonzeros),
                      dia.offsets.size());
        row.note = note;
        finish(row);
    } catch (const OutOfMemoryError& e) {
        std::printf("%s plain DIA skipped: %s\n", benchmark.c_str(), e.what());
    }
}

} // namespace

int main(int argc, char** argv) {
    Settings settings;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) settings.quick = true;
        else if (!std::strcmp(argv[i], "--sweep")) settings.sweep = true;
        else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) settings.out = argv[++i];
        else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) settings.only = argv[++i];
        else if (!std::strcmp(argv[i], "--threshold") && i + 1 < argc) settings.threshold = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--rows-per-thread") && i + 1 < argc) settings.rowsPerThread = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--matrices") && i + 1 < argc) settings.matrices = argv[++i];
        else if (!std::strcmp(argv[i], "--group") && i + 1 < argc) settings.group = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--quick] [--sweep] [--threshold T] [--rows-per-thread 1|2|4] [--only NAME] [--group all|stencils|scaled] [--matrices DIR] [--out STEM]\n", argv[0]);
            return 2;
        }
    }
    const DeviceInfo device = cudaDeviceInfo();
    if (!device.present) {
        std::fprintf(stderr, "bench_spmv_dia: %s\n", device.reason.c_str());
        return 1;
    }
    try {
        bench::Report report("SpMV for diagonal-structured matrices (method B: merged row segments)", device.name);
        const double copy = measureCopyBandwidth();
        std::printf("device %s, device-to-device copy %.1f GB/s (read + write)\n", device.name.c_str(), copy);
        report.setPeakBandwidth(copy);
        const Index n2 = settings.quick ? 1024 : 4096;
        const Index n3 = settings.quick ? 64 : 160;
        const Index n27 = settings.quick ? 64 : 128;
        // Matrices are generated only for the cases that run.
        const auto run = [&](const std::string& name, const std::function<CooMatrix<double>()>& make) {
            if (!settings.only.empty() && name.find(settings.only) == std::string::npos) return;
            const bool scaledCase = name.find(".mtx") != std::string::npos;
            if ((settings.group == "stencils" && scaledCase) || (settings.group == "scaled" && !scaledCase)) return;
            const auto coo = make();
            runCase<float>(report, settings, name, coo);
            runCase<double>(report, settings, name, coo);
            report.write(settings.out);  // after every case, so a run cut short keeps what it measured
        };
        run("laplacian2d " + std::to_string(n2) + "^2", [&] { return generators::laplacian2d(n2, n2); });
        run("laplacian3d " + std::to_string(n3) + "^3", [&] { return generators::laplacian3d(n3, n3, n3); });
        run("cfd-like " + std::to_string(n3) + "^3 (8 broken diagonals, 256 points)",
            [&] { return generators::cfdLike(n3, n3, n3, 8, 256, 7); });
        run("stencil27 " + std::to_string(n27) + "^3", [&] { return generators::stencil27(n27, n27, n27); });
        // The banded real matrices of the test set, scaled up along the diagonal past 10 M nonzeros
        // (the size where "never slower than cuSPARSE" is promised).
        for (const auto& entry : std::vector<std::pair<std::string, Index>>{
                 {"olm1000.mtx", 2600}, {"pts5ldd03.mtx", 14000}, {"watt_2.mtx", 900}, {"n1024-l1.mtx", 320}}) {
            const std::string file = entry.first;
            const Index scaled = settings.quick ? std::max<Index>(1, entry.second / 16) : entry.second;
            run(file + " x" + std::to_string(scaled) + " along the diagonal", [&settings, file, scaled] {
                const Matrix m = readMatrixMarket(settings.matrices + "/" + file);
                return generators::tiledAlongDiagonal(toCoo<double>(m), scaled);
            });
        }
        // Where merging has work to do: a wide band over the first eighth of the rows, a narrow one
        // elsewhere, so equal row groups (HDIA) differ sixfold in work.
        const Index nImbalanced = settings.quick ? (1 << 18) : (1 << 22);
        run("imbalanced band " + std::to_string(nImbalanced) + " rows", [&] {
            CooMatrix<double> coo;
            coo.rows = coo.cols = nImbalanced;
            for (Index r = 0; r < nImbalanced; ++r) {
                const int reach = r < nImbalanced / 8 ? 16 : 2;
                for (int d = -reach; d <= reach; ++d) {
                    const Count c = Count(r) + d;
                    if (c < 0 || c >= nImbalanced) continue;
                    coo.rowIndex.push_back(r);
                    coo.colIndex.push_back(static_cast<Index>(c));
                    coo.values.push_back(d == 0 ? 2.0 * reach + 1 : -1.0);
                }
            }
            return coo;
        });
        report.write(settings.out);
        std::printf("wrote %s.md and %s.json\n", settings.out.c_str(), settings.out.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_spmv_dia: %s\n", e.what());
        return 1;
    }
    return 0;
}
