// Method D's SpMV on every backend, checked and timed, on a pool thread. Exceptions stop here.
#include "hybridspmvjob.h"

#include "hybridspmv_complex.h"

#include "spyglass/measurement.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/scalar.h"
#include "spyglass/segdia_spmv.h"
#include "spyglass/spmvtiming.h"


#include <cmath>
#include <limits>
#include <random>

namespace spyglass::app {

namespace {

QString backendName(HybridSpmvKernel backend) {
    switch (backend) {
    case HybridSpmvKernel::CpuHybrid: return QStringLiteral("CPU hybrid (reference kernel)");
    case HybridSpmvKernel::CudaHybrid: return QStringLiteral("CUDA hybrid");
    case HybridSpmvKernel::CusparseCsr: return QStringLiteral("cuSPARSE CSR");
    }
    return {};
}

CsrMatrix<double> patternAsCsr(const BinaryPattern& pattern) {
    CsrMatrix<double> csr;
    csr.rows = pattern.rows;
    csr.cols = pattern.cols;
    csr.rowPtr = pattern.rowPtr;
    csr.colIndex = pattern.colIndex;
    csr.values.assign(pattern.colIndex.size(), 1.0);
    return csr;
}

// What a run is checked against: y of plain CSR SpMV and, for valued matrices, a rounding bound per
// row (empty for binary ones: there the sums are exact and the check is equality).
struct Oracle {
    std::vector<double> y, bound;
};

Oracle valuedOracle(const CsrMatrix<double>& a, const std::vector<double>& x) {
    Oracle oracle;
    oracle.y = spmvReference(a, x);
    oracle.bound.resize(oracle.y.size());
    const double eps = std::numeric_limits<double>::epsilon();
    for (Index i = 0; i < a.rows; ++i) {
        double magnitude = 0;
        for (Count k = a.rowPtr[std::size_t(i)]; k < a.rowPtr[std::size_t(i) + 1]; ++k)
            magnitude += std::abs(a.values[std::size_t(k)] * x[std::size_t(a.colIndex[std::size_t(k)])]);
        const double terms = double(a.rowPtr[std::size_t(i) + 1] - a.rowPtr[std::size_t(i)] + 1);
        oracle.bound[std::size_t(i)] = 2.0 * terms * eps * magnitude;
    }
    return oracle;
}

void check(HybridSpmvRun& run, const std::vector<double>& y, const Oracle& oracle) {
    if (y.size() != oracle.y.size()) {
        run.error = QStringLiteral("result has %1 entries, expected %2").arg(y.size()).arg(oracle.y.size());
        return;
    }
    double worst = 0, worstRatio = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        // An inf or NaN the reference has too (a matrix holding one) is agreement.
        if (y[i] == oracle.y[i] || (std::isnan(y[i]) && std::isnan(oracle.y[i]))) continue;
        const double difference = std::abs(y[i] - oracle.y[i]);
        if (std::isnan(difference)) {  // a NaN where the reference has a number (or inf against -inf)
            worst = worstRatio = std::numeric_limits<double>::infinity();
            continue;
        }
        worst = std::max(worst, difference);
        if (!oracle.bound.empty())
            worstRatio = std::max(worstRatio, oracle.bound[i] > 0 ? difference / oracle.bound[i] : std::numeric_limits<double>::infinity());
    }
    run.maxAbsError = worst;
    run.errorOverBound = worstRatio;
    // Binary: integer x, every backend's fp64 sums are exact. Valued: within each row's bound.
    run.matches = oracle.bound.empty() ? worst == 0.0 : worstRatio <= 1.0;
}

} // namespace

