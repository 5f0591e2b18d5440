// Segmented-DIA compute service: matrix -> COO (fp64) -> format + stats -> SpMV per backend.
#include "segdiajob.h"

#include "errortext.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/segdia_spmv.h"


#include <algorithm>
#include <chrono>
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

// Times one call after one untimed call, so that context creation and library loading stay out.
template <typename F>
SpmvRun timedRun(const QString& name, F&& spmv, const std::vector<double>& reference) {
    SpmvRun run;
    run.name = name;
    try {
        spmv();
        const auto start = std::chrono::steady_clock::now();
        const std::vector<double> y = spmv();
        run.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        run.maxRelativeError = maxRelativeError(y, reference);
    } catch (const std::exception& error) {
        run.error = errorText(error);
    }
    return run;
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

} // namespace

SegmentedDiaLayout buildSegmentedDiaLayout(const SegmentedDiaRequest& request, const std::atomic<bool>* cancel) {
    if (!request.matrix) throw InputError("no matrix is open");
    if (request.matrix->isComplex()) throw InputError("segmented DIA supports real matrices; this one is complex");
    if (request.threshold < 1) throw InputError("the segment height must be at least 1 row");

    const CooMatrix<double> coo = toCoo<double>(*request.matrix);
    throwIfCancelled(cancel);
    SegmentedDiaOptions options;
    options.threshold = request.threshold;
    options.merge = request.merge;
    auto format = std::make_shared<SegmentedDiaMatrix<double>>(
        request.merge ? buildSegmentedDia(coo, options) : buildHdia(coo, request.threshold));
    throwIfCancelled(cancel);

    SegmentedDiaLayout layout;
    layout.stats = computeSegmentedDiaStats(*format);
    layout.csrBytes = static_cast<std::size_t>(coo.nnz()) * (sizeof(double) + sizeof(Index)) +
                      (static_cast<std::size_t>(coo.rows) + 1) * sizeof(Count);
    for (const DiaMergeStep& step : format->mergeSteps) layout.mergeSteps << describeStep(step);
    layout.segmentBlock.resize(format->segments());
    for (Index b = 0; b < format->blocks(); ++b)
        for (Index i = format->blockStart[b]; i < format->blockStart[b + 1]; ++i) layout.segmentBlock[format->blockSegments[i]] = b;

    if (!request.spmvBackends.isEmpty()) {
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
                layout.spmv << timedRun(QStringLiteral("CPU reference (segmented DIA)"),
                                        [&] { return spmv(*format, x, {backend}); }, reference);
                break;
            case SpmvBackend::Cuda:
                layout.spmv << timedRun(QStringLiteral("CUDA segmented DIA"), [&] { return spmv(*format, x, {backend}); }, reference);
                break;
            case SpmvBackend::Cusparse:
                layout.spmv << timedRun(QStringLiteral("cuSPARSE CSR"), [&] { return spmv(csr, x, {backend}); }, reference);
                break;
            }
        }
    }
    layout.format = std::move(format);
    return layout;
}

template <>
SegmentedDiaJob::ComputeJob(QObject* parent)
    : ComputeJob(parent, buildSegmentedDiaLayout, QStringLiteral("building the segmented DIA format")) {}

} // namespace spyglass::app
