// Method B benchmark: segmented DIA (merged row segments) against cuSPARSE CSR SpMV, plain DIA and
// HDIA on the same matrices in one run; the device-to-device copy bandwidth is measured first so
// every row can say what fraction of it the SpMV reaches.
//   bench_segdia [--quick] [--sweep] [--only NAME] [--group all|stencils|scaled] [--case imbalanced]
//                  [--grid2d N] [--matrices DIR] [--type real|f32|f64|c64|c128] [--out STEM]
//   (STEM.md and STEM.json are written). bench/results/spmv_dia.* is `--group stencils`,
//   bench/results/spmv_dia_scaled.* is `--group scaled --out bench/results/spmv_dia_scaled`,
//   bench/results/spmv_dia_merge.* is `--case imbalanced --out bench/results/spmv_dia_merge`: only the
//   matrices whose segments differ in work (at 2.1 M rows), the merged layout against the same segments
//   one block each, at 1024 and 256 rows; bench/results/spmv_dia_sweep.* is `--sweep --group stencils
//   --type f32` (the f64 rows at the chosen segment length are in spmv_dia.*). `--type c64` (or c128) runs the same rows in complex values
//   instead of f32 and f64 (the matrix's values as real parts, seeded imaginary parts, x complex) and
//   writes bench/results/spmv_dia_c64.* unless --out is given; each case then prints segmented DIA's
//   speed-up over cuSPARSE CSR and its share of copy bandwidth.
// Every row's y is compared with the CPU reference (bound per row from precision and row length); a
// row above its bound, or one whose check did not run, makes the program exit 1. The targets of
// docs/method-b-segdia.md are printed (and written) with what this run measured.
#include "bench_support.h"
#include "spyglass/cuda/copybandwidth.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/cuda/segdia_device_api.h"
#include "spyglass/backend.h"
#include "spyglass/benchmark.h"
#include "spyglass/convert.h"
#include "spyglass/segdia_generators.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <complex>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

using namespace spyglass;

