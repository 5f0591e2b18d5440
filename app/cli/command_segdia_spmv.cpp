// spyglass-cli spmv FILE --format csr|dia|hdia|segdia|hybrid ...: y = A x with method B's formats,
// method D's hybrid encoding (binary, or valued for any other matrix) or the CSR baseline, on the CPU reference, Spyglass's CUDA
// kernels or cuSPARSE. A complex matrix runs in c64 or c128 and y comes out as a Matrix Market complex
// array: on the CPU reference in every format, on CUDA in dia, hdia, segdia and the valued hybrid, on
// cuSPARSE in csr; the partitioned runs take real values, and refuse it by name (exit 2).
//
// With --world-size W > 1 (or torchrun's or srun's variables and --rendezvous) the process is one rank
// of W, one GPU each, possibly on several hosts: it reads only its rows (--format csr --backend
// cusparse), rank 0 gathers y and prints or writes what one process does; every other rank one line.
#include "cliargs.h"
#include "command.h"
#include "hybrid_cli.h"
#include "inputmatrix.h"
#include "partitioned_cli.h"
#include "processgroup_cli.h"
#include "timingreport.h"

#include "core/checkedwrite.h"
#include "core/spmvrank.h"
#include "core/spmvrun.h"

#include <complex>
#include <cstdio>
#include <limits>
#include <memory>
#include <sstream>
#include <string>

