// spyglass-cli compare FILE: every SpMV format on this matrix, measured in one run (see
// spyglass/formatcomparison.h) by app::runFormatComparison, the work of the Compare formats tab's job;
// the table on stdout (or one JSON object with --json), --out writes the Markdown table atomically.
// Each row says the backend it ran on.
#include "cliargs.h"
#include "command.h"
#include "inputmatrix.h"

#include "core/appinfo.h"
#include "core/checkedwrite.h"
#include "core/formatcomparisonjob.h"
#include "core/formatcomparisonreport.h"

#include <QFileInfo>
#include <QJsonDocument>

#include <cstdio>

namespace spyglass::cli {
namespace {

int runCompare(const QStringList& args) {
    ArgParser parser(args);
    // The precision; a complex matrix runs in complex values of it (f32 or c64: single, f64 or c128:
    // double), a real one refuses c64 and c128.
    const QString type = parser.choice(QStringLiteral("--type"), {"f32", "f64", "c64", "c128"}, QStringLiteral("f64"));
    // A random x by default: with all ones a product that swaps or drops columns can still agree.
    const QString xSource = parser.value(QStringLiteral("--x"), QStringLiteral("random"));
    const unsigned seed = static_cast<unsigned>(parser.integer(QStringLiteral("--seed"), 1, 0, 0xffffffffLL));
    const bool json = parser.flag(QStringLiteral("--json"));
    const bool cpu = parser.flag(QStringLiteral("--cpu"));
    // Timed runs per format: 20 on the GPU, 5 on the CPU (each a whole single-core SpMV) unless given.
    const long long repeats = parser.integer(QStringLiteral("--repeats"), 0, 1, 10000);
    const long long warmup = parser.integer(QStringLiteral("--warmup"), -1, 0, 10000);
    const QString out = parser.value(QStringLiteral("-o|--out"), QString());
    const QString file = parser.positionals(1, 1, QStringLiteral("FILE")).first();
    app::FormatComparisonRequest request;
    request.matrix = std::make_shared<const Matrix>(readInputMatrix(file));
    // Without a device (or with --cpu) every row runs on the CPU reference; otherwise each row names
    // its own backend (Spyglass CUDA kernels or cuSPARSE), and for a complex matrix the bit-flag row,
    // which stores real values only, says so.
    const bool onCpu = cpu || !app::cudaDevicePresent();
    printActiveBackend("compare", onCpu ? QStringLiteral("cpu") : QStringLiteral("cuda+cusparse"));
    request.source = file;
    const bool complexType = type.startsWith(QLatin1Char('c'));
    if (complexType && !request.matrix->isComplex())
        throw UsageError{QStringLiteral("%1: --type %2 is for complex matrices; this one is real (f32 or f64)").arg(file, type)};
    request.singlePrecision = type == QLatin1String("f32") || type == QLatin1String("c64");
    request.randomX = xSource == QLatin1String("random");
    request.seed = seed;
    if (xSource != QLatin1String("ones") && !request.randomX) request.xFile = xSource;
    request.useGpu = !cpu;
    if (repeats > 0) request.repeats = request.cpuRepeats = static_cast<int>(repeats);
    if (warmup >= 0) request.warmup = static_cast<int>(warmup);
    const FormatComparison comparison = app::runFormatComparison(request, nullptr, [json](double fraction, const std::string& step) {
        if (!json) std::fprintf(stderr, "[%3.0f %%] %s\n", 100.0 * fraction, step.c_str());
    });
    const QString name = QFileInfo(file).fileName();
    const QString markdown = app::formatComparisonToMarkdown(comparison, name);
    if (json) {
        std::fputs(QJsonDocument(app::formatComparisonToJson(comparison, name)).toJson(QJsonDocument::Indented).constData(), stdout);
    } else {
        std::fputs(markdown.toUtf8().constData(), stdout);
        std::fputs("\n", stdout);
    }
    if (!out.isEmpty()) app::writeCheckedText(out, "comparison table", markdown.toStdString() + "\n");
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(compare, "compare",
                     "compare FILE [--type f32|f64|c64|c128] [--x ones|random|FILE] [--seed S] [--warmup W] [--repeats N] [--cpu] [--json] [--out table.md]",
                     "every SpMV format on this matrix, measured, with the fastest that agrees recommended", runCompare);

} // namespace spyglass::cli