namespace {

struct Settings {
    bool quick = false, sweep = false;
    std::string only;  // run only cases whose name contains this
    std::string group = "all";  // stencils: generated matrices; scaled: the real banded ones scaled up
    // --case imbalanced: only the cases where merging has work to do, and only the rows that compare
    // merged blocks with unmerged ones (well under a minute on an H100).
    bool mergeOnly = false;
    std::string out = "bench/results/spmv_dia";
    Index threshold = 0;  // --threshold T: rows per segment; 0 (--threshold auto): chosen per matrix by the library
    int rowsPerThread = 4;
    Index grid2d = 0;  // --grid2d N: the 2-D Laplacian's side (0: 4096, or 1024 with --quick)
    std::string type = "real";  // --type: real (f32 and f64), f32 or f64 alone, c64 or c128
    bool outGiven = false;
    // Real banded matrices to scale up: $SPYGLASS_DATA/matrices when set (the device bundle), else
    // the repository's test set.
    std::string matrices = std::getenv("SPYGLASS_DATA") ? std::string(std::getenv("SPYGLASS_DATA")) + "/matrices"
                                                        : std::string("tests/data/matrices");
};

// Worst |y - reference| over the precision bound of its row (<= 1: within the bound). A NaN (a row the
// kernel never wrote: y is filled with NaN before every variant) makes the result NaN, which fails.
// Complex values: moduli, and twice the real bound (each part of a complex product is two real
// products and a sum).
template <typename T> constexpr bool kComplex = !std::is_floating_point_v<T>;
// Useful flops of one stored entry: a multiply-add, in complex values four multiplies and four adds.
template <typename T> constexpr double kFlopsPerEntry = kComplex<T> ? 8.0 : 2.0;
template <typename T> auto widened(const T& v) {
    if constexpr (kComplex<T>) return std::complex<double>(v);
    else return double(v);
}

template <typename T>
double worstErrorRatio(const std::vector<T>& got, const std::vector<T>& want, const CsrMatrix<T>& a, const std::vector<T>& x) {
    using R = decltype(std::abs(T{}));
    const double eps = std::numeric_limits<R>::epsilon() * (kComplex<T> ? 2 : 1);
    double worst = 0;
    for (Index i = 0; i < a.rows; ++i) {
        double magnitude = 0;
        for (Count k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) magnitude += std::abs(widened(a.values[k]) * widened(x[a.colIndex[k]]));
        const double rowLength = double(a.rowPtr[i + 1] - a.rowPtr[i] + 1);
        const double bound = 2.0 * rowLength * eps * magnitude + std::numeric_limits<R>::denorm_min();
        const double ratio = std::abs(widened(got[i]) - widened(want[i])) / bound;
        if (!(ratio <= worst)) worst = ratio;  // std::max would drop a NaN
    }
    return worst;
}

// What the targets and the merge summary need from one case in one precision.
struct CaseFigures {
    std::string name;  // the case, without the precision
    std::string type;  // f32, f64, c64 or c128
    Count nnz = 0;
    double cusparseMs = 0, segmentedMs = 0, segmentedGBs = 0, padding = 0, plainDiaMs = 0;
    // Merged blocks against the same segments one block each: {threshold, merges, segments, blocks, merged ms, unmerged ms}.
    struct Merge { Index threshold = 0; std::size_t merges = 0; Count segments = 0, blocks = 0; double mergedMs = 0, unmergedMs = 0; };
    std::vector<Merge> merges;
};

// The same storage with one block per segment: what the build gives with merge = false (HDIA's block
// layout), without building again, and with the same remainder as the merged build (buildHdia would
// turn the remainder off), so the pair differs in the merge alone.
template <typename T>
SegmentedDiaMatrix<T> oneBlockPerSegment(SegmentedDiaMatrix<T> m) {
    m.mergeSteps.clear();
    m.blockStart.resize(static_cast<std::size_t>(m.segments()) + 1);
    m.blockSegments.resize(static_cast<std::size_t>(m.segments()));
    for (Index s = 0; s <= m.segments(); ++s) m.blockStart[std::size_t(s)] = s;
    for (Index s = 0; s < m.segments(); ++s) m.blockSegments[std::size_t(s)] = s;
    return m;
}

// The case's values in T: as they are for f32 and f64; complex ones keep them as real parts and take
// seeded imaginary parts in [-1, 1), so that a kernel that dropped or conjugated them fails the check.
template <typename T>
CooMatrix<T> caseValues(const CooMatrix<double>& coo64) {
    if constexpr (kComplex<T>) {
        CooMatrix<T> coo;
        coo.rows = coo64.rows, coo.cols = coo64.cols, coo.rowIndex = coo64.rowIndex, coo.colIndex = coo64.colIndex;
        coo.values.resize(coo64.values.size());
        std::mt19937 rng(43);
        std::uniform_real_distribution<double> dist(-1, 1);
        for (std::size_t k = 0; k < coo.values.size(); ++k) coo.values[k] = T(coo64.values[k], dist(rng));
        return coo;
    } else {
        return convertValues<T>(coo64);
    }
}

// x uniform in [-1, 1) (both parts for a complex T).
template <typename T>
std::vector<T> caseX(Index cols) {
    std::vector<T> x(static_cast<std::size_t>(cols));
    std::mt19937 rng(42);
    std::uniform_real_distribution<double> dist(-1, 1);
    for (auto& v : x) {
        const double re = dist(rng);  // named: the order of the two draws is fixed
        if constexpr (kComplex<T>) v = T(re, dist(rng));
        else v = T(re);
    }
    return x;
}

template <typename T>
CaseFigures runCase(bench::Report& report, const Settings& settings, const std::string& name, const CooMatrix<double>& coo64,
                    bool mergeStudy) {
    const std::string benchmark = name + " " + bench::typeName<T>();
    CaseFigures figures;
    figures.name = name;
    figures.type = bench::typeName<T>();
    const CooMatrix<T> coo = caseValues<T>(coo64);
    const auto csr = cooToCsr(coo);
    const std::vector<T> x = caseX<T>(coo.cols);
    const auto reference = spmvReference(csr, x);

    cuda::DeviceBuffer<T> dx, dy(static_cast<std::size_t>(coo.rows));
    dx.upload(x);
    cuda::EventTimer timer;
    const int warmup = 5, repeats = settings.quick ? 10 : 50;
    SPYGLASS_CUDA_CHECK(cudaMemset(dy.data(), 0xff, dy.bytes()));  // NaN: a row left unwritten fails the check
    const auto finish = [&](bench::Row row) {
        std::vector<T> y(static_cast<std::size_t>(coo.rows));
        dy.download(y.data(), y.size());
        SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
        row.setCheck(worstErrorRatio(y, reference, csr, x), 1.0);
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
        row.flops = kFlopsPerEntry<T> * double(csr.nnz());
        row.note = "nnz " + std::to_string(csr.nnz());
        figures.nnz = csr.nnz();
        figures.cusparseMs = row.time.medianMs;
        finish(row);
    }
    const auto segmentedRow = [&](const SegmentedDiaMatrix<T>& m, const std::string& variant, int rowsPerThread,
                                  SegmentedDiaLoads loads,
                                  SegmentedDiaRemainderKernel remainder = SegmentedDiaRemainderKernel::Automatic,
                                  int remainderWidth = 0) -> double {
        const auto stats = computeSegmentedDiaStats(m);
        cuda::DeviceSegmentedDia<T> op(m);
        bench::Row row{benchmark, variant, false};
        row.time = timed([&] { op.multiply(dx.data(), dy.data(), nullptr, {loads, rowsPerThread, remainderWidth, remainder}); });
        row.bytes = op.bytesMoved();
        row.flops = kFlopsPerEntry<T> * double(csr.nnz());
        char note[300];
        std::snprintf(note, sizeof note,
                      "padding %.3f (DIA part), remainder %lld nnz / %.1f MB in %lld segments, %lld segments -> %lld blocks, "
                      "%zu merges, work max/min %lld/%lld",
                      stats.paddingRatio, (long long)stats.remainderNonzeros, double(stats.remainderBytes) / 1e6,
                      (long long)stats.remainderSegments, (long long)stats.segments, (long long)stats.blocks,
                      m.mergeSteps.size(), (long long)stats.maxBlockWork, (long long)stats.minBlockWork);
        row.note = note;
        finish(row);
        return row.time.medianMs;
    };
    // The default row: the segment length the library chooses (what the GUI, the CLI and compare use),
    // unless --threshold fixes it. The other rows keep the chosen length so they compare like with like.
    const auto segmented = buildSegmentedDia(coo, {settings.threshold, true, SegmentedDiaRemainder::Auto});  // 0: chosen
    const std::string t = std::to_string(segmented.threshold);
    constexpr auto vector16 = SegmentedDiaLoads::Vector16, scalar = SegmentedDiaLoads::Scalar;
    figures.segmentedMs = segmentedRow(segmented, "segmented DIA T=" + t + (settings.threshold > 0 ? "" : " (chosen)") + " v16", 0, vector16);
    figures.padding = computeSegmentedDiaStats(segmented).paddingRatio;
    figures.segmentedGBs = report.rows().back().gbPerSecond();
    // Merged blocks against the same segments one block each, at the default segment length and at
    // 256 rows, where a segment is one row per thread and blocks are many and short.
    const auto mergeComparison = [&](const SegmentedDiaMatrix<T>& merged, double mergedMs) {
        const std::string rows = std::to_string(merged.threshold);
        const double unmergedMs = segmentedRow(oneBlockPerSegment(merged), "segmented DIA T=" + rows + " v16, no merge (one block per segment)",
                                               0, vector16);
        const auto stats = computeSegmentedDiaStats(merged);
        figures.merges.push_back({merged.threshold, merged.mergeSteps.size(), stats.segments, stats.blocks, mergedMs, unmergedMs});
    };
    const auto mergeStudyRows = [&] {
        if (segmented.threshold == 1024) {
            mergeComparison(segmented, figures.segmentedMs);
        } else {
            const auto long1024 = buildSegmentedDia(coo, {1024, true, SegmentedDiaRemainder::Auto});
            mergeComparison(long1024, segmentedRow(long1024, "segmented DIA T=1024 v16 (merged)", 0, vector16));
        }
        const auto short256 = buildSegmentedDia(coo, {256, true, SegmentedDiaRemainder::Auto});
        mergeComparison(short256, segmentedRow(short256, "segmented DIA T=256 v16 (merged)", 0, vector16));
    };
    if (settings.mergeOnly) {
        mergeStudyRows();
        return figures;
    }
    if (!segmented.remainderValues.empty()) {
        // How the remainder is summed: the library's choice (above) against each kernel: its own pass
        // of row blocks, and fused into the DIA pass owner threads, and sub-warps into shared memory,
        // width per segment from the mean row length (the first version) or fixed.
        constexpr auto owners = SegmentedDiaRemainderKernel::Owners, subWarps = SegmentedDiaRemainderKernel::SubWarps;
        segmentedRow(segmented, "segmented DIA T=" + t + " v16, remainder by row blocks (own pass)", 0, vector16,
                     SegmentedDiaRemainderKernel::RowBlocks);
        segmentedRow(segmented, "segmented DIA T=" + t + " v16, remainder by owner threads (fused)", 0, vector16, owners);
        segmentedRow(segmented, "segmented DIA T=" + t + " v16, remainder by sub-warps (width from mean)", 0, vector16, subWarps, 0);
        segmentedRow(segmented, "segmented DIA T=" + t + " v16, remainder by sub-warps of 4", 0, vector16, subWarps, 4);
    }
    // The plain byte rule (weight 1), where it builds something else than the default weight.
    // Skipped on the 83 M-nonzero Laplacian, whose full diagonals it builds the same (one build less).
    const auto plainBytes = coo.nnz() < 60'000'000 ? buildSegmentedDia(coo, {segmented.threshold, true, SegmentedDiaRemainder::Auto, 1.0})
                                                   : segmented;
    if (plainBytes.remainderValues.size() != segmented.remainderValues.size())
        segmentedRow(plainBytes, "segmented DIA T=" + t + " v16, plain byte rule (weight 1)", 0, vector16);
    if (!segmented.remainderValues.empty() || !plainBytes.remainderValues.empty())
        segmentedRow(buildSegmentedDia(coo, {segmented.threshold, true, SegmentedDiaRemainder::Off}),
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
    if (mergeStudy) mergeStudyRows();
    // HDIA as the seed names it: equal row groups, no merge, pure DIA (no remainder).
    segmentedRow(buildHdia(coo, segmented.threshold), "HDIA (rows " + t + ", no merge) v16", 0, vector16);
    segmentedRow(buildHdia(coo, 256), "HDIA (rows 256, no merge) v16", 0, vector16);
    try {
        const auto dia = buildDia(coo, Count(3) << 29);  // up to 1.6 G slots: the CFD case fits an H100
        cuda::DeviceDia<T> op(dia);
        bench::Row row{benchmark, "plain DIA (Bell-Garland)", false};
        row.time = timed([&] { op.multiply(dx.data(), dy.data()); });
        row.bytes = op.bytesMoved();
        row.flops = kFlopsPerEntry<T> * double(csr.nnz());
        char note[120];
        std::snprintf(note, sizeof note, "padding %.3f, %zu diagonals", double(dia.storedSlots()) / double(dia.nonzeros),
                      dia.offsets.size());
        row.note = note;
        figures.plainDiaMs = row.time.medianMs;
        finish(row);
    } catch (const OutOfMemoryError& e) {
        // Plain DIA's known limit (rows x diagonals slots), not a wrong result: no row, said so.
        std::printf("%s plain DIA skipped: %s\n", benchmark.c_str(), e.what());
    }
    return figures;
}

std::string fixed(double value, int decimals) {
    char text[48];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

// The targets of docs/method-b-segdia.md, from this run's figures (the default segmented-DIA
// row: the segment length the library chooses, v16 loads, Auto remainder).
void addTargets(bench::Report& report, const std::vector<CaseFigures>& cases, double copyGBs) {
    using Status = bench::Target::Status;
    const auto find = [&](const std::string& prefix, const char* type) -> const CaseFigures* {
        for (const CaseFigures& c : cases)
            if (c.type == type && c.name.rfind(prefix, 0) == 0) return &c;
        return nullptr;
    };
    const auto status = [](bool met) { return met ? Status::Met : Status::NotMet; };
    if (const CaseFigures* c = find("laplacian2d 4096^2", "f32")) {
        const double share = c->segmentedGBs / copyGBs;
        report.addTarget({"2-D Laplacian 4096^2 f32: >= 75 % of copy bandwidth", fixed(100 * share, 1) + " %", status(share >= 0.75)});
        // The copy bandwidth is that of a 1 GiB copy; a copy of this kernel's own bytes (about 0.1 ms
        // on an H200) pays its ramp-up and tail over fewer bytes: printed beside it as the ceiling at
        // this size, with the kernel's share of it.
        const double bytes = c->segmentedGBs * c->segmentedMs * 1e6;
        const double sameSizeGBs = cuda::copyBandwidthGBs(static_cast<std::size_t>(bytes / 2), 3, 20);
        report.addTarget({"2-D Laplacian 4096^2 f32: >= 95 % of copy bandwidth (issue #31)",
                          fixed(100 * share, 1) + " %; a copy of the same " + fixed(bytes / 1e6, 0) + " MB (read + write) reaches " +
                              fixed(100 * sameSizeGBs / copyGBs, 1) + " %, the kernel " + fixed(100 * c->segmentedGBs / sameSizeGBs, 1) +
                              " % of it",
                          status(share >= 0.95)});
        // The ceiling: the segmented-DIA bytes moved at the full copy bandwidth. At this matrix's bytes
        // and cuSPARSE's time it is about 2.5x, so the 2.5x target asks for 100 % of copy bandwidth.
        const double speedup = c->cusparseMs / c->segmentedMs;
        const double floorMs = c->segmentedGBs * c->segmentedMs / copyGBs;
        report.addTarget({"2-D Laplacian 4096^2 f32: >= 2.5x cuSPARSE",
                          fixed(speedup, 2) + "x (" + fixed(c->cusparseMs, 4) + " / " + fixed(c->segmentedMs, 4) +
                              " ms); ceiling at 100 % of copy bandwidth " + fixed(c->cusparseMs / floorMs, 2) + "x",
                          status(speedup >= 2.5)});
    } else {
        report.addTarget({"2-D Laplacian 4096^2 f32: >= 75 % of copy bandwidth", "", Status::NotMeasured});
        report.addTarget({"2-D Laplacian 4096^2 f32: >= 95 % of copy bandwidth (issue #31)", "", Status::NotMeasured});
        report.addTarget({"2-D Laplacian 4096^2 f32: >= 2.5x cuSPARSE", "", Status::NotMeasured});
    }
    // Banded matrices of at least 10 M nonzeros (the scaled real ones and the generated ones).
    double lowest = 0;
    std::string lowestCase;
    for (const CaseFigures& c : cases) {
        if (c.nnz < 10'000'000 || c.segmentedMs <= 0 || (c.type != "f32" && c.type != "f64")) continue;
        const double speedup = c.cusparseMs / c.segmentedMs;
        if (lowestCase.empty() || speedup < lowest) {
            lowest = speedup;
            lowestCase = c.name + " " + c.type;
        }
    }
    report.addTarget({"never slower than cuSPARSE on a banded matrix of >= 10 M nonzeros",
                      lowestCase.empty() ? "" : "lowest " + fixed(lowest, 2) + "x (" + lowestCase + ")",
                      lowestCase.empty() ? Status::NotMeasured : status(lowest >= 1.0)});
    const CaseFigures* cfd = find("cfd-like 160^3", "f32");
    const CaseFigures* cfd64 = find("cfd-like 160^3", "f64");
    if (cfd) {
        report.addTarget({"CFD-like 160^3: padding <= 10 %", fixed(100 * (cfd->padding - 1), 1) + " % (f32 build)",
                          status(cfd->padding <= 1.10)});
        std::string both = fixed(cfd->cusparseMs / cfd->segmentedMs, 2) + "x f32";
        bool met = cfd->cusparseMs / cfd->segmentedMs >= 1.5;
        if (cfd64) {
            both += ", " + fixed(cfd64->cusparseMs / cfd64->segmentedMs, 2) + "x f64";
            met = met && cfd64->cusparseMs / cfd64->segmentedMs >= 1.5;
        }
        report.addTarget({"CFD-like 160^3: >= 1.5x cuSPARSE", both, status(met)});
        if (cfd->plainDiaMs > 0)
            report.addTarget({"CFD-like 160^3: >= 2x plain DIA", fixed(cfd->plainDiaMs / cfd->segmentedMs, 1) + "x f32",
                              status(cfd->plainDiaMs / cfd->segmentedMs >= 2.0)});
        else
            report.addTarget({"CFD-like 160^3: >= 2x plain DIA", "plain DIA did not fit", Status::NotMeasured});
    } else {
        for (const char* goal : {"CFD-like 160^3: padding <= 10 %", "CFD-like 160^3: >= 1.5x cuSPARSE", "CFD-like 160^3: >= 2x plain DIA"})
            report.addTarget({goal, "", Status::NotMeasured});
    }
}

// Where merging had work to do: merges, blocks and both times, one line per case, precision and
// segment length ("merging 1.10x": the unmerged layout takes 1.10 times as long).
void printMergeSummary(const std::vector<CaseFigures>& cases) {
    bool header = false;
    for (const CaseFigures& c : cases)
        for (const CaseFigures::Merge& m : c.merges) {
            if (!header) {
                std::printf("\nMerging (merged blocks vs the same segments one block each):\n");
                header = true;
            }
            std::printf("  %-48s %s T=%-5d %6zu merges, %lld segments -> %lld blocks: merged %.4f ms, unmerged %.4f ms "
                        "(merging %.2fx)\n",
                        c.name.c_str(), c.type.c_str(), int(m.threshold), m.merges, (long long)m.segments,
                        (long long)m.blocks, m.mergedMs, m.unmergedMs, m.mergedMs > 0 ? m.unmergedMs / m.mergedMs : 0.0);
        }
}

// --type c64|c128: the case's default segmented-DIA row against cuSPARSE CSR in the same values (no
// documented target yet, so a figure rather than a verdict).
void printComplexSummary(const CaseFigures& c, double copyGBs) {
    if (c.segmentedMs <= 0 || c.cusparseMs <= 0) return;
    std::printf("%s %s: segmented DIA %.2fx cuSPARSE CSR (%.4f / %.4f ms), %.1f %% of copy bandwidth (%.1f / %.1f GB/s)\n",
                c.name.c_str(), c.type.c_str(), c.cusparseMs / c.segmentedMs, c.cusparseMs, c.segmentedMs,
                100 * c.segmentedGBs / copyGBs, c.segmentedGBs, copyGBs);
}

} // namespace

int main(int argc, char** argv) {
    Settings settings;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) settings.quick = true;
        else if (!std::strcmp(argv[i], "--sweep")) settings.sweep = true;
        else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) settings.out = argv[++i], settings.outGiven = true;
        else if (!std::strcmp(argv[i], "--type") && i + 1 < argc) settings.type = argv[++i];
        else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) settings.only = argv[++i];
        else if (!std::strcmp(argv[i], "--threshold") && i + 1 < argc) {
            ++i;
            settings.threshold = !std::strcmp(argv[i], "auto") ? 0 : std::atoi(argv[i]);
            if (settings.threshold < 0 || (settings.threshold == 0 && std::strcmp(argv[i], "auto"))) {
                std::fprintf(stderr, "bench_segdia: --threshold takes auto or a positive row count, got '%s'\n", argv[i]);
                return 2;
            }
        }
        else if (!std::strcmp(argv[i], "--rows-per-thread") && i + 1 < argc) settings.rowsPerThread = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--matrices") && i + 1 < argc) settings.matrices = argv[++i];
        else if (!std::strcmp(argv[i], "--group") && i + 1 < argc) settings.group = argv[++i];
        else if (!std::strcmp(argv[i], "--grid2d") && i + 1 < argc) settings.grid2d = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--case") && i + 1 < argc && !std::strcmp(argv[i + 1], "imbalanced")) {
            settings.mergeOnly = true;
            ++i;
        } else {
            std::fprintf(stderr, "usage: %s [--quick] [--sweep] [--threshold auto|T] [--rows-per-thread 1|2|4] [--only NAME] "
                                 "[--group all|stencils|scaled] [--case imbalanced] [--grid2d N] [--matrices DIR] [--type real|f32|f64|c64|c128] "
                                 "[--out STEM]\n", argv[0]);
            return 2;
        }
    }
    if (settings.group != "all" && settings.group != "stencils" && settings.group != "scaled") {
        std::fprintf(stderr, "bench_segdia: --group must be all, stencils or scaled, got '%s'\n", settings.group.c_str());
        return 2;
    }
    // real: f32 and f64 rows; f32 or f64 alone: half the cases' time (the sweep fits one device call).
    if (settings.type != "real" && settings.type != "f32" && settings.type != "f64" && settings.type != "c64" &&
        settings.type != "c128") {
        std::fprintf(stderr, "bench_segdia: --type must be real, f32, f64, c64 or c128, got '%s'\n", settings.type.c_str());
        return 2;
    }
    // Complex rows go to their own files: the real ones (the method's targets) are not overwritten.
    if ((settings.type == "c64" || settings.type == "c128") && !settings.outGiven) settings.out = "bench/results/spmv_dia_" + settings.type;
    const DeviceInfo device = cudaDeviceInfo();
    if (!bench::deviceReady(device, "bench_segdia")) return 1;
    return bench::exitCodeOf("bench_segdia", [&] {
        bench::Report report("SpMV for diagonal-structured matrices (method B: merged row segments)", device.name);
        const double copy = cuda::copyBandwidthGBs(std::size_t(1) << 30, 3, 20);
        std::printf("device %s, device-to-device copy %.1f GB/s (read + write)\n", device.name.c_str(), copy);
        report.setPeakBandwidth(copy);
        const Index n2 = settings.grid2d > 0 ? settings.grid2d : settings.quick ? 1024 : 4096;
        const Index n3 = settings.quick ? 64 : 160;
        const Index n27 = settings.quick ? 64 : 128;
        std::vector<CaseFigures> figures;
        // Matrices are generated only for the cases that run. mergeStudy: a case whose segments differ
        // in work, where the merged layout is compared with the unmerged one at two segment lengths.
        const auto run = [&](const std::string& name, const std::function<CooMatrix<double>()>& make, bool mergeStudy = false) {
            if (!settings.only.empty() && name.find(settings.only) == std::string::npos) return;
            if (settings.mergeOnly && !mergeStudy) return;
            const bool scaledCase = name.find(".mtx") != std::string::npos;
            if ((settings.group == "stencils" && scaledCase) || (settings.group == "scaled" && !scaledCase)) return;
            const auto coo = make();
            if (settings.type == "c64") {
                figures.push_back(runCase<std::complex<float>>(report, settings, name, coo, mergeStudy));
            } else if (settings.type == "c128") {
                figures.push_back(runCase<std::complex<double>>(report, settings, name, coo, mergeStudy));
            } else {
                if (settings.type != "f64") figures.push_back(runCase<float>(report, settings, name, coo, mergeStudy));
                if (settings.type != "f32") figures.push_back(runCase<double>(report, settings, name, coo, mergeStudy));
            }
            if (settings.type == "c64" || settings.type == "c128") printComplexSummary(figures.back(), copy);
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
        // Where merging has work to do (the merge study): segments that differ in work, once with the
        // heavy rows together, once scattered in 256-row pieces along the whole matrix.
        // 4.2 M rows in the full run; 2.1 M for `--case imbalanced` alone (about 0.05 ms a multiply), so
        // that its host-side generation and builds stay well within a minute.
        const Index nImbalanced = settings.quick ? (1 << 18) : settings.mergeOnly ? (1 << 21) : (1 << 22);
        run("imbalanced band " + std::to_string(nImbalanced) + " rows", [&] { return generators::imbalancedBand(nImbalanced); }, true);
        run("scattered bands " + std::to_string(nImbalanced) + " rows (256-row pieces, 1 in 8 wide)",
            [&] { return generators::scatteredBands(nImbalanced, 256, 11); }, true);
        printMergeSummary(figures);
        addTargets(report, figures, copy);
        report.printTargets();
        report.write(settings.out);
        std::printf("wrote %s.md and %s.json\n", settings.out.c_str(), settings.out.c_str());
        return report.printVerdict();
    });
}
