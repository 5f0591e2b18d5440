#include "spmvrun.h"

#include "checkedwrite.h"
#include "hybriddetectionjob.h"
#include "hybridspmvjob.h"
#include "vectorfile.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/hostmemory.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/multigpu.h"
#include "spyglass/scalar.h"
#include "spyglass/segdia_spmv.h"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <random>
#include <type_traits>

namespace spyglass::app {
namespace {

// printf into a string: the figures keep the command line's long-standing layout.
std::string printed(const char* format, ...) {
    char buffer[1024];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buffer, sizeof buffer, format, args);
    va_end(args);
    return buffer;
}

void note(const SpmvRunRequest& request, const std::string& text) {
    if (request.note) request.note(text);
}

std::string segmentedDiaFigures(const SegmentedDiaStats& s, std::size_t mergeSteps, SegmentedDiaRemainder policy) {
    return printed("segments %lld -> blocks %lld (%zu merge steps), nonzeros %lld, stored slots %lld, padding %.4f (DIA part),\n"
                   "remainder (%s): %lld nonzeros in %lld segments, %zu bytes%s,\n"
                   "block work max %lld min %lld, max diagonals per segment %d, %zu bytes\n",
                   (long long)s.segments, (long long)s.blocks, mergeSteps, (long long)s.nonzeros, (long long)s.storedSlots,
                   s.paddingRatio, toString(policy), (long long)s.remainderNonzeros, (long long)s.remainderSegments,
                   s.remainderBytes,
                   s.remainderNonzeros == 0 ? "" : s.remainderOwnPass ? ", summed on a GPU in its own pass" : ", summed on a GPU by each row's thread",
                   (long long)s.maxBlockWork, (long long)s.minBlockWork, s.maxSegmentDiagonals, s.bytes);
}

// After how many SpMVs the encoding has paid for its detection, encoding and upload against cuSPARSE
// CSR: the two SpMVs and uploads timed on the GPU by the hybrid SpMV job's own run (median of warm
// runs, fp64, or c128 for a complex matrix); on the CPU the line says what is missing and gives the host times alone.
std::string breakEvenLine(HybridSpmvRequest spmv, double detectMs, double encodeMs, bool onGpu) {
    const std::string host = printed("detection %.1f ms, encoding %.1f ms", detectMs, encodeMs);
    if (!onGpu) return "break-even against cuSPARSE CSR: timed with --backend cuda (" + host + ")\n";
    try {
        spmv.backends = {HybridSpmvKernel::CudaHybrid, HybridSpmvKernel::CusparseCsr};
        const HybridSpmvResult result = runHybridSpmv(spmv);
        const HybridBreakEvenInfo even = hybridBreakEven(result, detectMs, encodeMs);
        if (!even.available) {
            std::string why = "a run did not agree with the reference";
            for (const HybridSpmvRun& run : result.runs)
                if (!run.error.isEmpty()) why = run.error.toStdString();
            return "break-even against cuSPARSE CSR: not timed (" + why + "; " + host + ")\n";
        }
        return printed("break-even against cuSPARSE CSR: %s; (%s + set-up and upload %.3f ms - CSR set-up and upload %.3f ms) / "
                       "(CSR SpMV %.4f ms - hybrid SpMV %.4f ms)\n",
                       even.text.toUtf8().constData(), host.c_str(), even.uploadMs, even.csrUploadMs, even.csrSpmvMs, even.spmvMs);
    } catch (const std::exception& error) {
        return "break-even against cuSPARSE CSR: not timed (" + std::string(error.what()) + "; " + host + ")\n";
    }
}

HybridDetectionResult detectBinary(const SpmvRunRequest& request) {
    return runHybridDetection(detectionRequest(request.matrix, request.source, request.detection));
}

template <typename T>
std::vector<T> computeHybrid(const SpmvRunRequest& request, const std::vector<T>& x) {
    const Matrix& matrix = *request.matrix;
    HybridSpmvOptions options;
    options.backend = request.runner == SpmvRunner::Cpu ? HybridSpmvBackend::Reference : HybridSpmvBackend::Cuda;
    const bool onGpu = options.backend == HybridSpmvBackend::Cuda;
    // A complex matrix takes the valued form even when every value is 1: the binary form multiplies
    // real x only.
    if (!matrix.isBinary() || isComplexScalar<T>) {
        DetectionResult detected;
        const auto start = std::chrono::steady_clock::now();
        const HybridValuedMatrix<T> hybrid = detectAndEncodeHybridValued(toCsr<T>(matrix), request.detection, &detected);
        const double prepareMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (request.note) {
            note(request, printed("valued hybrid: %zu regions (%lld explicit zeros), residual %lld entries, %zu bytes (CSR %zu)%s%s\n",
                                  hybrid.blocks.size(), (long long)hybrid.explicitZeros(), (long long)hybrid.residual.nnz(),
                                  hybrid.encodedBytes(), valuedCsrBytes(hybrid.rows, hybrid.nnz(), sizeof(T)),
                                  hybrid.csrFallback ? "; CSR fallback: " : "", hybrid.fallbackReason.c_str()));
            if constexpr (std::is_same_v<T, double>) {
                const double detectMs = detected.thumbnailMs + detected.componentsMs + detected.refineMs;
                HybridSpmvRequest spmv;
                spmv.valued = std::make_shared<const HybridValuedMatrix<double>>(hybrid);
                note(request, breakEvenLine(spmv, detectMs, prepareMs - detectMs, onGpu));
            } else if constexpr (std::is_same_v<T, std::complex<double>>) {
                const double detectMs = detected.thumbnailMs + detected.componentsMs + detected.refineMs;
                HybridSpmvRequest spmv;
                spmv.complexValued = std::make_shared<const HybridValuedMatrix<T>>(hybrid);
                note(request, breakEvenLine(spmv, detectMs, prepareMs - detectMs, onGpu));
            } else if constexpr (isComplexScalar<T>) {
                note(request, "break-even against cuSPARSE CSR: timed with --type c128\n");
            } else {
                note(request, "break-even against cuSPARSE CSR: timed with --type f64\n");
            }
        }
        return hybridSpmv(hybrid, x, options);
    }
    if constexpr (isComplexScalar<T>) {
        throw InputError("spmv: the binary hybrid form multiplies real values only");  // not reached: complex takes the valued form
    } else {
        const HybridDetectionResult run = detectBinary(request);
        const HybridBinaryMatrix& hybrid = *run.hybrid;
        if (request.note) {
            note(request, printed("hybrid: %zu regions, %lld zeros stored, residual %lld nonzeros, %zu bytes (pattern CSR %zu)%s%s\n",
                                  hybrid.blocks.size(), (long long)hybrid.zeros(), (long long)hybrid.residual.nnz(), hybrid.encodedBytes(),
                                  patternCsrBytes(hybrid.rows, hybrid.nnz()), hybrid.csrFallback ? "; CSR fallback: " : "",
                                  hybrid.fallbackReason.c_str()));
            HybridSpmvRequest spmv;
            spmv.hybrid = run.hybrid;
            spmv.pattern = run.pattern;
            note(request, breakEvenLine(spmv, run.detectMs, run.encodeMs, onGpu));
        }
        return hybridSpmv(hybrid, x, options);
    }
}

template <typename T>
std::vector<T> computePartitioned(const SpmvRunRequest& request, const std::vector<T>& x) {
    if constexpr (isComplexScalar<T>) {
        throw InputError(localPath(request.source) + ": partitioned SpMV multiplies real values only; complex matrices run unpartitioned on the CPU");
    } else {
        const PartitionedMatrix<T> parts = buildPartitionedMatrix<T>(*request.matrix, request.source, request.partitions);
        note(request, describePlan(parts.plan));
        PartitionRunOptions options;
        options.backend = request.runner == SpmvRunner::Cpu ? PartitionBackend::Reference : PartitionBackend::Cuda;
        options.devices = request.devices;
        return partitionedSpmv(parts, x, options);
    }
}

SpmvBackend backendOf(SpmvRunner runner) {
    return runner == SpmvRunner::Cpu ? SpmvBackend::Reference : runner == SpmvRunner::Cuda ? SpmvBackend::Cuda : SpmvBackend::Cusparse;
}

} // namespace

