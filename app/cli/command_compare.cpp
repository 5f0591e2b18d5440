// spyglass-cli compare FILE: every SpMV format on this matrix, measured in one run (see
// spyglass/formatcomparison.h); the table on stdout (or one JSON object with --json), --out writes
// the Markdown table atomically. Each row says the backend it ran on.
#include "cliargs.h"
#include "command.h"
#include "inputmatrix.h"

#include "core/formatcomparisonreport.h"
#include "spyglass/atomicfile.h"
#include "spyglass/backend.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/error.h"
#include "spyglass/formatcomparison.h"
#include "spyglass/hostmemory.h"
#include "spyglass/matrixmarket.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <cstdio>
#include <fstream>
#include <random>

namespace spyglass::cli {
namespace {

// x as spmv takes it: all ones, seeded uniform in [-1, 1], or whitespace-separated numbers from a file.
template <typename T>
std::vector<T> compareX(const QString& source, unsigned seed, Index cols) {
    std::vector<T> x(static_cast<std::size_t>(cols), T(1));
    if (source == QLatin1String("ones")) return x;
    if (source == QLatin1String("random")) {
        std::mt19937 rng(seed);
        std::uniform_real_distribution<double> dist(-1.0, 1.0);
        for (auto& v : x) v = T(dist(rng));
        return x;
    }
    const std::string path = QFile::encodeName(source).toStdString();
    std::ifstream in(path);
    if (!in) throw InputError("compare: cannot open x file " + path);
    for (Index j = 0; j < cols; ++j) {
        double v = 0;
        if (!(in >> v))
            throw InputError(path + ": x needs " + std::to_string(cols) + " numbers, value " + std::to_string(j + 1) +
                             " is missing or not a number");
        x[std::size_t(j)] = T(v);
    }
    double extra = 0;
    if (in >> extra) throw InputError(path + ": x has more than the " + std::to_string(cols) + " numbers the matrix needs");
    return x;
}

template <typename T>
FormatComparison compare(const Matrix& matrix, const QString& xSource, unsigned seed, const FormatComparisonOptions& options) {
    return compareSpmvFormats(matrix, compareX<T>(xSource, seed, matrix.cols), options);
}

int runCompare(const QStringList& args) {
    ArgParser parser(args);
    const QString type = parser.choice(QStringLiteral("--type"), {"f32", "f64"}, QStringLiteral("f64"));
    const QString xSource = parser.value(QStringLiteral("--x"), QStringLiteral("ones"));
    const unsigned seed = static_cast<unsigned>(parser.integer(QStringLiteral("--seed"), 1, 0, 0xffffffffLL));
    const bool json = parser.flag(QStringLiteral("--json"));
    const bool cpu = parser.flag(QStringLiteral("--cpu"));
    // Timed runs per format: 20 on the GPU, 5 on the CPU (each a whole single-core SpMV) unless given.
    const long long repeats = parser.integer(QStringLiteral("--repeats"), 0, 1, 10000);
    const QString out = parser.value(QStringLiteral("-o|--out"), QString());
    const QString file = parser.positionals(1, 1, QStringLiteral("FILE")).first();
    // Without a device (or with --cpu) every row runs on the CPU reference; otherwise each row names
    // its own backend (Spyglass CUDA kernels or cuSPARSE).
    printActiveBackend("compare", cpu || !cudaDeviceInfo().present ? QStringLiteral("cpu") : QStringLiteral("cuda+cusparse"));

    const std::string path = QFile::encodeName(file).toStdString();
    const Matrix matrix = readInputMatrix(path);
    if (matrix.isComplex()) throw InputError(path + ": complex matrices have no real SpMV here");
    requireHostMemory(16 * (std::uint64_t(matrix.rows) + 1) + 8 * std::uint64_t(matrix.cols),
                      path + ": SpMV of a " + std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols) + " matrix");

    FormatComparisonOptions options;
    options.useGpu = !cpu;
    if (repeats > 0) options.repeats = options.cpuRepeats = static_cast<int>(repeats);
    options.findDenseRegions = [](const BinaryPattern& pattern) { return detectDenseRegions(pattern).regions; };
    options.progress = [json](double fraction, const std::string& step) {
        if (!json) std::fprintf(stderr, "[%3.0f %%] %s\n", 100.0 * fraction, step.c_str());
    };
    const FormatComparison comparison = type == QLatin1String("f32") ? compare<float>(matrix, xSource, seed, options)
                                                                    : compare<double>(matrix, xSource, seed, options);
    const QString name = QFileInfo(file).fileName();
    const QString markdown = app::formatComparisonToMarkdown(comparison, name);
    if (json) {
        std::fputs(QJsonDocument(app::formatComparisonToJson(comparison, name)).toJson(QJsonDocument::Indented).constData(), stdout);
    } else {
        std::fputs(markdown.toUtf8().constData(), stdout);
        std::fputs("\n", stdout);
    }
    if (!out.isEmpty()) writeFileAtomically(QFile::encodeName(out).toStdString(), markdown.toStdString() + "\n");
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(compare, "compare",
                     "compare FILE [--type f32|f64] [--x ones|random|FILE] [--seed S] [--repeats N] [--cpu] [--json] [--out table.md]",
                     "every SpMV format on this matrix, measured, with the fastest that agrees recommended", runCompare);

} // namespace spyglass::cli
