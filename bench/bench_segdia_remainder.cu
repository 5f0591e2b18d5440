// Method B where the CSR remainder carries the matrix: the unstructured matrices of the format
// comparison (the test set's scattered ones tiled past 10 M nonzeros, power-law rows, dense blocks
// among scattered entries). Per case, in one process on the same data:
//   - cuSPARSE CSR on the whole matrix (the baseline) and segmented DIA with the library's choice of
//     remainder kernel and with each (row blocks; owners and sub-warps, fused into the DIA pass);
//   - the remainder pass alone against cuSPARSE CSR on the same rows (the remainder as a CSR matrix
//     of all rows), the comparison issue #31 asks for. cuSPARSE runs with beta = 0, its cheapest path
//     (it writes every row and reads no y), on y = 0, where the pass adds to y = 0; both its CSR
//     algorithms run and the faster correct one is the baseline.
//   bench_segdia_remainder [--quick] [--only NAME] [--matrices DIR] [--type f32|f64] [--out STEM]
//   (default STEM bench/results/spmv_dia_remainder; STEM.md and STEM.json are written).
// Every row's y is checked against the CPU reference (bound per row from precision and row length);
// a row above its bound, or one whose check did not run, makes the program exit 1.
#include "bench_support.h"
#include "spyglass/benchmark.h"
#include "spyglass/convert.h"
#include "spyglass/cuda/copybandwidth.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/cuda/segdia_device_api.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrixgenerators_irregular.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_remainder_blocks.h"
#include "spyglass/segdia_generators.h"
#include "spyglass/segdia_spmv.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <utility>
#include <string>

using namespace spyglass;

