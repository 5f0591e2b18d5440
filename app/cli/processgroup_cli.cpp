#include "processgroup_cli.h"

#include "command.h"

#include "core/rankrun.h"

#include <QProcessEnvironment>

#include <optional>

namespace spyglass::cli::processgroup {
namespace {

// The first of these variables that is set, parsed as an integer (its name in the error otherwise).
std::optional<long long> fromEnvironment(const QProcessEnvironment& env, const QString& name, QString& origin) {
    if (!env.contains(name)) return std::nullopt;
    origin = name;
    return parseInteger(env.value(name), QStringLiteral("environment variable ") + name);
}

} // namespace

Args takeArgs(ArgParser& parser) {
    const QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    Args args;
    args.rendezvous = parser.value(QStringLiteral("--rendezvous"), QString());
    args.runId = parser.value(QStringLiteral("--run-id"), env.value(QStringLiteral("TORCHELASTIC_RUN_ID")));
    args.timeoutSeconds = static_cast<int>(parser.integer(QStringLiteral("--rendezvous-timeout"), 300, 1, 86400));
    const std::optional<QString> rankText = parser.value(QStringLiteral("--rank"));
    const std::optional<QString> worldText = parser.value(QStringLiteral("--world-size"));
    const bool slurm = !args.rendezvous.isEmpty();

    QString rankOrigin, worldOrigin, localOrigin;
    std::optional<long long> world = worldText ? std::optional(parseInteger(*worldText, QStringLiteral("option --world-size"))) : std::nullopt;
    if (worldText) worldOrigin = QStringLiteral("--world-size");
    if (!world) world = fromEnvironment(env, QStringLiteral("WORLD_SIZE"), worldOrigin);
    if (!world && slurm) world = fromEnvironment(env, QStringLiteral("SLURM_NTASKS"), worldOrigin);
    std::optional<long long> rank = rankText ? std::optional(parseInteger(*rankText, QStringLiteral("option --rank"))) : std::nullopt;
    if (rankText) rankOrigin = QStringLiteral("--rank");
    if (!rank) rank = fromEnvironment(env, QStringLiteral("RANK"), rankOrigin);
    if (!rank && slurm) rank = fromEnvironment(env, QStringLiteral("SLURM_PROCID"), rankOrigin);
    std::optional<long long> local = fromEnvironment(env, QStringLiteral("LOCAL_RANK"), localOrigin);
    if (!local) local = fromEnvironment(env, QStringLiteral("SLURM_LOCALID"), localOrigin);

    const long long worldSize = world.value_or(1), rankValue = rank.value_or(0);
    const QString worldName = worldOrigin.isEmpty() ? QStringLiteral("world size") : worldOrigin;
    if (worldSize < 1) throw UsageError{QStringLiteral("%1 must be at least 1 (got %2)").arg(worldName).arg(worldSize)};
    if (worldSize > 65536) throw UsageError{QStringLiteral("%1 %2 is above 65536").arg(worldName).arg(worldSize)};
    if (rankValue < 0 || rankValue >= worldSize)
        throw UsageError{QStringLiteral("rank %1 (%2) is outside 0..%3 for world size %4")
                             .arg(rankValue)
                             .arg(rankOrigin.isEmpty() ? QStringLiteral("default") : rankOrigin)
                             .arg(worldSize - 1)
                             .arg(worldSize)};
    if (worldSize > 1 && args.rendezvous.isEmpty())
        throw UsageError{QStringLiteral("world size %1 (%2) needs --rendezvous file:PATH or tcp:HOST:PORT, where the ranks meet")
                             .arg(worldSize)
                             .arg(worldName)};
    if (worldSize > 1)
        if (const QString problem = app::rendezvousProblem(args.rendezvous, args.runId); !problem.isEmpty()) throw UsageError{problem};
    args.worldSize = static_cast<int>(worldSize);
    args.rank = static_cast<int>(rankValue);
    args.localRank = local ? static_cast<int>(*local) : args.rank;
    if (args.localRank < 0) throw UsageError{QStringLiteral("%1 must not be negative (got %2)").arg(localOrigin).arg(args.localRank)};
    args.origin = worldOrigin.isEmpty() ? QStringLiteral("one process") : worldOrigin;
    return args;
}

app::RankPlace Args::place() const {
    app::RankPlace place;
    place.rank = rank;
    place.worldSize = worldSize;
    place.localRank = localRank;
    place.rendezvous = rendezvous;
    place.runId = runId;
    place.timeoutSeconds = timeoutSeconds;
    return place;
}

UsageError refused(const Args& group, const QString& why) {
    return UsageError{QStringLiteral("one process per GPU (%1 %2) %3").arg(group.origin).arg(group.worldSize).arg(why)};
}

} // namespace spyglass::cli::processgroup
