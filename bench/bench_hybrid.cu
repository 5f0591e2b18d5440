// Method D benchmark: the hybrid encoding of a blocky binary matrix against CSR.
// For each case: bytes of every format, host->device upload time (pageable memory, as a caller's
// std::vector), SpMV kernel time (CUDA events, median of repeats), and upload + one SpMV. Baselines
// in the same process on the same data: cuSPARSE CSR SpMV (values all 1.0f, 32-bit indices) and our
// own pattern-only CSR kernel. Every result vector is checked against the CPU reference (integer x,
// so all three must agree exactly).
//   bench_hybrid [--quick] [--case anchor|mixed]... [--parts] [--out STEM]
// --parts also times the hybrid kernel on the region rows alone (residual emptied) and on the residual
// alone (regions dropped), to show where the time goes; those figures go to the log only.
#include "cuda/event_timer.h"
#include "cuda/hybrid_spmv_device.h"

#include "spyglass/backend.h"
#include "spyglass/benchmark.h"
#include "spyglass/hybridbinary.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

using namespace spyglass;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

struct Case {
    std::string name;
    BlockyMatrixSpec spec;
};

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
    std::size_t bytes() const { return rowPtr.size() * 4 + cols.size() * 4 + values.size() * 4; }
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

void runCase(const Case& c, bench::Report& report, bool haveDevice, bool parts) {
    std::printf("\n== %s ==\n", c.name.c_str());
    auto start = Clock::now();
    const GeneratedBinary g = generateBlockyBinary(c.spec);
    const BinaryPattern& p = g.pattern;
    std::printf("generated %d x %d, %lld nonzeros, %zu planted shapes in %.0f ms\n", p.rows, p.cols,
                static_cast<long long>(p.nnz()), g.planted.size(), msSince(start));
    // The detection cost is the thumbnail pass (components and refinement work on the small image).
    const Index cpp = autoCellsPerPixel(p.rows, p.cols, 2048);
    const bench::TimingSummary thumb = bench::measure([&] {
        const auto t0 = Clock::now();
        const PatternThumbnail t = renderPatternThumbnail(p, cpp);
        return msSince(t0) + 0.0 * t.counts[0];
    }, 1, 3);
    std::printf("thumbnail pass (%d cells/pixel): median %.1f ms over %lld nonzeros (host CPU, one thread)\n", cpp,
                thumb.medianMs, static_cast<long long>(p.nnz()));
    start = Clock::now();
    const HybridBinaryMatrix h = encodeHybrid(p, g.planted);
    std::printf("encoded in %.0f ms: %zu blocks, %lld zeros stored, residual %lld, fallback %s%s\n", msSince(start),
                h.blocks.size(), static_cast<long long>(h.zeros()), static_cast<long long>(h.residual.nnz()),
                h.csrFallback ? "yes: " : "no", h.fallbackReason.c_str());
    const double hybridBytes = static_cast<double>(h.encodedBytes());
    const double patternBytes = static_cast<double>(patternCsrBytes(p.rows, p.nnz()));
    const double vendorBytes = static_cast<double>(vendorCsrBytes(p.rows, p.nnz()));
    std::printf("bytes: cuSPARSE CSR %.1f MB, pattern CSR %.1f MB, hybrid %.1f MB (1/%.2f of cuSPARSE CSR, 1/%.2f of pattern CSR)\n",
                vendorBytes / 1e6, patternBytes / 1e6, hybridBytes / 1e6, vendorBytes / hybridBytes, patternBytes / hybridBytes);

    std::mt19937 rng(17);
    std::uniform_int_distribution<int> value(-4, 4);
    std::vector<float> x(static_cast<std::size_t>(p.cols));
    for (float& v : x) v = static_cast<float>(value(rng));
    start = Clock::now();
    const std::vector<float> expected = hybridSpmvReference(h, x);
    std::printf("CPU reference SpMV: %.0f ms; matches pattern CSR reference: %s\n", msSince(start),
                expected == patternSpmvReference(p, x) ? "yes" : "NO");
    if (!haveDevice) {
        std::printf("no CUDA device: GPU rows skipped\n");
        return;
    }

    cuda::CudaStream stream;
    cuda::DeviceBuffer<float> dx, dy(static_cast<std::size_t>(p.rows));
    dx.upload(x, stream.get());
    std::vector<float> y(static_cast<std::size_t>(p.rows));
    auto check = [&](const char* what) {
        std::fill(y.begin(), y.end(), -1.0f);
        dy.download(y.data(), y.size(), stream.get());
        stream.synchronize();
        const int bad = mismatches(y, expected);
        std::printf("  %s: %s\n", what, bad ? ("MISMATCH in " + std::to_string(bad) + " rows").c_str() : "equals the CPU reference");
        return bad;
    };
    auto uploadTime = [&](const std::function<void()>& upload) {
        return bench::measure([&] {
            cuda::EventTimer timer(stream.get());
            timer.start();
            upload();
            return static_cast<double>(timer.stopMilliseconds());
        }, 1, 5);
    };
    auto kernelTime = [&](const std::function<void()>& multiply) {
        return bench::measure([&] {
            cuda::EventTimer timer(stream.get());
            timer.start();
            multiply();
            return static_cast<double>(timer.stopMilliseconds());
        }, 5, 30);
    };
    const std::string kernelName = "SpMV kernel, " + c.name;
    const std::string uploadName = "upload, " + c.name;
    const std::string totalName = "upload + SpMV, " + c.name;
    const double vectorBytes = 4.0 * (p.rows + p.cols);

    bench::TimingSummary vendorUpload, vendorKernel, patternUpload, patternKernel, hybridUpload, hybridKernel;
    int bad = 0;
    {
        VendorCsr vendor(p);
        vendorUpload = uploadTime([&] { vendor.upload(stream.get()); });
        vendor.prepare(p.rows, p.cols, dx.data(), dy.data(), stream.get());
        vendorKernel = kernelTime([&] { vendor.multiply(); });
        bad += check("cuSPARSE CSR");
    }
    {
        cuda::PatternCsrDevice pattern;
        patternUpload = uploadTime([&] { pattern.upload(p, stream.get()); });
        patternKernel = kernelTime([&] { pattern.multiply(dx.data(), dy.data(), stream.get()); });
        bad += check("pattern CSR kernel");
    }
    {
        cuda::HybridDeviceMatrix hybrid;
        hybrid.stage(h);  // host-side flattening, like VendorCsr's int32/float arrays: not timed
        hybridUpload = uploadTime([&] { hybrid.upload(stream.get()); });
        hybridKernel = kernelTime([&] { hybrid.multiply(dx.data(), dy.data(), stream.get()); });
        bad += check("hybrid kernel");
        std::printf("  hybrid bytes on the device: %.1f MB\n", hybrid.uploadedBytes() / 1e6);
    }
    if (parts) {
        HybridBinaryMatrix oneRegion = regionsOnly(h);
        oneRegion.blocks.resize(std::min<std::size_t>(oneRegion.blocks.size(), 1));
        for (const auto& [what, part] : {std::pair<const char*, HybridBinaryMatrix>{"regions only", regionsOnly(h)},
                                         {"residual only", residualOnly(h)},
                                         {"first region only, no residual (fixed cost)", oneRegion}}) {
            cuda::HybridDeviceMatrix hybrid;
            hybrid.upload(part, stream.get());
            const bench::TimingSummary t = kernelTime([&] { hybrid.multiply(dx.data(), dy.data(), stream.get()); });
            std::printf("  part: hybrid kernel, %s: median %.4f ms (min %.4f, max %.4f)\n", what, t.medianMs, t.minMs, t.maxMs);
        }
    }
    const std::string verdict = bad ? "RESULT MISMATCH" : "exact";
    auto row = [&](const std::string& benchmark, const std::string& variant, bool baseline, bench::TimingSummary t,
                   double bytes, const std::string& note) {
        bench::Row r;
        r.benchmark = benchmark, r.variant = variant, r.isBaseline = baseline, r.time = t, r.bytes = bytes, r.note = note;
        report.add(r);
        report.print(r);
    };
    auto sum = [](bench::TimingSummary a, const bench::TimingSummary& b) {
        a.medianMs += b.medianMs, a.minMs += b.minMs, a.maxMs += b.maxMs;
        return a;
    };
    row(kernelName, "cuSPARSE CSR (values 1.0f)", true, vendorKernel, vendorBytes + vectorBytes, verdict);
    row(kernelName, "spyglass pattern CSR", false, patternKernel, patternBytes + vectorBytes, verdict);
    row(kernelName, "spyglass hybrid (method D)", false, hybridKernel, hybridBytes + vectorBytes + 8.0 * p.cols, verdict);
    row(uploadName, "cuSPARSE CSR (values 1.0f)", true, vendorUpload, vendorBytes, "pageable host memory");
    row(uploadName, "spyglass pattern CSR", false, patternUpload, patternBytes, "pageable host memory");
    row(uploadName, "spyglass hybrid (method D)", false, hybridUpload, hybridBytes, "pageable host memory");
    row(totalName, "cuSPARSE CSR (values 1.0f)", true, sum(vendorUpload, vendorKernel), vendorBytes, "medians added");
    row(totalName, "spyglass pattern CSR", false, sum(patternUpload, patternKernel), patternBytes, "medians added");
    row(totalName, "spyglass hybrid (method D)", false, sum(hybridUpload, hybridKernel), hybridBytes, "medians added");
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false, parts = false;
    std::string stem;
    std::vector<std::string> only;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) quick = true;
        else if (!std::strcmp(argv[i], "--parts")) parts = true;
        else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) stem = argv[++i];
        else if (!std::strcmp(argv[i], "--case") && i + 1 < argc && (!std::strcmp(argv[i + 1], "anchor") || !std::strcmp(argv[i + 1], "mixed")))
            only.push_back(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_hybrid [--quick] [--case anchor|mixed]... [--parts] [--out STEM]\n");
            return 2;
        }
    }
    try {
        const DeviceInfo device = cudaDeviceInfo();
        std::printf("%s\n", backendSummary().c_str());
        bench::Report report("Method D: hybrid encoding of binary matrices, SpMV", device.present ? device.name : "no device");
        std::vector<Case> cases;
        Case anchor{"1M x 1M, 64 rectangles 2048^2 (50-90 %) + 10M scattered", {}};
        anchor.spec.rows = anchor.spec.cols = 1000000;
        anchor.spec.rectangles = 64, anchor.spec.blockSize = 2048, anchor.spec.fillMin = 0.5, anchor.spec.fillMax = 0.9;
        anchor.spec.scattered = 10000000, anchor.spec.seed = 2026;
        Case mixed{"400k x 400k, 24 rectangles + 24 triangles + 16 bands of 1024 (50-95 %) + 4M scattered", {}};
        mixed.spec.rows = mixed.spec.cols = 400000;
        mixed.spec.rectangles = 24, mixed.spec.triangles = 24, mixed.spec.bands = 16, mixed.spec.blockSize = 1024;
        mixed.spec.bandWidth = 129, mixed.spec.scattered = 4000000, mixed.spec.seed = 7;
        if (quick) {
            anchor.name = "quick 100k x 100k, 16 rectangles 1024^2 + 1M scattered";
            anchor.spec.rows = anchor.spec.cols = 100000, anchor.spec.rectangles = 16, anchor.spec.blockSize = 1024;
            anchor.spec.scattered = 1000000;
            cases = {anchor};
        } else {
            if (only.empty() || std::find(only.begin(), only.end(), "anchor") != only.end()) cases.push_back(anchor);
            if (only.empty() || std::find(only.begin(), only.end(), "mixed") != only.end()) cases.push_back(mixed);
        }
        for (const Case& c : cases) runCase(c, report, device.present, parts);
        if (!stem.empty()) {
            report.write(stem);
            std::printf("\nwrote %s.md and %s.json\n", stem.c_str(), stem.c_str());
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "bench_hybrid: %s\n", error.what());
        return 1;
    }
    return 0;
}
