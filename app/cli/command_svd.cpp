// spyglass-cli svd: method C, batched SVD of many small m x n matrices by one-sided Jacobi, on the
// CPU reference, one of Spyglass's CUDA mappings (--variant) or cuSOLVER gesvdjBatched. Prints the time, the largest
// errors and how many matrices did not converge.
#include "cliargs.h"
#include "command.h"
#include "core/errortext.h"

#include "spyglass/batchedsvd.h"
#include "spyglass/error.h"

#include <algorithm>
#include <complex>
#include <cstdio>

namespace spyglass::cli {
namespace {

struct SvdRequest {
    int m = 16, n = 16;
    long long batch = 128;
    SvdBatchKind kind = SvdBatchKind::Random;
    unsigned long long seed = 1;
    SvdOptions options;
};

// Accuracy is measured on at most this many matrices: the check costs O(m n^2) in double per matrix.
constexpr long long kAccuracySample = 4096;

template <typename T> void runTyped(const SvdRequest& request, const char* typeName) {
    const std::vector<T> a = generateSvdBatch<T>(request.kind, request.m, request.n, request.batch, request.seed);
    std::vector<T> u(a.size()), v(static_cast<std::size_t>(request.batch) * request.n * request.n);
    std::vector<SvdReal<T>> sigma(static_cast<std::size_t>(request.batch) * request.n);
    const SvdRunInfo run = svdBatched(a.data(), u.data(), sigma.data(), v.data(), request.m, request.n, request.batch,
                                      request.options);
    const long long sample = std::min(request.batch, kAccuracySample);
    const SvdAccuracy acc = svdAccuracy(a.data(), u.data(), sigma.data(), v.data(), request.m, request.n, sample, &run.status);
    int maxSweeps = 0;
    double maxOff = 0;
    for (std::size_t b = 0; b < run.sweeps.size(); ++b) {
        maxSweeps = std::max(maxSweeps, run.sweeps[b]);
        if (run.status[b] != SvdStatus::NonFiniteInput) maxOff = std::max(maxOff, run.offOrthogonality[b]);
    }
    std::printf("matrices        %lld of %d x %d (%s, %s, seed %llu)\n", request.batch, request.m, request.n, typeName,
                toString(request.kind), request.seed);
    std::printf("backend         %s, device %s\n", toString(request.options.backend), run.device.c_str());
    std::printf("variant         %s\n", run.variant.c_str());
    std::printf("tolerance       %.3g, max sweeps %d\n", run.tolerance, request.options.maxSweeps);
    std::printf("compute time    %.4f ms\n", run.computeMs);
    std::printf("total time      %.4f ms%s\n", run.totalMs,
                run.chunks > 1 ? (" (" + std::to_string(run.chunks) + " chunks to fit the GPU)").c_str() : "");
    std::printf("max ||A-USV^H||/||A||  %.3g%s\n", acc.reconstruction,
                sample < request.batch ? (" (first " + std::to_string(sample) + " matrices)").c_str() : "");
    std::printf("max |U^H U - I|        %.3g\n", acc.uOrthogonality);
    std::printf("max |V^H V - I|        %.3g\n", acc.vOrthogonality);
    if (request.options.backend != SvdBackend::Cusolver) {
        std::printf("max sweeps used        %d\n", maxSweeps);
        std::printf("max off-orthogonality  %.3g\n", maxOff);
    }
    std::printf("not converged   %lld\n", static_cast<long long>(run.notConvergedCount()));
    std::printf("non-finite      %lld\n", static_cast<long long>(run.nonFiniteCount()));
}

int runSvd(const QStringList& args) {
    ArgParser parser(args);
    SvdRequest request;
    request.n = static_cast<int>(parser.integer("--n", 16, 1, kMaxSvdColumns));
    request.m = static_cast<int>(parser.integer("--m", request.n, 1, 1024));
    request.batch = parser.integer("--batch", 128, 0, (1LL << 32));
    const QString type = parser.choice("--type", {"f32", "f64", "c64", "c128"}, "f32");
    const QString kind = parser.choice("--kind", {"random", "rankdef", "graded", "sonar"}, "random");
    request.kind = kind == QLatin1String("rankdef") ? SvdBatchKind::RankDeficient
                 : kind == QLatin1String("graded") ? SvdBatchKind::Graded
                 : kind == QLatin1String("sonar") ? SvdBatchKind::SonarSnapshots : SvdBatchKind::Random;
    request.seed = static_cast<unsigned long long>(parser.integer("--seed", 1, 0));
    const QString backend = parser.choice("--backend", {"cpu", "cuda", "cusolver"}, "cpu");
    request.options.backend = backend == QLatin1String("cuda") ? SvdBackend::Cuda
                            : backend == QLatin1String("cusolver") ? SvdBackend::Cusolver : SvdBackend::Reference;
    const QString variant = parser.choice(
        "--variant", {"auto", "block-per-matrix", "register-groups", "block-per-pair", "real-embedding"}, "auto");
    for (SvdVariant v : {SvdVariant::Auto, SvdVariant::BlockPerMatrix, SvdVariant::RegisterGroups, SvdVariant::BlockPerPair,
                         SvdVariant::RealEmbedding})
        if (variant == QLatin1String(toString(v))) request.options.variant = v;
    request.options.tolerance = parser.number("--tol", 0.0, 0.0, 0.5);
    request.options.maxSweeps = static_cast<int>(parser.integer("--max-sweeps", 30, 1, 1000));
    parser.positionals(0, 0, QString());
    if (request.m < request.n)
        throw UsageError{QStringLiteral("--m %1 is smaller than --n %2: the SVD here needs m >= n").arg(request.m).arg(request.n)};
    if (request.options.variant != SvdVariant::Auto && request.options.backend != SvdBackend::Cuda)
        throw UsageError{QStringLiteral("--variant %1 applies to --backend cuda only").arg(variant)};

    printActiveBackend("svd");
    try {
        if (type == QLatin1String("f64")) runTyped<double>(request, "f64");
        else if (type == QLatin1String("c64")) runTyped<std::complex<float>>(request, "c64");
        else if (type == QLatin1String("c128")) runTyped<std::complex<double>>(request, "c128");
        else runTyped<float>(request, "f32");
    } catch (const Error& e) {
        std::fprintf(stderr, "spyglass-cli svd: %s\n", qPrintable(app::errorText(e)));
        return ExitFailure;
    }
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(svd, "svd",
                     "svd --n N [--m M] --batch B [--type f32|f64|c64|c128] [--kind random|rankdef|graded|sonar] [--seed S] "
                     "[--backend cpu|cuda|cusolver] [--variant auto|block-per-matrix|register-groups|block-per-pair|"
                     "real-embedding] [--tol T] [--max-sweeps K]",
                     "batched SVD of many small matrices (one-sided Jacobi, Brent-Luk order), time and errors",
                     runSvd);

} // namespace spyglass::cli
