// "Which format for my matrix?" as a benchmark: the format comparison (spyglass/formatcomparison.h)
// on the real matrices of the test set scaled past 10 M nonzeros along the diagonal (as
// bench_segdia does) and on generated families (2-D/3-D stencils, the CFD-like case, banded with
// sparse diagonals, blocky binary, power-law rows). Per matrix: every format's time, bytes and result
// check, and the pick. Exits non-zero when a row's result disagrees with the reference, when the pick
// is not the fastest measured row, or when it is slower than cuSPARSE CSR (or CSR did not run).
//   bench_compare [--quick] [--cpu] [--complex] [--only NAME] [--types f32[,f64]] [--matrices DIR] [--out STEM]
//   (--cpu: every row on the CPU reference, a smoke test of the cases and checks without a GPU)
//   STEM.md and STEM.json are written (default bench/results/compare).
//   --complex: the complex case instead (young1c, acoustics, tiled past 10 M entries, c128 as the file
//   holds it, x complex; default STEM bench/results/compare_complex).
#include "spyglass/atomicfile.h"
#include "spyglass/backend.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/formatcomparison.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/segdia_generators.h"
#include "spyglass/matrixgenerators_irregular.h"
#include "spyglass/matrixmarket.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace spyglass;

namespace {

struct Settings {
    bool quick = false;
    bool cpu = false;  // smoke test of the cases and checks on a machine without a GPU (CPU reference rows)
    bool complexCase = false;  // --complex: the complex SuiteSparse matrix only
    bool outGiven = false;
    std::string only;
    std::vector<std::string> types = {"f32"};
    std::string matrices = std::getenv("SPYGLASS_DATA") ? std::string(std::getenv("SPYGLASS_DATA")) + "/matrices"
                                                        : std::string("tests/data/matrices");
    std::string out = "bench/results/compare";
};

struct CaseResult {
    std::string name;
    double wallMs = 0;  // the whole comparison: conversion, builds, uploads, runs, checks
    FormatComparison comparison;
    std::vector<std::string> failures;
};

std::string jsonString(const std::string& s) {
    std::string out = "\"";
    for (const char ch : s) {
        if (ch == '"' || ch == '\\') out += '\\', out += ch;
        else if (static_cast<unsigned char>(ch) < 0x20) out += ' ';
        else out += ch;
    }
    return out + "\"";
}

std::string number(double v, int decimals) {
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, v);
    return text;
}

// The targets of the issue, checked on every matrix.
std::vector<std::string> checkTargets(const FormatComparison& c) {
    std::vector<std::string> failures;
    const FormatRow* csr = nullptr;
    int fastest = -1;
    for (std::size_t i = 0; i < c.results.size(); ++i) {
        const FormatRow& row = c.results[i];
        if (!row.applicable) continue;
        if (!row.agrees)
            failures.push_back(row.name + " disagrees with the reference (" + number(row.errorRatio, 2) + " x its bound)");
        if (row.format == SpmvFormat::Csr) csr = &row;
        if (fastest < 0 || row.spmv.medianMs < c.results[std::size_t(fastest)].spmv.medianMs) fastest = int(i);
    }
    if (!csr) failures.push_back("cuSPARSE CSR did not run");
    if (c.pick < 0) failures.push_back("no pick");
    else if (c.pick != fastest) failures.push_back("the pick is not the fastest row (" + c.results[std::size_t(fastest)].name + " is)");
    else if (csr && c.picked()->spmv.medianMs > csr->spmv.medianMs) failures.push_back("the pick is slower than cuSPARSE CSR");
    return failures;
}

// The pick is defined as the fastest agreeing row of its own timing, so checkTargets holds by
// construction. This is the check that can fail: every row timed again, separately, and the pick still
// within 10 % of the fastest agreeing row of that second timing and not slower than its cuSPARSE CSR.
std::vector<std::string> checkPickAgainstSecondTiming(const FormatComparison& first, const FormatComparison& second) {
    std::vector<std::string> failures;
    if (first.pick < 0 || first.results.size() != second.results.size()) return {"no pick, or the second timing ran other rows"};
    double fastest = 0, csr = 0;
    for (const FormatRow& row : second.results) {
        if (!row.applicable || !row.agrees) continue;
        if (fastest == 0 || row.spmv.medianMs < fastest) fastest = row.spmv.medianMs;
        if (row.format == SpmvFormat::Csr) csr = row.spmv.medianMs;
    }
    const FormatRow& again = second.results[std::size_t(first.pick)];
    if (!again.applicable || !again.agrees) failures.push_back("the pick did not run or agree in the second timing");
    else if (again.spmv.medianMs > 1.10 * fastest)
        failures.push_back("second timing: the pick " + again.name + " (" + number(again.spmv.medianMs, 4) + " ms) is more than 10 % behind the fastest (" + number(fastest, 4) + " ms)");
    else if (csr > 0 && again.spmv.medianMs > 1.05 * csr)
        failures.push_back("second timing: the pick " + again.name + " is slower than cuSPARSE CSR (" + number(again.spmv.medianMs, 4) + " vs " + number(csr, 4) + " ms)");
    return failures;
}

