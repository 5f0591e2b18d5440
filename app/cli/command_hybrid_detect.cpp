// spyglass-cli detect: the dense regions of a matrix's pattern (method D, steps 1-3), binary or valued.
#include "cliargs.h"
#include "command.h"
#include "hybrid_cli.h"

#include "core/denseregionjson.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

namespace spyglass::cli {

namespace {

QJsonObject regionJson(const DenseRegion& r) {
    QJsonObject o = app::denseRegionJson(r);
    o["cells"] = static_cast<double>(r.cells());
    o["ones"] = static_cast<double>(r.ones);
    return o;
}

int runDetect(const QStringList& args) {
    ArgParser parser(args);
    const bool json = parser.flag("--json");
    const DetectionOptions options = hybridcli::takeDetectionOptions(parser).options;
    const QString file = parser.positionals(1, 1, "FILE").first();
    printActiveBackend("detect", QStringLiteral("cpu"));  // OpenCV on the host; no --backend
    const hybridcli::HybridRun run = hybridcli::detectAndEncode(file, options);
    const BinaryPattern& pattern = run.pattern();
    const DetectionResult& result = run.detected();
    const std::size_t csrBytes = run.csrBytes();
    if (json) {
        QJsonArray regions;
        for (const app::HybridRegion& r : run.result.regions) regions.append(regionJson(r.region));
        QJsonObject o{{"file", file}, {"rows", pattern.rows}, {"cols", pattern.cols}, {"nnz", static_cast<double>(pattern.nnz())},
                      {"cellsPerPixel", result.cellsPerPixel}, {"thumbnailWidth", result.thumbnailWidth},
                      {"thumbnailHeight", result.thumbnailHeight}, {"components", result.components},
                      {"droppedByShape", result.droppedByShape}, {"droppedByFill", result.droppedByFill},
                      {"droppedByOverlap", result.droppedByOverlap}, {"droppedBySize", result.droppedBySize},
                      {"thumbnailMs", result.thumbnailMs}, {"componentsMs", result.componentsMs}, {"refineMs", result.refineMs},
                      {"regions", regions}, {"valued", run.valued()}, {"hybridBytes", static_cast<double>(run.encodedBytes())},
                      {"csrBytes", static_cast<double>(csrBytes)}, {"csrFallback", run.csrFallback()},
                      {"fallbackReason", QString::fromStdString(run.fallbackReason())}};
        std::printf("%s", QJsonDocument(o).toJson(QJsonDocument::Indented).constData());
        return ExitOk;
    }
    std::printf("%s: %d x %d, %lld nonzeros\n", qPrintable(file), pattern.rows, pattern.cols,
                static_cast<long long>(pattern.nnz()));
    std::printf("thumbnail %d x %d (%d cells/pixel) in %.1f ms; %d components in %.1f ms; refined in %.1f ms\n",
                result.thumbnailWidth, result.thumbnailHeight, result.cellsPerPixel, result.thumbnailMs, result.components,
                result.componentsMs, result.refineMs);
    std::printf("dropped: %d by shape, %d by fill, %d by overlap, %d too small\n", result.droppedByShape,
                result.droppedByFill, result.droppedByOverlap, result.droppedBySize);
    // The regions the encoding keeps (all that were found when it falls back to CSR).
    const auto& kept = run.result.regions;
    for (int k = 0; k < kept.size(); ++k) std::printf("  %3d  %s\n", k, kept[k].region.describe().c_str());
    std::printf("%d regions; %s hybrid %zu bytes vs CSR %zu bytes%s%s\n", int(kept.size()), run.valued() ? "valued" : "binary",
                run.encodedBytes(), csrBytes, run.csrFallback() ? "; CSR fallback: " : "", run.fallbackReason().c_str());
    return ExitOk;
}

} // namespace

SPYGLASS_CLI_COMMAND(detect, "detect", "detect FILE [--cells-per-pixel N | --thumb PIXELS] [--fill 0.5] [--pixel-threshold T] [--json]",
                     "Dense regions of a matrix's pattern, binary or valued (thumbnail + connected components)", runDetect);

} // namespace spyglass::cli
