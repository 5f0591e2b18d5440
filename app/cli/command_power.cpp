// spyglass-cli power FILE: power iteration y = A x, x <- y / |y| with the matrix's rows split over
// GPUs (--gpus N, NCCL between them) or over partitions on one GPU or the CPU (--partitions P); see
// spyglass/multigpu.h and docs/scale.md. Prints the time per iteration, the communication share and
// the Rayleigh quotient on a line of its own; on small matrices (or with --check) the result is
// checked against the unpartitioned CPU reference, and a disagreement exits 1.
//
// With --world-size W > 1 (or torchrun's or srun's variables and --rendezvous) the process is one rank
// of W, one GPU each, possibly on several hosts: it reads only its rows (csr only), rank 0 prints the
// report and every other rank one line (nothing with --json).
#include "cliargs.h"
#include "command.h"
#include "hybrid_cli.h"
#include "inputmatrix.h"
#include "partitioned_cli.h"
#include "processgroup_cli.h"

#include "core/checkedwrite.h"
#include "core/powerrank.h"
#include "core/powerrun.h"

#include <QJsonDocument>

#include <cstdio>
#include <memory>

namespace spyglass::cli {
namespace {

// Prints the report (rank 0 or a single process) or the rank's line, writes --out, and says whether
// the check (when it ran) agrees.
int finish(const app::PowerRunOutcome& outcome, bool json, bool summaryOnly, const QString& out) {
    const QByteArray document = QJsonDocument(outcome.report).toJson(QJsonDocument::Indented);
    if (!summaryOnly && json)
        std::fputs(document.constData(), stdout);
    else if (!json)
        std::fputs(outcome.text.toUtf8().constData(), stdout);
    if (!summaryOnly && !out.isEmpty()) app::writeCheckedText(out, "power report", document.toStdString());
    if (!outcome.agrees) {
        std::fprintf(stderr, "spyglass-cli power: the result disagrees with the CPU reference\n");
        return ExitFailure;
    }
    return ExitOk;
}

// One rank of a run with one process per GPU: its rows only, on the GPU of its local rank. request
// holds the run's options; the group's place and the file are added here.
int runPowerRank(const processgroup::Args& group, const QString& format, const partitioned::Args& args, app::RankPowerRequest request,
                 bool json, const QString& out) {
    if (format != QLatin1String("csr")) throw processgroup::refused(group, QStringLiteral("runs --format csr only"));
    if (args.given() || args.cpu)
        throw processgroup::refused(group, QStringLiteral("takes its GPU from the local rank: leave out --gpus, --partitions and --cpu"));
    request.place = group.place();
    request.exchange = args.exchange;
    return finish(app::runPowerIterationAsRank(request), json, group.rank != 0, out);
}

int runPower(const QStringList& arguments) {
    ArgParser parser(arguments);
    const QString format = parser.choice(QStringLiteral("--format"), {"csr", "segdia", "hybrid"}, QStringLiteral("csr"));
    const Index threshold = static_cast<Index>(parser.integer(QStringLiteral("--threshold"), 1024, 1, 1 << 30));
    const hybridcli::DetectionArgs detection = hybridcli::takeDetectionOptions(parser);
    if (!detection.given.isEmpty() && format != QLatin1String("hybrid"))
        throw UsageError{QStringLiteral("%1 applies to --format hybrid only").arg(detection.given.join(QStringLiteral(", ")))};
    const partitioned::Args args = partitioned::takeArgs(parser);
    const processgroup::Args group = processgroup::takeArgs(parser);
    const int iterations = static_cast<int>(parser.integer(QStringLiteral("--iterations"), 100, 1, 1000000));
    const int warmup = static_cast<int>(parser.integer(QStringLiteral("--warmup"), 3, 0, 1000000));
    const QString type = parser.choice(QStringLiteral("--type"), {"f32", "f64"}, QStringLiteral("f64"));
    const bool stats = parser.flag(QStringLiteral("--stats"));
    const bool json = parser.flag(QStringLiteral("--json"));
    const bool forceCheck = parser.flag(QStringLiteral("--check"));
    const bool noCheck = parser.flag(QStringLiteral("--no-check"));
    if (forceCheck && noCheck) throw UsageError{QStringLiteral("--check and --no-check exclude each other")};
    const QString out = parser.value(QStringLiteral("-o|--out"), QString());
    const QString file = parser.positionals(1, 1, QStringLiteral("FILE")).first();
    const auto printPlan = [](const std::string& plan) { std::fputs(plan.c_str(), stderr); };
    if (group.multiProcess()) {
        app::RankPowerRequest request;
        request.source = file;
        request.run.iterations = iterations;
        request.run.warmup = warmup;
        request.singlePrecision = type == QLatin1String("f32");
        request.check = forceCheck;  // rank 0 reads the whole matrix for it: never unasked
        if (stats) request.planReady = printPlan;
        return runPowerRank(group, format, args, request, json, out);
    }
    if (!group.rendezvous.isEmpty())
        std::fprintf(stderr, "spyglass-cli power: world size 1: one process, the rendezvous is not used\n");
    printActiveBackend("power", partitioned::backendName(args));

    app::PowerRunRequest request;
    request.partitions = partitioned::request(args, format, threshold, detection);
    request.run = partitioned::runOptions(args);
    request.run.iterations = iterations;
    request.run.warmup = warmup;
    request.singlePrecision = type == QLatin1String("f32");
    request.check = forceCheck ? 1 : noCheck ? -1 : 0;
    if (stats) request.planReady = printPlan;
    request.source = file;
    request.matrix = std::make_shared<const Matrix>(readInputMatrix(file));
    return finish(app::runPowerIteration(request), json, false, out);
}

} // namespace

SPYGLASS_CLI_COMMAND(power, "power",
                     "power FILE [--format csr|segdia|hybrid] [--gpus N | --partitions P | --cpu] [--exchange auto|all-gather|send-recv] "
                     "[--iterations K] [--warmup W] [--type f32|f64] [--stats] [--check | --no-check] [--json] [--out report.json] "
                     "[--rank R --world-size W --rendezvous file:PATH|tcp:HOST:PORT [--run-id ID] [--rendezvous-timeout S]]",
                     "power iteration with the rows split over GPUs (NCCL) or partitions: time per iteration, communication share, "
                     "Rayleigh quotient. One process per GPU, on one host or several: --rank/--world-size (or torchrun's RANK, "
                     "WORLD_SIZE, LOCAL_RANK; with --rendezvous also srun's SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID), the GPU "
                     "is the local rank modulo the GPUs seen; every rank reads only its rows of the .mtx file and meets the others "
                     "at --rendezvous (a file on a shared path, or rank 0's host and a free port); the run id is --run-id, else "
                     "TORCHELASTIC_RUN_ID or SLURM_JOB_ID. Rank 0 prints the report, the others one line each (docs/scale.md)",
                     runPower);

} // namespace spyglass::cli