void printCase(const CaseResult& r) {
    const FormatComparison& c = r.comparison;
    std::printf("\n== %s: %d x %d, %lld nonzeros, %s%s (whole comparison %.1f s)\n", r.name.c_str(), c.rows, c.cols,
                (long long)c.nonzeros, c.precision.c_str(), c.binary ? ", binary" : "", r.wallMs / 1000);
    for (std::size_t i = 0; i < c.results.size(); ++i) {
        const FormatRow& row = c.results[i];
        if (!row.applicable) {
            std::printf("  %-32s %-9s not run: %s\n", row.name.c_str(), row.backend.c_str(), row.reason.c_str());
            continue;
        }
        std::printf("  %-32s %-9s %9.4f ms  %5.2fx CSR  %7.1f GB/s  %3.0f %% of copy  %9.1f MB  build %7.1f ms  upload %6.1f ms  err %.2f bound%s\n",
                    row.name.c_str(), row.backend.c_str(), row.spmv.medianMs, row.speedupOverCsr, row.gbPerSecond,
                    100 * row.copyFraction, double(row.bytes) / 1e6, row.buildMs, row.uploadMs, row.errorRatio,
                    int(i) == c.pick ? "  <- pick" : "");
    }
    std::printf("  pick: %s\n", c.pickReason.c_str());
    for (const std::string& f : r.failures) std::printf("  FAILED: %s\n", f.c_str());
}

std::string markdown(const std::vector<CaseResult>& results, const std::string& device, const std::string& date, double copy) {
    std::ostringstream md;
    md << "# Format comparison: every SpMV format per matrix, and the pick\n\n"
       << "Device: " << device << "; " << date << "; device-to-device copy " << number(copy, 1)
       << " GB/s (read + write, measured per comparison; the first shown). Produced by `bench_compare`: the engine of `spyglass-cli compare` "
          "(CUDA events, warm-up 5, median of 20) on each matrix. A row's result agrees when every y_i is within "
          "2 (n_i + 1) eps sum_j |a_ij x_j| of the CSR reference.\n\n";
    md << "## Picks\n\n| matrix | type | nonzeros | pick | vs cuSPARSE CSR | of copy bandwidth | bytes vs CSR | comparison wall time |\n"
          "|---|---|---:|---|---:|---:|---:|---:|\n";
    for (const CaseResult& r : results) {
        const FormatComparison& c = r.comparison;
        const FormatRow* p = c.picked();
        md << "| " << r.name << " | " << c.precision << " | " << c.nonzeros << " | " << (p ? p->name : "none") << " | "
           << (p ? number(p->speedupOverCsr, 2) + "x" : "-") << " | " << (p ? number(100 * p->copyFraction, 0) + " %" : "-")
           << " | " << (p ? number(p->bytesOverCsr, 2) : "-") << " | " << number(r.wallMs / 1000, 1) << " s |\n";
    }
    for (const CaseResult& r : results) {
        const FormatComparison& c = r.comparison;
        md << "\n## " << r.name << " (" << c.precision << ")\n\n" << c.rows << " x " << c.cols << ", " << c.nonzeros << " nonzeros"
           << (c.binary ? ", binary" : "") << ". Pick: " << c.pickReason << "\n\n"
           << "| format | backend | SpMV median ms | vs CSR | GB/s | of copy | MB | padding | build ms | upload ms | error / bound | note |\n"
              "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n";
        for (std::size_t i = 0; i < c.results.size(); ++i) {
            const FormatRow& row = c.results[i];
            const std::string name = row.name + (int(i) == c.pick ? " **(pick)**" : "");
            if (!row.applicable) {
                md << "| " << name << " | " << row.backend << " | - | - | - | - | - | - | - | - | - | not run: " << row.reason << " |\n";
                continue;
            }
            md << "| " << name << " | " << row.backend << " | " << number(row.spmv.medianMs, 4) << " | "
               << number(row.speedupOverCsr, 2) << "x | " << number(row.gbPerSecond, 1) << " | " << number(100 * row.copyFraction, 0)
               << " % | " << number(double(row.bytes) / 1e6, 1) << " | " << (row.padding > 0 ? number(row.padding, 3) : "-") << " | "
               << number(row.buildMs, 1) << " | " << number(row.uploadMs, 1) << " | " << number(row.errorRatio, 3)
               << (row.agrees ? "" : " DIFFERS") << " | " << row.note << " |\n";
        }
        for (const std::string& f : r.failures) md << "\nFAILED: " << f << "\n";
    }
    return md.str();
}

