// Segmented-DIA compute service: matrix -> COO (fp64, or c128 when complex) -> format + stats -> SpMV
// per backend.
#include "segdiajob.h"

#include "complexspmv.h"
#include "errortext.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/scalar.h"
#include "spyglass/segdia_spmv.h"
#include "spyglass/spmvtiming.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace spyglass::app {

namespace {

void throwIfCancelled(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load()) throw CancelledError();
}

double maxRelativeError(const std::vector<double>& y, const std::vector<double>& reference) {
    double scale = 0, worst = 0;
    for (double v : reference) scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < y.size(); ++i) worst = std::max(worst, std::abs(y[i] - reference[i]));
    if (!std::isfinite(worst)) return worst;
    return scale > 0 ? worst / scale : worst;
}

// One backend's run through the measurement engine; a backend that cannot run (no GPU, out of
// memory) records why and leaves the others. T: double, or std::complex<double> for a complex matrix
// (whose product is kept in the run for the checks beyond the CSR reference).
template <typename T, typename F>
SpmvRun measuredRun(SpmvBackend backend, const QString& name, F&& timedSpmv, const std::vector<T>& reference) {
    SpmvRun run;
    run.backend = backend;
    run.name = name;
    try {
        const TimedSpmvOf<T> timed = timedSpmv();
        run.timing = timed.timing;
        run.bytesMoved = timed.bytesMoved;
        // The copy-bandwidth ceiling the timing table reads against: measured (once per process) here on
        // the worker, never by the table on the GUI thread.
        if (run.timing.clock == TimingClock::CudaEvents) deviceCopyBandwidthGBs();
        if constexpr (isComplexScalar<T>) {
            run.maxRelativeError = maxRelativeDifference(timed.y, reference);
            run.complexY = timed.y;
        } else {
            run.maxRelativeError = maxRelativeError(timed.y, reference);
        }
    } catch (const CancelledError&) {
        throw;
    } catch (const std::exception& error) {
        run.error = errorText(error);
    }
    return run;
}

// The CPU reference timed by the steady clock: one warm-up and three runs (it is there to check, not to race).
TimedSpmv timedOnCpu(const SegmentedDiaMatrix<double>& format, const std::vector<double>& x) {
    TimedSpmv timed;
    timed.timing = measureRepeated(
        [&] {
            timed.y = spmv(format, x, {SpmvBackend::Reference});
            return -1.0;
        },
        TimingOptions{1, 3});
    return timed;
}

QString describeStep(const DiaMergeStep& step) {
    return QStringLiteral("%1: block of segment %2 (%3 operands) joins block of segment %4 (%5 operands); largest %6; %7 blocks left")
        .arg(QString::fromLatin1(toString(step.rule)))
        .arg(step.absorbedLead)
        .arg(step.absorbedWork)
        .arg(step.intoLead)
        .arg(step.intoWork)
        .arg(step.maxWork)
        .arg(step.blocksAfter);
}

template <typename T>
std::shared_ptr<SegmentedDiaMatrix<T>> buildFormat(const CooMatrix<T>& coo, const SegmentedDiaRequest& request) {
    SegmentedDiaOptions options;
    options.threshold = request.threshold;
    options.merge = request.merge;
    return std::make_shared<SegmentedDiaMatrix<T>>(request.merge ? buildSegmentedDia(coo, options) : buildHdia(coo, request.threshold));
}

// The figures, merge steps and block of each segment: the same for real and complex values.
template <typename T>
void describeLayout(SegmentedDiaLayout& layout, const SegmentedDiaMatrix<T>& format, const CooMatrix<T>& coo) {
    layout.stats = computeSegmentedDiaStats(format);
    layout.csrBytes = static_cast<std::size_t>(coo.nnz()) * (sizeof(T) + sizeof(Index)) +
                      (static_cast<std::size_t>(coo.rows) + 1) * sizeof(Count);
    for (const DiaMergeStep& step : format.mergeSteps) layout.mergeSteps << describeStep(step);
    layout.segmentBlock.resize(format.segments());
    for (Index b = 0; b < format.blocks(); ++b)
        for (Index i = format.blockStart[b]; i < format.blockStart[b + 1]; ++i) layout.segmentBlock[format.blockSegments[i]] = b;
}

// A complex layout with each value's modulus: what the picture and the tables read (structure; a
// slot holding zero is padding in both).
SegmentedDiaMatrix<double> moduliOf(const SegmentedDiaMatrix<std::complex<double>>& c) {
    SegmentedDiaMatrix<double> m;
    m.rows = c.rows, m.cols = c.cols, m.threshold = c.threshold, m.nonzeros = c.nonzeros;
    m.segmentFirstRow = c.segmentFirstRow;
    m.segmentOffsetStart = c.segmentOffsetStart;
    m.offsets = c.offsets;
    m.segmentValueStart = c.segmentValueStart;
    m.segmentRemainderStart = c.segmentRemainderStart;
    m.segmentRemainderRowStart = c.segmentRemainderRowStart;
    m.remainderRowStart = c.remainderRowStart;
    m.remainderColumns = c.remainderColumns;
    m.blockStart = c.blockStart;
    m.blockSegments = c.blockSegments;
    m.mergeSteps = c.mergeSteps;
    auto modulus = [](const std::complex<double>& v) { return std::abs(v); };
    m.values.resize(c.values.size());
    std::transform(c.values.begin(), c.values.end(), m.values.begin(), modulus);
    m.remainderValues.resize(c.remainderValues.size());
    std::transform(c.remainderValues.begin(), c.remainderValues.end(), m.remainderValues.begin(), modulus);
    return m;
}

