#pragma once
// Method D off the GUI thread: dense-region detection and the hybrid encoding of a matrix (binary:
// regions by their zeros; any other matrix: regions by their values, c128 for a complex one),
// with cancel, delivered as a plain value. The regions travel as the library's DenseRegion, by value,
// from here to the spy view's overlays; the GUI exports the encoding through hybridexport.h.
// runHybridDetection() is the same work synchronously (tests, and spyglass-cli's detect, export
// --format hybrid and encode-binary).
#include "computejob.h"

#include "spyglass/hybrid_regions.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/matrix.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QVector>

#include <atomic>
#include <complex>
#include <memory>

namespace spyglass::app {

struct HybridDetectionRequest {
    std::shared_ptr<const Matrix> matrix;  // real, pattern or complex (detection reads the pattern)
    QString source;                        // names the matrix in errors (its file); may be empty
    int cellsPerPixel = 0;                 // 0: automatic (thumbnail <= maxThumbnailSide px on its longer side)
    int maxThumbnailSide = DetectionOptions{}.maxThumbnailSide;
    double minFill = 0.5;
    double pixelThreshold = 0.3;
    bool keepPicture = true;  // keep the thumbnail, mask and components (for the detection layers)
    int threads = 0;          // host threads of detection and encoding (0: every core)
    // What an earlier run built from this same matrix (its result's pattern and csr): reused, so
    // that a re-detection with new parameters starts at the thumbnail. Null: built here.
    std::shared_ptr<const BinaryPattern> pattern;
    std::shared_ptr<const CsrMatrix<double>> csr;  // real valued matrices only
};

// A region the encoding keeps (or, on CSR fallback, one detection found): the library's region, and
// the zeros stored for it.
struct HybridRegion {
    DenseRegion region;  // shape, corner, box (half-open), band offsets, ones; cells() and fill() from it
    qint64 zeros = 0;    // positions (binary) or explicit zero values (valued); 0 on CSR fallback
};

struct HybridDetectionResult {
    // The one list of regions: the blocks of the encoding, or on CSR fallback what detection found.
    QVector<HybridRegion> regions;
    int regionsFound = 0;  // what detection found, before the encoding kept some of them
    qint64 rows = 0, cols = 0, nnz = 0;
    qint64 hybridBytes = 0, csrBytes = 0;
    bool csrFallback = false;
    QString fallbackReason;
    int thumbnailWidth = 0, thumbnailHeight = 0, cellsPerPixel = 1, components = 0;
    double detectMs = 0, encodeMs = 0;
    // The encoding itself, for export or SpMV; shared, never copied. Exactly one is set: `hybrid` for
    // a binary real matrix, `complexValued` for a complex one (CPU SpMV only: no container or GPU
    // kernel holds complex values yet), `valued` for any other.
    std::shared_ptr<const HybridBinaryMatrix> hybrid;
    std::shared_ptr<const HybridValuedMatrix<double>> valued;
    std::shared_ptr<const HybridValuedMatrix<std::complex<double>>> complexValued;
    Field field = Field::Real;  // valued: the field the container keeps (real or integer); Complex for complexValued
    bool hasEncoding() const { return hybrid || valued || complexValued; }
    bool canExport() const { return hybrid || valued; }  // the container holds real values or a pattern
    std::shared_ptr<const BinaryPattern> pattern;  // the matrix it encodes (the SpMV check's input: binary only)
    std::shared_ptr<const CsrMatrix<double>> csr;  // valued matrices: the matrix as CSR (reusable by the next request)
    std::shared_ptr<const DetectionPicture> picture; // what the detector saw (null unless keepPicture)
    // The detector's own report: what it dropped and why, its times. Its regions are moved out (into
    // `regions` on CSR fallback; else the encoding's blocks hold those kept) and its picture is
    // moved to `picture`, so that nothing is held twice.
    std::shared_ptr<const DetectionResult> detection;
    QString summary() const;  // one line for a status bar
};

// A request for the library's detection options (what spyglass-cli's --cells-per-pixel, --thumb, --fill
// and --pixel-threshold set), without the picture.
HybridDetectionRequest detectionRequest(std::shared_ptr<const Matrix> matrix, const QString& source, const DetectionOptions& options);

// Throws spyglass errors (OutOfMemoryError when the host cannot hold the pattern's row pointers,
// CancelledError).
HybridDetectionResult runHybridDetection(const HybridDetectionRequest& request, const std::atomic<bool>* cancel = nullptr);

using HybridDetectionJob = ComputeJob<HybridDetectionRequest, HybridDetectionResult>;
template <> HybridDetectionJob::ComputeJob(QObject* parent);  // hybriddetectionjob.cpp: the run function and the "doing" text

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::app::HybridDetectionResult)
