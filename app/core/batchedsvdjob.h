#pragma once
// The compute service behind the batched-SVD panel (method C): builds or reads a batch, decomposes it
// on the chosen backend off the GUI thread with progress and cancel, measures the accuracy, and
// reports a plain result (times, accuracy, per-matrix flags, the singular values and convergence of
// the first matrices). runBatchedSvd() is the same work synchronously (spyglass-cli svd uses it).
#include "backendsweep.h"
#include "batchrunfigures.h"
#include "batchprecision.h"
#include "batchshare.h"
#include "computejob.h"

#include "spyglass/batchedsvd.h"
#include "spyglass/measurement.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QVector>

#include <atomic>
#include <functional>
#include <limits>
#include <vector>

namespace spyglass::app {

using SvdPrecision = BatchPrecision;  // batchprecision.h

struct BatchedSvdRequest {
    int m = 16, n = 16;  // rows, columns of each matrix (m >= n, n <= 64)
    qint64 batch = 1000;
    SvdPrecision precision = SvdPrecision::F32;
    SvdBatchKind kind = SvdBatchKind::Random;
    quint64 seed = 1;
    // When set, the matrices come from this Matrix Market file instead of the generator: batch
    // matrices of m rows stacked one below the other (file rows = batch * m, cols = n); m is taken
    // from this request, n and batch from the file.
    QString inputFile;
    SvdBackend backend = SvdBackend::Reference;
    SvdVariant variant = SvdVariant::Auto;  // the CUDA mapping; ignored by the other backends
    // Cuda backend: the GPUs to split the batch over, streamed in chunks (SvdOptions::devices).
    std::vector<int> devices;
    qint64 streamChunk = 0;
    // One process per GPU (batchedsvdrank.h): the matrices of the generated batch this process
    // decomposes. Only they are kept (generateSvdBatch's `first`: the ones before are drawn and
    // dropped, so they equal the whole batch's); the kernels' widths are chosen for the whole batch,
    // so every matrix's result is the one-process run's. The result then covers the share: its batch,
    // counts and maxima; the accuracy is measured on the share's matrices among the first
    // accuracyMatrices of the batch; flagged indices are the batch's. Not with inputFile or outputFile.
    BatchShare share;
    // When set, the singular values are written there (atomically): a stack of 1 x n matrices, row b
    // = matrix b, descending; NaN for non-finite input.
    QString outputFile;
    double tolerance = 0;  // 0 = m * eps
    int maxSweeps = 30;
    // Singular values, sweeps, status and (CPU) convergence history are kept for the first this many
    // matrices; counts and flags cover the whole batch.
    qint64 detailMatrices = 10000;
    // Accuracy is O(m n^2) in double per matrix: measured on the first this many, as the CLI does.
    qint64 accuracyMatrices = 4096;
    TimingOptions timing;  // GPU backends: how the kernel is measured (measurement.h)
};

// device: with the GPU variant in parentheses where there is one; bytesMoved: A read, U, sigma and V written.
struct BatchedSvdResult : BatchRunFigures {
    int m = 0, n = 0;
    QString variant;       // the mapping that ran ("reference", "block-per-matrix", ...); empty where none
    double tolerance = 0;  // the tolerance used
    int maxSweepsAllowed = 0;

    // Largest errors over the first accuracySampled matrices, NaN/Inf inputs left out (svdAccuracy).
    qint64 accuracySampled = 0;
    double reconstruction = 0;   // ||A - U S V^H||_F / ||A||_F
    double uOrthogonality = 0;   // max |U^H U - I|
    double vOrthogonality = 0;   // max |V^H V - I|
    qint64 unsortedOrNegative = 0;

    // cusolver-gesvda only: the largest h_R_nrmF (cuSOLVER's ||A - U S V^H||_F) over the finite
    // matrices of the whole batch; NaN for the other backends.
    double vendorResidual = std::numeric_limits<double>::quiet_NaN();

    // cuSOLVER reports neither sweeps nor off-orthogonality: false there, and the two below are -1 / NaN.
    bool sweepsReported = true;
    int maxSweepsUsed = 0;
    double maxOffOrthogonality = 0;  // over the finite matrices
    qint64 notConvergedCount = 0;
    qint64 nonFiniteCount = 0;
    QVector<qint64> flaggedIndices;  // the first 1000 matrices not converged or with NaN/Inf input
    QVector<int> flaggedStatus;      // their SvdStatus

    // Detail of the first detailCount matrices.
    qint64 detailCount = 0;
    QVector<double> sigma;             // detailCount * n, descending per matrix
    QVector<int> status;               // SvdStatus per matrix
    QVector<int> sweeps;
    QVector<double> offOrthogonality;  // NaN where not reported
    // CPU reference only (the GPU kernels keep only the last sweep): per matrix, the largest
    // off-orthogonality of each sweep. Empty for the GPU backends.
    QVector<QVector<double>> sweepHistory;

    // The singular values of matrix `index` (< detailCount), else empty.
    QVector<double> singularValues(qint64 index) const;
    QString summary() const;  // one line: shape, backend, time, accuracy, flags
};

// Called from the worker with the phase and the fraction done in it (0..1, or -1 when unknown).
using SvdProgress = std::function<void(const QString& phase, double fraction)>;

// Throws spyglass errors (InputError for m < n, n > 64 or a bad file, BackendUnavailableError,
// CancelledError ...).
BatchedSvdResult runBatchedSvd(const BatchedSvdRequest& request, const std::atomic<bool>* cancel = nullptr,
                               const SvdProgress& progress = {});

// progress(percent, phase): the phase in words, percent -1 while it gives no measure (one GPU call).
using BatchedSvdJob = ComputeJob<BatchedSvdRequest, BatchedSvdResult>;
template <> BatchedSvdJob::ComputeJob(QObject* parent);  // batchedsvdjob.cpp: the run function and the "doing" text

// The same batch on several backends, one after the other (the panel's comparison).
using BatchedSvdSweep = BackendSweepResult<BatchedSvdResult>;
using BatchedSvdSweepJob = ComputeJob<BackendSweepRequest<BatchedSvdRequest>, BatchedSvdSweep>;
template <> BatchedSvdSweepJob::ComputeJob(QObject* parent);

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::app::BatchedSvdResult)
Q_DECLARE_METATYPE(spyglass::app::BatchedSvdSweep)
