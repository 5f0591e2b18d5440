// Method D benchmark: the pipeline a user runs on a blocky binary matrix, against CSR.
// For each case, starting from the matrix as a CSR pattern (what a user holds):
//  - detection exactly as the application and spyglass-cli run it: detectDenseRegions with their options
//    (pixel threshold 0.3, fill 0.5), at each thumbnail size of --thumb (default: 2048 px, the
//    application's default, and 8192 px, see kDefaultThumbnails); host CPU, steady_clock, median of 3
//    runs, split into thumbnail / components / refinement;
//  - the hybrid encoding of what was detected (encodeHybrid) and its staging for the device, host CPU,
//    median of 3;
//  - detected against planted (the shapes the generator filled): recall by area = planted cells covered
//    by detected regions / planted cells, precision by area = detected cells inside planted shapes /
//    detected cells;
//  - bytes of every format; host->device upload (pageable memory, as a caller's std::vector), SpMV kernel
//    (CUDA events, median of repeats), "upload + SpMV" (leaves out detection, encoding and staging) and
//    "detect + encode + upload + SpMV" (the whole pipeline from the CSR pattern; cuSPARSE needs none of
//    the host-side steps, so its row there is its upload + SpMV).
// Baselines in the same process on the same data: cuSPARSE CSR SpMV (values all 1.0f, 32-bit indices)
// and our pattern-only CSR kernel. The generator's planted regions are encoded too, but only for an
// "oracle: planted regions" kernel row and byte count: what perfect detection would give.
// Every result vector is compared with the CPU pattern-CSR reference (integer x, so every path must
// agree exactly). A mismatch, or a row whose check did not run, makes the program exit 1. The targets
// table (docs/method-d-hybrid.md) is printed at the end and written with the table.
//   bench_hybrid [--quick] [--case anchor|mixed]... [--thumb PIXELS]... [--threads N] [--parts] [--cpu-only] [--out STEM]
// --threads N: host threads of detection and encoding (0, the default: every core). Whatever N, the
// run also times, on the anchor case at the first thumbnail size: the host pipeline on one thread
// against N (the scaling), both thumbnail binnings and every labelling algorithm on 1 and N threads
// (the library keeps the faster: LineBands, Spaghetti), and a GUI re-detection (a change of minimum
// fill on a 10^7-entry binary matrix, picture kept, as the Dense regions tab runs it). The break-even
// (SpMVs until the hybrid has paid for detection + encoding + staging + upload against cuSPARSE CSR)
// is printed for every detected variant.
// --parts also times the hybrid kernel on the region rows alone (residual emptied) and on the residual
// alone (regions dropped), to show where the time goes; those figures go to the log only.
// --cpu-only runs the host-side part (generation, detection, encoding, CPU checks) without a device.
#include "bench_support.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/cuda/hybrid_device_api.h"

#include "spyglass/atomicfile.h"
#include "spyglass/backend.h"
#include "spyglass/benchmark.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_spmv.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>

using namespace spyglass;
using Clock = std::chrono::steady_clock;