std::string json(const std::vector<CaseResult>& results, const std::string& device, const std::string& date) {
    std::ostringstream js;
    js << "{\"title\": \"format comparison\", \"device\": " << jsonString(device) << ", \"date\": " << jsonString(date) << ", \"cases\": [";
    for (std::size_t k = 0; k < results.size(); ++k) {
        const CaseResult& r = results[k];
        const FormatComparison& c = r.comparison;
        js << (k ? ",\n" : "\n") << "{\"matrix\": " << jsonString(r.name) << ", \"precision\": " << jsonString(c.precision)
           << ", \"rows\": " << c.rows << ", \"cols\": " << c.cols << ", \"nonzeros\": " << c.nonzeros
           << ", \"binary\": " << (c.binary ? "true" : "false") << ", \"copy_gb_per_s\": " << c.copyBandwidthGBs
           << ", \"wall_ms\": " << r.wallMs << ", \"pick\": " << c.pick << ", \"pick_reason\": " << jsonString(c.pickReason)
           << ", \"failures\": " << r.failures.size() << ", \"formats\": [";
        for (std::size_t i = 0; i < c.results.size(); ++i) {
            const FormatRow& row = c.results[i];
            js << (i ? ", " : "") << "{\"format\": " << jsonString(formatKey(row.format)) << ", \"name\": " << jsonString(row.name)
               << ", \"backend\": " << jsonString(row.backend) << ", \"applicable\": " << (row.applicable ? "true" : "false");
            if (!row.applicable) js << ", \"reason\": " << jsonString(row.reason);
            else
                js << ", \"median_ms\": " << row.spmv.medianMs << ", \"min_ms\": " << row.spmv.minMs << ", \"max_ms\": " << row.spmv.maxMs
                   << ", \"speedup_over_csr\": " << row.speedupOverCsr << ", \"gb_per_s\": " << row.gbPerSecond
                   << ", \"copy_fraction\": " << row.copyFraction << ", \"bytes\": " << row.bytes << ", \"padding\": " << row.padding
                   << ", \"build_ms\": " << row.buildMs << ", \"upload_ms\": " << row.uploadMs
                   << ", \"max_relative_difference\": " << row.maxRelativeDifference << ", \"error_over_bound\": " << row.errorRatio
                   << ", \"agrees\": " << (row.agrees ? "true" : "false") << ", \"note\": " << jsonString(row.note);
            js << "}";
        }
        js << "]}";
    }
    js << "\n]}\n";
    return js.str();
}

Matrix fileFormOf(const CooMatrix<double>& coo) { return fromCsr(cooToCsr(coo)); }

// COPIES copies of a file's stored entries along the diagonal, every field kept (complex values
// included, which the real tiling of segdia_generators.h drops): block-diagonal, so a symmetric
// file stays symmetric.
Matrix tiledFileAlongDiagonal(const Matrix& block, Index copies) {
    Matrix tiled = block;
    tiled.rows = block.rows * copies;
    tiled.cols = block.cols * copies;
    const std::size_t n = block.rowIndex.size();
    tiled.rowIndex.resize(n * std::size_t(copies));
    tiled.colIndex.resize(n * std::size_t(copies));
    if (!block.real.empty()) tiled.real.resize(n * std::size_t(copies));
    if (!block.imag.empty()) tiled.imag.resize(n * std::size_t(copies));
    for (Index k = 0; k < copies; ++k)
        for (std::size_t e = 0; e < n; ++e) {
            const std::size_t to = std::size_t(k) * n + e;
            tiled.rowIndex[to] = block.rowIndex[e] + k * block.rows;
            tiled.colIndex[to] = block.colIndex[e] + k * block.cols;
            if (!block.real.empty()) tiled.real[to] = block.real[e];
            if (!block.imag.empty()) tiled.imag[to] = block.imag[e];
        }
    return tiled;
}

} // namespace

