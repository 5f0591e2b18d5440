#include "poweroutcome.h"

#include <QFileInfo>
#include <QJsonArray>

namespace spyglass::app {
namespace {

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

} // namespace

PowerRunOutcome powerOutcome(const PowerFacts& facts, const PowerIterationResult& result, const PartitionPlan& plan,
                             const PowerCheck& verdict) {
    QString text;
    text += QStringLiteral("device: %1\n").arg(QString::fromStdString(result.device));
    text += QStringLiteral("iterations: %1 (%2 timed), per iteration %3 ms: compute %4 ms, communication %5 ms (%6 %)\n")
                .arg(facts.iterations)
                .arg(result.timedIterations)
                .arg(result.iterationMs, 0, 'f', 4)
                .arg(result.computeMs, 0, 'f', 4)
                .arg(result.communicationMs, 0, 'f', 4)
                .arg(100.0 * result.communicationShare(), 0, 'f', 1);
    text += QStringLiteral("exchange: %1, %2 MB per iteration over %3 partitions")
                .arg(QString::fromLatin1(toString(plan.exchange)))
                .arg(plan.exchangeBytes() / 1e6, 0, 'f', 3)
                .arg(plan.parts.size());
    if (result.exchangeMs > 0)
        text += QStringLiteral(", %1 ms %2").arg(result.exchangeMs, 0, 'f', 4)
                    .arg(result.overlappedExchange
                             ? QStringLiteral("on a stream of its own, %1 ms of it hidden behind the own-column multiply")
                                   .arg(result.hiddenExchangeMs, 0, 'f', 4)
                             : QStringLiteral("after the scaling (not overlapped)"));
    text += QLatin1Char('\n');
    text += QStringLiteral("step: %1\n").arg(result.fusedStep ? QStringLiteral("fused: one pass multiplies and forms the dot products")
                                                                : QStringLiteral("separate passes: multiply, dot products, scaling"));
    text += QStringLiteral("set-up: %1 ms\n").arg(result.setupMs, 0, 'f', 1);
    text += QStringLiteral("rayleigh: %1\n").arg(result.rayleigh.back(), 0, 'g', 17);
    if (verdict.ran)
        text += QStringLiteral("check: CPU reference %1, relative difference %2, largest x difference %3 (bound %4): %5\n")
                    .arg(verdict.rayleigh, 0, 'g', 17)
                    .arg(verdict.rayleighDifference, 0, 'g', 3)
                    .arg(verdict.xDifference, 0, 'g', 3)
                    .arg(verdict.bound, 0, 'g', 3)
                    .arg(verdict.agrees() ? QStringLiteral("agrees") : QStringLiteral("DISAGREES"));

    QJsonObject object{{"matrix", QFileInfo(facts.source).fileName()},
                       {"rows", facts.rows},
                       {"type", facts.singlePrecision ? "f32" : "f64"},
                       {"backend", toString(facts.backend)},
                       {"device", QString::fromStdString(result.device)},
                       {"ranks", result.ranks},
                       {"plan", planJson(plan)},
                       {"iterations", facts.iterations},
                       {"timedIterations", result.timedIterations},
                       {"iterationMs", result.iterationMs},
                       {"computeMs", result.computeMs},
                       {"communicationMs", result.communicationMs},
                       {"communicationShare", result.communicationShare()},
                       {"setupMs", result.setupMs},
                       {"fusedStep", result.fusedStep},
                       {"exchangeMs", result.exchangeMs},
                       {"hiddenExchangeMs", result.hiddenExchangeMs},
                       {"overlappedExchange", result.overlappedExchange},
                       {"rayleigh", result.rayleigh.back()}};
    if (facts.processes > 1) {  // one process per GPU: the report is rank 0's
        object.insert("processes", facts.processes);
        object.insert("rank", facts.rank);
    }
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

} // namespace spyglass::app
