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

#include "spyglass/atomicfile.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/multigpu.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace spyglass::cli {
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
int runPowerTyped(const QString& file, const Matrix& matrix, const QString& format, Index threshold, const partitioned::Args& args,
                  const hybridcli::DetectionArgs& detection, int iterations, int warmup, bool stats, bool json, int checkMode,
                  const QString& out) {
    const int parts = partitioned::partitionCount(args);
    const PartitionedMatrix<T> partitioned = partitioned::build<T>(file, matrix, format, threshold, parts, args.exchange, detection);
    PartitionRunOptions options = partitioned::runOptions(args);
    options.iterations = iterations;
    options.warmup = std::min(warmup, iterations - 1);
    if (stats) std::fputs(describePlan(partitioned.plan).c_str(), stderr);
    const PowerIterationResult result = powerIteration(partitioned, options);

    const bool check = checkMode > 0 || (checkMode == 0 && matrix.expandedEntries() <= kAutoCheckEntries);
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

    QJsonObject object{{"matrix", QFileInfo(file).fileName()},
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
    const QByteArray document = QJsonDocument(object).toJson(QJsonDocument::Indented);
    if (json)
        std::fputs(document.constData(), stdout);
    else
        std::fputs(text.toUtf8().constData(), stdout);
    if (!out.isEmpty()) writeFileAtomically(QFile::encodeName(out).toStdString(), document.toStdString());
    if (verdict.ran && !verdict.agrees()) {
        std::fprintf(stderr, "spyglass-cli power: the result disagrees with the CPU reference\n");
        return ExitFailure;
    }
    return ExitOk;
}

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

    const Matrix matrix = readInputMatrix(file);
    const std::string path = QFile::encodeName(file).toStdString();
    if (matrix.isComplex()) throw InputError(path + ": complex matrices have no real power iteration here");
    if (matrix.rows != matrix.cols)
        throw InputError(path + ": power iteration needs a square matrix (this one is " + std::to_string(matrix.rows) + " x " +
                         std::to_string(matrix.cols) + ")");
    const int checkMode = forceCheck ? 1 : noCheck ? -1 : 0;
    return type == QLatin1String("f32")
               ? runPowerTyped<float>(file, matrix, format, threshold, args, detection, iterations, warmup, stats, json, checkMode, out)
               : runPowerTyped<double>(file, matrix, format, threshold, args, detection, iterations, warmup, stats, json, checkMode, out);
}

} // namespace

SPYGLASS_CLI_COMMAND(power, "power",
                     "power FILE [--format csr|segdia|hybrid] [--gpus N | --partitions P | --cpu] [--exchange auto|all-gather|send-recv] "
                     "[--iterations K] [--warmup W] [--type f32|f64] [--stats] [--check | --no-check] [--json] [--out report.json]",
                     "power iteration with the rows split over GPUs (NCCL) or partitions: time per iteration, communication share, "
                     "Rayleigh quotient",
                     runPower);

} // namespace spyglass::cli
