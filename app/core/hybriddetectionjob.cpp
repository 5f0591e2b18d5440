// Method D on a pool thread: detection, encoding, a plain result. Exceptions stop here.
#include "hybriddetectionjob.h"


#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/hostmemory.h"


#include <chrono>
#include <optional>
#include <utility>

namespace spyglass::app {

namespace {
using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

// The valued encoding (real or complex values), its bytes beside CSR's and the regions it kept.
template <typename T>
std::shared_ptr<const HybridValuedMatrix<T>> encodeValued(const CsrMatrix<T>& csr, const std::vector<DenseRegion>& regions,
                                                          const HybridDetectionRequest& request, const std::atomic<bool>* cancel,
                                                          HybridDetectionResult& result) {
    HybridValuedOptions encoding;
    encoding.threads = request.threads;
    encoding.cancel = cancel;
    auto valued = std::make_shared<const HybridValuedMatrix<T>>(encodeHybridValued(csr, regions, encoding));
    result.hybridBytes = static_cast<qint64>(valued->encodedBytes());
    result.csrBytes = static_cast<qint64>(valuedCsrBytes(csr.rows, csr.nnz(), sizeof(T)));
    result.csrFallback = valued->csrFallback;
    result.fallbackReason = QString::fromStdString(valued->fallbackReason);
    if (!valued->csrFallback)
        for (const auto& block : valued->blocks) result.regions.push_back({block.region, block.explicitZeros()});
    return valued;
}
} // namespace

QString HybridDetectionResult::summary() const {
    QString text = QStringLiteral("%1 dense regions; hybrid %2 bytes vs CSR %3 bytes").arg(regions.size()).arg(hybridBytes).arg(csrBytes);
    if (csrFallback) text += QStringLiteral(" (CSR fallback: %1)").arg(fallbackReason);
    return text;
}

HybridDetectionRequest detectionRequest(std::shared_ptr<const Matrix> matrix, const QString& source, const DetectionOptions& options) {
    HybridDetectionRequest request;
    request.matrix = std::move(matrix);
    request.source = source;
    request.cellsPerPixel = static_cast<int>(options.cellsPerPixel);
    request.maxThumbnailSide = options.maxThumbnailSide;
    request.minFill = options.minFill;
    request.pixelThreshold = options.pixelThreshold;
    request.keepPicture = false;
    return request;
}

HybridDetectionResult runHybridDetection(const HybridDetectionRequest& request, const std::atomic<bool>* cancel) {
    if (!request.matrix) throw InputError("region detection: no matrix");
    const std::string source = request.source.isEmpty() ? std::string("region detection") : request.source.toStdString();
    // The pattern's and the residual's row pointers are sized by the header alone: a declared size
    // the host cannot hold is refused before anything is allocated.
    requireHostMemory(16 * (std::uint64_t(request.matrix->rows) + 1),
                      source + ": dense-region detection of a " + std::to_string(request.matrix->rows) + " x " +
                          std::to_string(request.matrix->cols) + " matrix");
    auto start = Clock::now();
    const bool complexValues = request.matrix->isComplex();
    const bool binary = !complexValues && request.matrix->isBinary();
    // The CSR (valued) and the pattern are shared with the result: the SpMV check of a binary
    // encoding reads the pattern, and the next request on the same matrix reuses both. A complex
    // matrix's CSR is made again each time (it is not kept).
    std::shared_ptr<const CsrMatrix<double>> sharedCsr;
    std::optional<CsrMatrix<std::complex<double>>> complexCsr;
    if (complexValues) complexCsr = toCsr<std::complex<double>>(*request.matrix);
    else if (!binary) sharedCsr = request.csr ? request.csr : std::make_shared<const CsrMatrix<double>>(toCsr<double>(*request.matrix));
    if (cancel && cancel->load()) throw CancelledError();
    std::shared_ptr<const BinaryPattern> sharedPattern =
        request.pattern ? request.pattern
        : binary        ? std::make_shared<const BinaryPattern>(binaryPatternFromMatrix(*request.matrix))
        : complexValues ? std::make_shared<const BinaryPattern>(patternOfCsr(*complexCsr))
                        : std::make_shared<const BinaryPattern>(patternOfCsr(*sharedCsr));
    const BinaryPattern& pattern = *sharedPattern;
    if (pattern.rows != request.matrix->rows || pattern.cols != request.matrix->cols)
        throw InputError(source + ": the reused pattern is not of this matrix");
    DetectionOptions options;
    options.cellsPerPixel = request.cellsPerPixel;
    options.maxThumbnailSide = request.maxThumbnailSide;
    options.minFill = request.minFill;
    options.pixelThreshold = request.pixelThreshold;
    options.cancel = cancel;
    options.keepPicture = request.keepPicture;
    options.threads = request.threads;
    DetectionResult detected = detectDenseRegions(pattern, options);
    HybridDetectionResult result;
    result.detectMs = msSince(start);
    if (cancel && cancel->load()) throw CancelledError();
    start = Clock::now();
    result.rows = pattern.rows;
    result.cols = pattern.cols;
    result.nnz = pattern.nnz();
    result.thumbnailWidth = detected.thumbnailWidth;
    result.thumbnailHeight = detected.thumbnailHeight;
    result.cellsPerPixel = detected.cellsPerPixel;
    result.components = detected.components;
    if (binary) {
        HybridEncodeOptions encoding;
        encoding.threads = request.threads;
        encoding.cancel = cancel;
        auto hybrid = std::make_shared<HybridBinaryMatrix>(encodeHybrid(pattern, detected.regions, encoding));
        result.hybridBytes = static_cast<qint64>(hybrid->encodedBytes());
        result.csrBytes = static_cast<qint64>(patternCsrBytes(pattern.rows, pattern.nnz()));
        result.csrFallback = hybrid->csrFallback;
        result.fallbackReason = QString::fromStdString(hybrid->fallbackReason);
        if (!result.csrFallback)
            for (const HybridBlock& block : hybrid->blocks) result.regions.push_back({block.region, block.zeros()});
        result.hybrid = std::move(hybrid);
    } else if (complexValues) {
        result.complexValued = encodeValued(*complexCsr, detected.regions, request, cancel, result);
        result.field = Field::Complex;
    } else {
        result.valued = encodeValued(*sharedCsr, detected.regions, request, cancel, result);
        result.field = request.matrix->field == Field::Integer ? Field::Integer : Field::Real;
    }
    result.encodeMs = msSince(start);
    // On fallback, the detected regions are still shown (for display).
    if (result.csrFallback)
        for (const DenseRegion& r : detected.regions) result.regions.push_back({r, 0});
    result.regionsFound = static_cast<int>(detected.regions.size());
    detected.regions.clear();
    detected.regions.shrink_to_fit();
    result.pattern = std::move(sharedPattern);
    result.csr = std::move(sharedCsr);
    if (request.keepPicture) result.picture = std::make_shared<const DetectionPicture>(std::move(detected.picture));
    result.detection = std::make_shared<const DetectionResult>(std::move(detected));
    return result;
}

template <>
HybridDetectionJob::ComputeJob(QObject* parent)
    : ComputeJob(parent, runHybridDetection, QStringLiteral("detecting dense regions and encoding")) {}

} // namespace spyglass::app
