#pragma once
// The compute service behind the "Compare formats" view: runs the format comparison
// (spyglass/formatcomparison.h) for the open matrix off the GUI thread, with progress and cancel.
// Results travel as a plain value type; exceptions stop here and arrive as failed(QString).
#include "computejob.h"

#include "spyglass/formatcomparison.h"
#include "spyglass/matrix.h"

#include <QMetaType>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

namespace spyglass::app {

struct FormatComparisonRequest {
    std::shared_ptr<const Matrix> matrix;
    QString source;               // names the matrix in errors (its file); may be empty
    bool singlePrecision = true;  // f32 (the precision the GPU formats are fastest in) or f64; c64 or c128 for a complex matrix
    bool randomX = true;          // seeded uniform in [-1, 1]; false: all ones
    unsigned seed = 1;            // randomX's seed
    QString xFile;                // when set, x is read from it instead: whitespace-separated numbers, one per column
    bool useGpu = true;           // false: every row on the CPU reference
    int warmup = 3;               // untimed runs per format on the GPU, after the cold first one
    int repeats = 20;             // timed runs per format on the GPU
    int cpuRepeats = 0;           // timed runs per format on the CPU; 0: min(repeats, 5)
};

// Same work synchronously (tests, spyglass-cli compare); throws spyglass errors (InputError for a
// complex matrix or a bad x file, OutOfMemoryError for a size the host cannot hold, CancelledError ...).
FormatComparison runFormatComparison(const FormatComparisonRequest& request, const std::atomic<bool>* cancel = nullptr,
                                     const std::function<void(double, const std::string&)>& progress = {});

// progress(percent, step): the format or step being timed.
using FormatComparisonJob = ComputeJob<FormatComparisonRequest, FormatComparison>;
template <> FormatComparisonJob::ComputeJob(QObject* parent);  // formatcomparisonjob.cpp: the run function and the "doing" text

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::FormatComparison)
