// spyglass-cli power FILE: power iteration y = A x, x <- y / |y| with the matrix's rows split over
// GPUs (--gpus N, NCCL between them) or over partitions on one GPU or the CPU (--partitions P); see
// spyglass/multigpu.h and docs/scale.md. Prints the time per iteration, the communication share and
// the Rayleigh quotient on a line of its own; on small matrices (or with --check) the result is
// checked against the unpartitioned CPU reference, and a disagreement exits 1.
#include "cliargs.h"
#include "command.h"
#include "hybrid_cli.h"
#include "inputmatrix.h"
#include "partitioned_cli.h"

#include "core/checkedwrite.h"
#include "core/powerrun.h"

#include <QJsonDocument>

#include <cstdio>
#include <memory>

namespace spyglass::cli {
namespace {

int runPower(const QStringList& arguments) {
    ArgParser parser(arguments);
    const QString format = parser.choice(QStringLiteral("--format"), {"csr", "segdia", "hybrid"}, QStringLiteral("csr"));
    const Index threshold = static_cast<Index>(parser.integer(QStringLiteral("--threshold"), 1024, 1, 1 << 30));
    const hybridcli::DetectionArgs detection = hybridcli::takeDetectionOptions(parser);
    if (!detection.given.isEmpty() && format != QLatin1String("hybrid"))
        throw UsageError{QStringLiteral("%1 applies to --format hybrid only").arg(detection.given.join(QStringLiteral(", ")))};
    const partitioned::Args args = partitioned::takeArgs(parser);
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
    printActiveBackend("power", partitioned::backendName(args));

    app::PowerRunRequest request;
    request.partitions = partitioned::request(args, format, threshold, detection);
    request.run = partitioned::runOptions(args);
    request.run.iterations = iterations;
    request.run.warmup = warmup;
    request.singlePrecision = type == QLatin1String("f32");
    request.check = forceCheck ? 1 : noCheck ? -1 : 0;
    if (stats) request.planReady = [](const std::string& plan) { std::fputs(plan.c_str(), stderr); };
    request.source = file;
    request.matrix = std::make_shared<const Matrix>(readInputMatrix(file));
    const app::PowerRunOutcome outcome = app::runPowerIteration(request);

    const QByteArray document = QJsonDocument(outcome.report).toJson(QJsonDocument::Indented);
    if (json)
        std::fputs(document.constData(), stdout);
    else
        std::fputs(outcome.text.toUtf8().constData(), stdout);
    if (!out.isEmpty()) app::writeCheckedText(out, "power report", document.toStdString());
    if (!outcome.agrees) {
        std::fprintf(stderr, "spyglass-cli power: the result disagrees with the CPU reference\n");
        return ExitFailure;
    }
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(power, "power",
                     "power FILE [--format csr|segdia|hybrid] [--gpus N | --partitions P | --cpu] [--exchange auto|all-gather|send-recv] "
                     "[--iterations K] [--warmup W] [--type f32|f64] [--stats] [--check | --no-check] [--json] [--out report.json]",
                     "power iteration with the rows split over GPUs (NCCL) or partitions: time per iteration, communication share, "
                     "Rayleigh quotient",
                     runPower);

} // namespace spyglass::cli