namespace spyglass::cli {
namespace {

struct SpmvRequest {
    QString format, backend, xSource;
    unsigned seed = 1;
    QString out;
    bool stats = false;
    hybridcli::DetectionArgs detection;  // --format hybrid: how dense regions are found
    partitioned::Args partitions;        // --partitions P / --gpus N: rows split (spyglass/multigpu.h)
    bool time = false;                   // --time: measure the multiply and cuSPARSE CSR beside it (stderr)
    app::SpmvRunRequest run;             // what app/core computes
};

// The combinations of --format and --backend the library has (before anything is read).
void requireCombination(const SpmvRequest& request) {
    const QString& format = request.format;
    if (request.time) {
        if (request.backend != QLatin1String("cuda") && request.backend != QLatin1String("cusparse"))
            throw UsageError{QStringLiteral("--time measures the GPU: --backend cuda or cusparse")};
        if (request.partitions.given()) throw UsageError{QStringLiteral("--time measures one GPU: not with --partitions or --gpus")};
        if (format == QLatin1String("dia")) throw UsageError{QStringLiteral("--time measures --format csr, segdia, hdia or hybrid")};
    }
    if (request.partitions.given()) {
        if (format != QLatin1String("csr") && format != QLatin1String("segdia") && format != QLatin1String("hybrid"))
            throw UsageError{QStringLiteral("--partitions and --gpus take --format csr, segdia or hybrid")};
        return;
    }
    if (format == QLatin1String("hybrid")) {
        if (request.backend == QLatin1String("cusparse"))
            throw UsageError{QStringLiteral("--backend cusparse needs --format csr (its values are the matrix's ones)")};
    } else if (format == QLatin1String("csr")) {
        if (request.backend == QLatin1String("cuda")) throw UsageError{QStringLiteral("--format csr runs on --backend cpu or cusparse")};
    } else if (request.backend == QLatin1String("cusparse")) {
        throw UsageError{QStringLiteral("--backend cusparse needs --format csr")};
    }
}

// --time: on stderr so that stdout keeps y. T: f64 for a real matrix, the --type's complex values for
// a complex one.
template <typename T>
void printTimes(const SpmvRequest& request) {
    const app::SpmvTimes times =
        app::timeSpmvBesideVendor(request.run, app::spmvInputVector<T>(request.xSource, request.seed, request.run.matrix->cols));
    std::fprintf(stderr, "%s:\n", qPrintable(times.name));
    printTiming(times.ours.timing, times.ours.bytesMoved, stderr);
    if (request.run.format != app::SpmvFormat::Csr) {
        std::fprintf(stderr, "cuSPARSE CSR (the vendor, same matrix and x):\n");
        printTiming(times.vendor.timing, times.vendor.bytesMoved, stderr);
        printSpeedup(QStringLiteral("cuSPARSE CSR"), times.vendor.timing, times.ours.timing, stderr);
    }
}

template <typename T>
std::vector<T> compute(const SpmvRequest& request) {
    return app::computeSpmv(request.run, app::spmvInputVector<T>(request.xSource, request.seed, request.run.matrix->cols));
}

template <typename T>
std::string formatVector(const std::vector<T>& y) {
    std::ostringstream out;
    out.precision(std::numeric_limits<T>::max_digits10);
    for (const T& v : y) out << v << '\n';
    return out.str();
}

// A complex y as a Matrix Market array (one column, "real imaginary" per line), which every reader
// of the format (scipy.io.mmread, MATLAB's mmread, Spyglass itself) takes.
template <typename R>
std::string formatComplexVector(const std::vector<std::complex<R>>& y) {
    std::ostringstream out;
    out.precision(std::numeric_limits<R>::max_digits10);
    out << "%%MatrixMarket matrix array complex general\n" << y.size() << " 1\n";
    for (const std::complex<R>& v : y) out << v.real() << ' ' << v.imag() << '\n';
    return out.str();
}

// A complex matrix runs unpartitioned (every format, the hybrid in its valued form, multiplies it on
// the GPU too); c64 and c128 are for complex matrices.
void requireComplexFits(const SpmvRequest& request, const QString& file, const QString& type, bool complexMatrix) {
    const bool complexType = type.startsWith(QLatin1Char('c'));
    if (complexType && !complexMatrix)
        throw UsageError{QStringLiteral("%1: --type %2 is for complex matrices; this one is real (f32 or f64)").arg(file, type)};
    if (!complexMatrix) return;
    if (request.partitions.given())
        throw UsageError{QStringLiteral("%1: --partitions multiplies real values only; a complex matrix runs unpartitioned").arg(file)};
}

// f32/c64 single, f64/c128 double; a complex matrix in complex values of that precision.
std::string computeAndFormat(const SpmvRequest& request, const QString& type) {
    const bool single = type == QLatin1String("f32") || type == QLatin1String("c64");
    if (request.run.matrix->isComplex())
        return single ? formatComplexVector(compute<std::complex<float>>(request)) : formatComplexVector(compute<std::complex<double>>(request));
    return single ? formatVector(compute<float>(request)) : formatVector(compute<double>(request));
}

// What one rank of a run with one process per GPU takes: the csr rows on cuSPARSE, real values, x and
// --time as one process takes them; the rest is refused by name before any rank waits for the others.
void requireRankRun(const SpmvRequest& request, const processgroup::Args& group, const QString& type) {
    if (request.format != QLatin1String("csr"))
        throw processgroup::refused(group, QStringLiteral("runs --format csr only (each rank multiplies its rows with cuSPARSE)"));
    if (request.backend != QLatin1String("cusparse"))
        throw processgroup::refused(group, QStringLiteral("multiplies on each rank's GPU with cuSPARSE: give --backend cusparse"));
    if (request.partitions.given())
        throw processgroup::refused(group, QStringLiteral("takes its GPU from the local rank: leave out --gpus and --partitions"));
    if (request.stats) throw processgroup::refused(group, QStringLiteral("prints no --stats"));
    if (type != QLatin1String("f64") && type != QLatin1String("f32"))
        throw processgroup::refused(group, QStringLiteral("multiplies real values: --type f32 or f64"));
}

// One rank: rank 0 prints (or writes) y as one process does and, with --time, the slowest rank's
// measurement on stderr; every other rank prints its line.
int runSpmvRank(const SpmvRequest& request, const processgroup::Args& group, const QString& type, const QString& file) {
    requireRankRun(request, group, type);
    printActiveBackend("spmv", request.backend);
    app::RankSpmvRequest rank;
    rank.source = file;
    rank.place = group.place();
    rank.xSource = request.xSource;
    rank.seed = request.seed;
    rank.singlePrecision = type == QLatin1String("f32");
    rank.time = request.time;
    rank.timing = request.run.timing;
    const app::RankSpmvOutcome outcome = app::runSpmvAsRank(rank);
    if (outcome.rank != 0) {
        std::fputs(outcome.line.toUtf8().constData(), stdout);
        return ExitOk;
    }
    if (request.time) {
        std::fprintf(stderr, "cuSPARSE CSR, %d processes (one GPU each; rank %d, the slowest, over its rows):\n", outcome.worldSize,
                     outcome.slowestRank);
        printTiming(outcome.timing, outcome.bytesMoved, stderr);
    }
    // The values as the single-process run formats them: f32 ones travelled as doubles exactly.
    const std::string text = rank.singlePrecision ? formatVector(std::vector<float>(outcome.y.begin(), outcome.y.end()))
                                                  : formatVector(outcome.y);
    if (request.out.isEmpty())
        std::fputs(text.c_str(), stdout);
    else
        app::writeCheckedText(request.out, "result vector", text);
    return ExitOk;
}

int runSpmv(const QStringList& args) {
    ArgParser parser(args);
    SpmvRequest request;
    request.format = parser.choice(QStringLiteral("--format"), {"csr", "dia", "hdia", "segdia", "hybrid"}, QStringLiteral("segdia"));
    request.detection = hybridcli::takeDetectionOptions(parser);
    if (!request.detection.given.isEmpty() && request.format != QLatin1String("hybrid"))
        throw UsageError{QStringLiteral("%1 applies to --format hybrid only").arg(request.detection.given.join(QStringLiteral(", ")))};
    // auto (the default): the builder chooses the segment length per matrix (kChooseSegmentThreshold).
    const std::optional<QString> threshold = parser.value(QStringLiteral("--threshold"));
    request.run.threshold = !threshold || *threshold == QLatin1String("auto")
                                ? kChooseSegmentThreshold
                                : static_cast<Index>(parseInteger(*threshold, QStringLiteral("--threshold"), 1, 1 << 30));
    const QString remainder = parser.choice(QStringLiteral("--remainder"), {"auto", "off", "all"}, QStringLiteral("auto"));
    request.run.remainder = remainder == QLatin1String("off")   ? SegmentedDiaRemainder::Off
                        : remainder == QLatin1String("all") ? SegmentedDiaRemainder::All
                                                            : SegmentedDiaRemainder::Auto;
    request.backend = parser.choice(QStringLiteral("--backend"), {"cpu", "cuda", "cusparse"}, QStringLiteral("cpu"));
    // A complex matrix runs in complex values of the precision: f32 or c64 single, f64 or c128 double.
    const QString type = parser.choice(QStringLiteral("--type"), {"f32", "f64", "c64", "c128"}, QStringLiteral("f64"));
    request.xSource = parser.value(QStringLiteral("--x"), QStringLiteral("ones"));
    request.time = parser.flag(QStringLiteral("--time"));
    request.run.timing = takeTiming(parser);
    request.seed = static_cast<unsigned>(parser.integer(QStringLiteral("--seed"), 1, 0, 0xffffffffLL));
    request.out = parser.value(QStringLiteral("-o|--out"), QString());
    request.stats = parser.flag(QStringLiteral("--stats"));
    request.partitions = partitioned::takeArgs(parser);
    const processgroup::Args group = processgroup::takeArgs(parser);
    if (request.partitions.cpu) throw UsageError{QStringLiteral("spmv chooses its backend with --backend")};
    if (request.partitions.gpus > 0 && request.backend == QLatin1String("cpu"))
        throw UsageError{QStringLiteral("--gpus needs --backend cuda (or cusparse with --format csr)")};
    const QString file = parser.positionals(1, 1, QStringLiteral("FILE")).first();
    if (group.multiProcess()) return runSpmvRank(request, group, type, file);
    if (!group.rendezvous.isEmpty())
        std::fprintf(stderr, "spyglass-cli spmv: world size 1: one process, the rendezvous is not used\n");
    printActiveBackend("spmv", request.backend);

    requireCombination(request);

    app::SpmvRunRequest& run = request.run;
    run.format = request.format == QLatin1String("csr")      ? app::SpmvFormat::Csr
                 : request.format == QLatin1String("dia")    ? app::SpmvFormat::Dia
                 : request.format == QLatin1String("hdia")   ? app::SpmvFormat::Hdia
                 : request.format == QLatin1String("hybrid") ? app::SpmvFormat::Hybrid
                                                             : app::SpmvFormat::SegmentedDia;
    run.runner = request.backend == QLatin1String("cpu")    ? app::SpmvRunner::Cpu
                 : request.backend == QLatin1String("cuda") ? app::SpmvRunner::Cuda
                                                            : app::SpmvRunner::Cusparse;
    run.detection = request.detection.options;
    if (request.stats) run.note = [](const std::string& text) { std::fputs(text.c_str(), stderr); };
    run.source = file;
    run.matrix = std::make_shared<const Matrix>(readInputMatrix(file));
    requireComplexFits(request, file, type, run.matrix->isComplex());
    app::requireSpmvInput(*run.matrix, file);
    if (request.partitions.given()) {
        if (request.format == QLatin1String("hybrid") && !run.matrix->isBinary())
            throw UsageError{QStringLiteral("partitioned --format hybrid takes binary matrices")};
        run.partitioned = true;
        run.partitions = partitioned::request(request.partitions, request.format, run.threshold, request.detection);
        run.devices = partitioned::runOptions(request.partitions).devices;
    }
    if (request.time) {
        if (!run.matrix->isComplex()) printTimes<double>(request);
        else if (type == QLatin1String("c64") || type == QLatin1String("f32")) printTimes<std::complex<float>>(request);
        else printTimes<std::complex<double>>(request);
    }
    const std::string text = computeAndFormat(request, type);
    if (request.out.isEmpty())
        std::fputs(text.c_str(), stdout);
    else
        app::writeCheckedText(request.out, "result vector", text);
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(spmv, "spmv",
                     "spmv FILE [--format csr|dia|hdia|segdia|hybrid] [--threshold auto|T] [--remainder auto|off|all] [--thumb PIXELS] [--fill F] "
                     "[--backend cpu|cuda|cusparse] [--type f32|f64|c64|c128] [--x ones|random|FILE] [--seed S] [--out y.txt] [--stats] "
                     "[--partitions P | --gpus N] [--exchange auto|all-gather|send-recv] [--time [--warmup W] [--repeats N]] "
                     "[--rank R --world-size W --rendezvous file:PATH|tcp:HOST:PORT [--run-id ID] [--rendezvous-timeout S]]",
                     "y = A x with the segmented-DIA method, DIA, HDIA, the hybrid encoding (binary or valued) or CSR, on the CPU, CUDA or "
                     "cuSPARSE. One process per GPU, on one host or several (--format csr --backend cusparse; the place and the "
                     "rendezvous as `power` takes them): every rank reads only its rows of the .mtx file and the whole x, rank 0 "
                     "gathers y and prints or writes it as one process does, with --time the slowest rank's time (docs/scale.md)",
                     runSpmv);

} // namespace spyglass::cli