int main(int argc, char** argv) {
    Settings settings;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) settings.quick = true;
        else if (!std::strcmp(argv[i], "--cpu")) settings.cpu = true;
        else if (!std::strcmp(argv[i], "--only") && i + 1 < argc) settings.only = argv[++i];
        else if (!std::strcmp(argv[i], "--matrices") && i + 1 < argc) settings.matrices = argv[++i];
        else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) settings.out = argv[++i], settings.outGiven = true;
        else if (!std::strcmp(argv[i], "--complex")) settings.complexCase = true;
        else if (!std::strcmp(argv[i], "--types") && i + 1 < argc) {
            const std::string list = argv[++i];
            settings.types.clear();
            if (list.find("f32") != std::string::npos) settings.types.push_back("f32");
            if (list.find("f64") != std::string::npos) settings.types.push_back("f64");
            if (settings.types.empty()) {
                std::fprintf(stderr, "bench_compare: --types takes f32, f64 or f32,f64\n");
                return 2;
            }
        } else {
            std::fprintf(stderr, "usage: %s [--quick] [--cpu] [--complex] [--only NAME] [--types f32[,f64]] [--matrices DIR] [--out STEM]\n", argv[0]);
            return 2;
        }
    }
    DeviceInfo device = cudaDeviceInfo();
    if (settings.cpu) device.name = "CPU reference (--cpu smoke test, not a GPU result)";
    else if (!device.present) {
        std::fprintf(stderr, "bench_compare: %s\n", device.reason.c_str());
        return 1;
    }
    std::printf("Targets: on every matrix every format's result agrees with the reference, the pick is the fastest\n"
                "measured row, and the pick is never slower than cuSPARSE CSR; every row is then timed a second time,\n"
                "separately, and the pick must be within 10 %% of that timing's fastest and not slower than its CSR.\n");
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::vector<CaseResult> results;
    int failed = 0;
    try {
        FormatComparisonOptions options;
        options.warmup = 5;
        options.repeats = settings.quick ? 10 : 20;
        options.useGpu = !settings.cpu;
        options.findDenseRegions = [](const BinaryPattern& p) { return detectDenseRegions(p).regions; };
        const auto run = [&](const std::string& name, const std::function<Matrix()>& make) {
            if (!settings.only.empty() && name.find(settings.only) == std::string::npos) return;
            const Matrix matrix = make();
            for (const std::string& type : settings.types) {
                CaseResult r;
                r.name = name;
                std::mt19937 rng(42);
                std::uniform_real_distribution<double> dist(-1, 1);
                const auto start = std::chrono::steady_clock::now();
                FormatComparison second;
                if (matrix.isComplex()) {  // in the file's own precision, as `spyglass-cli compare` runs it
                    std::vector<std::complex<double>> x(std::size_t(matrix.cols));
                    for (auto& v : x) v = {dist(rng), dist(rng)};
                    r.comparison = compareSpmvFormats(matrix, x, options);
                    second = compareSpmvFormats(matrix, x, options);
                } else if (type == "f32") {
                    std::vector<float> x(std::size_t(matrix.cols));
                    for (float& v : x) v = float(dist(rng));
                    r.comparison = compareSpmvFormats(matrix, x, options);
                    second = compareSpmvFormats(matrix, x, options);
                } else {
                    std::vector<double> x(std::size_t(matrix.cols));
                    for (double& v : x) v = dist(rng);
                    r.comparison = compareSpmvFormats(matrix, x, options);
                    second = compareSpmvFormats(matrix, x, options);
                }
                r.wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
                r.failures = checkTargets(r.comparison);
                for (const std::string& f : checkPickAgainstSecondTiming(r.comparison, second)) r.failures.push_back(f);
                failed += r.failures.empty() ? 0 : 1;
                printCase(r);
                results.push_back(std::move(r));
                const double copy = results.front().comparison.copyBandwidthGBs;
                writeFileAtomically(settings.out + ".md", markdown(results, device.name, date, copy));
                writeFileAtomically(settings.out + ".json", json(results, device.name, date));
            }
        };
        const int s = settings.quick ? 8 : 1;  // --quick: every case about 8x smaller
        if (settings.complexCase) {
            if (!settings.outGiven) settings.out = "bench/results/compare_complex";
            settings.types = {"c128"};
            const Index copies = std::max<Index>(1, 2500 / s);
            run("young1c.mtx x" + std::to_string(copies) + " (complex)", [&settings, copies] {
                return tiledFileAlongDiagonal(readMatrixMarket(settings.matrices + "/young1c.mtx"), copies);
            });
        }
        const auto realCase = [&](const std::string& name, const std::function<Matrix()>& make) {
            if (!settings.complexCase) run(name, make);
        };
        // The test set's matrices, copied along the diagonal past 10 M nonzeros (binary ones included:
        // the hybrid row runs on them).
        for (const auto& entry : std::vector<std::pair<std::string, Index>>{{"olm1000.mtx", 2600},
                                                                            {"watt_2.mtx", 900},
                                                                            {"n1024-l1.mtx", 320},
                                                                            {"west0479.mtx", 5300},
                                                                            {"bcsstk13.mtx", 120},
                                                                            {"hangGlider_2.mtx", 700},
                                                                            {"pushpull.mtx", 52},
                                                                            {"sparse-images-1024_subset.mtx", 82}}) {
            const std::string file = entry.first;
            const Index copies = std::max<Index>(1, entry.second / s);
            realCase(file + " x" + std::to_string(copies), [&settings, file, copies] {
                const Matrix m = readMatrixMarket(settings.matrices + "/" + file);
                Matrix tiled = fileFormOf(generators::tiledAlongDiagonal(toCoo<double>(m), copies));
                if (m.isBinary()) tiled.field = Field::Pattern, tiled.real.clear();  // stays binary for the hybrid row
                return tiled;
            });
        }
        const Index n2 = 1450 / (settings.quick ? 3 : 1), n3 = 128 / (settings.quick ? 2 : 1);
        realCase("laplacian2d " + std::to_string(n2) + "^2", [&] { return fileFormOf(generators::laplacian2d(n2, n2)); });
        realCase("laplacian3d " + std::to_string(n3) + "^3", [&] { return fileFormOf(generators::laplacian3d(n3, n3, n3)); });
        const Index n27 = settings.quick ? 40 : 80;
        realCase("stencil27 " + std::to_string(n27) + "^3", [&] { return fileFormOf(generators::stencil27(n27, n27, n27)); });
        const Index nc = settings.quick ? 56 : 112;
        realCase("cfd-like " + std::to_string(nc) + "^3 (8 broken diagonals, 256 points)",
            [&] { return fileFormOf(generators::cfdLike(nc, nc, nc, 8, 256, 7)); });
        const Index nb = settings.quick ? 250000 : 2000000;
        realCase("banded, 24 sparse diagonals (fill 0.45), " + std::to_string(nb) + " rows",
            [&] { return fileFormOf(generators::randomBanded(nb, nb, 24, 0.45, 1000, 11)); });
        // Dense rectangles and triangles among scattered entries (the case method D is for).
        const auto blockySpec = [&](std::uint64_t seed) {
            BlockyMatrixSpec spec;
            spec.rows = spec.cols = settings.quick ? 125000 : 1000000;
            spec.rectangles = settings.quick ? 4 : 16;
            spec.triangles = settings.quick ? 2 : 8;
            spec.blockSize = 768;
            spec.scattered = settings.quick ? 250000 : 2000000;
            spec.seed = seed;
            return spec;
        };
        realCase(std::string("blocky binary ") + (settings.quick ? "125000^2" : "1000000^2"),
            [&] { return matrixFromBinaryPattern(generateBlockyBinary(blockySpec(2026)).pattern); });
        // The same kind of blocks with values (method D on a valued matrix: the valued hybrid row).
        realCase(std::string("blocky valued ") + (settings.quick ? "125000^2" : "1000000^2"), [&] {
            Matrix m = matrixFromBinaryPattern(generateBlockyBinary(blockySpec(2027)).pattern);
            m.field = Field::Real;
            m.real.resize(m.rowIndex.size());
            std::mt19937 values(7);
            std::uniform_int_distribution<int> v(2, 9);  // never 1 everywhere: not binary
            for (double& value : m.real) value = v(values) * 0.25;
            return m;
        });
        const Index np = settings.quick ? 125000 : 1000000;
        realCase("power-law rows " + std::to_string(np) + " (exponent 2.5, 4 .. 20000 a row)",
            [&] { return fileFormOf(generators::powerLawRows(np, np, 4, 2.5, 20000, 5)); });
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_compare: %s\n", e.what());
        return 1;
    }
    std::printf("\nwrote %s.md and %s.json; %zu comparisons, %d failed\n", settings.out.c_str(), settings.out.c_str(), results.size(), failed);
    return failed == 0 && !results.empty() ? 0 : 1;
}