void requireSpmvInput(const Matrix& matrix, const QString& source) {
    const std::string path = localPath(source);
    // Row pointers, x and y are sized by the header alone (each at most 8 bytes an element).
    requireHostMemory(16 * (std::uint64_t(matrix.rows) + 1) + 8 * std::uint64_t(matrix.cols),
                      path + ": SpMV of a " + std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols) + " matrix");
}

template <typename T>
std::vector<T> spmvInputVector(const QString& xSource, unsigned seed, Index cols) {
    std::vector<T> x(static_cast<std::size_t>(cols));
    if (xSource == QLatin1String("ones")) {
        std::fill(x.begin(), x.end(), T(1));
    } else if (xSource == QLatin1String("random")) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<double> dist(-1.0, 1.0);
        for (auto& v : x) {
            if constexpr (isComplexScalar<T>) {
                const double re = dist(rng);  // named: the order of the two draws is fixed
                v = T(RealOf<T>(re), RealOf<T>(dist(rng)));
            } else {
                v = T(dist(rng));
            }
        }
    } else if constexpr (isComplexScalar<T>) {
        const std::vector<std::complex<double>> values = readComplexVectorFile(xSource, cols, "spmv");
        std::transform(values.begin(), values.end(), x.begin(), [](const std::complex<double>& v) { return T(v); });
    } else {
        const std::vector<double> values = readVectorFile(xSource, cols, "spmv");
        std::transform(values.begin(), values.end(), x.begin(), [](double v) { return T(v); });
    }
    return x;
}

