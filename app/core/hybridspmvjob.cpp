// Method D's SpMV on every backend, checked and timed, on a pool thread. Exceptions stop here.
#include "hybridspmvjob.h"

#include "errortext.h"

#include "spyglass/benchmark.h"
#include "spyglass/error.h"
#include "spyglass/spmvtiming.h"

#include <QtConcurrent/QtConcurrentRun>

#include <chrono>
#include <cmath>
#include <random>

namespace spyglass::app {

namespace {
using Clock = std::chrono::steady_clock;

QString backendName(HybridSpmvBackend backend) {
    switch (backend) {
    case HybridSpmvBackend::CpuHybrid: return QStringLiteral("CPU hybrid (reference kernel)");
    case HybridSpmvBackend::CudaHybrid: return QStringLiteral("CUDA hybrid");
    case HybridSpmvBackend::CusparseCsr: return QStringLiteral("cuSPARSE CSR");
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

void check(HybridSpmvRun& run, const std::vector<double>& y, const std::vector<double>& reference) {
    if (y.size() != reference.size()) {
        run.error = QStringLiteral("result has %1 entries, expected %2").arg(y.size()).arg(reference.size());
        return;
    }
    double worst = 0;
    for (std::size_t i = 0; i < y.size(); ++i) worst = std::max(worst, std::abs(y[i] - reference[i]));
    run.maxAbsError = worst;
    run.matches = worst == 0.0;  // integer x: every backend's fp64 sums are exact
}

void setTiming(HybridSpmvRun& run, const bench::TimingSummary& t) {
    run.medianMs = t.medianMs;
    run.minMs = t.minMs;
    run.maxMs = t.maxMs;
    run.repeats = t.repeats;
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

HybridSpmvResult runHybridSpmv(const HybridSpmvRequest& request, const std::atomic<bool>* cancel) {
    if (!request.hybrid || !request.pattern) throw InputError("hybrid SpMV: no encoding (detect the dense regions first)");
    const HybridBinaryMatrix& hybrid = *request.hybrid;
    const BinaryPattern& pattern = *request.pattern;
    if (hybrid.rows != pattern.rows || hybrid.cols != pattern.cols)
        throw InputError("hybrid SpMV: the encoding is " + std::to_string(hybrid.rows) + " x " + std::to_string(hybrid.cols) +
                         " but the matrix is " + std::to_string(pattern.rows) + " x " + std::to_string(pattern.cols));
    auto cancelled = [cancel] { return cancel && cancel->load(); };
    HybridSpmvResult result;
    result.rows = pattern.rows;
    result.cols = pattern.cols;
    result.nnz = pattern.nnz();
    result.warmup = request.warmup;
    result.repeats = request.repeats;
    result.bytes = hybridBytes(hybrid, pattern);

    std::mt19937 rng(request.seed);
    std::uniform_int_distribution<int> value(-4, 4);
    std::vector<double> x(static_cast<std::size_t>(pattern.cols));
    for (double& v : x) v = value(rng);
    const std::vector<double> reference = patternSpmvReference(pattern, x);

    for (HybridSpmvBackend backend : request.backends) {
        if (cancelled()) throw CancelledError();
        HybridSpmvRun run;
        run.backend = backend;
        run.name = backendName(backend);
        try {
            switch (backend) {
            case HybridSpmvBackend::CpuHybrid: {
                std::vector<double> y;
                setTiming(run, bench::measure(
                                   [&] {
                                       const auto start = Clock::now();
                                       y = hybridSpmvReference(hybrid, x);
                                       return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
                                   },
                                   request.warmup, request.repeats));
                check(run, y, reference);
                break;
            }
            case HybridSpmvBackend::CudaHybrid: {
                const TimedSpmv timed = hybridSpmvCudaTimed(hybrid, x, request.warmup, request.repeats);
                run.uploadMs = timed.uploadMs;
                setTiming(run, timed.multiply);
                check(run, timed.y, reference);
                break;
            }
            case HybridSpmvBackend::CusparseCsr: {
                const TimedSpmv timed = cusparseCsrSpmvTimed(patternAsCsr(pattern), x, request.warmup, request.repeats);
                run.uploadMs = timed.uploadMs;
                setTiming(run, timed.multiply);
                check(run, timed.y, reference);
                break;
            }
            }
        } catch (const CancelledError&) {
            throw;
        } catch (const std::exception& error) {
            run.error = errorText(error);  // one backend failing (no GPU, out of memory) leaves the others
        }
        result.runs.push_back(run);
    }
    return result;
}

HybridSpmvJob::HybridSpmvJob(QObject* parent) : QObject(parent) {
    qRegisterMetaType<spyglass::app::HybridSpmvResult>();
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &HybridSpmvJob::deliver);
}

HybridSpmvJob::~HybridSpmvJob() {
    m_cancel = true;
    m_watcher.waitForFinished();
}

bool HybridSpmvJob::start(const HybridSpmvRequest& request) {
    if (m_watcher.isRunning()) return false;
    m_cancel = false;
    m_watcher.setFuture(QtConcurrent::run([this, request]() {
        Outcome outcome;
        try {
            outcome.result = std::make_shared<HybridSpmvResult>(runHybridSpmv(request, &m_cancel));
        } catch (const CancelledError&) {
            outcome.cancelled = true;
        } catch (const std::exception& error) {
            outcome.error = errorText(error);
        }
        return outcome;
    }));
    return true;
}

void HybridSpmvJob::cancel() { m_cancel = true; }

void HybridSpmvJob::deliver() {
    const Outcome outcome = m_watcher.result();
    if (outcome.cancelled) emit cancelled();
    else if (outcome.result) emit finished(*outcome.result);
    else emit failed(outcome.error);
}

} // namespace spyglass::app
