#pragma once
// The compute service behind the batch-inverse panel (method E): builds or reads a batch, inverts it
// on the chosen backend off the GUI thread, measures the residuals, and reports a plain result.
// runBatchedInverse() is the same work synchronously (the command-line tool uses it).
#include "backendsweep.h"
#include "batchrunfigures.h"
#include "batchprecision.h"
#include "batchshare.h"
#include "computejob.h"

#include "spyglass/batchedinverse.h"
#include "spyglass/batchedinverse_generators.h"
#include "spyglass/measurement.h"

#include <QMetaType>
#include <QObject>
#include <QString>
#include <QVector>

#include <vector>

#include <atomic>

namespace spyglass::app {

using InversePrecision = BatchPrecision;  // batchprecision.h

struct BatchedInverseRequest {
    int n = 4;
    qint64 batch = 1200;
    InversePrecision precision = InversePrecision::F32;
    BatchKind kind = BatchKind::Random;
    double snrDb = 10.0;      // LteChannel
    double condition = 1e4;   // IllConditioned
    quint64 seed = 1;
    // When set, the matrices come from this Matrix Market array file instead of the generator:
    // rows = batch * n stacked matrices, cols = n (n and batch are taken from the file).
    QString inputFile;
    // When set, the inverses are written there in the same stacked form (atomically).
    QString outputFile;
    InverseBackend backend = InverseBackend::Reference;
    InverseKernel kernel = InverseKernel::Auto;
    // Cuda backend: the GPUs to split the batch over, streamed in chunks (InverseOptions::devices).
    std::vector<int> devices;
    qint64 streamChunk = 0;
    // One process per GPU (batchedinverserank.h): the matrices of the generated batch this process
    // inverts. Only they are kept (BatchSpec::first: the ones before are drawn and dropped, so they
    // equal the whole batch's). The result then covers the share: its batch and counts, the residuals of the batch's
    // samples that fall in it, failed indices as the batch's. Not with inputFile or outputFile.
    BatchShare share;
    // Residuals are computed on the CPU at O(n^3) each: past this many matrices, on an even sample.
    qint64 maxResidualSamples = 200000;
    TimingOptions timing;  // GPU backends: how the kernel is measured (measurement.h)
};

// bytesMoved: the matrices read and the inverses written.
struct BatchedInverseResult : BatchRunFigures {
    int n = 0;
    QString kernel;
    double maxResidual = 0;   // ||A X - I||_1 / (||A||_1 ||X||_1 eps), max over the sampled good matrices
    QVector<double> residuals;  // per sampled good matrix, for the histogram
    qint64 residualSampled = 0;
    qint64 singularCount = 0;   // info > 0
    qint64 nonFiniteCount = 0;  // info == kInverseNonFiniteInput
    QVector<qint64> failedIndices;  // the first 1000 failed matrices
    QVector<int> failedCodes;       // their info codes
    QString summary() const;        // one line: time, residual, singular count
};

// Throws spyglass errors (InputError, BackendUnavailableError, CancelledError ...).
BatchedInverseResult runBatchedInverse(const BatchedInverseRequest& request, const std::atomic<bool>* cancel = nullptr);

// Jobs (batchedinversejob.cpp has the run functions and the "doing" texts): one backend, and the
// same batch on several backends one after the other (the panel's comparison).
using BatchedInverseJob = ComputeJob<BatchedInverseRequest, BatchedInverseResult>;
using BatchedInverseSweep = BackendSweepResult<BatchedInverseResult>;
using BatchedInverseSweepJob = ComputeJob<BackendSweepRequest<BatchedInverseRequest>, BatchedInverseSweep>;
template <> BatchedInverseJob::ComputeJob(QObject* parent);
template <> BatchedInverseSweepJob::ComputeJob(QObject* parent);

} // namespace spyglass::app

Q_DECLARE_METATYPE(spyglass::app::BatchedInverseResult)
Q_DECLARE_METATYPE(spyglass::app::BatchedInverseSweep)
