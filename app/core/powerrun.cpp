#include "powerrun.h"

#include "checkedwrite.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"

#include <QFileInfo>
#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <string>

namespace spyglass::app {
namespace {

// Matrices up to this size are checked against the CPU reference unless --no-check.
constexpr Count kAutoCheckEntries = 4'000'000;

struct PowerCheck {
    bool ran = false;
    double rayleigh = 0, rayleighDifference = 0, xDifference = 0, bound = 0;
    bool agrees() const { return rayleighDifference <= bound && xDifference <= bound; }
};

template <typename T>
PowerCheck checkAgainstReference(const Matrix& matrix, const PowerIterationResult& result, const PartitionRunOptions& options) {
    PartitionRunOptions reference;
    reference.iterations = options.iterations;
    reference.warmup = options.warmup;
    const PowerIterationResult expected = powerIteration(partitionMatrix(toCsr<T>(matrix), 1), reference);
    PowerCheck check;
    check.ran = true;
    check.rayleigh = expected.rayleigh.back();
    check.rayleighDifference = std::abs(result.rayleigh.back() - check.rayleigh) / std::max(std::abs(check.rayleigh), 1e-300);
    for (std::size_t i = 0; i < expected.x.size(); ++i)
        check.xDifference = std::max(check.xDifference, std::abs(result.x[i] - expected.x[i]));
    // Only the summation order of the dot products (and of the GPU kernels' rows) differs; the error
    // it leaves grows at most about linearly with the iterations. Far above that, far below what a
    // missing halo entry does (it changes x in the third digit or earlier).
    check.bound = (sizeof(T) == 4 ? 1e-3 : 1e-9);
    return check;
}

QJsonObject planJson(const PartitionPlan& plan) {
    QJsonArray parts;
    for (const RowPartition& p : plan.parts)
        parts.append(QJsonObject{{"rowBegin", p.rowBegin}, {"rowEnd", p.rowEnd}, {"bytes", double(p.bytes)},
                                 {"xBegin", p.xBegin}, {"xEnd", p.xEnd}});
    return QJsonObject{{"format", toString(plan.format)},
                       {"partitions", parts},
                       {"imbalance", plan.imbalance()},
                       {"exchange", toString(plan.exchange)},
                       {"exchangeBytes", double(plan.exchangeBytes())},
                       {"sendRecvBytes", double(plan.sendRecvBytes())},
                       {"allGatherBytes", double(plan.allGatherBytes())}};
}

template <typename T>
PowerRunOutcome runTyped(const Matrix& matrix, const PowerRunRequest& request) {
    const PartitionedMatrix<T> partitioned = buildPartitionedMatrix<T>(matrix, request.source, request.partitions);
    PartitionRunOptions options = request.run;
    const int iterations = options.iterations;
    options.warmup = std::min(options.warmup, iterations - 1);
    if (request.planReady) request.planReady(describePlan(partitioned.plan));
    const PowerIterationResult result = powerIteration(partitioned, options);

    const bool check = request.check > 0 || (request.check == 0 && matrix.expandedEntries() <= kAutoCheckEntries);
    const PowerCheck verdict = check ? checkAgainstReference<T>(matrix, result, options) : PowerCheck{};

    QString text;
    text += QStringLiteral("device: %1\n").arg(QString::fromStdString(result.device));
    text += QStringLiteral("iterations: %1 (%2 timed), per iteration %3 ms: compute %4 ms, communication %5 ms (%6 %)\n")
                .arg(iterations)
                .arg(result.timedIterations)
                .arg(result.iterationMs, 0, 'f', 4)
                .arg(result.computeMs, 0, 'f', 4)
                .arg(result.communicationMs, 0, 'f', 4)
                .arg(100.0 * result.communicationShare(), 0, 'f', 1);
    text += QStringLiteral("exchange: %1, %2 MB per iteration over %3 partitions\n")
                .arg(QString::fromLatin1(toString(partitioned.plan.exchange)))
                .arg(partitioned.plan.exchangeBytes() / 1e6, 0, 'f', 3)
                .arg(partitioned.plan.parts.size());
    text += QStringLiteral("set-up: %1 ms\n").arg(result.setupMs, 0, 'f', 1);
    text += QStringLiteral("rayleigh: %1\n").arg(result.rayleigh.back(), 0, 'g', 17);
    if (verdict.ran)
        text += QStringLiteral("check: CPU reference %1, relative difference %2, largest x difference %3 (bound %4): %5\n")
                    .arg(verdict.rayleigh, 0, 'g', 17)
                    .arg(verdict.rayleighDifference, 0, 'g', 3)
                    .arg(verdict.xDifference, 0, 'g', 3)
                    .arg(verdict.bound, 0, 'g', 3)
                    .arg(verdict.agrees() ? QStringLiteral("agrees") : QStringLiteral("DISAGREES"));

    QJsonObject object{{"matrix", QFileInfo(request.source).fileName()},
                       {"rows", matrix.rows},
                       {"type", sizeof(T) == 4 ? "f32" : "f64"},
                       {"backend", toString(options.backend)},
                       {"device", QString::fromStdString(result.device)},
                       {"ranks", result.ranks},
                       {"plan", planJson(partitioned.plan)},
                       {"iterations", iterations},
                       {"timedIterations", result.timedIterations},
                       {"iterationMs", result.iterationMs},
                       {"computeMs", result.computeMs},
                       {"communicationMs", result.communicationMs},
                       {"communicationShare", result.communicationShare()},
                       {"setupMs", result.setupMs},
                       {"rayleigh", result.rayleigh.back()}};
    QJsonArray deviceBytes;
    for (std::size_t b : result.deviceBytes) deviceBytes.append(double(b));
    object.insert("deviceBytes", deviceBytes);
    if (verdict.ran)
        object.insert("check", QJsonObject{{"reference", verdict.rayleigh},
                                           {"relativeDifference", verdict.rayleighDifference},
                                           {"xDifference", verdict.xDifference},
                                           {"bound", verdict.bound},
                                           {"agrees", verdict.agrees()}});
    PowerRunOutcome outcome;
    outcome.text = text;
    outcome.report = object;
    outcome.checked = verdict.ran;
    outcome.agrees = !verdict.ran || verdict.agrees();
    return outcome;
}

} // namespace

PowerRunOutcome runPowerIteration(const PowerRunRequest& request) {
    if (!request.matrix) throw InputError("power iteration: no matrix");
    const Matrix& matrix = *request.matrix;
    const std::string path = localPath(request.source);
    if (matrix.isComplex()) throw InputError(path + ": complex matrices have no real power iteration here");
    if (matrix.rows != matrix.cols)
        throw InputError(path + ": power iteration needs a square matrix (this one is " + std::to_string(matrix.rows) + " x " +
                         std::to_string(matrix.cols) + ")");
    return request.singlePrecision ? runTyped<float>(matrix, request) : runTyped<double>(matrix, request);
}

} // namespace spyglass::app
