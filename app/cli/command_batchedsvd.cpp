// spyglass-cli svd: method C, batched SVD of many small m x n matrices by one-sided Jacobi, on the
// CPU reference, one of Spyglass's CUDA mappings (--variant), cuSOLVER gesvdjBatched (--backend cusolver) or cuSOLVER
// gesvdaStridedBatched (--backend cusolver-gesvda). Prints the set-up, compute and total times, the largest errors and
// how many matrices did not converge.
#include "cliargs.h"
#include "command.h"
#include "core/errortext.h"
#include "core/stackedmatrices.h"

#include "spyglass/batchedsvd.h"
#include "spyglass/error.h"

#include <algorithm>
#include <cmath>
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
    QString inputFile;   // stacked m-row matrices (Matrix Market); n and batch come from the file
    QString outputFile;  // singular values, one row per matrix (batch x n array), written atomically
};

// Accuracy is measured on at most this many matrices: the check costs O(m n^2) in double per matrix.
constexpr long long kAccuracySample = 4096;

template <typename T> void runTyped(SvdRequest request, const char* typeName) {
    std::vector<T> a;
    std::string source;
    if (request.inputFile.isEmpty()) {
        a = generateSvdBatch<T>(request.kind, request.m, request.n, request.batch, request.seed);
        source = std::string(toString(request.kind)) + ", seed " + std::to_string(request.seed);
    } else {
        int cols = 0;
        qint64 count = 0;
        a = app::readStackedMatrices<T>(request.inputFile, request.m, cols, count);
        if (cols > kMaxSvdColumns || cols > request.m)
            throw InputError(request.inputFile.toStdString() + ": matrices of " + std::to_string(request.m) + " x " +
                             std::to_string(cols) + " (--m " + std::to_string(request.m) + "): the SVD here needs n <= m and n <= " +
                             std::to_string(kMaxSvdColumns));
        request.n = cols;
        request.batch = count;
        source = request.inputFile.toStdString();
    }
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
    std::printf("matrices        %lld of %d x %d (%s, %s)\n", request.batch, request.m, request.n, typeName, source.c_str());
    std::printf("backend         %s, device %s\n", toString(request.options.backend), run.device.c_str());
    std::printf("variant         %s\n", run.variant.c_str());
    const bool gesvda = request.options.backend == SvdBackend::CusolverGesvda;
    if (gesvda) std::printf("tolerance       none: gesvda is approximate, it neither sweeps nor stops by a tolerance\n");
    else std::printf("tolerance       %.3g, max sweeps %d\n", run.tolerance, request.options.maxSweeps);
    std::printf("setup time      %.4f ms (device buffers, handles, workspaces; not in the compute time)\n", run.setupMs);
    std::printf("compute time    %.4f ms\n", run.computeMs);
    std::printf("total time      %.4f ms%s\n", run.totalMs,
                !request.options.devices.empty()
                    ? (" (" + std::to_string(run.chunks) + " chunks streamed over " + std::to_string(request.options.devices.size()) +
                       " GPU(s), page-locking in the set-up)").c_str()
                : run.chunks > 1 ? (" (" + std::to_string(run.chunks) + " chunks to fit the GPU)").c_str() : "");
    std::printf("max ||A-USV^H||/||A||  %.3g%s\n", acc.reconstruction,
                sample < request.batch ? (" (first " + std::to_string(sample) + " matrices)").c_str() : "");
    std::printf("max |U^H U - I|        %.3g\n", acc.uOrthogonality);
    std::printf("max |V^H V - I|        %.3g\n", acc.vOrthogonality);
    if (gesvda) {
        double maxResidual = 0;  // NaN inputs have NaN residuals: left out, as above; any other NaN shows
        for (std::size_t b = 0; b < run.vendorResidual.size(); ++b)
            if (run.status[b] != SvdStatus::NonFiniteInput && !(run.vendorResidual[b] <= maxResidual))
                maxResidual = std::isnan(maxResidual) ? maxResidual : run.vendorResidual[b];
        std::printf("max h_R_nrmF           %.3g (cuSOLVER's ||A-USV^H||_F, all matrices)\n", maxResidual);
    } else if (request.options.backend != SvdBackend::Cusolver) {
        std::printf("max sweeps used        %d\n", maxSweeps);
        std::printf("max off-orthogonality  %.3g\n", maxOff);
    }
    std::printf("not converged   %lld\n", static_cast<long long>(run.notConvergedCount()));
    std::printf("non-finite      %lld\n", static_cast<long long>(run.nonFiniteCount()));
    if (!request.outputFile.isEmpty()) {
        // sigma is batch x n with each matrix's values together: a stack of 1 x n matrices.
        app::writeStackedMatrices(request.outputFile, sigma, 1, request.n, request.batch,
                                  "spyglass-cli svd: singular values, row b = matrix b, descending; NaN for non-finite input");
        std::printf("wrote           %s\n", qPrintable(request.outputFile));
    }
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
    const QString backend = parser.choice("--backend", {"cpu", "cuda", "cusolver", "cusolver-gesvda"}, "cpu");
    for (SvdBackend b : {SvdBackend::Reference, SvdBackend::Cuda, SvdBackend::Cusolver, SvdBackend::CusolverGesvda})
        if (backend == QLatin1String(toString(b))) request.options.backend = b;
    const QString variant = parser.choice(
        "--variant", {"auto", "block-per-matrix", "register-groups", "block-per-pair", "real-embedding"}, "auto");
    for (SvdVariant v : {SvdVariant::Auto, SvdVariant::BlockPerMatrix, SvdVariant::RegisterGroups, SvdVariant::BlockPerPair,
                         SvdVariant::RealEmbedding})
        if (variant == QLatin1String(toString(v))) request.options.variant = v;
    request.options.tolerance = parser.number("--tol", 0.0, 0.0, 0.5);
    request.options.maxSweeps = static_cast<int>(parser.integer("--max-sweeps", 30, 1, 1000));
    request.inputFile = parser.value("--in", QString());
    request.outputFile = parser.value("--out", QString());
    request.options.devices = takeGpus(parser);
    request.options.streamChunk = parser.integer("--stream-chunk", 0, 1, (1LL << 40));
    if (!request.options.devices.empty() && request.options.backend != SvdBackend::Cuda)
        throw UsageError{QStringLiteral("--gpus splits the batch for --backend cuda only")};
    parser.positionals(0, 0, QString());
    if (request.inputFile.isEmpty() && request.m < request.n)
        throw UsageError{QStringLiteral("--m %1 is smaller than --n %2: the SVD here needs m >= n").arg(request.m).arg(request.n)};
    if (request.options.variant != SvdVariant::Auto && request.options.backend != SvdBackend::Cuda)
        throw UsageError{QStringLiteral("--variant %1 applies to --backend cuda only").arg(variant)};

    printActiveBackend("svd", backend);
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
                     "[--backend cpu|cuda|cusolver|cusolver-gesvda] [--variant auto|block-per-matrix|register-groups|block-per-pair|"
                     "real-embedding] [--tol T] [--max-sweeps K] [--in STACKED.mtx] [--out SIGMA.mtx] [--gpus N [--stream-chunk C]]",
                     "batched SVD of many small matrices (one-sided Jacobi, Brent-Luk order), time and errors",
                     runSvd);

} // namespace spyglass::cli
