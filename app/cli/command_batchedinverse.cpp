// spyglass-cli invert: method E, batched inversion of many small matrices, on the CPU reference,
// Spyglass's CUDA kernels or cuBLAS. Prints the time (the measurement engine's: median of warm runs,
// cold first call apart), the max residual and the failed count; --vendor also times cuBLAS's faster
// path on the same batch and prints the ratio; --json prints one object instead.
//
// With --world-size W > 1 (or torchrun's or srun's variables and --rendezvous) the process is one rank
// of W, one GPU each, possibly on several hosts: it inverts its contiguous share of the generated
// batch, and rank 0 prints the whole batch's report (app::runBatchedInverseAsRank); every other rank one line.
#include "cliargs.h"
#include "command.h"
#include "libraryerrors.h"
#include "processgroup_cli.h"
#include "timingreport.h"

#include "core/batchedinversejob.h"
#include "core/batchedinverserank.h"
#include "core/inversekernels.h"

#include <cstdio>

namespace spyglass::cli {
namespace {

InverseKernel kernelOf(const QString& text) {
    if (const auto kernel = app::inverseKernelNamed(text)) return *kernel;
    throw UsageError{QStringLiteral("--kernel: unknown kernel '%1'").arg(text)};
}

// The report of a run (one process, or rank 0 of several): JSON or text, and the vendor beside it
// when --vendor timed it.
int report(const app::BatchedInverseRequest& request, const app::BatchedInverseResult& result,
           const app::BatchedInverseResult& fastestVendor, bool json, bool listFailed) {
    if (json) {
        QJsonObject o = batchRunJson("invert", result,
                                     {{"n", result.n},
                                      {"kernel", result.kernel},
                                      {"max_residual", result.maxResidual},
                                      {"singular", result.singularCount},
                                      {"non_finite", result.nonFiniteCount}});
        addVendorJson(o, result.timing, fastestVendor.timing, fastestVendor.bytesMoved, "kernel", fastestVendor.kernel);
        printJson(o);
        return ExitOk;
    }
    std::printf("matrices        %lld of order %d (%s, %s)\n", static_cast<long long>(result.batch), result.n,
                qPrintable(result.precision), qPrintable(result.source));
    std::printf("backend         %s, kernel %s, device %s\n", qPrintable(result.backend), qPrintable(result.kernel),
                qPrintable(result.device));
    printTiming(result.timing, result.bytesMoved);
    if (fastestVendor.timing.measured()) printSpeedup(QStringLiteral("cuBLAS ") + fastestVendor.kernel, fastestVendor.timing, result.timing);
    printWallTime(result.totalMs, result.chunks, request.devices.size());
    if (!result.streamNote.isEmpty()) std::printf("streaming       %s\n", qPrintable(result.streamNote));
    std::printf("max residual    %.4g  (||AX-I||_1 / (||A||_1 ||X||_1 eps)%s)\n", result.maxResidual,
                result.residualSampled < result.batch
                    ? qPrintable(QString(", sample of %1").arg(result.residualSampled)) : "");
    std::printf("singular        %lld\n", static_cast<long long>(result.singularCount));
    std::printf("non-finite      %lld\n", static_cast<long long>(result.nonFiniteCount));
    if (listFailed)
        for (int f = 0; f < result.failedIndices.size(); ++f)
            std::printf("failed matrix   %lld  info %d\n", static_cast<long long>(result.failedIndices[f]),
                        result.failedCodes[f]);
    if (!request.outputFile.isEmpty()) std::printf("wrote           %s\n", qPrintable(request.outputFile));
    return ExitOk;
}

// One rank of a run with one process per GPU: a generated batch on a GPU backend, its GPU from the
// local rank; rank 0 prints the report, the others their line (nothing with --json).
int runInvertRank(const app::BatchedInverseRequest& request, const processgroup::Args& group, bool vendor, bool json, bool listFailed) {
    if (request.backend == InverseBackend::Reference)
        throw processgroup::refused(group, QStringLiteral("runs on each rank's GPU: --backend cuda or cublas"));
    if (!request.inputFile.isEmpty() || !request.outputFile.isEmpty())
        throw processgroup::refused(group, QStringLiteral("inverts a generated batch: leave out --in and --out"));
    if (vendor) throw processgroup::refused(group, QStringLiteral("times one backend: leave out --vendor"));
    if (listFailed) throw processgroup::refused(group, QStringLiteral("counts the failed matrices: leave out --list-failed"));
    if (request.streamChunk > 0) throw processgroup::refused(group, QStringLiteral("streams nothing: leave out --stream-chunk"));
    printActiveBackend("invert", QString::fromLatin1(toString(request.backend)));
    return printingLibraryErrors("invert", [&]() -> int {
        const app::RankBatchedInverseOutcome outcome = app::runBatchedInverseAsRank(request, group.place());
        if (group.rank != 0) {
            if (!json) std::fputs(outcome.line.toUtf8().constData(), stdout);
            return ExitOk;
        }
        return report(request, outcome.result, app::BatchedInverseResult{}, json, false);
    });
}

int runInvert(const QStringList& args) {
    ArgParser parser(args);
    app::BatchedInverseRequest request;
    request.n = static_cast<int>(parser.integer("--n", 8, 1, 1 << 20));
    request.batch = parser.integer("--batch", 1200, 0, (1LL << 40));
    request.precision = app::batchPrecisionOf(parser.choice("--type", {"f32", "f64", "c64", "c128"}, "f32"));
    const QString kind = parser.choice("--kind", {"random", "lte", "illcond"}, "random");
    request.kind = kind == QLatin1String("lte") ? BatchKind::LteChannel
                 : kind == QLatin1String("illcond") ? BatchKind::IllConditioned : BatchKind::Random;
    request.snrDb = parser.number("--snr", 10.0, -100.0, 200.0);
    request.condition = parser.number("--cond", 1e4, 1.0);
    request.seed = static_cast<quint64>(parser.integer("--seed", 1, 0));
    const QString backend = parser.choice("--backend", {"cpu", "cuda", "cublas"}, "cpu");
    request.backend = backend == QLatin1String("cuda") ? InverseBackend::Cuda
                    : backend == QLatin1String("cublas") ? InverseBackend::Cublas : InverseBackend::Reference;
    if (const auto kernel = parser.value("--kernel")) request.kernel = kernelOf(*kernel);
    request.inputFile = parser.value("--in", QString());
    request.outputFile = parser.value("--out", QString());
    const bool listFailed = parser.flag("--list-failed");
    const bool vendor = parser.flag("--vendor");
    const bool json = parser.flag("--json");
    request.timing = takeTiming(parser);
    const processgroup::Args group = processgroup::takeArgs(parser);
    if (group.multiProcess() && parser.value(QStringLiteral("--gpus")))
        throw processgroup::refused(group, QStringLiteral("takes its GPU from the local rank: leave out --gpus"));
    request.devices = takeGpus(parser);
    request.streamChunk = parser.integer("--stream-chunk", 0, 1, (1LL << 40));
    if (!request.devices.empty() && request.backend != InverseBackend::Cuda)
        throw UsageError{QStringLiteral("--gpus splits the batch for --backend cuda only")};
    if (vendor && request.backend != InverseBackend::Cuda) throw UsageError{QStringLiteral("--vendor compares --backend cuda with cuBLAS")};
    parser.positionals(0, 0, QString());

    if (group.multiProcess()) return runInvertRank(request, group, vendor, json, listFailed);
    if (!group.rendezvous.isEmpty())
        std::fprintf(stderr, "spyglass-cli invert: world size 1: one process, the rendezvous is not used\n");

    printActiveBackend("invert", backend);
    return printingLibraryErrors("invert", [&]() -> int {
        const app::BatchedInverseResult result = app::runBatchedInverse(request);
        // The vendor's faster batched path on the same batch (same seed): getrf+getri or matinv.
        const std::vector<InverseKernel> vendorPaths = vendor ? app::cublasPathsFor(request.n) : std::vector<InverseKernel>{};
        const auto fastestVendor = fastestVendorPath<app::BatchedInverseResult>(
            request, vendorPaths,
            [](app::BatchedInverseRequest& path, InverseKernel kernel) {
                path.backend = InverseBackend::Cublas;
                path.kernel = kernel;
            },
            [](const app::BatchedInverseRequest& path) { return app::runBatchedInverse(path); });
        return report(request, result, fastestVendor, json, listFailed);
    });
}

} // namespace

SPYGLASS_CLI_COMMAND(invert, "invert",
                     "invert --n N --batch B [--type f32|f64|c64|c128] [--kind random|lte|illcond] [--snr DB] "
                     "[--cond C] [--seed S] [--backend cpu|cuda|cublas] [--kernel K] [--in FILE] [--out FILE] "
                     "[--list-failed] [--gpus N [--stream-chunk C]] [--warmup W] [--repeats N] [--vendor] [--json] "
                     "[--rank R --world-size W --rendezvous file:PATH|tcp:HOST:PORT [--run-id ID] [--rendezvous-timeout S]]",
                     "batched inverse of many small matrices (full-pivot Gauss-Jordan), time and residual. One process per GPU, on one "
                     "host or several (a GPU backend, a generated batch; the place and the rendezvous as `power` takes them): each rank "
                     "inverts its contiguous share of the batch, rank 0 prints the whole batch's report (worst residual, the slowest "
                     "rank's time), the others one line each (docs/scale.md)",
                     runInvert);

} // namespace spyglass::cli