void runRealSpmv(SegmentedDiaLayout& layout, const SegmentedDiaRequest& request, const SegmentedDiaMatrix<double>& format,
                 const CooMatrix<double>& coo, const std::atomic<bool>* cancel) {
    const CsrMatrix<double> csr = cooToCsr(coo);
    std::vector<double> x(static_cast<std::size_t>(csr.cols));
    std::mt19937_64 random(12345);
    std::uniform_real_distribution<double> uniform(-1.0, 1.0);
    for (double& v : x) v = uniform(random);
    const std::vector<double> reference = spmvReference(csr, x);
    for (SpmvBackend backend : request.spmvBackends) {
        throwIfCancelled(cancel);
        switch (backend) {
        case SpmvBackend::Reference:
            layout.spmv << measuredRun(backend, QStringLiteral("CPU reference (segmented DIA)"), [&] { return timedOnCpu(format, x); },
                                       reference);
            break;
        case SpmvBackend::Cuda:
            layout.spmv << measuredRun(backend, QStringLiteral("CUDA segmented DIA"),
                                       [&] { return timeSpmv(format, x, {backend}, request.timing); }, reference);
            break;
        case SpmvBackend::Cusparse:
            layout.spmv << measuredRun(backend, QStringLiteral("cuSPARSE CSR"), [&] { return timeSpmv(csr, x, {backend}, request.timing); },
                                       reference);
            break;
        }
    }
}

// c128 on every backend asked for (CUDA segmented DIA, cuSPARSE CSR, the CPU reference), each checked
// against complex CSR on the CPU.
void runComplexSpmv(SegmentedDiaLayout& layout, const SegmentedDiaRequest& request, const SegmentedDiaMatrix<std::complex<double>>& format,
                    const CooMatrix<std::complex<double>>& coo, const std::atomic<bool>* cancel) {
    const CsrMatrix<std::complex<double>> csr = cooToCsr(coo);
    layout.complexX = seededComplexX(csr.cols, 12345);
    const std::vector<std::complex<double>> reference = spmvReference(csr, layout.complexX);
    for (SpmvBackend backend : request.spmvBackends) {
        throwIfCancelled(cancel);
        if (backend == SpmvBackend::Cuda) {
            layout.spmv << measuredRun(backend, QStringLiteral("CUDA segmented DIA"),
                                       [&] { return timeSpmv(format, layout.complexX, {backend}, request.timing); }, reference);
            continue;
        }
        if (backend == SpmvBackend::Cusparse) {
            layout.spmv << measuredRun(backend, QStringLiteral("cuSPARSE CSR"),
                                       [&] { return timeSpmv(csr, layout.complexX, {backend}, request.timing); }, reference);
            continue;
        }
        SpmvRun run;
        run.backend = backend;
        run.name = QStringLiteral("CPU reference (segmented DIA, c128)");
        run.timing = measureRepeated(
            [&] {
                run.complexY = spmvReference(format, layout.complexX);
                return -1.0;
            },
            TimingOptions{1, 3});
        run.maxRelativeError = maxRelativeDifference(run.complexY, reference);
        layout.spmv << run;
    }
}

} // namespace

SegmentedDiaLayout buildSegmentedDiaLayout(const SegmentedDiaRequest& request, const std::atomic<bool>* cancel) {
    if (!request.matrix) throw InputError("no matrix is open");
    if (request.threshold < 0) throw InputError("the segment height must be at least 1 row (or 0: chosen per matrix)");

    SegmentedDiaLayout layout;
    if (request.matrix->isComplex()) {
        const CooMatrix<std::complex<double>> coo = toCoo<std::complex<double>>(*request.matrix);
        throwIfCancelled(cancel);
        const auto format = buildFormat(coo, request);
        throwIfCancelled(cancel);
        describeLayout(layout, *format, coo);
        if (!request.spmvBackends.isEmpty()) runComplexSpmv(layout, request, *format, coo, cancel);
        layout.format = std::make_shared<const SegmentedDiaMatrix<double>>(moduliOf(*format));
        layout.complexFormat = format;
        return layout;
    }
    const CooMatrix<double> coo = toCoo<double>(*request.matrix);
    throwIfCancelled(cancel);
    const auto format = buildFormat(coo, request);
    throwIfCancelled(cancel);
    describeLayout(layout, *format, coo);
    if (!request.spmvBackends.isEmpty()) runRealSpmv(layout, request, *format, coo, cancel);
    layout.format = format;
    return layout;
}

template <>
SegmentedDiaJob::ComputeJob(QObject* parent)
    : ComputeJob(parent, buildSegmentedDiaLayout, QStringLiteral("building the segmented DIA format")) {}

} // namespace spyglass::app
