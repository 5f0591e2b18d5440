// spyglass-cli export: writes a binary matrix in the Spyglass container (docs/container-format.md).
#include "cliargs.h"
#include "command.h"

#include "spyglass/atomicfile.h"
#include "spyglass/container.h"
#include "spyglass/denseregions.h"
#include "spyglass/hybridbinary.h"
#include "spyglass/matrixmarket.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

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
    if (regionsJson) {
        QJsonArray regions;
        for (const HybridBlock& block : hybrid.blocks) {
            const DenseRegion& r = block.region;
            QJsonObject o{{"shape", toString(r.shape)}, {"rowBegin", r.rowBegin}, {"rowEnd", r.rowEnd},
                          {"colBegin", r.colBegin}, {"colEnd", r.colEnd}, {"fill", r.fill()},
                          {"zeros", static_cast<double>(block.zeros())}};
            if (r.shape == RegionShape::Triangle) o["corner"] = toString(r.corner);
            if (r.shape == RegionShape::Band) o["bandLow"] = r.bandLow, o["bandHigh"] = r.bandHigh, o["bandWidth"] = r.bandWidth();
            regions.append(o);
        }
        const QJsonObject doc{{"file", file}, {"regions", regions}, {"csrFallback", hybrid.csrFallback},
                              {"fallbackReason", QString::fromStdString(hybrid.fallbackReason)}};
        const QByteArray text = QJsonDocument(doc).toJson(QJsonDocument::Indented);
        writeFileAtomically(regionsJson->toStdString(), std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
    }
    if (residualMtx) writeMatrixMarket(residualMtx->toStdString(), matrixFromBinaryPattern(hybrid.residual));
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(export, "export",
                     "export FILE --format hybrid|segdia|bitflag -o OUT [--regions-json R.json] [--residual-mtx R.mtx]",
                     "Write a binary matrix in the Spyglass container (hybrid encoding)", runExport);

} // namespace spyglass::cli
