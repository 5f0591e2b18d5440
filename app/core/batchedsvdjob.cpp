// Batched-SVD compute service: request -> batch (generated or read) -> svdBatched -> accuracy and
// per-matrix detail.
#include "batchedsvdjob.h"

#include "timingtext.h"

#include "stackedmatrices.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/hostmemory.h"

#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

namespace spyglass::app {

namespace {

// Shares of the progress bar: input, decomposition, accuracy.
constexpr double kInputShare = 0.05, kAccuracyShare = 0.10;
constexpr double kDecomposeShare = 1.0 - kInputShare - kAccuracyShare;
constexpr int kMaxFlagged = 1000;

// The shape errors the library would raise too, said before any batch is generated or allocated and
// naming where the shape came from.
void checkShape(int m, int n, const QString& where) {
    const std::string place = where.toStdString();
    if (n < 1) throw InputError(place + ": n must be at least 1 (got " + std::to_string(n) + ")");
    if (n > kMaxSvdColumns)
        throw InputError(place + ": n = " + std::to_string(n) + " columns, more than the " + std::to_string(kMaxSvdColumns) +
                         " the batched SVD takes");
    if (m < n)
        throw InputError(place + ": m = " + std::to_string(m) + " rows is smaller than n = " + std::to_string(n) +
                         " columns; the batched SVD needs n <= m (decompose the conjugate transpose instead)");
}

template <typename T>
BatchedSvdResult runTyped(const BatchedSvdRequest& request, const std::atomic<bool>* cancel, const SvdProgress& progress) {
    using R = SvdReal<T>;
    auto report = [&](const QString& phase, double fraction) {
        if (progress) progress(phase, fraction);
    };
    auto stopIfCancelled = [&] {
        if (cancel && cancel->load()) throw CancelledError();
    };
    if (!request.share.whole() && !request.inputFile.isEmpty()) throw InputError("batched SVD: a share of the batch is generated, not read");
    BatchedSvdResult result;
    int m = request.m, n = request.n;
    qint64 batch = request.batch;
    std::vector<T> a;
    if (!request.inputFile.isEmpty()) {
        const QString phase = QStringLiteral("reading %1").arg(QFileInfo(request.inputFile).fileName());
        report(phase, 0);
        ReadOptions options;
        options.cancel = cancel;
        options.progress = [&](double f) { report(phase, kInputShare * f); };
        a = readStackedMatrices<T>(request.inputFile, m, n, batch, options);
        checkShape(m, n, request.inputFile);
        result.source = QFileInfo(request.inputFile).fileName();
    } else {
        checkShape(m, n, QStringLiteral("batched SVD"));
        if (batch < 0) throw InputError("batched SVD: the batch size must not be negative");
        // A rank's share: only its matrices, as the whole batch has them (the generator draws and drops
        // the ones before it).
        if (!request.share.whole()) {
            if (!request.outputFile.isEmpty()) throw InputError("batched SVD: a share of the batch writes no file");
            if (request.share.begin < 0 || request.share.begin > request.share.end || request.share.end > batch)
                throw InputError("batched SVD: the share [" + std::to_string(request.share.begin) + ", " +
                                 std::to_string(request.share.end) + ") is not within the batch of " + std::to_string(batch));
            batch = request.share.count();
        }
        report(QStringLiteral("generating %1 matrices").arg(batch), 0);
        requireHostMemory(static_cast<std::uint64_t>(batch) * m * n * sizeof(T), "the generated SVD batch");
        a = generateSvdBatch<T>(request.kind, m, n, batch, request.seed, request.share.whole() ? 0 : request.share.begin);
        result.source = QStringLiteral("%1, seed %2").arg(QString::fromLatin1(toString(request.kind))).arg(request.seed);
    }
    // Where the matrices stand in the batch: a share's indices and accuracy sample are the batch's.
    const qint64 first = request.share.whole() ? 0 : request.share.begin;
    stopIfCancelled();
    const std::size_t mn = static_cast<std::size_t>(m) * n, nn = static_cast<std::size_t>(n) * n;
    const std::size_t count = static_cast<std::size_t>(batch);
    requireHostMemory(count * (mn + nn) * sizeof(T) + count * n * sizeof(R), "the batched SVD's U, sigma and V");
    std::vector<T> u(count * mn), v(count * nn);
    std::vector<R> sigma(count * n);

    SvdOptions options;
    options.backend = request.backend;
    if (request.backend == SvdBackend::Cuda) options.variant = request.variant;
    options.devices = request.devices;
    options.streamChunk = request.streamChunk;
    options.widthBatch = request.share.whole() ? 0 : request.batch;
    options.timing = request.timing;
    options.tolerance = request.tolerance;
    options.maxSweeps = request.maxSweeps;
    options.cancel = cancel;
    const qint64 detail = std::clamp<qint64>(request.detailMatrices, 0, batch);
    const QString decomposing = QStringLiteral("decomposing on %1").arg(QString::fromLatin1(toString(request.backend)));
    SvdRunInfo run;
    // The CPU's variant is reported apart (result.variant) and kept out of the device name.
    std::string cpuVariant;
    if (request.backend == SvdBackend::Reference) {
        // The CPU runs in slices so that the bar moves; the time is the sum of the slices' own times.
        const qint64 slice = std::max<qint64>(16, batch / 100);
        run.status.reserve(count);
        run.sweeps.reserve(count);
        run.offOrthogonality.reserve(count);
        run.computeMs = run.totalMs = 0;
        qint64 first = 0;
        do {  // at least once, so that an empty batch still reports the device and tolerance
            const qint64 here = std::min(slice, batch - first);
            report(decomposing, kInputShare + kDecomposeShare * double(first) / double(std::max<qint64>(batch, 1)));
            options.historyMatrices = std::max<qint64>(0, detail - first);
            const SvdRunInfo part = svdBatched(a.data() + first * mn, u.data() + first * mn, sigma.data() + first * n,
                                               v.data() + first * nn, m, n, here, options);
            run.status.insert(run.status.end(), part.status.begin(), part.status.end());
            run.sweeps.insert(run.sweeps.end(), part.sweeps.begin(), part.sweeps.end());
            run.offOrthogonality.insert(run.offOrthogonality.end(), part.offOrthogonality.begin(), part.offOrthogonality.end());
            for (const auto& h : part.sweepHistory) run.sweepHistory.push_back(h);
            run.computeMs += part.computeMs;
            run.setupMs += part.setupMs;
            run.totalMs += part.totalMs;
            run.tolerance = part.tolerance;
            run.device = part.device;
            cpuVariant = part.variant;
            first += here;
        } while (first < batch);
    } else {
        report(decomposing, -1);  // one call: the GPU path reports no progress of its own
        run = svdBatched(a.data(), u.data(), sigma.data(), v.data(), m, n, batch, options);
    }
    stopIfCancelled();

    result.m = m;
    result.n = n;
    result.batch = batch;
    result.precision = QString::fromLatin1(toString(request.precision));
    result.backend = QString::fromLatin1(toString(request.backend));
    result.device = QString::fromStdString(run.device);
    result.variant = QString::fromStdString(run.variant.empty() ? cpuVariant : run.variant);
    if (!run.variant.empty()) result.device += QStringLiteral(" (%1)").arg(result.variant);
    if (request.backend == SvdBackend::Reference) {
        // The CPU ran in slices: one run of the whole batch, the sum of the slices' steady-clock times.
        run.timing.clock = TimingClock::SteadyClock;
        run.timing.medianMs = run.timing.minMs = run.timing.maxMs = run.computeMs;
        run.timing.repeats = 1;
    }
    result.takeTimes(run);
    result.bytesMoved = double(count) * (double(2 * mn + nn) * sizeof(T) + double(n) * sizeof(R));
    result.tolerance = run.tolerance;
    result.maxSweepsAllowed = request.maxSweeps;
    result.sweepsReported = request.backend != SvdBackend::Cusolver && request.backend != SvdBackend::CusolverGesvda;
    if (!run.vendorResidual.empty()) {
        result.vendorResidual = 0;
        for (std::size_t b = 0; b < count; ++b)
            if (run.status[b] != SvdStatus::NonFiniteInput && !(run.vendorResidual[b] <= result.vendorResidual))
                result.vendorResidual = std::isnan(result.vendorResidual) ? result.vendorResidual : run.vendorResidual[b];
    }
    result.maxSweepsUsed = result.sweepsReported ? 0 : -1;
    result.maxOffOrthogonality = result.sweepsReported ? 0.0 : std::numeric_limits<double>::quiet_NaN();
    for (std::size_t b = 0; b < count; ++b) {
        const SvdStatus s = run.status[b];
        if (s != SvdStatus::NonFiniteInput && result.sweepsReported) {
            result.maxSweepsUsed = std::max(result.maxSweepsUsed, run.sweeps[b]);
            result.maxOffOrthogonality = std::max(result.maxOffOrthogonality, run.offOrthogonality[b]);
        }
        if (s == SvdStatus::Converged) continue;
        if (s == SvdStatus::NonFiniteInput) ++result.nonFiniteCount;
        else ++result.notConvergedCount;
        if (result.flaggedIndices.size() < kMaxFlagged) {
            result.flaggedIndices.push_back(first + static_cast<qint64>(b));
            result.flaggedStatus.push_back(static_cast<int>(s));
        }
    }

    result.detailCount = detail;
    result.sigma.reserve(static_cast<int>(detail * n));
    for (std::size_t k = 0; k < static_cast<std::size_t>(detail) * n; ++k) result.sigma.push_back(static_cast<double>(sigma[k]));
    for (qint64 b = 0; b < detail; ++b) {
        result.status.push_back(static_cast<int>(run.status[b]));
        result.sweeps.push_back(run.sweeps[b]);
        result.offOrthogonality.push_back(run.offOrthogonality[b]);
    }
    for (const auto& h : run.sweepHistory) result.sweepHistory.push_back(QVector<double>(h.begin(), h.end()));

    // Accuracy in slices of the sampled matrices, for progress and cancel.
    // The first accuracyMatrices of the batch: of a share, those of its matrices that are among them.
    const qint64 sampled = std::clamp<qint64>(request.accuracyMatrices - first, 0, batch);
    const qint64 slice = 256;
    for (qint64 first = 0; first < sampled; first += slice) {
        stopIfCancelled();
        report(QStringLiteral("measuring accuracy"), 1.0 - kAccuracyShare + kAccuracyShare * double(first) / double(sampled));
        const qint64 here = std::min(slice, sampled - first);
        const std::vector<SvdStatus> status(run.status.begin() + first, run.status.begin() + first + here);
        const SvdAccuracy acc = svdAccuracy(a.data() + first * mn, u.data() + first * mn, sigma.data() + first * n,
                                            v.data() + first * nn, m, n, here, &status);
        result.reconstruction = std::max(result.reconstruction, acc.reconstruction);
        result.uOrthogonality = std::max(result.uOrthogonality, acc.uOrthogonality);
        result.vOrthogonality = std::max(result.vOrthogonality, acc.vOrthogonality);
        result.unsortedOrNegative += acc.unsortedOrNegative;
    }
    result.accuracySampled = sampled;
    if (!request.outputFile.isEmpty()) {
        // sigma is batch x n with each matrix's values together: a stack of 1 x n matrices.
        report(QStringLiteral("writing %1").arg(QFileInfo(request.outputFile).fileName()), 1.0);
        writeStackedMatrices(request.outputFile, sigma, 1, n, batch,
                             "singular values, row b = matrix b, descending; NaN for non-finite input");
    }
    report(QStringLiteral("done"), 1.0);
    return result;
}

} // namespace

QVector<double> BatchedSvdResult::singularValues(qint64 index) const {
    if (index < 0 || index >= detailCount) return {};
    return sigma.mid(static_cast<int>(index * n), n);
}

QString BatchedSvdResult::summary() const {
    QString line = summaryHead(QStringLiteral("%1x%2").arg(m).arg(n), device) +
                   QStringLiteral("; ||A-USV^H||/||A|| %1, |U^H U-I| %2, |V^H V-I| %3")
                       .arg(reconstruction, 0, 'g', 3)
                       .arg(uOrthogonality, 0, 'g', 3)
                       .arg(vOrthogonality, 0, 'g', 3);
    if (accuracySampled < batch) line += QStringLiteral(" (first %1)").arg(accuracySampled);
    if (sweepsReported) line += QStringLiteral("; up to %1 sweeps").arg(maxSweepsUsed);
    if (!std::isnan(vendorResidual) || backend == QLatin1String(toString(SvdBackend::CusolverGesvda)))
        line += QStringLiteral("; cuSOLVER h_R_nrmF up to %1").arg(vendorResidual, 0, 'g', 3);
    line += QStringLiteral("; %1 not converged, %2 NaN/Inf").arg(notConvergedCount).arg(nonFiniteCount);
    return line + summaryTail();
}

BatchedSvdResult runBatchedSvd(const BatchedSvdRequest& request, const std::atomic<bool>* cancel, const SvdProgress& progress) {
    return withElementType(request.precision, [&](auto zero) { return runTyped<decltype(zero)>(request, cancel, progress); });
}

namespace {
BatchedSvdResult runWithProgress(const BatchedSvdRequest& request, const std::atomic<bool>* cancel, const JobProgress& progress) {
    return runBatchedSvd(request, cancel, [&progress](const QString& phase, double fraction) { progress(progressPercent(fraction), phase); });
}
QString doing(const BatchedSvdRequest& request) {
    return QStringLiteral("decomposing %1 matrices of %2 x %3").arg(request.batch).arg(request.m).arg(request.n);
}
} // namespace

template <>
BatchedSvdJob::ComputeJob(QObject* parent) : ComputeJob(parent, runWithProgress, doing) {}

template <>
BatchedSvdSweepJob::ComputeJob(QObject* parent)
    : ComputeJob(parent, sweepRun<BatchedSvdRequest, BatchedSvdResult>(runWithProgress),
                 sweepDoing<BatchedSvdRequest>(doing, QStringLiteral("decomposing nothing"))) {}

} // namespace spyglass::app
