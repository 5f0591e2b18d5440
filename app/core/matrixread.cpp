#include "matrixread.h"

#include "checkedwrite.h"

#include "spyglass/error.h"
#include "spyglass/hostmemory.h"
#include "spyglass/matrixfile.h"

#include <algorithm>
#include <string>

namespace spyglass::app {

namespace {

ReadOptions readOptionsOf(const MatrixReadOptions& options) {
    ReadOptions read;
    read.threads = options.threads;
    read.cancel = options.cancel;
    read.progress = options.progress;
    return read;
}

} // namespace

Matrix readMatrixAsStored(const QString& path, const MatrixReadOptions& options) {
    Matrix matrix = readMatrixFile(localPath(path), readOptionsOf(options));
    if (options.cancel && *options.cancel) throw CancelledError();
    return matrix;
}

Matrix readDistinctMatrix(const QString& path, DistinctEntriesReport* report, const MatrixReadOptions& options) {
    Matrix matrix = readDistinctMatrixFile(localPath(path), readOptionsOf(options), report);
    if (options.cancel && *options.cancel) throw CancelledError();
    return matrix;
}

Matrix readContainerFile(const QString& path, ContainerEncoding* encoding) { return readContainerMatrix(localPath(path), encoding); }

MatrixStats matrixStatistics(const Matrix& matrix, const DistinctEntriesReport& distinct, const QString& source, unsigned threadLimit) {
    // computeStats keeps a byte of counters per row and a bit per column and per diagonal (per thread).
    requireHostMemory(std::uint64_t(matrix.rows) + (2 * std::uint64_t(matrix.rows) + 2 * std::uint64_t(matrix.cols)) / 8,
                      localPath(source) + ": statistics of a " + std::to_string(matrix.rows) + " x " +
                          std::to_string(matrix.cols) + " matrix");
    MatrixStats stats = computeStats(matrix, threadLimit > 0 ? std::min(threadLimit, automaticStatsThreads(matrix)) : 0);
    noteDistinctEntries(stats, distinct);
    return stats;
}

} // namespace spyglass::app
