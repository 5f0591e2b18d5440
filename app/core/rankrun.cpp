#include "rankrun.h"

#include "spyglass/error.h"

#include <chrono>
#include <cmath>
#include <string>

namespace spyglass::app {
namespace {

// A measurement as doubles and back, for the all-gather (every field that the reports print).
std::vector<double> packed(const Measurement& m) {
    return {double(static_cast<int>(m.clock)), m.medianMs, m.minMs, m.maxMs, double(m.warmup), double(m.repeats), m.coldMs,
            m.cacheFlushed ? 1.0 : 0.0,      m.setupMs,  m.uploadMs, m.downloadMs};
}

Measurement unpacked(const std::vector<double>& v) {
    Measurement m;
    m.clock = static_cast<TimingClock>(static_cast<int>(v[0]));
    m.medianMs = v[1];
    m.minMs = v[2];
    m.maxMs = v[3];
    m.warmup = static_cast<int>(v[4]);
    m.repeats = static_cast<int>(v[5]);
    m.coldMs = v[6];
    m.cacheFlushed = v[7] != 0;
    m.setupMs = v[8];
    m.uploadMs = v[9];
    m.downloadMs = v[10];
    return m;
}

} // namespace

QString rendezvousProblem(const QString& spec, const QString& runId) {
    try {
        parseRendezvousSpec(spec.toStdString(), runId.toStdString());
    } catch (const InputError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

ProcessGroup processGroupOf(const RankPlace& place) {
    ProcessGroup group;
    group.rank = place.rank;
    group.worldSize = place.worldSize;
    group.device = deviceForLocalRank(place.localRank);
    group.rendezvous = parseRendezvousSpec(place.rendezvous.toStdString(), place.runId.toStdString());
    group.timeout = std::chrono::seconds(place.timeoutSeconds);
    return group;
}

QString rankName(const ProcessGroup& group) {
    return QStringLiteral("rank %1 of %2 (GPU %3)").arg(group.rank).arg(group.worldSize).arg(group.device);
}

int slowestRank(const RankCommunicator& communicator, double ms) {
    const std::vector<double> all = communicator.allGather({ms});
    int slowest = 0;
    for (std::size_t r = 1; r < all.size(); ++r)
        if (all[r] > all[std::size_t(slowest)]) slowest = static_cast<int>(r);
    return slowest;
}

std::vector<double> figuresOf(const RankCommunicator& communicator, int rank, const std::vector<double>& mine) {
    const std::vector<double> all = communicator.allGather(mine);
    const auto first = all.begin() + static_cast<std::ptrdiff_t>(mine.size()) * rank;
    return {first, first + static_cast<std::ptrdiff_t>(mine.size())};
}

Measurement measurementOf(const RankCommunicator& communicator, int rank, const Measurement& mine) {
    return unpacked(figuresOf(communicator, rank, packed(mine)));
}

std::vector<double> maxOverRanks(const RankCommunicator& communicator, const std::vector<double>& mine) {
    const std::vector<double> all = communicator.allGather(mine);
    std::vector<double> result = mine;
    for (std::size_t i = 0; i < mine.size(); ++i)
        for (std::size_t k = i; k < all.size(); k += mine.size())
            if (std::isnan(all[k]) || all[k] > result[i]) result[i] = std::isnan(result[i]) ? result[i] : all[k];
    return result;
}

std::vector<double> sumOverRanks(const RankCommunicator& communicator, const std::vector<double>& mine) {
    const std::vector<double> all = communicator.allGather(mine);
    std::vector<double> result(mine.size(), 0.0);
    for (std::size_t k = 0; k < all.size(); ++k) result[k % mine.size()] += all[k];
    return result;
}

} // namespace spyglass::app
