// spyglass-cli export: writes a matrix in the Spyglass container (docs/container-format.md) in one of
// its encodings: hybrid (method D, binary matrices), segdia (method B) or bitflag (method A).
#include "cliargs.h"
#include "command.h"
#include "hybrid_cli.h"
#include "inputmatrix.h"

#include "core/containerexport.h"
#include "spyglass/matrixmarket.h"

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
    const HybridBinaryMatrix& hybrid = run.hybrid;
    const std::size_t csrBytes = patternCsrBytes(run.pattern.rows, run.pattern.nnz());
    std::printf("%s: %zu regions, %lld zeros stored, residual %lld nonzeros; hybrid %zu bytes vs CSR %zu bytes (%.2fx)\n",
                qPrintable(out), hybrid.blocks.size(), static_cast<long long>(hybrid.zeros()),
                static_cast<long long>(hybrid.residual.nnz()), hybrid.encodedBytes(), csrBytes,
                static_cast<double>(csrBytes) / static_cast<double>(hybrid.encodedBytes()));
    if (hybrid.csrFallback) std::printf("CSR fallback: %s\n", hybrid.fallbackReason.c_str());
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
    SegmentedDiaOptions segdia;
    if (thresholdText) segdia.threshold = static_cast<Index>(parseInteger(*thresholdText, QStringLiteral("--threshold"), 1, 1 << 30));
    segdia.merge = !noMerge;

    if (format == QLatin1String("hybrid")) return exportHybrid(file, *out, detection.options, regionsJson, residualMtx);
    const std::string source = QFile::encodeName(file).toStdString();
    const Matrix matrix = readInputMatrix(source);
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