HybridBytes hybridBytes(const HybridBinaryMatrix& hybrid, const BinaryPattern& pattern) {
    HybridBytes b;
    b.csr = static_cast<qint64>(patternCsrBytes(pattern.rows, pattern.nnz()));
    b.coo = 2 * static_cast<qint64>(sizeof(Index)) * pattern.nnz();
    b.cusparseCsr = static_cast<qint64>(sizeof(int)) * (pattern.rows + 1) +
                    static_cast<qint64>(sizeof(int) + sizeof(double)) * pattern.nnz();
    b.hybrid = static_cast<qint64>(hybrid.encodedBytes());
    b.residual = static_cast<qint64>(patternCsrBytes(hybrid.residual.rows, hybrid.residual.nnz()));
    for (const HybridBlock& block : hybrid.blocks) {
        b.zeroRowPointers += static_cast<qint64>(sizeof(std::uint32_t)) * (block.region.height() + 1);
        b.zeroOffsets += static_cast<qint64>(sizeof(std::uint16_t)) * block.zeros();
    }
    // The fixed-width records (docs/container-format.md) are what remains of the total.
    b.regionHeaders = b.hybrid - b.residual - b.zeroRowPointers - b.zeroOffsets;
    return b;
}

namespace {
template <typename T>
HybridBytes valuedHybridBytes(const HybridValuedMatrix<T>& hybrid) {
    HybridBytes b;
    b.valued = true;
    b.complexValues = isComplexScalar<T>;
    const Count nnz = hybrid.nnz();
    b.csr = static_cast<qint64>(valuedCsrBytes(hybrid.rows, nnz, sizeof(T)));
    b.coo = static_cast<qint64>(2 * sizeof(Index) + sizeof(T)) * nnz;
    b.cusparseCsr = static_cast<qint64>(sizeof(int)) * (hybrid.rows + 1) + static_cast<qint64>(sizeof(int) + sizeof(T)) * nnz;
    b.hybrid = static_cast<qint64>(hybrid.encodedBytes());
    b.residual = static_cast<qint64>(valuedCsrBytes(hybrid.residual.rows, hybrid.residual.nnz(), sizeof(T)));
    for (const HybridValuedBlock<T>& block : hybrid.blocks) b.denseValues += static_cast<qint64>(sizeof(T)) * block.region.cells();
    b.regionHeaders = b.hybrid - b.residual - b.denseValues;
    return b;
}
} // namespace

HybridBytes hybridBytes(const HybridValuedMatrix<double>& hybrid) { return valuedHybridBytes(hybrid); }
HybridBytes hybridBytes(const HybridValuedMatrix<std::complex<double>>& hybrid) { return valuedHybridBytes(hybrid); }

