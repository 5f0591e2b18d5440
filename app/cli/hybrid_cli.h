#pragma once
// Shared by the method D commands (detect, export --format hybrid, encode-binary): the detection
// options, reading a binary matrix and encoding it, and writing the container with its side files.
#include "cliargs.h"

#include "core/hybriddetectionjob.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace spyglass::cli::hybridcli {

struct DetectionArgs {
    DetectionOptions options;
    QStringList given;  // the options named on the command line, for "applies to --format hybrid only"
};
// --cells-per-pixel N | --thumb PIXELS (longest thumbnail side; not both), --fill F, --pixel-threshold T.
DetectionArgs takeDetectionOptions(ArgParser& parser);

// What the GUI's HybridDetectionJob delivers (app::runHybridDetection, the same code): a binary
// matrix (pattern, or every value 1) gets the seed's encoding (regions by their zeros), any other
// real matrix the valued one (regions by their values). The accessors answer for either.
struct HybridRun {
    std::shared_ptr<const Matrix> input;  // the matrix as read (the valued encoding is checked against it)
    app::HybridDetectionResult result;

    bool valued() const { return bool(result.valued); }
    const BinaryPattern& pattern() const { return *result.pattern; }  // the matrix's pattern (both kinds)
    const DetectionResult& detected() const { return *result.detection; }
    const HybridBinaryMatrix& hybrid() const { return *result.hybrid; }                 // binary matrices
    const HybridValuedMatrix<double>& valuedHybrid() const { return *result.valued; }   // valued matrices
    std::size_t regionCount() const { return valued() ? valuedHybrid().blocks.size() : hybrid().blocks.size(); }
    std::size_t encodedBytes() const { return static_cast<std::size_t>(result.hybridBytes); }
    // The CSR the encoding competes with: pattern CSR (binary), CSR with f64 values (valued).
    std::size_t csrBytes() const { return static_cast<std::size_t>(result.csrBytes); }
    bool csrFallback() const { return result.csrFallback; }
    std::string fallbackReason() const { return result.fallbackReason.toStdString(); }
    // "1234 zeros stored" (binary) or "1234 explicit zeros in the dense regions" (valued).
    std::string zerosText() const;
    Count residualNnz() const { return valued() ? valuedHybrid().residual.nnz() : hybrid().residual.nnz(); }
};
// Reads FILE, detects the dense regions of its pattern and encodes: binary matrices by their zeros,
// any other real matrix with values. Complex matrices are refused (InputError naming the file).
HybridRun detectAndEncode(const QString& file, const DetectionOptions& options);

// Checks that the encoding decodes to the input (nothing is written otherwise), then writes the
// container atomically and, when asked, the regions as JSON and the residual as Matrix Market.
void writeHybridOutputs(const HybridRun& run, const QString& file, const QString& out,
                        const std::optional<QString>& regionsJson, const std::optional<QString>& residualMtx);

// Bytes of the pattern as COO: a 32-bit row and a 32-bit column index per nonzero, no values.
std::size_t patternCooBytes(Count nnz);

} // namespace spyglass::cli::hybridcli