namespace {

struct Settings {
    bool quick = false;
    std::string only, type = "f32";
    std::string out = "bench/results/spmv_dia_remainder";
    std::string matrices = std::getenv("SPYGLASS_DATA") ? std::string(std::getenv("SPYGLASS_DATA")) + "/matrices"
                                                        : std::string("tests/data/matrices");
};

// Worst |y - want| over its row's bound 2 (n_i + 1) (eps sum_j |a_ij x_j| + tiny) (<= 1 passes; NaN
// fails); `where` names that row, its length and both values. tiny is the smallest normal number: a
// kernel that flushes subnormal products and sums to zero loses less than that at each of its
// operations, and cuSPARSE CSR_ALG1 does (hangGlider_2's remainder has rows whose y is 1e-38).
// Without it ALG1 failed with the rest of its y right.
template <typename T>
double worstErrorRatio(const std::vector<T>& got, const std::vector<T>& want, const CsrMatrix<T>& a, const std::vector<T>& x,
                       std::string* where) {
    const double eps = std::numeric_limits<T>::epsilon();
    double worst = 0;
    Index worstRow = 0;
    for (Index i = 0; i < a.rows; ++i) {
        double magnitude = 0;
        for (Count k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) magnitude += std::abs(double(a.values[k]) * double(x[a.colIndex[k]]));
        const double bound = 2.0 * double(a.rowPtr[i + 1] - a.rowPtr[i] + 1) * (eps * magnitude + std::numeric_limits<T>::min());
        const double ratio = std::abs(double(got[i]) - double(want[i])) / bound;
        if (!(ratio <= worst)) worst = ratio, worstRow = i;
    }
    char text[160];
    std::snprintf(text, sizeof text, "worst row %lld (%lld entries): %.6g, reference %.6g", (long long)worstRow,
                  (long long)(a.rows > 0 ? a.rowPtr[worstRow + 1] - a.rowPtr[worstRow] : 0),
                  a.rows > 0 ? double(got[worstRow]) : 0.0, a.rows > 0 ? double(want[worstRow]) : 0.0);
    *where = text;
    return worst;
}

// The remainder as a CSR matrix over all rows: the rows the remainder pass takes, the others empty
// (its row starts are the pass's own, spyglass/segdia_remainder_blocks.h).
template <typename T>
CsrMatrix<T> remainderAsCsr(const SegmentedDiaMatrix<T>& m) {
    CsrMatrix<T> r;
    r.rows = m.rows;
    r.cols = m.cols;
    const std::vector<Index> rowStart = planRemainderRowBlocks(m).rowStart;
    r.rowPtr.assign(rowStart.begin(), rowStart.end());
    r.colIndex = m.remainderColumns;
    r.values = m.remainderValues;
    return r;
}

// What one case gives the targets.
struct CaseFigures {
    std::string name;
    double cusparseMs = 0, segmentedMs = 0, remainderMs = 0, cusparseRemainderMs = 0;
};

template <typename T>
CaseFigures runCase(bench::Report& report, const Settings& settings, const std::string& name, const CooMatrix<double>& coo64) {
    const std::string benchmark = name + " " + bench::typeName<T>();
    CaseFigures figures;
    figures.name = benchmark;
    const CooMatrix<T> coo = convertValues<T>(coo64);
    const auto csr = cooToCsr(coo);
    std::vector<T> x(static_cast<std::size_t>(coo.cols));
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> dist(-1, 1);
    for (T& v : x) v = T(dist(rng));
    const auto reference = spmvReference(csr, x);

    cuda::DeviceBuffer<T> dx, dy(static_cast<std::size_t>(coo.rows));
    dx.upload(x);
    cuda::EventTimer timer;
    const int warmup = 5, repeats = settings.quick ? 10 : 50;
    const auto timed = [&](const std::function<void()>& launch) {
        return bench::measure([&] {
            timer.start();
            launch();
            return double(timer.stopMilliseconds());
        }, warmup, repeats);
    };
    // Checks y after one launch on y filled with `fill` bytes (0xff: NaN, so a row left unwritten
    // fails), against `want` and the bounds of `a`; then times the launch. checkedRow returns the row,
    // measureRow also prints and keeps it and returns its median.
    const auto checkedRow = [&](bench::Row row, unsigned char fill, const std::function<void()>& launch, const std::vector<T>& want,
                                const CsrMatrix<T>& a) {
        SPYGLASS_CUDA_CHECK(cudaMemset(dy.data(), fill, dy.bytes()));
        launch();
        std::vector<T> y(static_cast<std::size_t>(coo.rows));
        dy.download(y.data(), y.size());
        SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
        std::string where;
        row.setCheck(worstErrorRatio(y, want, a, x, &where), 1.0);
        if (row.error > 1.0) row.note += "; " + where;
        row.time = timed(launch);
        return row;
    };
    const auto measureRow = [&](bench::Row row, unsigned char fill, const std::function<void()>& launch, const std::vector<T>& want,
                                const CsrMatrix<T>& a) {
        row = checkedRow(row, fill, launch, want, a);
        report.print(row);
        report.add(row);
        return row.time.medianMs;
    };
    // Both CSR algorithms of cuSPARSE on `a` (beta = 0, y = a x); the faster correct one is the
    // baseline (kept last, as the report compares with the latest baseline) and its median is
    // returned. One whose y is wrong would not be timed: its row would say where it went wrong.
    const auto vendorRows = [&](const std::string& prefix, const CsrMatrix<T>& a, const std::vector<T>& want, double bytes) {
        std::vector<bench::Row> rows;
        int best = -1;
        for (const auto& [algorithm, label] : {std::pair{CUSPARSE_SPMV_CSR_ALG1, "CSR_ALG1"}, std::pair{CUSPARSE_SPMV_CSR_ALG2, "CSR_ALG2"}}) {
            bench::Row row{benchmark, prefix + "cuSPARSE " + label, false};
            row.bytes = bytes;
            row.flops = 2.0 * double(a.nnz());
            row.note = std::to_string(a.nnz()) + " entries over " + std::to_string(a.rows) + " rows";
            cuda::CusparseCsrSpmv<T> vendor(a, dx.data(), dy.data(), nullptr, algorithm);
            SPYGLASS_CUDA_CHECK(cudaMemset(dy.data(), 0, dy.bytes()));
            vendor.multiply(nullptr);
            std::vector<T> y(static_cast<std::size_t>(coo.rows));
            dy.download(y.data(), y.size());
            std::string where;
            if (worstErrorRatio(y, want, a, x, &where) > 1.0) {
                row.setInformational(std::string("not timed: cuSPARSE ") + label + " gives a wrong y here, " + where);
                std::printf("%s: cuSPARSE %s gives a wrong y: %s\n", benchmark.c_str(), label, where.c_str());
                rows.push_back(row);
                continue;
            }
            rows.push_back(checkedRow(row, 0xff, [&] { vendor.multiply(nullptr); }, want, a));
            if (best < 0 || rows.back().time.medianMs < rows[std::size_t(best)].time.medianMs) best = int(rows.size()) - 1;
        }
        if (best < 0) throw std::runtime_error(benchmark + ": no cuSPARSE algorithm gave a right y on " + prefix + "the matrix");
        rows[std::size_t(best)].isBaseline = true;
        std::rotate(rows.begin() + best, rows.begin() + best + 1, rows.end());  // the baseline last
        for (const bench::Row& row : rows) {
            report.print(row);
            report.add(row);
        }
        return rows.back().time.medianMs;
    };

    const auto segmented = buildSegmentedDia(coo, {kChooseSegmentThreshold, true, SegmentedDiaRemainder::Auto});
    const auto stats = computeSegmentedDiaStats(segmented);
    const double xyBytes = double(sizeof(T)) * double(coo.rows + coo.cols);
    figures.cusparseMs = vendorRows("whole matrix: ", csr, reference, double(csr.nnz()) * double(sizeof(T) + sizeof(Index)) +
                                                                       double(sizeof(Index)) * double(csr.rows + 1) + xyBytes);
    cuda::DeviceSegmentedDia<T> op(segmented);
    const auto kernelRow = [&](SegmentedDiaRemainderKernel kernel, int width, const std::string& label) {
        bench::Row row{benchmark, "segmented DIA, remainder by " + label, false};
        row.bytes = op.bytesMoved();
        row.flops = 2.0 * double(csr.nnz());
        char note[200];
        std::snprintf(note, sizeof note, "T=%d, %lld segments in %lld blocks, remainder %lld of %lld nonzeros in %lld row blocks",
                      int(segmented.threshold), (long long)stats.segments, (long long)stats.blocks,
                      (long long)stats.remainderNonzeros, (long long)csr.nnz(), (long long)op.remainderBlocks());
        row.note = note;
        const SegmentedDiaVariant variant{SegmentedDiaLoads::Vector16, 0, width, kernel};
        return measureRow(row, 0xff, [&] { op.multiply(dx.data(), dy.data(), nullptr, variant); }, reference, csr);
    };
    figures.segmentedMs = kernelRow(SegmentedDiaRemainderKernel::Automatic, 0, "the library's choice (default)");
    if (stats.remainderNonzeros == 0) return figures;  // nothing for the remainder rows below
    kernelRow(SegmentedDiaRemainderKernel::RowBlocks, 0, "row blocks (own pass)");
    kernelRow(SegmentedDiaRemainderKernel::Owners, 0, "owners (fused)");
    kernelRow(SegmentedDiaRemainderKernel::SubWarps, 0, "sub-warps (fused, width from mean)");

    // The remainder pass alone against cuSPARSE on the same rows, both adding to y = 0.
    const CsrMatrix<T> remainder = remainderAsCsr(segmented);
    const auto remainderWant = spmvReference(remainder, x);
    const double remainderBytes = double(remainder.nnz()) * double(sizeof(T) + sizeof(Index)) +
                                  double(sizeof(Index)) * double(remainder.rows + 1) + xyBytes;
    figures.cusparseRemainderMs = vendorRows("remainder: ", remainder, remainderWant, remainderBytes);
    {
        bench::Row row{benchmark, "remainder: Spyglass row blocks alone", false};
        row.bytes = remainderBytes;
        row.flops = 2.0 * double(remainder.nnz());
        row.note = std::to_string(op.remainderBlocks()) + " row blocks";
        figures.remainderMs = measureRow(row, 0, [&] { op.multiplyRemainderRowBlocks(dx.data(), dy.data()); }, remainderWant, remainder);
    }
    return figures;
}

std::string fixed(double value, int decimals) {
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

void addTargets(bench::Report& report, const std::vector<CaseFigures>& cases) {
    using Status = bench::Target::Status;
    for (const CaseFigures& c : cases) {
        if (c.remainderMs > 0) {
            const double ratio = c.cusparseRemainderMs / c.remainderMs;
            report.addTarget({c.name + ": remainder pass >= 1.0x cuSPARSE CSR on its rows, faster algorithm (issue #31)",
                              fixed(ratio, 2) + "x (" + fixed(c.cusparseRemainderMs, 4) + " / " + fixed(c.remainderMs, 4) + " ms)",
                              ratio >= 1.0 ? Status::Met : Status::NotMet});
        }
        const double whole = c.cusparseMs / c.segmentedMs;
        report.addTarget({c.name + ": segmented DIA >= 1.0x cuSPARSE CSR (issue #31)",
                          fixed(whole, 2) + "x (" + fixed(c.cusparseMs, 4) + " / " + fixed(c.segmentedMs, 4) + " ms)",
                          whole >= 1.0 ? Status::Met : Status::NotMet});
    }
}

} // namespace

int main(int argc, char** argv) {
    Settings settings;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) settings.quick = true;
        else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) settings.only = argv[++i];
        else if (!std::strcmp(argv[i], "--matrices") && i + 1 < argc) settings.matrices = argv[++i];
        else if (!std::strcmp(argv[i], "--type") && i + 1 < argc) settings.type = argv[++i];
        else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) settings.out = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--quick] [--only NAME] [--matrices DIR] [--type f32|f64] [--out STEM]\n", argv[0]);
            return 2;
        }
    }
    if (settings.type != "f32" && settings.type != "f64") {
        std::fprintf(stderr, "bench_segdia_remainder: --type must be f32 or f64, got '%s'\n", settings.type.c_str());
        return 2;
    }
    const DeviceInfo device = cudaDeviceInfo();
    if (!bench::deviceReady(device, "bench_segdia_remainder")) return 1;
    return bench::exitCodeOf("bench_segdia_remainder", [&] {
        bench::Report report("SpMV where the CSR remainder carries the matrix (method B, unstructured rows)", device.name);
        const double copy = cuda::copyBandwidthGBs(std::size_t(1) << 30, 3, 20);
        std::printf("device %s, device-to-device copy %.1f GB/s (read + write)\n", device.name.c_str(), copy);
        report.setPeakBandwidth(copy);
        std::vector<CaseFigures> figures;
        const auto run = [&](const std::string& name, const std::function<CooMatrix<double>()>& make) {
            if (!settings.only.empty() && name.find(settings.only) == std::string::npos) return;
            const auto coo = make();
            if (settings.type == "f32") figures.push_back(runCase<float>(report, settings, name, coo));
            else figures.push_back(runCase<double>(report, settings, name, coo));
            report.write(settings.out);  // after every case, so a run cut short keeps what it measured
        };
        // The test set's scattered matrices, tiled along the diagonal past 10 M nonzeros as the format
        // comparison tiles them (bench/results/compare.md).
        for (const auto& [file, copies] : std::vector<std::pair<std::string, Index>>{
                 {"west0479.mtx", 5300}, {"bcsstk13.mtx", 120}, {"hangGlider_2.mtx", 700}, {"sparse-images-1024_subset.mtx", 82}}) {
            const Index scaled = settings.quick ? std::max<Index>(1, copies / 16) : copies;
            run(file + " x" + std::to_string(scaled), [&settings, file = file, scaled] {
                return generators::tiledAlongDiagonal(toCoo<double>(readMatrixMarket(settings.matrices + "/" + file)), scaled);
            });
        }
        const Index n = settings.quick ? 125000 : 1000000;
        run("power-law rows " + std::to_string(n) + " (exponent 2.5, 4 .. 20000 a row)",
            [&] { return generators::powerLawRows(n, n, 4, 2.5, 20000, 5); });
        run("blocky valued " + std::to_string(n) + "^2", [&] {
            BlockyMatrixSpec spec;
            spec.rows = spec.cols = n;
            spec.rectangles = settings.quick ? 4 : 16;
            spec.triangles = settings.quick ? 2 : 8;
            spec.blockSize = 768;
            spec.scattered = settings.quick ? 250000 : 2000000;
            spec.seed = 2027;
            CooMatrix<double> coo = toCoo<double>(matrixFromBinaryPattern(generateBlockyBinary(spec).pattern));
            std::mt19937 values(7);
            std::uniform_int_distribution<int> v(2, 9);
            for (double& value : coo.values) value = v(values) * 0.25;
            return coo;
        });
        addTargets(report, figures);
        report.printTargets();
        report.write(settings.out);
        std::printf("wrote %s.md and %s.json\n", settings.out.c_str(), settings.out.c_str());
        return report.printVerdict();
    });
}
