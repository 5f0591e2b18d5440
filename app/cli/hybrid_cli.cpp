#include "hybrid_cli.h"
#include "inputmatrix.h"

#include "core/hybridexport.h"
#include "spyglass/container.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/spmvtiming.h"

#include <QFile>
#include <QFileInfo>

#include <algorithm>
#include <cstdio>

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
    app::HybridDetectionRequest request;
    request.matrix = std::make_shared<const Matrix>(cli::readInputMatrix(QFile::encodeName(file).toStdString()));
    request.source = file;
    request.cellsPerPixel = static_cast<int>(options.cellsPerPixel);
    request.maxThumbnailSide = options.maxThumbnailSide;
    request.minFill = options.minFill;
    request.pixelThreshold = options.pixelThreshold;
    request.keepPicture = false;
    HybridRun run;
    run.input = request.matrix;
    run.result = app::runHybridDetection(request);
    return run;
}

namespace {
// The valued encoding must give back the input, less stored zeros inside a region (which a dense
// block cannot tell from an absent cell).
bool reproducesInput(const HybridRun& run) {
    const HybridValuedMatrix<double>& hybrid = run.valuedHybrid();
    const CsrMatrix<double> back = decodeHybridValued(hybrid);
    const CsrMatrix<double> matrix = toCsr<double>(*run.input);  // symmetry expanded, duplicates summed
    CsrMatrix<double> expected;
    expected.rows = matrix.rows;
    expected.cols = matrix.cols;
    expected.rowPtr.push_back(0);
    std::vector<ColumnSpan> spans;
    for (Index i = 0; i < matrix.rows; ++i) {
        spans.clear();
        for (const auto& block : hybrid.blocks) spans.push_back(block.region.span(i));
        for (Count k = matrix.rowPtr[i]; k < matrix.rowPtr[i + 1]; ++k) {
            const Index j = matrix.colIndex[k];
            const bool inside = std::any_of(spans.begin(), spans.end(), [j](const ColumnSpan& s) { return j >= s.begin && j < s.end; });
            if (inside && matrix.values[k] == 0.0) continue;
            expected.colIndex.push_back(j);
            expected.values.push_back(matrix.values[k]);
        }
        expected.rowPtr.push_back(Count(expected.colIndex.size()));
    }
    return back.rowPtr == expected.rowPtr && back.colIndex == expected.colIndex && back.values == expected.values;
}
} // namespace

void writeHybridOutputs(const HybridRun& run, const QString& file, const QString& out,
                        const std::optional<QString>& regionsJson, const std::optional<QString>& residualMtx) {
    const std::string note = "spyglass-cli export of " + QFileInfo(file).fileName().toStdString();
    // The file must decode to the input: checked before anything is written.
    if (run.valued()) {
        if (!reproducesInput(run)) throw Error("valued hybrid encoding does not reproduce the input (bug)");
        app::writeHybridContainerExport(out, run.valuedHybrid(), run.result.field, note);
        if (regionsJson) app::writeHybridRegionsJson(*regionsJson, run.valuedHybrid(), file);
        if (residualMtx) app::writeHybridResidualMatrixMarket(*residualMtx, run.valuedHybrid());
        return;
    }
    if (!(decodeHybrid(run.hybrid()) == run.pattern())) throw Error("hybrid encoding does not reproduce the input (bug)");
    app::writeHybridContainerExport(out, run.hybrid(), note);
    if (regionsJson) app::writeHybridRegionsJson(*regionsJson, run.hybrid(), file);
    if (residualMtx) app::writeHybridResidualMatrixMarket(*residualMtx, run.hybrid());
}

std::size_t patternCooBytes(Count nnz) { return static_cast<std::size_t>(nnz) * 2 * sizeof(Index); }

namespace {

// The break-even line from the two timed GPU runs, or why there is none.
template <typename Hybrid>
void printBreakEvenOf(const Hybrid& hybrid, const CsrMatrix<double>& csr, double detectMs, double encodeMs, bool onGpu) {
    char hostText[96];
    std::snprintf(hostText, sizeof hostText, "detection %.1f ms, encoding %.1f ms", detectMs, encodeMs);
    const std::string host = hostText;
    if (!onGpu) {
        std::fprintf(stderr, "break-even against cuSPARSE CSR: timed with --backend cuda (%s)\n", host.c_str());
        return;
    }
    try {
        std::vector<double> x(static_cast<std::size_t>(csr.cols));
        for (std::size_t j = 0; j < x.size(); ++j) x[j] = static_cast<double>(static_cast<int>(j % 9) - 4);
        const TimedSpmv ours = timeHybridSpmv(hybrid, x, {HybridSpmvBackend::Cuda}, {});
        const TimedSpmv theirs = timeSpmv(csr, x, {SpmvBackend::Cusparse}, {});
        // Each side's preparation on the device: set-up (cuSPARSE's handle, descriptors, workspace)
        // and upload, timed once each (negative: did not happen).
        auto ready = [](const Measurement& m) { return std::max(0.0, m.setupMs) + std::max(0.0, m.uploadMs); };
        const double oursReady = ready(ours.timing), theirsReady = ready(theirs.timing);
        const HybridBreakEven even =
            hybridBreakEven(detectMs + encodeMs + oursReady, ours.timing.medianMs, theirsReady, theirs.timing.medianMs);
        std::fprintf(stderr,
                     "break-even against cuSPARSE CSR: %s; (%s + set-up and upload %.3f ms - CSR set-up and upload %.3f ms) / "
                     "(CSR SpMV %.4f ms - hybrid SpMV %.4f ms)\n",
                     even.text().c_str(), host.c_str(), oursReady, theirsReady, theirs.timing.medianMs, ours.timing.medianMs);
    } catch (const std::exception& error) {
        std::fprintf(stderr, "break-even against cuSPARSE CSR: not timed (%s; %s)\n", error.what(), host.c_str());
    }
}

} // namespace

void printBreakEven(const HybridBinaryMatrix& hybrid, const BinaryPattern& pattern, double detectMs, double encodeMs, bool onGpu) {
    CsrMatrix<double> csr;
    if (onGpu) {
        csr.rows = pattern.rows, csr.cols = pattern.cols, csr.rowPtr = pattern.rowPtr, csr.colIndex = pattern.colIndex;
        csr.values.assign(pattern.colIndex.size(), 1.0);
    }
    printBreakEvenOf(hybrid, csr, detectMs, encodeMs, onGpu);
}

void printBreakEven(const HybridValuedMatrix<double>& hybrid, double detectMs, double encodeMs, bool onGpu) {
    printBreakEvenOf(hybrid, onGpu ? decodeHybridValued(hybrid) : CsrMatrix<double>{}, detectMs, encodeMs, onGpu);
}

} // namespace spyglass::cli::hybridcli
