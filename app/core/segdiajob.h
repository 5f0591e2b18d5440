#pragma once
// The compute service behind the segmented-DIA layout panel (method B): builds the format for the
// open matrix off the GUI thread, and optionally runs y = A x on every backend asked for, checking
// each result against the CPU reference on CSR. Results travel as a plain value type.
// A complex matrix is built and multiplied in c128 on every backend (the CUDA kernels and cuSPARSE take
// complex values as they do real ones).
#include "computejob.h"

#include "spyglass/matrix.h"
#include "spyglass/measurement.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"

#include <QMetaType>
#include <QObject>
#include <QPair>
#include <QString>
#include <QStringList>
#include <QVector>

#include <atomic>
#include <complex>
#include <memory>
#include <vector>

namespace spyglass::app {

struct SegmentedDiaRequest {
    std::shared_ptr<const Matrix> matrix;
    int threshold = 0;  // rows per segment; 0 (kChooseSegmentThreshold): chosen per matrix by the builder
    bool merge = true;     // false: HDIA (equal row groups, no merging)
    QVector<SpmvBackend> spmvBackends;  // spmv()'s own (segdia_spmv.h); empty: build only
    TimingOptions timing;               // GPU backends (the CPU reference: one warm-up, three timed runs)
};

struct SpmvRun {
    SpmvBackend backend = SpmvBackend::Reference;
    QString name;            // "CPU reference (segmented DIA)", "CUDA segmented DIA", "cuSPARSE CSR"
    Measurement timing;      // the multiply alone; set-up and upload apart (measurement.h)
    double bytesMoved = 0;   // GPU: the bytes one SpMV moves at least (the bandwidth floor)
    double maxRelativeError = 0;  // max |y - y_ref| / max |y_ref|
    QString error;           // when the backend could not run (no GPU, out of memory, complex values on a GPU ...)
    // Complex matrices: the product itself, so that a check beyond the CSR reference can read it.
    std::vector<std::complex<double>> complexY;
};

struct SegmentedDiaLayout {
    // The layout the picture and the tables show. For a complex matrix it holds each value's modulus
    // (the structure is what it shows); complexFormat holds the values SpMV multiplies.
    std::shared_ptr<const SegmentedDiaMatrix<double>> format;
    std::shared_ptr<const SegmentedDiaMatrix<std::complex<double>>> complexFormat;
    std::vector<std::complex<double>> complexX;  // complex matrices with SpMV: the x multiplied
    bool isComplex() const { return complexFormat != nullptr; }
    SegmentedDiaStats stats;
    std::size_t csrBytes = 0;  // CSR of the same matrix in fp64 (c128 when complex), for comparison
    QStringList mergeSteps;    // one readable line per merge
    QVector<int> segmentBlock; // merged block of each segment
    QVector<SpmvRun> spmv;
};

// Same work synchronously; throws spyglass errors (InputError, CancelledError ...).
SegmentedDiaLayout buildSegmentedDiaLayout(const SegmentedDiaRequest& request, const std::atomic<bool>* cancel = nullptr);

using SegmentedDiaJob = ComputeJob<SegmentedDiaRequest, SegmentedDiaLayout>;
template <> SegmentedDiaJob::ComputeJob(QObject* parent);  // segdiajob.cpp: the run function and the "doing" text

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::app::SegmentedDiaLayout)
