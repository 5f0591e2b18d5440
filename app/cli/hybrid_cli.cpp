#include "hybrid_cli.h"
#include "inputmatrix.h"

#include "core/checkedwrite.h"
#include "core/hybridexport.h"

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

std::string HybridRun::zerosText() const {
    return valued() ? std::to_string(valuedHybrid().explicitZeros()) + " explicit zeros in the dense regions"
                    : std::to_string(hybrid().zeros()) + " zeros stored";
}

HybridRun detectAndEncode(const QString& file, const DetectionOptions& options) {
    HybridRun run;
    run.input = std::make_shared<const Matrix>(cli::readInputMatrix(file));
    // The tab encodes a complex matrix for its CPU SpMV; the files written here hold real values.
    if (run.input->isComplex())
        throw InputError(app::localPath(file) + ": the hybrid container stores real values or a binary pattern; this matrix is complex");
    run.result = app::runHybridDetection(app::detectionRequest(run.input, file, options));
    return run;
}

void writeHybridOutputs(const HybridRun& run, const QString& file, const QString& out,
                        const std::optional<QString>& regionsJson, const std::optional<QString>& residualMtx) {
    // The file must decode to the input: checked before anything is written.
    app::requireHybridReproduces(run.result, *run.input);
    app::writeHybridContainerExport(out, run.result, "spyglass-cli export of " + QFileInfo(file).fileName().toStdString());
    if (regionsJson) app::writeHybridRegionsJson(*regionsJson, run.result, file);
    if (residualMtx) app::writeHybridResidualMatrixMarket(*residualMtx, run.result);
}

std::size_t patternCooBytes(Count nnz) { return static_cast<std::size_t>(nnz) * 2 * sizeof(Index); }

} // namespace spyglass::cli::hybridcli
