// spyglass-cli svd: method C, batched SVD of many small m x n matrices by one-sided Jacobi, on the
// CPU reference, one of Spyglass's CUDA mappings (--variant), cuSOLVER gesvdjBatched (--backend cusolver) or cuSOLVER
// gesvdaStridedBatched (--backend cusolver-gesvda). Prints the set-up, compute and total times, the largest errors and
// how many matrices did not converge. The work is app::runBatchedSvd, the batched-SVD panel's job.
//
// With --world-size W > 1 (or torchrun's or srun's variables and --rendezvous) the process is one rank
// of W, one GPU each, possibly on several hosts: it decomposes its contiguous share of the generated
// batch, and rank 0 prints the whole batch's report (app::runBatchedSvdAsRank); every other rank one line.
#include "cliargs.h"
#include "command.h"
#include "core/batchedsvdjob.h"
#include "core/batchedsvdrank.h"
#include "libraryerrors.h"
#include "processgroup_cli.h"
#include "timingreport.h"

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <string>

namespace spyglass::cli {
namespace {

void print(const app::BatchedSvdRequest& request, const app::BatchedSvdResult& result) {
    const QString source = request.inputFile.isEmpty() ? result.source : request.inputFile;
    std::printf("matrices        %lld of %d x %d (%s, %s)\n", static_cast<long long>(result.batch), result.m, result.n,
                qPrintable(result.precision), qPrintable(source));
    std::printf("backend         %s, device %s\n", qPrintable(result.backend), qPrintable(result.device));
    std::printf("variant         %s\n", qPrintable(result.variant));
    const bool gesvda = request.backend == SvdBackend::CusolverGesvda;
    if (gesvda) std::printf("tolerance       none: gesvda is approximate, it neither sweeps nor stops by a tolerance\n");
    else std::printf("tolerance       %.3g, max sweeps %d\n", result.tolerance, result.maxSweepsAllowed);
    printTiming(result.timing, result.bytesMoved);
    printWallTime(result.totalMs, result.chunks, request.devices.size());
    if (!result.streamNote.isEmpty()) std::printf("streaming       %s\n", qPrintable(result.streamNote));
    std::printf("max ||A-USV^H||/||A||  %.3g%s\n", result.reconstruction,
                result.accuracySampled < result.batch ? (" (first " + std::to_string(result.accuracySampled) + " matrices)").c_str() : "");
    std::printf("max |U^H U - I|        %.3g\n", result.uOrthogonality);
    std::printf("max |V^H V - I|        %.3g\n", result.vOrthogonality);
    if (gesvda) {
        std::printf("max h_R_nrmF           %.3g (cuSOLVER's ||A-USV^H||_F, all matrices)\n", result.vendorResidual);
    } else if (result.sweepsReported) {
        std::printf("max sweeps used        %d\n", result.maxSweepsUsed);
        std::printf("max off-orthogonality  %.3g\n", result.maxOffOrthogonality);
    }
    std::printf("not converged   %lld\n", static_cast<long long>(result.notConvergedCount));
    std::printf("non-finite      %lld\n", static_cast<long long>(result.nonFiniteCount));
    if (!request.outputFile.isEmpty()) std::printf("wrote           %s\n", qPrintable(request.outputFile));
}

// The report of a run (one process, or rank 0 of several): JSON or text, and the vendor beside it
// when --vendor timed it.
int report(const app::BatchedSvdRequest& request, const app::BatchedSvdResult& result, const app::BatchedSvdResult& fastestVendor,
           bool json) {
    if (json) {
        QJsonObject o = batchRunJson("svd", result,
                                     {{"m", result.m},
                                      {"n", result.n},
                                      {"variant", result.variant},
                                      {"reconstruction", result.reconstruction},
                                      {"not_converged", result.notConvergedCount},
                                      {"non_finite", result.nonFiniteCount}});
        addVendorJson(o, result.timing, fastestVendor.timing, fastestVendor.bytesMoved, "backend", fastestVendor.backend);
        printJson(o);
        return ExitOk;
    }
    print(request, result);
    if (fastestVendor.timing.measured()) printSpeedup(QStringLiteral("cuSOLVER ") + fastestVendor.backend, fastestVendor.timing, result.timing);
    return ExitOk;
}

// One rank of a run with one process per GPU: a generated batch on a GPU backend, its GPU from the
// local rank; rank 0 prints the report, the others their line (nothing with --json).
int runSvdRank(const app::BatchedSvdRequest& request, const processgroup::Args& group, bool vendor, bool json) {
    if (request.backend == SvdBackend::Reference)
        throw processgroup::refused(group, QStringLiteral("runs on each rank's GPU: --backend cuda, cusolver or cusolver-gesvda"));
    if (!request.inputFile.isEmpty() || !request.outputFile.isEmpty())
        throw processgroup::refused(group, QStringLiteral("decomposes a generated batch: leave out --in and --out"));
    if (vendor) throw processgroup::refused(group, QStringLiteral("times one backend: leave out --vendor"));
    if (request.streamChunk > 0) throw processgroup::refused(group, QStringLiteral("streams nothing: leave out --stream-chunk"));
    printActiveBackend("svd", QString::fromLatin1(toString(request.backend)));
    return printingLibraryErrors("svd", [&]() -> int {
        const app::RankBatchedSvdOutcome outcome = app::runBatchedSvdAsRank(request, group.place());
        if (group.rank != 0) {
            if (!json) std::fputs(outcome.line.toUtf8().constData(), stdout);
            return ExitOk;
        }
        return report(request, outcome.result, app::BatchedSvdResult{}, json);
    });
}

int runSvd(const QStringList& args) {
    ArgParser parser(args);
    app::BatchedSvdRequest request;
    request.n = static_cast<int>(parser.integer("--n", 16, 1, kMaxSvdColumns));
    request.m = static_cast<int>(parser.integer("--m", request.n, 1, 1024));
    request.batch = parser.integer("--batch", 128, 0, (1LL << 32));
    request.precision = app::batchPrecisionOf(parser.choice("--type", {"f32", "f64", "c64", "c128"}, "f32"));
    const QString kind = parser.choice("--kind", {"random", "rankdef", "graded", "sonar"}, "random");
    request.kind = kind == QLatin1String("rankdef") ? SvdBatchKind::RankDeficient
                 : kind == QLatin1String("graded") ? SvdBatchKind::Graded
                 : kind == QLatin1String("sonar") ? SvdBatchKind::SonarSnapshots : SvdBatchKind::Random;
    request.seed = static_cast<quint64>(parser.integer("--seed", 1, 0));
    const QString backend = parser.choice("--backend", {"cpu", "cuda", "cusolver", "cusolver-gesvda"}, "cpu");
    for (SvdBackend b : {SvdBackend::Reference, SvdBackend::Cuda, SvdBackend::Cusolver, SvdBackend::CusolverGesvda})
        if (backend == QLatin1String(toString(b))) request.backend = b;
    const QString variant = parser.choice(
        "--variant", {"auto", "block-per-matrix", "register-groups", "register-resident", "block-per-pair", "real-embedding"},
        "auto");
    for (SvdVariant v : {SvdVariant::Auto, SvdVariant::BlockPerMatrix, SvdVariant::RegisterGroups, SvdVariant::RegisterResident,
                         SvdVariant::BlockPerPair, SvdVariant::RealEmbedding})
        if (variant == QLatin1String(toString(v))) request.variant = v;
    request.tolerance = parser.number("--tol", 0.0, 0.0, 0.5);
    request.maxSweeps = static_cast<int>(parser.integer("--max-sweeps", 30, 1, 1000));
    request.inputFile = parser.value("--in", QString());
    request.outputFile = parser.value("--out", QString());
    request.detailMatrices = 0;  // the command prints totals: no per-matrix detail or sweep history is kept
    const processgroup::Args group = processgroup::takeArgs(parser);
    if (group.multiProcess() && parser.value(QStringLiteral("--gpus")))
        throw processgroup::refused(group, QStringLiteral("takes its GPU from the local rank: leave out --gpus"));
    request.devices = takeGpus(parser);
    request.streamChunk = parser.integer("--stream-chunk", 0, 1, (1LL << 40));
    request.timing = takeTiming(parser);
    const bool vendor = parser.flag("--vendor");
    const bool json = parser.flag("--json");
    if (vendor && request.backend != SvdBackend::Cuda) throw UsageError{QStringLiteral("--vendor compares --backend cuda with cuSOLVER")};
    if (!request.devices.empty() && request.backend != SvdBackend::Cuda)
        throw UsageError{QStringLiteral("--gpus splits the batch for --backend cuda only")};
    parser.positionals(0, 0, QString());
    if (request.inputFile.isEmpty() && request.m < request.n)
        throw UsageError{QStringLiteral("--m %1 is smaller than --n %2: the SVD here needs m >= n").arg(request.m).arg(request.n)};
    if (request.variant != SvdVariant::Auto && request.backend != SvdBackend::Cuda)
        throw UsageError{QStringLiteral("--variant %1 applies to --backend cuda only").arg(variant)};

    if (group.multiProcess()) return runSvdRank(request, group, vendor, json);
    if (!group.rendezvous.isEmpty())
        std::fprintf(stderr, "spyglass-cli svd: world size 1: one process, the rendezvous is not used\n");

    printActiveBackend("svd", backend);
    return printingLibraryErrors("svd", [&]() -> int {
        const app::BatchedSvdResult result = app::runBatchedSvd(request);
        // cuSOLVER's faster batched path on the same batch: gesvdjBatched (m, n <= 32) or gesvdaStridedBatched.
        std::vector<SvdBackend> vendorPaths;
        if (vendor)
            for (SvdBackend b : {SvdBackend::Cusolver, SvdBackend::CusolverGesvda})
                if (b != SvdBackend::Cusolver || std::max(request.m, request.n) <= kMaxCusolverSvdSize) vendorPaths.push_back(b);
        const auto fastestVendor = fastestVendorPath<app::BatchedSvdResult>(
            request, vendorPaths,
            [](app::BatchedSvdRequest& path, SvdBackend backend) {
                path.backend = backend;
                path.variant = SvdVariant::Auto;
            },
            [](const app::BatchedSvdRequest& path) { return app::runBatchedSvd(path); });
        return report(request, result, fastestVendor, json);
    });
}

} // namespace

SPYGLASS_CLI_COMMAND(svd, "svd",
                     "svd --n N [--m M] --batch B [--type f32|f64|c64|c128] [--kind random|rankdef|graded|sonar] [--seed S] "
                     "[--backend cpu|cuda|cusolver|cusolver-gesvda] [--variant auto|block-per-matrix|register-groups|register-resident|block-per-pair|"
                     "real-embedding] [--tol T] [--max-sweeps K] [--in STACKED.mtx] [--out SIGMA.mtx] [--gpus N [--stream-chunk C]] "
                     "[--warmup W] [--repeats N] [--vendor] [--json] "
                     "[--rank R --world-size W --rendezvous file:PATH|tcp:HOST:PORT [--run-id ID] [--rendezvous-timeout S]]",
                     "batched SVD of many small matrices (one-sided Jacobi, Brent-Luk order), time and errors. One process per GPU, on "
                     "one host or several (a GPU backend, a generated batch; the place and the rendezvous as `power` takes them): each "
                     "rank decomposes its contiguous share of the batch, rank 0 prints the whole batch's report (worst errors, the "
                     "slowest rank's time), the others one line each (docs/scale.md)",
                     runSvd);

} // namespace spyglass::cli
