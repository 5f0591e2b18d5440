#pragma once
// Shared by the method D commands (detect, export --format hybrid, encode-binary): the detection
// options, reading a binary matrix and encoding it, and writing the container with its side files.
#include "cliargs.h"

#include "spyglass/denseregions.h"
#include "spyglass/hybridbinary.h"

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

struct HybridRun {
    BinaryPattern pattern;
    DetectionResult detected;
    HybridBinaryMatrix hybrid;
};
// Reads FILE (a binary matrix: pattern, or every value 1), detects its dense regions, encodes.
HybridRun detectAndEncode(const QString& file, const DetectionOptions& options);

// Checks that the encoding decodes to the input (nothing is written otherwise), then writes the
// container atomically and, when asked, the regions as JSON and the residual as Matrix Market.
void writeHybridOutputs(const HybridRun& run, const QString& file, const QString& out,
                        const std::optional<QString>& regionsJson, const std::optional<QString>& residualMtx);

// Bytes of the pattern as COO: a 32-bit row and a 32-bit column index per nonzero, no values.
std::size_t patternCooBytes(Count nnz);

} // namespace spyglass::cli::hybridcli