namespace {

constexpr int kHostRuns = 3;  // detection, encoding and staging: median of this many runs

double msSince(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.empty() ? 0.0 : values.size() % 2 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

struct Case {
    std::string name;
    BlockyMatrixSpec spec;
    bool isAnchor = false;  // the case the targets are set for
};

// Thumbnail sizes detection runs with, each on every case. 2048 px is the application's and the CLI's
// default. At 1M x 1M it makes a pixel 489 cells wide, a quarter of a 2048-wide block: the box grown by
// a pixel is then so much wider than the block that its rows look sparse, the rectangle is trimmed
// away and a triangle of half the block is kept instead (measured: recall 0.61 by area). A user who
// sees that in the Dense regions tab asks for a finer thumbnail (--thumb): 8192 px puts a pixel at
// 1/16 of a block or less in every case here, and finds the blocks (recall 0.97 on the dev machine).
const std::vector<int> kDefaultThumbnails = {2048, 8192};

struct Options {
    bool quick = false, parts = false, cpuOnly = false;
    std::vector<int> thumbnails;  // --thumb, repeatable; kDefaultThumbnails when none given
    DetectionOptions detection;   // the application's defaults otherwise (detection.threads: --threads)
    int threads() const { return detection.threads; }
    HybridEncodeOptions encoding() const {
        HybridEncodeOptions e;
        e.threads = detection.threads;
        return e;
    }
};

// Threads the host work runs on for a --threads value (0: every core).
int resolvedThreads(int threads) { return threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// Whether a row's result was compared with the reference, and how it came out.
enum class Check { NotRun, Exact, Mismatch };

const char* toString(Check check) {
    switch (check) {
    case Check::Exact: return "exact";
    case Check::Mismatch: return "RESULT MISMATCH";
    case Check::NotRun: break;
    }
    return "CHECK NOT RUN";
}

Check both(Check a, Check b) {
    if (a == Check::Mismatch || b == Check::Mismatch) return Check::Mismatch;
    return a == Check::Exact && b == Check::Exact ? Check::Exact : Check::NotRun;
}

// One case's host-side figures: detection against the planted shapes, bytes, host times.
struct Findings {
    std::string caseName;
    bool isAnchor = false;
    int thumbnail = 0;          // the longer side the detection was asked for (--thumb)
    std::string variant;        // the hybrid's name in the rows: "... detected regions, thumbnail N px"
    std::size_t planted = 0, detected = 0, keptBlocks = 0, oracleBlocks = 0, plantedFound = 0;
    Count plantedCells = 0, detectedCells = 0, sharedCells = 0;
    DetectionResult detection;  // of the last run (identical every run)
    double thumbnailMs = 0, componentsMs = 0, refineMs = 0;
    bench::TimingSummary detect, encode, stage;
    double hybridBytes = 0, oracleBytes = 0, patternBytes = 0, vendorBytes = 0;
    std::string fallback;  // empty when the detected regions were used
    HybridBreakEven breakEven;  // against cuSPARSE CSR (GPU runs only)
    bool gpuRan = false;
    double recall() const { return plantedCells ? static_cast<double>(sharedCells) / plantedCells : 0.0; }
    double precision() const { return detectedCells ? static_cast<double>(sharedCells) / detectedCells : 0.0; }
};

// The host pipeline (detect + encode + stage) on one thread against --threads, on the anchor case.
struct HostScaling {
    bool ran = false;
    int threads = 1, thumbnail = 0;
    double detect1 = 0, encode1 = 0, stage1 = 0, detectN = 0, encodeN = 0, stageN = 0;
    double thumbnail1 = 0, components1 = 0, refine1 = 0, thumbnailN = 0, componentsN = 0, refineN = 0;
    double one() const { return detect1 + encode1 + stage1; }
    double many() const { return detectN + encodeN + stageN; }
};

// One algorithm choice timed on the anchor's thumbnail: a binning or a labelling, on 1 or N threads.
struct AlgorithmTime {
    std::string phase, algorithm;
    int threads = 1;
    bench::TimingSummary time;
    bool isDefault = false;
};

// What the Dense regions tab runs when the minimum fill changes: detection (picture kept) and encoding.
struct Redetection {
    bool ran = false;
    Count nnz = 0;
    int threads = 1;
    std::size_t regions = 0;
    bench::TimingSummary time;
    double detectMs = 0, encodeMs = 0;
};

struct Run {
    bench::Report report;
    std::vector<Check> checks;  // one per report row
    std::vector<Findings> findings;
    HostScaling scaling;
    std::vector<AlgorithmTime> algorithms;
    Redetection redetection;

    void add(bench::Row row, Check check) {
        // The comparison with the CPU reference is the row's check in the table: exact (0 differing
        // results, bound 0), a mismatch, or a bound whose check never ran (the verdict fails both).
        if (check == Check::NotRun) row.errorBound = 0;
        else row.setCheck(check == Check::Exact ? 0.0 : 1.0, 0.0);
        report.add(row);
        checks.push_back(check);
        report.print(row);
    }
    const bench::Row* find(const std::string& benchmark, const std::string& variant) const {
        for (const bench::Row& row : report.rows())
            if (row.benchmark == benchmark && row.variant == variant) return &row;
        return nullptr;
    }
};

// Matrix elements in both shapes (per-row span intersection; zero when the boxes do not meet).
Count sharedCells(const DenseRegion& a, const DenseRegion& b) {
    const Index first = std::max(a.rowBegin, b.rowBegin), last = std::min(a.rowEnd, b.rowEnd);
    if (first >= last || a.colEnd <= b.colBegin || b.colEnd <= a.colBegin) return 0;
    Count shared = 0;
    for (Index i = first; i < last; ++i) {
        const ColumnSpan s = a.span(i), t = b.span(i);
        const Index begin = std::max(s.begin, t.begin), end = std::min(s.end, t.end);
        if (end > begin) shared += end - begin;
    }
    return shared;
}

// Recall and precision by area. Planted shapes never overlap one another, nor do detected ones, so the
// sum over pairs is the area of the intersection of the two unions.
void compareRegions(const std::vector<DenseRegion>& planted, const std::vector<DenseRegion>& detected, Findings& f) {
    f.planted = planted.size(), f.detected = detected.size();
    for (const DenseRegion& r : detected) f.detectedCells += r.cells();
    for (const DenseRegion& p : planted) {
        f.plantedCells += p.cells();
        Count covered = 0;
        for (const DenseRegion& d : detected) covered += sharedCells(p, d);
        f.sharedCells += covered;
        f.plantedFound += 2 * covered >= p.cells();
    }
}

// cuSPARSE CSR with values 1.0f: what a user of the vendor library would upload and multiply.
struct VendorCsr {
    std::vector<int> rowPtr;
    std::vector<int> cols;
    std::vector<float> values;
    cuda::DeviceBuffer<int> dRowPtr, dCols;
    cuda::DeviceBuffer<float> dValues;
    cusparseHandle_t handle = nullptr;
    cusparseSpMatDescr_t matrix = nullptr;
    cusparseDnVecDescr_t x = nullptr, y = nullptr;
    cuda::DeviceBuffer<unsigned char> workspace;

    explicit VendorCsr(const BinaryPattern& p) : rowPtr(p.rowPtr.begin(), p.rowPtr.end()), cols(p.colIndex), values(p.colIndex.size(), 1.0f) {}
    void upload(cudaStream_t stream) {
        dRowPtr.upload(rowPtr, stream);
        dCols.upload(cols, stream);
        dValues.upload(values, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    void prepare(Index rows, Index colsCount, float* dx, float* dy, cudaStream_t stream) {
        SPYGLASS_CUDA_CHECK(cusparseCreate(&handle));
        SPYGLASS_CUDA_CHECK(cusparseSetStream(handle, stream));
        SPYGLASS_CUDA_CHECK(cusparseCreateCsr(&matrix, rows, colsCount, static_cast<std::int64_t>(cols.size()), dRowPtr.data(),
                                              dCols.data(), dValues.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
        SPYGLASS_CUDA_CHECK(cusparseCreateDnVec(&x, colsCount, dx, CUDA_R_32F));
        SPYGLASS_CUDA_CHECK(cusparseCreateDnVec(&y, rows, dy, CUDA_R_32F));
        const float alpha = 1, beta = 0;
        std::size_t bytes = 0;
        SPYGLASS_CUDA_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matrix, x, &beta, y,
                                                    CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, &bytes));
        workspace.resize(std::max<std::size_t>(bytes, 1));
    }
    void multiply() {
        const float alpha = 1, beta = 0;
        SPYGLASS_CUDA_CHECK(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matrix, x, &beta, y, CUDA_R_32F,
                                         CUSPARSE_SPMV_CSR_ALG1, workspace.data()));
    }
    ~VendorCsr() {
        if (x) cusparseDestroyDnVec(x);
        if (y) cusparseDestroyDnVec(y);
        if (matrix) cusparseDestroySpMat(matrix);
        if (handle) cusparseDestroy(handle);
    }
};

int mismatches(const std::vector<float>& a, const std::vector<float>& b) {
    int bad = 0;
    for (std::size_t i = 0; i < a.size(); ++i) bad += a[i] != b[i];
    return bad;
}

// The same encoding with its residual emptied (regions only) or its regions dropped (residual only).
HybridBinaryMatrix regionsOnly(const HybridBinaryMatrix& h) {
    HybridBinaryMatrix part;
    part.rows = h.rows, part.cols = h.cols, part.blocks = h.blocks;
    part.residual.rows = h.rows, part.residual.cols = h.cols;
    part.residual.rowPtr.assign(static_cast<std::size_t>(h.rows) + 1, 0);
    return part;
}
HybridBinaryMatrix residualOnly(const HybridBinaryMatrix& h) {
    HybridBinaryMatrix part;
    part.rows = h.rows, part.cols = h.cols, part.residual = h.residual;
    return part;
}

const std::string kVendor = "cuSPARSE CSR (values 1.0f)";
const std::string kPattern = "spyglass pattern CSR";
const std::string kOracle = "spyglass hybrid, oracle: planted regions";

std::string hybridVariant(int thumbnail) {
    return "spyglass hybrid (method D), detected regions, thumbnail " + std::to_string(thumbnail) + " px";
}

bench::TimingSummary sum(bench::TimingSummary a, const bench::TimingSummary& b) {
    a.medianMs += b.medianMs, a.minMs += b.minMs, a.maxMs += b.maxMs;
    return a;
}

// Host work, steady_clock, median of kHostRuns. `work` returns the milliseconds of the part to time.
bench::TimingSummary hostTime(const std::function<double()>& work) { return bench::measure(work, 0, kHostRuns); }

// One detection setting on one case: what was found, its encoding, and that encoding staged for upload.
struct Detected {
    Findings f;
    HybridBinaryMatrix h;
    Check host = Check::NotRun;  // CPU hybrid reference against the pattern reference
    cuda::HybridDeviceMatrix device;
    bench::TimingSummary upload, kernel;
    Check gpu = Check::NotRun;
};

// Detection as the application and spyglass-cli run it, on the pattern alone, then the encoding of
// what was found and the host-side flattening for the device.
void detectAndEncode(const BinaryPattern& p, const GeneratedBinary& g, const std::vector<float>& x,
                     const std::vector<float>& expected, const Options& options, Detected& out) {
    Findings& f = out.f;
    DetectionOptions detection = options.detection;
    detection.maxThumbnailSide = f.thumbnail;
    std::vector<double> thumbnailMs, componentsMs, refineMs;
    f.detect = hostTime([&] {
        const auto t0 = Clock::now();
        DetectionResult result = detectDenseRegions(p, detection);
        const double ms = msSince(t0);
        thumbnailMs.push_back(result.thumbnailMs), componentsMs.push_back(result.componentsMs), refineMs.push_back(result.refineMs);
        f.detection = std::move(result);
        return ms;
    });
    f.thumbnailMs = median(thumbnailMs), f.componentsMs = median(componentsMs), f.refineMs = median(refineMs);
    const DetectionResult& d = f.detection;
    compareRegions(g.planted, d.regions, f);
    int rectangles = 0, triangles = 0, bands = 0;
    for (const DenseRegion& r : d.regions)
        ++(r.shape == RegionShape::Rectangle ? rectangles : r.shape == RegionShape::Triangle ? triangles : bands);
    std::printf("detection, thumbnail <= %d px: %d x %d px (%d cells/pixel); median %.1f ms = thumbnail %.1f + components "
                "%.1f + refinement %.1f (host CPU, %d runs); %d components (%d faint) -> %zu regions (%d rectangles, %d triangles, "
                "%d bands; dropped: %d size, %d shape, %d fill, %d overlap)\n",
                f.thumbnail, d.thumbnailWidth, d.thumbnailHeight, d.cellsPerPixel, f.detect.medianMs, f.thumbnailMs,
                f.componentsMs, f.refineMs, kHostRuns, d.components, d.faintComponents, d.regions.size(), rectangles, triangles, bands,
                d.droppedBySize, d.droppedByShape, d.droppedByFill, d.droppedByOverlap);
    std::printf("  detected vs planted: %zu planted shapes, %zu detected regions, %zu planted shapes at least half covered; "
                "recall by area %.4f (%lld of %lld planted cells), precision by area %.4f (%lld of %lld detected cells)\n",
                f.planted, f.detected, f.plantedFound, f.recall(), static_cast<long long>(f.sharedCells),
                static_cast<long long>(f.plantedCells), f.precision(), static_cast<long long>(f.sharedCells),
                static_cast<long long>(f.detectedCells));

    HybridBinaryMatrix& h = out.h;
    f.encode = hostTime([&] {
        const auto t0 = Clock::now();
        HybridBinaryMatrix encoded = encodeHybrid(p, d.regions, options.encoding());
        const double ms = msSince(t0);
        h = std::move(encoded);
        return ms;
    });
    f.keptBlocks = h.blocks.size();
    if (h.csrFallback) f.fallback = h.fallbackReason;
    f.hybridBytes = static_cast<double>(h.encodedBytes());
    std::printf("  encoding: median %.0f ms (host CPU, %d runs): %zu blocks, %lld zeros stored, residual %lld, fallback "
                "%s%s; %.1f MB (1/%.2f of cuSPARSE CSR, 1/%.2f of pattern CSR)\n",
                f.encode.medianMs, kHostRuns, h.blocks.size(), static_cast<long long>(h.zeros()),
                static_cast<long long>(h.residual.nnz()), h.csrFallback ? "yes: " : "no", h.fallbackReason.c_str(),
                f.hybridBytes / 1e6, f.vendorBytes / f.hybridBytes, f.patternBytes / f.hybridBytes);
    out.host = hybridSpmvReference(h, x) == expected ? Check::Exact : Check::Mismatch;
    std::printf("  CPU hybrid reference SpMV against the pattern reference: %s\n", toString(out.host));
    // Flattening into the arrays the device reads is host work of the pipeline too (not of the upload).
    f.stage = hostTime([&] {
        const auto t0 = Clock::now();
        out.device.stage(h);
        return msSince(t0);
    });
}

// On the anchor case at the first thumbnail size: the host pipeline on one thread (the scaling), and
// each binning and labelling algorithm on 1 and N threads.
void runHostExtras(const BinaryPattern& p, const Detected& many, const Options& options, Run& run) {
    HostScaling& s = run.scaling;
    s.ran = true;
    s.threads = resolvedThreads(options.threads());
    s.thumbnail = many.f.thumbnail;
    s.detectN = many.f.detect.medianMs, s.encodeN = many.f.encode.medianMs, s.stageN = many.f.stage.medianMs;
    s.thumbnailN = many.f.thumbnailMs, s.componentsN = many.f.componentsMs, s.refineN = many.f.refineMs;
    DetectionOptions one = options.detection;
    one.maxThumbnailSide = many.f.thumbnail;
    one.threads = 1;
    std::vector<double> thumbnailMs, componentsMs, refineMs;
    DetectionResult found;
    s.detect1 = hostTime([&] {
                    const auto t0 = Clock::now();
                    found = detectDenseRegions(p, one);
                    const double ms = msSince(t0);
                    thumbnailMs.push_back(found.thumbnailMs), componentsMs.push_back(found.componentsMs),
                        refineMs.push_back(found.refineMs);
                    return ms;
                }).medianMs;
    s.thumbnail1 = median(thumbnailMs), s.components1 = median(componentsMs), s.refine1 = median(refineMs);
    const bool same = found.regions.size() == many.f.detection.regions.size();
    HybridEncodeOptions encodeOne;
    encodeOne.threads = 1;
    HybridBinaryMatrix h;
    s.encode1 = hostTime([&] {
                    const auto t0 = Clock::now();
                    HybridBinaryMatrix encoded = encodeHybrid(p, found.regions, encodeOne);
                    const double ms = msSince(t0);
                    h = std::move(encoded);
                    return ms;
                }).medianMs;
    s.stage1 = hostTime([&] {
                   cuda::HybridDeviceMatrix device;
                   const auto t0 = Clock::now();
                   device.stage(h);
                   return msSince(t0);
               }).medianMs;
    std::printf("host scaling, thumbnail <= %d px: 1 thread %.1f ms (detect %.1f = thumbnail %.1f + components %.1f + refinement "
                "%.1f; encode %.1f; stage %.1f) vs %d threads %.1f ms (detect %.1f = %.1f + %.1f + %.1f; encode %.1f; stage "
                "%.1f): %.2fx%s\n",
                s.thumbnail, s.one(), s.detect1, s.thumbnail1, s.components1, s.refine1, s.encode1, s.stage1, s.threads, s.many(),
                s.detectN, s.thumbnailN, s.componentsN, s.refineN, s.encodeN, s.stageN, s.one() / s.many(),
                same ? "" : " (REGIONS DIFFER between thread counts)");

    // Algorithm choices: thumbnail binning and labelling, each on 1 and N threads.
    const Index cpp = many.f.detection.cellsPerPixel;
    const std::vector<int> counts = s.threads > 1 ? std::vector<int>{1, s.threads} : std::vector<int>{1};
    for (ThumbnailBinning binning : {ThumbnailBinning::LineBands, ThumbnailBinning::MergedRanges})
        for (int threads : counts) {
            AlgorithmTime a{"thumbnail binning", toString(binning), threads, {}, binning == DetectionOptions{}.binning};
            a.time = hostTime([&] {
                const auto t0 = Clock::now();
                const PatternThumbnail t = renderPatternThumbnail(p, cpp, nullptr, threads, binning);
                return msSince(t0) + 0.0 * t.width;
            });
            run.algorithms.push_back(a);
        }
    const PatternThumbnail thumb = renderPatternThumbnail(p, cpp, nullptr, s.threads);
    for (ComponentLabelling labelling : {ComponentLabelling::Spaghetti, ComponentLabelling::Bbdt, ComponentLabelling::Sauf})
        for (int threads : counts) {
            AlgorithmTime a{"components (mask + labelling)", toString(labelling), threads, {}, labelling == DetectionOptions{}.labelling};
            int found = 0;
            a.time = bench::measure(
                [&] {
                    const auto t0 = Clock::now();
                    found = countThumbnailComponents(thumb, options.detection.pixelThreshold, labelling, threads);
                    return msSince(t0);
                },
                1, 5);
            if (found != many.f.detection.components - many.f.detection.faintComponents) a.algorithm += " (COMPONENT COUNT DIFFERS)";
            run.algorithms.push_back(a);
        }
    for (const AlgorithmTime& a : run.algorithms)
        std::printf("  %s, %s, %d thread%s: median %.2f ms (min %.2f, max %.2f)%s\n", a.phase.c_str(), a.algorithm.c_str(), a.threads,
                    a.threads == 1 ? "" : "s", a.time.medianMs, a.time.minMs, a.time.maxMs, a.isDefault ? " [library default]" : "");
}

// The Dense regions tab's live re-detection: a 10^7-entry binary matrix, the minimum fill changed,
// detection with the picture kept and the encoding, as HybridDetectionJob runs them (the pattern is
// built once per document).
void runRedetection(const Options& options, Run& run) {
    BlockyMatrixSpec spec;
    spec.rows = spec.cols = 200000;
    spec.rectangles = 8, spec.triangles = 8, spec.bands = 8, spec.blockSize = 1024, spec.bandWidth = 129;
    spec.scattered = 1500000, spec.seed = 11;
    const GeneratedBinary g = generateBlockyBinary(spec);
    Redetection& r = run.redetection;
    r.ran = true;
    r.nnz = g.pattern.nnz();
    r.threads = resolvedThreads(options.threads());
    DetectionOptions detection = options.detection;
    detection.maxThumbnailSide = 2048;
    detection.keepPicture = true;
    std::vector<double> detectMs, encodeMs;
    int step = 0;
    r.time = bench::measure(
        [&] {
            detection.minFill = 0.5 + 0.05 * (step++ % 4);  // each run a new minimum fill, as a drag gives
            const auto t0 = Clock::now();
            const DetectionResult found = detectDenseRegions(g.pattern, detection);
            const double detected = msSince(t0);
            const HybridBinaryMatrix h = encodeHybrid(g.pattern, found.regions, options.encoding());
            const double total = msSince(t0);
            detectMs.push_back(detected), encodeMs.push_back(total - detected);
            r.regions = h.blocks.size();
            return total;
        },
        1, 7);
    r.detectMs = median(detectMs), r.encodeMs = median(encodeMs);
    std::printf("\n== GUI re-detection: %lld-entry binary matrix, %d x %d, minimum fill changed ==\nre-detection (detect with the "
                "picture + encode, %d threads): median %.1f ms (min %.1f, max %.1f; detect %.1f, encode %.1f), %zu regions\n",
                static_cast<long long>(r.nnz), g.pattern.rows, g.pattern.cols, r.threads, r.time.medianMs, r.time.minMs, r.time.maxMs,
                r.detectMs, r.encodeMs, r.regions);
}

void runCase(const Case& c, Run& run, const Options& options) {
    std::printf("\n== %s ==\n", c.name.c_str());
    auto start = Clock::now();
    const GeneratedBinary g = generateBlockyBinary(c.spec);
    const BinaryPattern& p = g.pattern;
    std::printf("generated %d x %d, %lld nonzeros, %zu planted shapes in %.0f ms\n", p.rows, p.cols,
                static_cast<long long>(p.nnz()), g.planted.size(), msSince(start));
    const double patternBytes = static_cast<double>(patternCsrBytes(p.rows, p.nnz()));
    const double vendorBytes = static_cast<double>(vendorCsrBytes(p.rows, p.nnz()));

    // The reference is the plain pattern: every encoding must reproduce its product exactly.
    std::mt19937 rng(17);
    std::uniform_int_distribution<int> value(-4, 4);
    std::vector<float> x(static_cast<std::size_t>(p.cols));
    for (float& v : x) v = static_cast<float>(value(rng));
    start = Clock::now();
    const std::vector<float> expected = patternSpmvReference(p, x);
    std::printf("CPU pattern-CSR reference SpMV: %.0f ms\n", msSince(start));

    // The oracle: what perfect detection would give. Never timed, in no end-to-end row, no target.
    const HybridBinaryMatrix oracle = encodeHybrid(p, g.planted);
    const double oracleBytes = static_cast<double>(oracle.encodedBytes());
    const Check oracleHost = hybridSpmvReference(oracle, x) == expected ? Check::Exact : Check::Mismatch;
    std::printf("oracle (planted regions): %zu blocks, %.1f MB (1/%.2f of cuSPARSE CSR %.1f MB, pattern CSR %.1f MB); CPU "
                "hybrid reference %s\n",
                oracle.blocks.size(), oracleBytes / 1e6, vendorBytes / oracleBytes, vendorBytes / 1e6, patternBytes / 1e6,
                toString(oracleHost));

    std::vector<Detected> detected(options.thumbnails.size());
    for (std::size_t k = 0; k < detected.size(); ++k) {
        Findings& f = detected[k].f;
        f.caseName = c.name, f.isAnchor = c.isAnchor, f.thumbnail = options.thumbnails[k];
        f.variant = hybridVariant(f.thumbnail);
        f.planted = g.planted.size(), f.oracleBlocks = oracle.blocks.size();
        f.oracleBytes = oracleBytes, f.patternBytes = patternBytes, f.vendorBytes = vendorBytes;
        detectAndEncode(p, g, x, expected, options, detected[k]);
    }
    if (c.isAnchor && !detected.empty()) runHostExtras(p, detected.front(), options, run);

    auto row = [&](const std::string& benchmark, const std::string& variant, bool baseline, bench::TimingSummary t,
                   double bytes, const std::string& note, Check check) {
        bench::Row r;
        r.benchmark = benchmark, r.variant = variant, r.isBaseline = baseline, r.time = t, r.bytes = bytes;
        r.note = note.empty() ? toString(check) : std::string(toString(check)) + "; " + note;
        run.add(r, check);
    };
    char note[600];
    for (const Detected& e : detected) {
        const Findings& f = e.f;
        std::snprintf(note, sizeof note,
                      "thumbnail %.1f + components %.1f + refinement %.1f ms; %d x %d px, %d cells/pixel; recall %.4f, "
                      "precision %.4f by area; %zu of %zu planted found; encoding checked on the CPU",
                      f.thumbnailMs, f.componentsMs, f.refineMs, f.detection.thumbnailWidth, f.detection.thumbnailHeight,
                      f.detection.cellsPerPixel, f.recall(), f.precision(), f.plantedFound, f.planted);
        row("detection (host CPU), " + c.name, "detectDenseRegions (OpenCV), thumbnail <= " + std::to_string(f.thumbnail) + " px",
            false, f.detect, 0, note, e.host);
        std::snprintf(note, sizeof note, "%zu blocks kept; %.1f MB (oracle %.1f MB, cuSPARSE CSR %.1f MB)%s", f.keptBlocks,
                      f.hybridBytes / 1e6, f.oracleBytes / 1e6, f.vendorBytes / 1e6, f.fallback.empty() ? "" : "; CSR FALLBACK");
        row("encoding (host CPU), " + c.name, "encodeHybrid, regions detected with thumbnail " + std::to_string(f.thumbnail) + " px",
            false, f.encode, 0, note, e.host);
    }
    if (options.cpuOnly) {
        std::printf("--cpu-only: GPU rows not run\n");
        for (const Detected& e : detected) run.findings.push_back(e.f);
        return;
    }

    cuda::CudaStream stream;
    cuda::DeviceBuffer<float> dx, dy(static_cast<std::size_t>(p.rows));
    dx.upload(x, stream.get());
    std::vector<float> y(static_cast<std::size_t>(p.rows));
    auto check = [&](const std::string& what) {
        std::fill(y.begin(), y.end(), -1.0f);
        dy.download(y.data(), y.size(), stream.get());
        stream.synchronize();
        const int bad = mismatches(y, expected);
        std::printf("  %s: %s\n", what.c_str(), bad ? ("MISMATCH in " + std::to_string(bad) + " rows").c_str() : "equals the CPU reference");
        return bad ? Check::Mismatch : Check::Exact;
    };
    // Each call of `work` timed by events on the stream, `warmup` untimed calls first.
    auto eventTime = [&](const std::function<void()>& work, int warmup, int repeats) {
        return bench::measure([&] {
            cuda::EventTimer timer(stream.get());
            timer.start();
            work();
            return static_cast<double>(timer.stopMilliseconds());
        }, warmup, repeats);
    };
    auto uploadTime = [&](const std::function<void()>& upload) { return eventTime(upload, 1, 5); };
    auto kernelTime = [&](const std::function<void()>& multiply) { return eventTime(multiply, 5, 30); };
    bench::TimingSummary vendorUpload, vendorKernel, patternUpload, patternKernel, oracleKernel;
    Check vendorCheck = Check::NotRun, patternCheck = Check::NotRun, oracleCheck = Check::NotRun;
    {
        VendorCsr vendor(p);
        vendorUpload = uploadTime([&] { vendor.upload(stream.get()); });
        vendor.prepare(p.rows, p.cols, dx.data(), dy.data(), stream.get());
        vendorKernel = kernelTime([&] { vendor.multiply(); });
        vendorCheck = check(kVendor);
    }
    {
        cuda::PatternCsrDevice pattern;
        patternUpload = uploadTime([&] { pattern.upload(p, stream.get()); });
        patternKernel = kernelTime([&] { pattern.multiply(dx.data(), dy.data(), stream.get()); });
        patternCheck = check(kPattern);
    }
    for (Detected& e : detected) {
        e.upload = uploadTime([&] { e.device.upload(stream.get()); });  // staged in detectAndEncode
        e.kernel = kernelTime([&] { e.device.multiply(dx.data(), dy.data(), stream.get()); });
        e.gpu = check(e.f.variant);
        std::printf("  hybrid bytes on the device: %.1f MB\n", e.device.uploadedBytes() / 1e6);
    }
    {
        cuda::HybridDeviceMatrix planted;
        planted.upload(oracle, stream.get());
        oracleKernel = kernelTime([&] { planted.multiply(dx.data(), dy.data(), stream.get()); });
        oracleCheck = both(oracleHost, check(kOracle));
    }
    if (options.parts) {
        for (const Detected& e : detected) {
            HybridBinaryMatrix oneRegion = regionsOnly(e.h);
            oneRegion.blocks.resize(std::min<std::size_t>(oneRegion.blocks.size(), 1));
            for (const auto& [what, part] : {std::pair<const char*, HybridBinaryMatrix>{"regions only", regionsOnly(e.h)},
                                             {"residual only", residualOnly(e.h)},
                                             {"first region only, no residual (fixed cost)", oneRegion}}) {
                cuda::HybridDeviceMatrix device;
                device.upload(part, stream.get());
                const bench::TimingSummary t = kernelTime([&] { device.multiply(dx.data(), dy.data(), stream.get()); });
                std::printf("  part: hybrid kernel (thumbnail %d px), %s: median %.4f ms (min %.4f, max %.4f)\n",
                            e.f.thumbnail, what, t.medianMs, t.minMs, t.maxMs);
            }
        }
    }

    // Bytes each kernel must move: its arrays plus x and y.
    const double vectorBytes = 4.0 * (p.rows + p.cols);
    const std::string kernelName = "SpMV kernel, " + c.name;
    row(kernelName, kVendor, true, vendorKernel, vendorBytes + vectorBytes, "", vendorCheck);
    row(kernelName, kPattern, false, patternKernel, patternBytes + vectorBytes, "", patternCheck);
    for (const Detected& e : detected)
        row(kernelName, e.f.variant, false, e.kernel, e.f.hybridBytes + vectorBytes, "", both(e.host, e.gpu));
    row(kernelName, kOracle, false, oracleKernel, oracleBytes + vectorBytes,
        "what perfect detection would give; not a result of the pipeline", oracleCheck);
    const std::string uploadName = "upload, " + c.name;
    row(uploadName, kVendor, true, vendorUpload, vendorBytes, "pageable host memory", vendorCheck);
    row(uploadName, kPattern, false, patternUpload, patternBytes, "pageable host memory", patternCheck);
    for (const Detected& e : detected)
        row(uploadName, e.f.variant, false, e.upload, e.f.hybridBytes, "pageable host memory", both(e.host, e.gpu));
    const std::string totalName = "upload + SpMV, " + c.name;
    row(totalName, kVendor, true, sum(vendorUpload, vendorKernel), vendorBytes, "medians added", vendorCheck);
    row(totalName, kPattern, false, sum(patternUpload, patternKernel), patternBytes, "medians added", patternCheck);
    for (const Detected& e : detected)
        row(totalName, e.f.variant, false, sum(e.upload, e.kernel), e.f.hybridBytes,
            "medians added; leaves out detection, encoding and staging (host CPU): see detect + encode + upload + SpMV",
            both(e.host, e.gpu));
    const std::string pipelineName = "detect + encode + upload + SpMV, " + c.name;
    row(pipelineName, kVendor, true, sum(vendorUpload, vendorKernel), vendorBytes,
        "upload + SpMV: the CSR a user holds needs no detection or encoding", vendorCheck);
    for (Detected& e : detected) {
        e.f.gpuRan = true;
        e.f.breakEven = hybridBreakEven(e.f.detect.medianMs + e.f.encode.medianMs + e.f.stage.medianMs + e.upload.medianMs,
                                        e.kernel.medianMs, vendorUpload.medianMs, vendorKernel.medianMs);
        std::printf("  break-even against cuSPARSE CSR (thumbnail %d px): %s; %s\n", e.f.thumbnail, e.f.breakEven.text().c_str(),
                    e.f.breakEven.formula().c_str());
        std::snprintf(note, sizeof note,
                      "medians added: detect %.1f + encode %.1f + stage %.1f + upload %.1f + SpMV %.3f ms; break-even %s",
                      e.f.detect.medianMs, e.f.encode.medianMs, e.f.stage.medianMs, e.upload.medianMs, e.kernel.medianMs,
                      e.f.breakEven.text().c_str());
        row(pipelineName, e.f.variant, false, sum(sum(sum(e.f.detect, e.f.encode), e.f.stage), sum(e.upload, e.kernel)),
            e.f.hybridBytes, note, both(e.host, e.gpu));
    }
    for (const Detected& e : detected) run.findings.push_back(e.f);
}

// Detection and encoding per case and thumbnail, as a Markdown table (the report's rows carry the times).
std::string detectionSection(const Run& run, const Options& options) {
    std::ostringstream md;
    char line[1400];
    std::snprintf(line, sizeof line,
                  "\n## Detection and encoding (host CPU, this run)\n\nDetection: detectDenseRegions with the options of "
                  "spyglass-cli detect / encode-binary and the Dense regions tab (pixel threshold %.2f, fill > %.2f), at "
                  "each thumbnail size (longer side; 2048 px is the default). Times: steady_clock, median of %d runs. "
                  "Recall by area: planted cells covered by detected regions / planted cells; precision by area: detected "
                  "cells inside planted shapes / detected cells. Oracle: the generator's planted shapes encoded "
                  "directly.\n\n",
                  options.detection.pixelThreshold, options.detection.minFill, kHostRuns);
    md << line
       << "| case | thumbnail | detect ms (thumb + components + refine) | encode ms | stage ms | planted | detected "
          "| kept by the encoder | planted found (>= half covered) | recall | precision | hybrid MB (detected) "
          "| oracle MB (planted) | pattern CSR MB | cuSPARSE CSR MB |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for (const Findings& f : run.findings) {
        std::snprintf(line, sizeof line,
                      "| %s | <= %d: %d x %d px, %d cells/px | %.1f (%.1f + %.1f + %.1f) | %.1f | %.1f | %zu | %zu | %zu%s "
                      "| %zu | %.4f | %.4f | %.1f | %.1f | %.1f | %.1f |\n",
                      f.caseName.c_str(), f.thumbnail, f.detection.thumbnailWidth, f.detection.thumbnailHeight,
                      f.detection.cellsPerPixel, f.detect.medianMs, f.thumbnailMs, f.componentsMs, f.refineMs,
                      f.encode.medianMs, f.stage.medianMs, f.planted, f.detected, f.keptBlocks,
                      f.fallback.empty() ? "" : " (CSR fallback)", f.plantedFound, f.recall(), f.precision(),
                      f.hybridBytes / 1e6, f.oracleBytes / 1e6, f.patternBytes / 1e6, f.vendorBytes / 1e6);
        md << line;
    }
    if (!run.algorithms.empty()) {
        md << "\n### Algorithm choices (anchor case, thumbnail " << run.scaling.thumbnail
           << " px; median; the library keeps the faster)\n\n| phase | algorithm | threads | median ms | min | max |\n"
              "|---|---|---:|---:|---:|---:|\n";
        for (const AlgorithmTime& a : run.algorithms) {
            std::snprintf(line, sizeof line, "| %s | %s%s | %d | %.2f | %.2f | %.2f |\n", a.phase.c_str(), a.algorithm.c_str(),
                          a.isDefault ? " (default)" : "", a.threads, a.time.medianMs, a.time.minMs, a.time.maxMs);
            md << line;
        }
    }
    if (run.scaling.ran) {
        const HostScaling& s = run.scaling;
        std::snprintf(line, sizeof line,
                      "\n### Host pipeline on 1 and %d threads (anchor case, thumbnail %d px, medians)\n\n"
                      "| threads | thumbnail | components | refinement | detect | encode | stage | total |\n"
                      "|---:|---:|---:|---:|---:|---:|---:|---:|\n"
                      "| 1 | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n"
                      "| %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\n\nSpeed-up %.2fx.\n",
                      s.threads, s.thumbnail, s.thumbnail1, s.components1, s.refine1, s.detect1, s.encode1, s.stage1, s.one(),
                      s.threads, s.thumbnailN, s.componentsN, s.refineN, s.detectN, s.encodeN, s.stageN, s.many(),
                      s.one() / s.many());
        md << line;
    }
    return md.str();
}

// The targets of docs/method-d-hybrid.md, read off this run's rows: the 1M x 1M blocky case,
// with the regions detection found, for each thumbnail size.
std::string targetsSection(const Run& run, const Options& options) {
    std::ostringstream md;
    char line[1000];
    md << "\n## Targets (this run; hybrid = regions found by detection)\n\n| target | measured | met |\n|---|---|---|\n";
    std::vector<const Findings*> anchors;
    for (const Findings& f : run.findings)
        if (f.isAnchor) anchors.push_back(&f);
    auto ratioLine = [&](const Findings* f, const std::string& label, const std::string& benchmark, double need) {
        const std::string fullLabel = "1M x 1M blocky: " + label + (f ? ", thumbnail " + std::to_string(f->thumbnail) + " px" : "");
        const bench::Row* ours = f ? run.find(benchmark + f->caseName, f->variant) : nullptr;
        const bench::Row* base = f ? run.find(benchmark + f->caseName, kVendor) : nullptr;
        if (!ours || !base) {
            md << "| " << fullLabel << " | not run" << (options.cpuOnly ? " (--cpu-only)" : "") << " | - |\n";
            return;
        }
        const double ratio = base->time.medianMs / ours->time.medianMs;
        const char* met = need <= 0 ? "no target" : options.quick ? "n/a (--quick case)" : ratio >= need ? "yes" : "NO";
        std::snprintf(line, sizeof line, "| %s | %.4f ms vs %.4f ms = %.2fx | %s |\n", fullLabel.c_str(), ours->time.medianMs,
                      base->time.medianMs, ratio, met);
        md << line;
    };
    if (anchors.empty()) anchors.push_back(nullptr);
    auto verdict = [&](bool met) { return options.quick ? "n/a (--quick case)" : met ? "yes" : "NO"; };
    for (const Findings* f : anchors) {
        ratioLine(f, "SpMV kernel >= 3x cuSPARSE CSR", "SpMV kernel, ", 3.0);
        ratioLine(f, "upload + SpMV >= 4x cuSPARSE CSR (pageable memory)", "upload + SpMV, ", 4.0);
        ratioLine(f, "detect + encode + stage + upload + SpMV >= 1.0x cuSPARSE CSR upload + SpMV",
                  "detect + encode + upload + SpMV, ", 1.0);
        if (!f) continue;
        const double hostMs = f->detect.medianMs + f->encode.medianMs;
        std::snprintf(line, sizeof line,
                      "| 1M x 1M blocky: detection + encoding <= 150 ms, thumbnail %d px, %d threads | %.1f ms (detect %.1f = "
                      "thumbnail %.1f + components %.1f + refinement %.1f; encode %.1f; stage %.1f apart) | %s |\n",
                      f->thumbnail, f->detection.threads, hostMs, f->detect.medianMs, f->thumbnailMs, f->componentsMs, f->refineMs,
                      f->encode.medianMs, f->stage.medianMs, verdict(hostMs <= 150.0));
        md << line;
        if (f->gpuRan) {
            std::snprintf(line, sizeof line,
                          "| 1M x 1M blocky: break-even against cuSPARSE CSR, thumbnail %d px (printed) | %s: %s | printed |\n",
                          f->thumbnail, f->breakEven.text().c_str(), f->breakEven.formula().c_str());
        } else {
            std::snprintf(line, sizeof line, "| 1M x 1M blocky: break-even against cuSPARSE CSR, thumbnail %d px | not run%s | - |\n",
                          f->thumbnail, options.cpuOnly ? " (--cpu-only)" : "");
        }
        md << line;
        std::snprintf(line, sizeof line,
                      "| 1M x 1M blocky: bytes against cuSPARSE CSR, thumbnail %d px (for information) | %.1f MB vs %.1f MB "
                      "= 1/%.2f (oracle 1/%.2f) | no target |\n"
                      "| 1M x 1M blocky: detection finds the planted regions, thumbnail %d px (for information) | recall "
                      "%.4f, precision %.4f by area; %zu of %zu found; %.1f ms | no target |\n",
                      f->thumbnail, f->hybridBytes / 1e6, f->vendorBytes / 1e6, f->vendorBytes / f->hybridBytes,
                      f->vendorBytes / f->oracleBytes, f->thumbnail, f->recall(), f->precision(), f->plantedFound, f->planted,
                      f->detect.medianMs);
        md << line;
    }
    for (const Findings& f : run.findings) {
        if (f.isAnchor || f.thumbnail != 2048) continue;
        std::snprintf(line, sizeof line,
                      "| %s: recall >= 0.97 and precision >= 0.97 by area at the default 2048 px | recall %.4f, precision %.4f; "
                      "%zu of %zu planted found | %s |\n",
                      f.caseName.c_str(), f.recall(), f.precision(), f.plantedFound, f.planted,
                      f.recall() >= 0.97 && f.precision() >= 0.97 ? "yes" : "NO");
        md << line;
    }
    if (run.scaling.ran) {
        const HostScaling& s = run.scaling;
        const double speedup = s.one() / s.many();
        // The >= 1.7x target is the 2-core dev machine's (a second core); with more threads it is for information.
        const char* met = s.threads == 2 ? (speedup >= 1.7 ? "yes" : "NO") : "for information (target set for 2 threads)";
        std::snprintf(line, sizeof line,
                      "| host pipeline (detect + encode + stage), %d threads >= 1.7x one thread (2-core machine), thumbnail %d px "
                      "| %.1f ms vs %.1f ms = %.2fx | %s |\n",
                      s.threads, s.thumbnail, s.many(), s.one(), speedup, met);
        md << line;
    }
    if (run.redetection.ran) {
        const Redetection& r = run.redetection;
        const double bound = r.threads >= 16 ? 100.0 : r.threads <= 2 ? 400.0 : 0.0;
        std::snprintf(line, sizeof line,
                      "| GUI re-detection (minimum fill changed) of a %lld-entry binary matrix: <= 100 ms (16-core H100 host), "
                      "<= 400 ms (2-core machine) | %.1f ms on %d threads (detect with the picture %.1f + encode %.1f) | %s |\n",
                      static_cast<long long>(r.nnz), r.time.medianMs, r.threads, r.detectMs, r.encodeMs,
                      bound <= 0 ? "no target for this thread count" : r.time.medianMs <= bound ? "yes" : "NO");
        md << line;
    }
    if (options.quick) md << "\n--quick: measured on the quick case, not on the 1M x 1M case the targets are set for.\n";
    return md.str();
}

// The value of `option` when `text` is a whole number in [low, high]; none, after saying why on stderr, when not.
std::optional<int> wholeNumberOption(const char* option, const char* text, long low, long high, const char* what,
                                     const char* note = "") {
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end || value < low || value > high) {
        std::fprintf(stderr, "bench_hybrid: %s: '%s' is not %s in [%ld, %ld]%s\n", option, text, what, low, high, note);
        return std::nullopt;
    }
    return static_cast<int>(value);
}

} // namespace

int main(int argc, char** argv) {
    Options options;
    std::string stem;
    std::vector<std::string> only;
    const char* usage =
        "usage: bench_hybrid [--quick] [--case anchor|mixed]... [--thumb PIXELS]... [--threads N] [--parts] [--cpu-only] "
        "[--out STEM]\n";
    for (int i = 1; i < argc; ++i) {
        const bool hasValue = i + 1 < argc;
        if (!std::strcmp(argv[i], "--quick")) options.quick = true;
        else if (!std::strcmp(argv[i], "--parts")) options.parts = true;
        else if (!std::strcmp(argv[i], "--cpu-only")) options.cpuOnly = true;
        else if (!std::strcmp(argv[i], "--out") && hasValue) stem = argv[++i];
        else if (!std::strcmp(argv[i], "--threads") && hasValue) {
            const auto threads = wholeNumberOption("--threads", argv[++i], 0, 1024, "a thread count", " (0: every core)");
            if (!threads) return 2;
            options.detection.threads = *threads;
        } else if (!std::strcmp(argv[i], "--thumb") && hasValue) {
            const auto pixels = wholeNumberOption("--thumb", argv[++i], 16, 32768, "a number of pixels");
            if (!pixels) return 2;
            options.thumbnails.push_back(*pixels);
        } else if (!std::strcmp(argv[i], "--case") && hasValue && (!std::strcmp(argv[i + 1], "anchor") || !std::strcmp(argv[i + 1], "mixed")))
            only.push_back(argv[++i]);
        else {
            std::fprintf(stderr, "%s", usage);
            return 2;
        }
    }
    if (options.thumbnails.empty()) options.thumbnails = kDefaultThumbnails;
    return bench::exitCodeOf("bench_hybrid", [&] {
        const DeviceInfo device = cudaDeviceInfo();
        std::printf("%s\n", backendSummary().c_str());
        if (!device.present && !options.cpuOnly) {
            std::fprintf(stderr, "bench_hybrid: no CUDA device (%s); --cpu-only runs the host-side part alone\n",
                         device.reason.c_str());
            return 1;
        }
        Run run{bench::Report("Method D: hybrid encoding of binary matrices (regions found by detection), SpMV",
                              device.present && !options.cpuOnly ? device.name : "no device (--cpu-only)"),
                {}, {}};
        std::vector<Case> cases;
        Case anchor{"1M x 1M, 64 rectangles 2048^2 (50-90 %) + 10M scattered", {}, true};
        anchor.spec.rows = anchor.spec.cols = 1000000;
        anchor.spec.rectangles = 64, anchor.spec.blockSize = 2048, anchor.spec.fillMin = 0.5, anchor.spec.fillMax = 0.9;
        anchor.spec.scattered = 10000000, anchor.spec.seed = 2026;
        Case mixed{"400k x 400k, 24 rectangles + 24 triangles + 16 bands of 1024 (50-95 %) + 4M scattered", {}, false};
        mixed.spec.rows = mixed.spec.cols = 400000;
        mixed.spec.rectangles = 24, mixed.spec.triangles = 24, mixed.spec.bands = 16, mixed.spec.blockSize = 1024;
        mixed.spec.bandWidth = 129, mixed.spec.scattered = 4000000, mixed.spec.seed = 7;
        if (options.quick) {
            anchor.name = "quick 100k x 100k, 16 rectangles 1024^2 + 1M scattered";
            anchor.spec.rows = anchor.spec.cols = 100000, anchor.spec.rectangles = 16, anchor.spec.blockSize = 1024;
            anchor.spec.scattered = 1000000;
            cases = {anchor};
        } else {
            if (only.empty() || std::find(only.begin(), only.end(), "anchor") != only.end()) cases.push_back(anchor);
            if (only.empty() || std::find(only.begin(), only.end(), "mixed") != only.end()) cases.push_back(mixed);
        }
        std::printf("host threads: %d (--threads %d; this machine has %u)\n", resolvedThreads(options.threads()), options.threads(),
                    std::thread::hardware_concurrency());
        for (const Case& c : cases) runCase(c, run, options);
        runRedetection(options, run);

        const std::string sections = detectionSection(run, options) + targetsSection(run, options);
        std::printf("%s", sections.c_str());
        if (!stem.empty()) {
            writeFileAtomically(stem + ".md", run.report.toMarkdown() + sections);
            writeFileAtomically(stem + ".json", run.report.toJson());
            std::printf("\nwrote %s.md and %s.json\n", stem.c_str(), stem.c_str());
        }
        // A wrong result, or a row whose check did not run, fails the program.
        int failed = 0;
        for (std::size_t i = 0; i < run.checks.size(); ++i)
            if (run.checks[i] != Check::Exact) {
                const bench::Row& r = run.report.rows()[i];
                std::fprintf(stderr, "bench_hybrid: %s, %s: %s\n", r.benchmark.c_str(), r.variant.c_str(), toString(run.checks[i]));
                ++failed;
            }
        if (run.checks.empty()) {
            std::fprintf(stderr, "bench_hybrid: no row was measured\n");
            return 1;
        }
        if (failed) {
            std::fprintf(stderr, "bench_hybrid: %d of %zu rows wrong or unchecked\n", failed, run.checks.size());
            return 1;
        }
        std::printf("all %zu rows checked against the CPU reference: exact\n", run.checks.size());
        return run.report.printVerdict();
    });
}
