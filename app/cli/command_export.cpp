// spyglass-cli export: writes a matrix in the Spyglass container (docs/container-format.md) in one of
// its encodings: hybrid (method D: binary matrices by their zeros, any real matrix with values), segdia (method B) or bitflag (method A).
#include "cliargs.h"
#include "command.h"
#include "hybrid_cli.h"
#include "inputmatrix.h"

#include "core/containerexport.h"

#include <QFile>
#include <QFileInfo>

#include <cstdio>

namespace spyglass::cli {

namespace {

// Options of one format given with another are mistakes, not silently ignored.
void requireFormat(const QStringList& given, const QString& format, const QString& wanted) {
    if (!given.isEmpty() && format != wanted)
        throw UsageError{QStringLiteral("%1 applies to --format %2 only").arg(given.join(QStringLiteral(", ")), wanted)};
}

int exportHybrid(const QString& file, const QString& out, const DetectionOptions& options,
                 const std::optional<QString>& regionsJson, const std::optional<QString>& residualMtx) {
    const hybridcli::HybridRun run = hybridcli::detectAndEncode(file, options);
    hybridcli::writeHybridOutputs(run, file, out, regionsJson, residualMtx);
    const std::size_t csrBytes = run.csrBytes(), encoded = run.encodedBytes();
    std::printf("%s: %s hybrid, %zu regions, %s, residual %lld nonzeros; hybrid %zu bytes vs CSR %zu bytes (%.2fx)\n",
                qPrintable(out), run.valued() ? "valued" : "binary", run.regionCount(), run.zerosText().c_str(),
                static_cast<long long>(run.residualNnz()), encoded, csrBytes,
                static_cast<double>(csrBytes) / static_cast<double>(encoded));
    if (run.csrFallback()) std::printf("CSR fallback: %s\n", run.fallbackReason().c_str());
    return ExitOk;
}

int runExport(const QStringList& args) {
    ArgParser parser(args);
    const QString format = parser.choice("--format", {"hybrid", "segdia", "bitflag"}, "hybrid");
    const std::optional<QString> out = parser.value("-o|--output");
    // hybrid
    const hybridcli::DetectionArgs detection = hybridcli::takeDetectionOptions(parser);
    const std::optional<QString> regionsJson = parser.value("--regions-json");
    const std::optional<QString> residualMtx = parser.value("--residual-mtx");
    QStringList hybridGiven = detection.given;
    if (regionsJson) hybridGiven << QStringLiteral("--regions-json");
    if (residualMtx) hybridGiven << QStringLiteral("--residual-mtx");
    // segdia
    const std::optional<QString> thresholdText = parser.value("--threshold");
    const bool noMerge = parser.flag("--no-merge");
    QStringList segdiaGiven;
    if (thresholdText) segdiaGiven << QStringLiteral("--threshold");
    if (noMerge) segdiaGiven << QStringLiteral("--no-merge");
    // bitflag
    const bool colMajor = parser.flag("--col-major");
    const bool prefix = parser.flag("--prefix");
    QStringList bitflagGiven;
    if (colMajor) bitflagGiven << QStringLiteral("--col-major");
    if (prefix) bitflagGiven << QStringLiteral("--prefix");

    const QString file = parser.positionals(1, 1, "FILE").first();
    if (!out) throw UsageError{QStringLiteral("-o OUT is required")};
    requireFormat(hybridGiven, format, QStringLiteral("hybrid"));
    requireFormat(segdiaGiven, format, QStringLiteral("segdia"));
    requireFormat(bitflagGiven, format, QStringLiteral("bitflag"));
    printActiveBackend("export", QStringLiteral("cpu"));  // every encoder runs on the host
    SegmentedDiaOptions segdia;
    if (thresholdText) segdia.threshold = static_cast<Index>(parseInteger(*thresholdText, QStringLiteral("--threshold"), 1, 1 << 30));
    segdia.merge = !noMerge;

    if (format == QLatin1String("hybrid")) return exportHybrid(file, *out, detection.options, regionsJson, residualMtx);
    const std::string source = QFile::encodeName(file).toStdString();
    const Matrix matrix = readInputMatrix(file);
    const std::string note = "spyglass-cli export of " + QFileInfo(file).fileName().toStdString();
    const app::ContainerExportReport report =
        format == QLatin1String("segdia")
            ? app::exportSegmentedDia(matrix, source, segdia, *out, note)
            : app::exportBitFlag(matrix, source, colMajor ? BitFlagOrder::ColumnMajor : BitFlagOrder::RowMajor, prefix, *out, note);
    std::printf("%s\n", qPrintable(report.describe(*out)));
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(export, "export",
                     "export FILE --format hybrid|segdia|bitflag -o OUT [hybrid: --thumb PIXELS | --cells-per-pixel N, --fill F, "
                     "--regions-json R.json, --residual-mtx R.mtx] [segdia: --threshold T, --no-merge] "
                     "[bitflag: --col-major, --prefix]",
                     "Write a matrix in the Spyglass container (hybrid, segmented DIA or bit-flag encoding)", runExport);

} // namespace spyglass::cli