template <typename T>
std::vector<T> computeSpmv(const SpmvRunRequest& request, const std::vector<T>& x) {
    if (!request.matrix) throw InputError("spmv: no matrix");
    const Matrix& matrix = *request.matrix;
    if (request.partitioned) return computePartitioned(request, x);
    if (request.format == SpmvFormat::Hybrid) return computeHybrid(request, x);
    const SpmvOptions options{backendOf(request.runner)};
    if (request.format == SpmvFormat::Csr) {
        const auto csr = toCsr<T>(matrix);
        note(request, printed("CSR: %lld nonzeros\n", (long long)csr.nnz()));
        return spmv(csr, x, options);
    }
    const auto coo = toCoo<T>(expandSymmetry(matrix));
    if (request.format == SpmvFormat::Dia) {
        const auto dia = buildDia(coo);
        note(request, printed("DIA: %zu diagonals, padding %.4f\n", dia.offsets.size(),
                              dia.nonzeros ? double(dia.storedSlots()) / double(dia.nonzeros) : 0.0));
        return spmv(dia, x, options);
    }
    const bool hdia = request.format == SpmvFormat::Hdia;
    const auto seg = hdia ? buildHdia(coo, request.threshold) : buildSegmentedDia(coo, {request.threshold, true, request.remainder});
    if (request.note)
        note(request, segmentedDiaFigures(computeSegmentedDiaStats(seg), seg.mergeSteps.size(),
                                          hdia ? SegmentedDiaRemainder::Off : request.remainder));
    return spmv(seg, x, options);
}

namespace {
template <typename T>
SpmvFigures figuresOf(const TimedSpmvOf<T>& run) {
    return {run.timing, run.bytesMoved};
}
} // namespace

template <typename T>
SpmvTimes timeSpmvBesideVendor(const SpmvRunRequest& request, const std::vector<T>& x) {
    if (!request.matrix) throw InputError("spmv: no matrix");
    const Matrix full = expandSymmetry(*request.matrix);
    const CsrMatrix<T> csr = toCsr<T>(full);
    SpmvTimes times;
    times.vendor = figuresOf(timeSpmv(csr, x, {SpmvBackend::Cusparse}, request.timing));
    switch (request.format) {
    case SpmvFormat::Csr:
        times.ours = times.vendor;
        times.name = QStringLiteral("cuSPARSE CSR");
        return times;
    case SpmvFormat::SegmentedDia:
    case SpmvFormat::Hdia: {
        const auto coo = toCoo<T>(full);
        const bool hdia = request.format == SpmvFormat::Hdia;
        const auto seg = hdia ? buildHdia(coo, request.threshold) : buildSegmentedDia(coo, {request.threshold, true, request.remainder});
        times.ours = figuresOf(timeSpmv(seg, x, {SpmvBackend::Cuda}, request.timing));
        times.name = hdia ? QStringLiteral("CUDA HDIA") : QStringLiteral("CUDA segmented DIA");
        return times;
    }
    case SpmvFormat::Hybrid:
        if constexpr (isComplexScalar<T>) {
            // Complex values take the valued form, as computeHybrid multiplies them.
            times.ours = figuresOf(timeHybridSpmv(detectAndEncodeHybridValued(csr, request.detection), x, {HybridSpmvBackend::Cuda},
                                                  request.timing));
        } else {
            times.ours = figuresOf(request.matrix->isBinary()
                                       ? timeHybridSpmv(*detectBinary(request).hybrid, x, {HybridSpmvBackend::Cuda}, request.timing)
                                       : timeHybridSpmv(detectAndEncodeHybridValued(csr, request.detection), x,
                                                        {HybridSpmvBackend::Cuda}, request.timing));
        }
        times.name = QStringLiteral("CUDA hybrid");
        return times;
    case SpmvFormat::Dia: break;
    }
    throw InputError("--time measures --format csr, segdia, hdia or hybrid");
}

template SpmvTimes timeSpmvBesideVendor<double>(const SpmvRunRequest&, const std::vector<double>&);
template SpmvTimes timeSpmvBesideVendor<std::complex<float>>(const SpmvRunRequest&, const std::vector<std::complex<float>>&);
template SpmvTimes timeSpmvBesideVendor<std::complex<double>>(const SpmvRunRequest&, const std::vector<std::complex<double>>&);
template std::vector<float> spmvInputVector<float>(const QString&, unsigned, Index);
template std::vector<double> spmvInputVector<double>(const QString&, unsigned, Index);
template std::vector<float> computeSpmv<float>(const SpmvRunRequest&, const std::vector<float>&);
template std::vector<double> computeSpmv<double>(const SpmvRunRequest&, const std::vector<double>&);
template std::vector<std::complex<float>> spmvInputVector<std::complex<float>>(const QString&, unsigned, Index);
template std::vector<std::complex<double>> spmvInputVector<std::complex<double>>(const QString&, unsigned, Index);
template std::vector<std::complex<float>> computeSpmv<std::complex<float>>(const SpmvRunRequest&, const std::vector<std::complex<float>>&);
template std::vector<std::complex<double>> computeSpmv<std::complex<double>>(const SpmvRunRequest&, const std::vector<std::complex<double>>&);

} // namespace spyglass::app
