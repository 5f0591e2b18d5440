#include "hybrid_cli.h"
#include "inputmatrix.h"

#include "core/hybridexport.h"
#include "spyglass/container.h"
#include "spyglass/error.h"
#include "spyglass/hostmemory.h"
#include "spyglass/matrixmarket.h"

#include <QFile>
#include <QFileInfo>

namespace spyglass::cli::hybridcli {

DetectionArgs takeDetectionOptions(ArgParser& parser) {
    DetectionArgs args;
    const std::optional<QString> cellsPerPixel = parser.value("--cells-per-pixel");
    const std::optional<QString> thumb = parser.value("--thumb");
    const std::optional<QString> fill = parser.value("--fill");
    const std::optional<QString> pixelThreshold = parser.value("--pixel-threshold");
    if (cellsPerPixel && thumb) throw UsageError{QStringLiteral("give --cells-per-pixel or --thumb, not both")};
    if (cellsPerPixel) {
        args.options.cellsPerPixel = static_cast<Index>(parseInteger(*cellsPerPixel, QStringLiteral("--cells-per-pixel"), 0, 1 << 30));
        args.given << QStringLiteral("--cells-per-pixel");
    }
    if (thumb) {
        args.options.maxThumbnailSide = static_cast<int>(parseInteger(*thumb, QStringLiteral("--thumb"), 16, 1 << 15));
        args.given << QStringLiteral("--thumb");
    }
    if (fill) {
        args.options.minFill = parseNumber(*fill, QStringLiteral("--fill"));
        if (!(args.options.minFill >= 0.0 && args.options.minFill <= 0.999))
            throw UsageError{QStringLiteral("--fill: %1 is outside [0, 0.999]").arg(*fill)};
        args.given << QStringLiteral("--fill");
    }
    if (pixelThreshold) {
        args.options.pixelThreshold = parseNumber(*pixelThreshold, QStringLiteral("--pixel-threshold"));
        if (!(args.options.pixelThreshold >= 1e-6 && args.options.pixelThreshold <= 1.0))
            throw UsageError{QStringLiteral("--pixel-threshold: %1 is outside [1e-06, 1]").arg(*pixelThreshold)};
        args.given << QStringLiteral("--pixel-threshold");
    }
    return args;
}

HybridRun detectAndEncode(const QString& file, const DetectionOptions& options) {
    const std::string path = QFile::encodeName(file).toStdString();
    const Matrix matrix = cli::readInputMatrix(path);
    // The pattern's and the residual's row pointers are sized by the header alone.
    requireHostMemory(16 * (std::uint64_t(matrix.rows) + 1), path + ": dense-region detection of a " +
                                                                std::to_string(matrix.rows) + " x " +
                                                                std::to_string(matrix.cols) + " matrix");
    HybridRun run;
    run.pattern = binaryPatternFromMatrix(matrix);
    run.detected = detectDenseRegions(run.pattern, options);
    run.hybrid = encodeHybrid(run.pattern, run.detected.regions);
    return run;
}

void writeHybridOutputs(const HybridRun& run, const QString& file, const QString& out,
                        const std::optional<QString>& regionsJson, const std::optional<QString>& residualMtx) {
    // The file must decode to the input: checked before anything is written.
    if (!(decodeHybrid(run.hybrid) == run.pattern)) throw Error("hybrid encoding does not reproduce the input (bug)");
    writeHybridContainer(QFile::encodeName(out).toStdString(), run.hybrid,
                         "spyglass-cli export of " + QFileInfo(file).fileName().toStdString());
    if (regionsJson) app::writeHybridRegionsJson(*regionsJson, run.hybrid, file);
    if (residualMtx) app::writeHybridResidualMatrixMarket(*residualMtx, run.hybrid);
}

std::size_t patternCooBytes(Count nnz) { return static_cast<std::size_t>(nnz) * 2 * sizeof(Index); }

} // namespace spyglass::cli::hybridcli
