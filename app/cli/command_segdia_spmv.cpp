// spyglass-cli spmv FILE --format csr|dia|hdia|segdia|hybrid ...: y = A x with method B's formats,
// method D's hybrid encoding (binary, or valued for any real matrix) or the CSR baseline, on the CPU reference, Spyglass's CUDA
// kernels or cuSPARSE.
#include "cliargs.h"
#include "command.h"
#include "hybrid_cli.h"
#include "inputmatrix.h"
#include "partitioned_cli.h"
#include "timingreport.h"

#include "core/vectorfile.h"

#include "spyglass/atomicfile.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/hostmemory.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/multigpu.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"
#include "spyglass/spmvtiming.h"

#include <QFile>

#include <algorithm>
#include <chrono>
#include <type_traits>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>

namespace spyglass::cli {
namespace {

struct SpmvRequest {
    QString format, backend, xSource;
    Index threshold = 1024;
    SegmentedDiaRemainder remainder = SegmentedDiaRemainder::Auto;  // --format segdia: the CSR remainder policy
    unsigned seed = 1;
    QString out;
    bool stats = false;
    hybridcli::DetectionArgs detection;  // --format hybrid: how dense regions are found
    partitioned::Args partitions;        // --partitions P / --gpus N: rows split (spyglass/multigpu.h)
    bool time = false;                   // --time: measure the multiply and cuSPARSE CSR beside it (stderr)
    TimingOptions timing;
};

template <typename T>
std::vector<T> makeX(const SpmvRequest& request, Index cols) {
    std::vector<T> x(static_cast<std::size_t>(cols));
    if (request.xSource == QLatin1String("ones")) {
        std::fill(x.begin(), x.end(), T(1));
    } else if (request.xSource == QLatin1String("random")) {
        std::mt19937 rng(request.seed);
        std::uniform_real_distribution<double> dist(-1.0, 1.0);
        for (auto& v : x) v = T(dist(rng));
    } else {
        const std::vector<double> values = app::readVectorFile(request.xSource, cols, "spmv");
        std::transform(values.begin(), values.end(), x.begin(), [](double v) { return T(v); });
    }
    return x;
}

void printStats(const SegmentedDiaStats& s, std::size_t mergeSteps, SegmentedDiaRemainder policy) {
    std::fprintf(stderr,
                 "segments %lld -> blocks %lld (%zu merge steps), nonzeros %lld, stored slots %lld, padding %.4f (DIA part),\n"
                 "remainder (%s): %lld nonzeros in %lld segments, %zu bytes,\n"
                 "block work max %lld min %lld, max diagonals per segment %d, %zu bytes\n",
                 (long long)s.segments, (long long)s.blocks, mergeSteps, (long long)s.nonzeros, (long long)s.storedSlots,
                 s.paddingRatio, toString(policy), (long long)s.remainderNonzeros, (long long)s.remainderSegments,
                 s.remainderBytes, (long long)s.maxBlockWork, (long long)s.minBlockWork, s.maxSegmentDiagonals, s.bytes);
}

// Method D: dense regions are detected on the matrix's pattern; a binary matrix (pattern field or every
// value 1) is encoded by the zeros of its regions, any other real matrix with its values (dense
// regions stored densely, the rest CSR), and y = A x is computed on that encoding.
template <typename T>
std::vector<T> computeHybrid(const QString& file, const Matrix& matrix, const SpmvRequest& request, const std::vector<T>& x) {
    if (request.backend == QLatin1String("cusparse"))
        throw UsageError{QStringLiteral("--backend cusparse needs --format csr (its values are the matrix's ones)")};
    HybridSpmvOptions options;
    options.backend = request.backend == QLatin1String("cpu") ? HybridSpmvBackend::Reference : HybridSpmvBackend::Cuda;
    if (!matrix.isBinary()) {
        DetectionResult detected;
        const auto start = std::chrono::steady_clock::now();
        const HybridValuedMatrix<T> hybrid = detectAndEncodeHybridValued(toCsr<T>(matrix), request.detection.options, &detected);
        const double prepareMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        if (request.stats) {
            std::fprintf(stderr, "valued hybrid: %zu regions (%lld explicit zeros), residual %lld entries, %zu bytes (CSR %zu)%s%s\n",
                         hybrid.blocks.size(), (long long)hybrid.explicitZeros(), (long long)hybrid.residual.nnz(),
                         hybrid.encodedBytes(), valuedCsrBytes(hybrid.rows, hybrid.nnz(), sizeof(T)),
                         hybrid.csrFallback ? "; CSR fallback: " : "", hybrid.fallbackReason.c_str());
            if constexpr (std::is_same_v<T, double>)
                hybridcli::printBreakEven(hybrid, detected.thumbnailMs + detected.componentsMs + detected.refineMs,
                                          prepareMs - (detected.thumbnailMs + detected.componentsMs + detected.refineMs),
                                          options.backend == HybridSpmvBackend::Cuda);
            else
                std::fprintf(stderr, "break-even against cuSPARSE CSR: timed with --type f64\n");
        }
        return hybridSpmv(hybrid, x, options);
    }
    const hybridcli::HybridRun run = hybridcli::detectAndEncode(file, request.detection.options);
    if (request.stats) {
        std::fprintf(stderr, "hybrid: %zu regions, %lld zeros stored, residual %lld nonzeros, %zu bytes (pattern CSR %zu)%s%s\n",
                     run.hybrid().blocks.size(), (long long)run.hybrid().zeros(), (long long)run.hybrid().residual.nnz(),
                     run.hybrid().encodedBytes(), patternCsrBytes(run.hybrid().rows, run.hybrid().nnz()),
                     run.hybrid().csrFallback ? "; CSR fallback: " : "", run.hybrid().fallbackReason.c_str());
        hybridcli::printBreakEven(run.hybrid(), run.pattern(), run.result.detectMs, run.result.encodeMs,
                                  options.backend == HybridSpmvBackend::Cuda);
    }
    return hybridSpmv(run.hybrid(), x, options);
}

// The rows split into partitions (over GPUs with --gpus): the same formats, one slice per rank.
template <typename T>
std::vector<T> computePartitioned(const QString& file, const Matrix& matrix, const SpmvRequest& request, const std::vector<T>& x) {
    if (request.format != QLatin1String("csr") && request.format != QLatin1String("segdia") && request.format != QLatin1String("hybrid"))
        throw UsageError{QStringLiteral("--partitions and --gpus take --format csr, segdia or hybrid")};
    if (request.format == QLatin1String("hybrid") && !matrix.isBinary())
        throw UsageError{QStringLiteral("partitioned --format hybrid takes binary matrices")};
    const int parts = partitioned::partitionCount(request.partitions);
    const PartitionedMatrix<T> matrixParts =
        partitioned::build<T>(file, matrix, request.format, request.threshold, parts, request.partitions.exchange, request.detection);
    if (request.stats) std::fputs(describePlan(matrixParts.plan).c_str(), stderr);
    PartitionRunOptions options = partitioned::runOptions(request.partitions);
    options.backend = request.backend == QLatin1String("cpu") ? PartitionBackend::Reference : PartitionBackend::Cuda;
    return partitionedSpmv(matrixParts, x, options);
}

template <typename T>
std::vector<T> compute(const QString& file, const Matrix& matrix, const SpmvRequest& request) {
    const auto x = makeX<T>(request, matrix.cols);
    if (request.partitions.given()) return computePartitioned(file, matrix, request, x);
    if (request.format == QLatin1String("hybrid")) return computeHybrid(file, matrix, request, x);
    if (request.format == QLatin1String("csr")) {
        const auto csr = toCsr<T>(matrix);
        if (request.stats) std::fprintf(stderr, "CSR: %lld nonzeros\n", (long long)csr.nnz());
        if (request.backend == QLatin1String("cpu")) return spmv(csr, x, {SpmvBackend::Reference});
        if (request.backend == QLatin1String("cusparse")) return spmv(csr, x, {SpmvBackend::Cusparse});
        throw UsageError{QStringLiteral("--format csr runs on --backend cpu or cusparse")};
    }
    if (request.backend == QLatin1String("cusparse"))
        throw UsageError{QStringLiteral("--backend cusparse needs --format csr")};
    const SpmvOptions options{request.backend == QLatin1String("cpu") ? SpmvBackend::Reference : SpmvBackend::Cuda};
    const auto coo = toCoo<T>(expandSymmetry(matrix));
    if (request.format == QLatin1String("dia")) {
        const auto dia = buildDia(coo);
        if (request.stats)
            std::fprintf(stderr, "DIA: %zu diagonals, padding %.4f\n", dia.offsets.size(),
                         dia.nonzeros ? double(dia.storedSlots()) / double(dia.nonzeros) : 0.0);
        return spmv(dia, x, options);
    }
    const bool hdia = request.format == QLatin1String("hdia");
    const auto seg = hdia ? buildHdia(coo, request.threshold) : buildSegmentedDia(coo, {request.threshold, true, request.remainder});
    if (request.stats) printStats(computeSegmentedDiaStats(seg), seg.mergeSteps.size(), hdia ? SegmentedDiaRemainder::Off : request.remainder);
    return spmv(seg, x, options);
}

// --time: the chosen format's multiply measured like the benchmarks (fp64, CUDA events, median of warm
// runs, the cold first call and the upload apart) beside cuSPARSE CSR on the same matrix and x, on
// stderr so that stdout keeps y.
void printTimes(const QString& file, const Matrix& matrix, const SpmvRequest& request) {
    if (request.backend != QLatin1String("cuda") && request.backend != QLatin1String("cusparse"))
        throw UsageError{QStringLiteral("--time measures the GPU: --backend cuda or cusparse")};
    if (request.partitions.given()) throw UsageError{QStringLiteral("--time measures one GPU: not with --partitions or --gpus")};
    const auto x = makeX<double>(request, matrix.cols);
    const Matrix full = expandSymmetry(matrix);
    const CsrMatrix<double> csr = toCsr<double>(full);
    const TimedSpmv vendor = timeSpmv(csr, x, {SpmvBackend::Cusparse}, request.timing);
    TimedSpmv ours;
    QString name;
    if (request.format == QLatin1String("csr")) {
        ours = vendor;
        name = QStringLiteral("cuSPARSE CSR");
    } else if (request.format == QLatin1String("segdia") || request.format == QLatin1String("hdia")) {
        const auto coo = toCoo<double>(full);
        const bool hdia = request.format == QLatin1String("hdia");
        const auto seg = hdia ? buildHdia(coo, request.threshold) : buildSegmentedDia(coo, {request.threshold, true, request.remainder});
        ours = timeSpmv(seg, x, {SpmvBackend::Cuda}, request.timing);
        name = hdia ? QStringLiteral("CUDA HDIA") : QStringLiteral("CUDA segmented DIA");
    } else if (request.format == QLatin1String("hybrid")) {
        if (matrix.isBinary()) {
            const hybridcli::HybridRun run = hybridcli::detectAndEncode(file, request.detection.options);
            ours = timeHybridSpmv(run.hybrid(), x, {HybridSpmvBackend::Cuda}, request.timing);
        } else {
            ours = timeHybridSpmv(detectAndEncodeHybridValued(csr, request.detection.options), x, {HybridSpmvBackend::Cuda}, request.timing);
        }
        name = QStringLiteral("CUDA hybrid");
    } else {
        throw UsageError{QStringLiteral("--time measures --format csr, segdia, hdia or hybrid")};
    }
    std::fprintf(stderr, "%s:\n", qPrintable(name));
    printTiming(ours.timing, ours.bytesMoved, stderr);
    if (request.format != QLatin1String("csr")) {
        std::fprintf(stderr, "cuSPARSE CSR (the vendor, same matrix and x):\n");
        printTiming(vendor.timing, vendor.bytesMoved, stderr);
        printSpeedup(QStringLiteral("cuSPARSE CSR"), vendor.timing, ours.timing, stderr);
    }
}

template <typename T>
std::string formatVector(const std::vector<T>& y) {
    std::ostringstream out;
    out.precision(std::numeric_limits<T>::max_digits10);
    for (const T& v : y) out << v << '\n';
    return out.str();
}

int runSpmv(const QStringList& args) {
    ArgParser parser(args);
    SpmvRequest request;
    request.format = parser.choice(QStringLiteral("--format"), {"csr", "dia", "hdia", "segdia", "hybrid"}, QStringLiteral("segdia"));
    request.detection = hybridcli::takeDetectionOptions(parser);
    if (!request.detection.given.isEmpty() && request.format != QLatin1String("hybrid"))
        throw UsageError{QStringLiteral("%1 applies to --format hybrid only").arg(request.detection.given.join(QStringLiteral(", ")))};
    request.threshold = static_cast<Index>(parser.integer(QStringLiteral("--threshold"), 1024, 1, 1 << 30));
    const QString remainder = parser.choice(QStringLiteral("--remainder"), {"auto", "off", "all"}, QStringLiteral("auto"));
    request.remainder = remainder == QLatin1String("off")   ? SegmentedDiaRemainder::Off
                        : remainder == QLatin1String("all") ? SegmentedDiaRemainder::All
                                                            : SegmentedDiaRemainder::Auto;
    request.backend = parser.choice(QStringLiteral("--backend"), {"cpu", "cuda", "cusparse"}, QStringLiteral("cpu"));
    const QString type = parser.choice(QStringLiteral("--type"), {"f32", "f64"}, QStringLiteral("f64"));
    request.xSource = parser.value(QStringLiteral("--x"), QStringLiteral("ones"));
    request.time = parser.flag(QStringLiteral("--time"));
    request.timing = takeTiming(parser);
    request.seed = static_cast<unsigned>(parser.integer(QStringLiteral("--seed"), 1, 0, 0xffffffffLL));
    request.out = parser.value(QStringLiteral("-o|--out"), QString());
    request.stats = parser.flag(QStringLiteral("--stats"));
    request.partitions = partitioned::takeArgs(parser);
    if (request.partitions.cpu) throw UsageError{QStringLiteral("spmv chooses its backend with --backend")};
    if (request.partitions.gpus > 0 && request.backend == QLatin1String("cpu"))
        throw UsageError{QStringLiteral("--gpus needs --backend cuda (or cusparse with --format csr)")};
    const QString file = parser.positionals(1, 1, QStringLiteral("FILE")).first();
    printActiveBackend("spmv", request.backend);

    const Matrix matrix = readInputMatrix(file);
    if (matrix.isComplex()) throw InputError(QFile::encodeName(file).toStdString() + ": complex matrices have no real SpMV here");
    // Row pointers, x and y are sized by the header alone (each at most 8 bytes an element).
    requireHostMemory(16 * (std::uint64_t(matrix.rows) + 1) + 8 * std::uint64_t(matrix.cols),
                      QFile::encodeName(file).toStdString() + ": SpMV of a " + std::to_string(matrix.rows) + " x " +
                          std::to_string(matrix.cols) + " matrix");
    if (request.time) printTimes(file, matrix, request);
    const std::string text = type == QLatin1String("f32") ? formatVector(compute<float>(file, matrix, request))
                                                          : formatVector(compute<double>(file, matrix, request));
    if (request.out.isEmpty())
        std::fputs(text.c_str(), stdout);
    else
        writeFileAtomically(QFile::encodeName(request.out).toStdString(), text);
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(spmv, "spmv",
                     "spmv FILE [--format csr|dia|hdia|segdia|hybrid] [--threshold T] [--remainder auto|off|all] [--thumb PIXELS] [--fill F] "
                     "[--backend cpu|cuda|cusparse] [--type f32|f64] [--x ones|random|FILE] [--seed S] [--out y.txt] [--stats] "
                     "[--partitions P | --gpus N] [--exchange auto|all-gather|send-recv] [--time [--warmup W] [--repeats N]]",
                     "y = A x with the segmented-DIA method, DIA, HDIA, the hybrid encoding (binary or valued) or CSR, on the CPU, CUDA or cuSPARSE",
                     runSpmv);

} // namespace spyglass::cli
