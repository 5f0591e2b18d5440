// Batch-inverse compute service: request -> batch (generated or read) -> invertBatched -> residuals.
#include "batchedinversejob.h"

#include "timingtext.h"

#include "stackedmatrices.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"


#include <algorithm>
#include <cmath>
#include <complex>
#include <type_traits>

namespace spyglass::app {

namespace {

template <typename T> constexpr bool isComplexType = !std::is_floating_point_v<T>;

// Stacked matrices from a Matrix Market array (or coordinate) file: rows = batch * n, cols = n.
template <typename T> std::vector<T> readStacked(const QString& path, int& n, qint64& batch) {
    const Matrix file = readMatrixMarket(path.toStdString());
    const std::string where = path.toStdString();
    if (file.cols < 1 || file.rows < file.cols || file.rows % file.cols != 0)
        throw InputError(where + ": stacked matrices need rows = B*N and cols = N (got " + std::to_string(file.rows) + " x " +
                         std::to_string(file.cols) + ")");
    if (file.isComplex() && !isComplexType<T>)
        throw InputError(where + ": the file holds complex values; choose the type c64 or c128");
    if (file.symmetry != Symmetry::General && file.rows != file.cols)
        throw InputError(where + ": a symmetric file can hold only one matrix (rows = cols)");
    // A coordinate file of a few bytes can declare any size; densified it must stay within the limit the
    // reader puts on a declared array (before allocating, not after the pages are touched).
    const Count denseValues = static_cast<Count>(file.rows) * file.cols;
    if (denseValues > ReadOptions().maxEntries)
        throw InputError(where + ": " + std::to_string(file.rows / file.cols) + " stacked matrices of order " +
                         std::to_string(file.cols) + " hold " + std::to_string(denseValues) +
                         " values, more than the limit of " + std::to_string(ReadOptions().maxEntries));
    n = file.cols;
    batch = file.rows / file.cols;
    const std::size_t size = static_cast<std::size_t>(n) * n;
    std::vector<T> values(size * batch, T(0));
    auto put = [&](Index r, Index c, double re, double im) {
        const std::size_t b = static_cast<std::size_t>(r / n), i = static_cast<std::size_t>(r % n);
        T& slot = values[b * size + static_cast<std::size_t>(c) * n + i];
        if constexpr (isComplexType<T>) slot = T(re, im);
        else slot = T(re);
    };
    for (Count e = 0; e < file.stored(); ++e) {
        const Index r = file.rowIndex[e], c = file.colIndex[e];
        const double re = file.isPattern() ? 1.0 : file.real[e];
        const double im = file.isComplex() ? file.imag[e] : 0.0;
        put(r, c, re, im);
        if (r != c) {
            if (file.symmetry == Symmetry::Symmetric) put(c, r, re, im);
            else if (file.symmetry == Symmetry::SkewSymmetric) put(c, r, -re, -im);
            else if (file.symmetry == Symmetry::Hermitian) put(c, r, re, -im);
        }
    }
    return values;
}

template <typename T> BatchedInverseResult runTyped(const BatchedInverseRequest& request, const std::atomic<bool>* cancel) {
    if (!request.share.whole() && !request.inputFile.isEmpty()) throw InputError("batch inverse: a share of the batch is generated, not read");
    BatchedInverseResult result;
    int n = request.n;
    qint64 batch = request.batch;
    std::vector<T> input;
    if (!request.inputFile.isEmpty()) {
        input = readStacked<T>(request.inputFile, n, batch);
        result.source = request.inputFile;
    } else {
        if (n < 1) throw InputError("batch inverse: the order must be at least 1");
        if (batch < 0) throw InputError("batch inverse: the batch size must not be negative");
        BatchSpec spec;
        // A rank's share: only its matrices, as the whole batch has them (the generator draws and drops
        // the ones before it).
        if (!request.share.whole()) {
            if (!request.outputFile.isEmpty()) throw InputError("batch inverse: a share of the batch writes no file");
            if (request.share.begin < 0 || request.share.begin > request.share.end || request.share.end > batch)
                throw InputError("batch inverse: the share [" + std::to_string(request.share.begin) + ", " +
                                 std::to_string(request.share.end) + ") is not within the batch of " + std::to_string(batch));
            spec.first = request.share.begin;
            batch = request.share.count();
        }
        spec.kind = request.kind;
        spec.n = n;
        spec.count = batch;
        spec.seed = request.seed;
        spec.snrDb = request.snrDb;
        spec.condition = request.condition;
        input = generateBatch<T>(spec);
        result.source = QString::fromLatin1(toString(request.kind));
        if (request.kind == BatchKind::LteChannel) result.source += QString(" (SNR %1 dB)").arg(request.snrDb);
        if (request.kind == BatchKind::IllConditioned) result.source += QString(" (cond %1)").arg(request.condition, 0, 'g', 3);
    }
    // Where the matrices stand in the batch: a share's indices and residual sample are the batch's.
    const qint64 first = request.share.whole() ? 0 : request.share.begin;
    const qint64 whole = request.share.whole() ? batch : request.batch;
    if (cancel && cancel->load()) throw CancelledError();

    std::vector<T> output(input.size());
    InverseOptions options;
    options.backend = request.backend;
    options.kernel = request.kernel;
    options.cancel = cancel;
    options.devices = request.devices;
    options.streamChunk = request.streamChunk;
    options.timing = request.timing;
    const InverseRunInfo run = invertBatched(input.data(), output.data(), n, batch, options);
    if (cancel && cancel->load()) throw CancelledError();

    result.n = n;
    result.batch = batch;
    result.precision = QString::fromLatin1(toString(request.precision));
    result.backend = QString::fromLatin1(toString(request.backend));
    result.kernel = QString::fromLatin1(toString(request.backend == InverseBackend::Reference ? InverseKernel::Auto : run.kernelUsed));
    if (request.backend == InverseBackend::Reference) result.kernel = QStringLiteral("gauss-jordan full pivot");
    result.device = QString::fromStdString(run.device);
    result.takeTimes(run);
    result.bytesMoved = 2.0 * double(batch) * n * n * sizeof(T);
    for (qint64 b = 0; b < batch; ++b) {
        const int code = run.info[static_cast<std::size_t>(b)];
        if (code == 0) continue;
        if (code == kInverseNonFiniteInput) ++result.nonFiniteCount;
        else ++result.singularCount;
        if (result.failedIndices.size() < 1000) {
            result.failedIndices.push_back(first + b);
            result.failedCodes.push_back(code);
        }
    }

    // Residuals on every matrix, or on an even sample of a very large batch; the sample is the whole
    // batch's, and a share measures the sampled matrices that are its own.
    const qint64 samples = std::min<qint64>(whole, std::max<qint64>(1, request.maxResidualSamples));
    const std::size_t size = static_cast<std::size_t>(n) * n;
    result.residuals.reserve(static_cast<int>(std::min<qint64>(samples, 1 << 24)));
    qint64 sampledHere = 0;
    for (qint64 s = 0; s < samples && whole > 0; ++s) {
        if (cancel && (s & 1023) == 0 && cancel->load()) throw CancelledError();
        const qint64 b = (samples == whole ? s : s * whole / samples) - first;
        if (b < 0 || b >= batch) continue;
        ++sampledHere;
        const int code = run.info[static_cast<std::size_t>(b)];
        if (code != 0) continue;
        const double r = inverseResiduals(input.data() + b * size, output.data() + b * size, &code, n, 1).front();
        result.residuals.push_back(r);
        result.maxResidual = std::max(result.maxResidual, r);
    }
    result.residualSampled = sampledHere;
    if (!request.outputFile.isEmpty())
        writeStackedMatrices(request.outputFile, output, n, n, batch,
                             "spyglass-cli invert: " + std::to_string(batch) + " stacked inverses of order " +
                                 std::to_string(n) + "; failed matrices are NaN");
    return result;
}

} // namespace

QString BatchedInverseResult::summary() const {
    QString line = summaryHead(QStringLiteral("%1x%1").arg(n), kernel) + QString("; max residual %1").arg(maxResidual, 0, 'g', 3);
    if (residualSampled < batch) line += QString(" (sample of %1)").arg(residualSampled);
    line += QString("; %1 singular, %2 non-finite").arg(singularCount).arg(nonFiniteCount);
    return line + summaryTail();
}

BatchedInverseResult runBatchedInverse(const BatchedInverseRequest& request, const std::atomic<bool>* cancel) {
    return withElementType(request.precision, [&](auto zero) { return runTyped<decltype(zero)>(request, cancel); });
}

namespace {
QString doing(const BatchedInverseRequest& request) {
    return QStringLiteral("inverting %1 matrices of %2 x %2").arg(request.batch).arg(request.n);
}
} // namespace

template <>
BatchedInverseJob::ComputeJob(QObject* parent) : ComputeJob(parent, runBatchedInverse, doing) {}

template <>
BatchedInverseSweepJob::ComputeJob(QObject* parent)
    : ComputeJob(parent,
                 // One call per backend: the phase says which one runs, without a measure.
                 sweepRun<BatchedInverseRequest, BatchedInverseResult>(
                     [](const BatchedInverseRequest& request, const std::atomic<bool>* flag, const JobProgress& step) {
                         step(-1, QStringLiteral("inverting"));
                         return runBatchedInverse(request, flag);
                     }),
                 sweepDoing<BatchedInverseRequest>(doing, QStringLiteral("inverting nothing"))) {}

} // namespace spyglass::app