HybridSpmvResult runHybridSpmv(const HybridSpmvRequest& request, const std::atomic<bool>* cancel) {
    if (request.complexValued) {
        if (request.valued || request.hybrid || request.pattern)
            throw InputError("hybrid SpMV: give one encoding (a complex one alone), not several");
        return runComplexHybridSpmv(request, cancel);
    }
    const bool valued = request.valued != nullptr;
    if (valued ? (request.hybrid || request.pattern) : (!request.hybrid || !request.pattern))
        throw InputError(valued ? "hybrid SpMV: give a binary or a valued encoding, not both"
                                : "hybrid SpMV: no encoding (detect the dense regions first)");
    if (!valued && (request.hybrid->rows != request.pattern->rows || request.hybrid->cols != request.pattern->cols))
        throw InputError("hybrid SpMV: the encoding is " + std::to_string(request.hybrid->rows) + " x " +
                         std::to_string(request.hybrid->cols) + " but the matrix is " + std::to_string(request.pattern->rows) +
                         " x " + std::to_string(request.pattern->cols));
    HybridSpmvResult result = valued ? resultBeforeRuns(*request.valued, hybridBytes(*request.valued), request)
                                     : resultBeforeRuns(*request.pattern, hybridBytes(*request.hybrid, *request.pattern), request);

    std::mt19937 rng(request.seed);
    std::uniform_int_distribution<int> value(-4, 4);
    std::vector<double> x(static_cast<std::size_t>(result.cols));
    for (double& v : x) v = value(rng);
    // What cuSPARSE multiplies and the oracle reads: the original pattern, or what the valued encoding holds.
    const CsrMatrix<double> csr = valued ? decodeHybridValued(*request.valued) : patternAsCsr(*request.pattern);
    const Oracle oracle = valued ? valuedOracle(csr, x) : Oracle{patternSpmvReference(*request.pattern, x), {}};

    for (HybridSpmvKernel backend : request.backends) {
        appendRun(result, backend, cancel, [&](HybridSpmvRun& run) {
            run.name = backendName(backend);
            switch (backend) {
            case HybridSpmvKernel::CpuHybrid: {
                std::vector<double> y;
                run.timing = measureRepeated(
                    [&] {
                        const spyglass::HybridSpmvOptions cpu{spyglass::HybridSpmvBackend::Reference};
                        y = valued ? hybridSpmv(*request.valued, x, cpu) : hybridSpmv(*request.hybrid, x, cpu);
                        return -1.0;  // the steady clock times it
                    },
                    {request.warmup, request.repeats});
                check(run, y, oracle);
                break;
            }
            case HybridSpmvKernel::CudaHybrid: {
                const spyglass::HybridSpmvOptions onGpu{spyglass::HybridSpmvBackend::Cuda};
                const TimedSpmv timed = valued ? timeHybridSpmv(*request.valued, x, onGpu, {request.warmup, request.repeats})
                                               : timeHybridSpmv(*request.hybrid, x, onGpu, {request.warmup, request.repeats});
                run.timing = timed.timing;
                run.bytesMoved = timed.bytesMoved;
                deviceCopyBandwidthGBs();  // measured here on the worker, never by the table on the GUI thread
                check(run, timed.y, oracle);
                break;
            }
            case HybridSpmvKernel::CusparseCsr: {
                const TimedSpmv timed = timeSpmv(csr, x, {SpmvBackend::Cusparse}, {request.warmup, request.repeats});
                run.timing = timed.timing;
                run.bytesMoved = timed.bytesMoved;
                deviceCopyBandwidthGBs();  // measured here on the worker, never by the table on the GUI thread
                check(run, timed.y, oracle);
                break;
            }
            }
        });
    }
    return result;
}

HybridBreakEvenInfo hybridBreakEven(const HybridSpmvResult& result, double detectMs, double encodeMs) {
    HybridBreakEvenInfo info;
    const HybridSpmvRun *hybrid = nullptr, *csr = nullptr;
    for (const HybridSpmvRun& run : result.runs) {
        if (!run.error.isEmpty() || !run.matches) continue;
        if (run.backend == HybridSpmvKernel::CudaHybrid) hybrid = &run;
        if (run.backend == HybridSpmvKernel::CusparseCsr) csr = &run;
    }
    if (!hybrid || !csr) return info;
    // What each needs before its first multiply: set-up (device buffers; cuSPARSE's handle,
    // descriptors and workspace) and the upload, each timed once (negative: did not happen).
    auto ready = [](const Measurement& m) { return std::max(0.0, m.setupMs) + std::max(0.0, m.uploadMs); };
    info.uploadMs = ready(hybrid->timing), info.csrUploadMs = ready(csr->timing);
    info.spmvMs = hybrid->timing.medianMs, info.csrSpmvMs = csr->timing.medianMs;
    const spyglass::HybridBreakEven even =
        spyglass::hybridBreakEven(detectMs + encodeMs + info.uploadMs, info.spmvMs, info.csrUploadMs, info.csrSpmvMs);
    info.available = true;
    info.never = even.never;
    info.spmvs = even.spmvs;
    info.text = QString::fromStdString(even.text());
    return info;
}

template <>
HybridSpmvJob::ComputeJob(QObject* parent) : ComputeJob(parent, runHybridSpmv, QStringLiteral("running the hybrid SpMV")) {}

} // namespace spyglass::app
