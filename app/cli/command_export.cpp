// spyglass-cli export: writes a binary matrix in the Spyglass container (docs/container-format.md).
#include "cliargs.h"
#include "command.h"

#include "core/hybridexport.h"
#include "spyglass/container.h"
#include "spyglass/denseregions.h"
#include "spyglass/hybridbinary.h"
#include "spyglass/matrixmarket.h"

#include <QFileInfo>

#include <cstdio>

namespace spyglass::cli {

namespace {

int runExport(const QStringList& args) {
    ArgParser parser(args);
    const QString format = parser.choice("--format", {"hybrid", "segdia", "bitflag"}, "hybrid");
    const std::optional<QString> out = parser.value("-o|--output");
    const std::optional<QString> regionsJson = parser.value("--regions-json");
    const std::optional<QString> residualMtx = parser.value("--residual-mtx");
    DetectionOptions options;
    options.cellsPerPixel = static_cast<Index>(parser.integer("--cells-per-pixel", 0, 0, 1 << 30));
    options.minFill = parser.number("--fill", 0.5, 0.0, 0.999);
    const QString file = parser.positionals(1, 1, "FILE").first();
    if (!out) throw UsageError{QStringLiteral("-o OUT is required")};
    if (format != QLatin1String("hybrid")) {
        std::fprintf(stderr, "spyglass-cli export: format '%s' is not available yet (only 'hybrid')\n", qPrintable(format));
        return ExitFailure;
    }
    const BinaryPattern pattern = binaryPatternFromMatrix(readMatrixMarket(file.toStdString()));
    const DetectionResult detected = detectDenseRegions(pattern, options);
    const HybridBinaryMatrix hybrid = encodeHybrid(pattern, detected.regions);
    // The file must decode to the input: checked before anything is written.
    if (!(decodeHybrid(hybrid) == pattern)) throw Error("hybrid encoding does not reproduce the input (bug)");
    writeHybridContainer(out->toStdString(), hybrid, "spyglass-cli export of " + QFileInfo(file).fileName().toStdString());
    const std::size_t csrBytes = patternCsrBytes(pattern.rows, pattern.nnz());
    std::printf("%s: %zu regions, %lld zeros stored, residual %lld nonzeros; hybrid %zu bytes vs CSR %zu bytes (%.2fx)\n",
                qPrintable(*out), hybrid.blocks.size(), static_cast<long long>(hybrid.zeros()),
                static_cast<long long>(hybrid.residual.nnz()), hybrid.encodedBytes(), csrBytes,
                static_cast<double>(csrBytes) / static_cast<double>(hybrid.encodedBytes()));
    if (hybrid.csrFallback) std::printf("CSR fallback: %s\n", hybrid.fallbackReason.c_str());
    if (regionsJson) app::writeHybridRegionsJson(*regionsJson, hybrid, file);
    if (residualMtx) app::writeHybridResidualMatrixMarket(*residualMtx, hybrid);
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(export, "export",
                     "export FILE --format hybrid|segdia|bitflag -o OUT [--regions-json R.json] [--residual-mtx R.mtx]",
                     "Write a binary matrix in the Spyglass container (hybrid encoding)", runExport);

} // namespace spyglass::cli
