#pragma once
// Reading a matrix file, the one way the window (MatrixLoader) and spyglass-cli do it: any kind
// Spyglass reads (Matrix Market plain or gzip, a .spy export, .npz/.npy, Harwell-Boeing, .mat), told
// apart by content, then one entry per position (duplicates summed, a dense array's zeros dropped) as
// the statistics and every format see the matrix; and its statistics, noting what was removed.
#include "spyglass/container.h"
#include "spyglass/distinctentries.h"
#include "spyglass/matrix.h"
#include "spyglass/stats.h"

#include <QString>

#include <atomic>
#include <functional>

namespace spyglass::app {

struct MatrixReadOptions {
    unsigned threads = 0;                     // parsing threads; 0 = every hardware thread
    const std::atomic<bool>* cancel = nullptr;  // polled while reading (CancelledError)
    std::function<void(double)> progress;     // 0..1 of the file read
};

// The entries exactly as the file lists them (convert keeps a dense array dense).
Matrix readMatrixAsStored(const QString& path, const MatrixReadOptions& options = {});
// One entry per position; `report` (optional) says what was removed.
Matrix readDistinctMatrix(const QString& path, DistinctEntriesReport* report = nullptr, const MatrixReadOptions& options = {});
// A Spyglass container of any encoding (hybrid, segmented DIA, bit-flag), checked whole (framing,
// checksum, every section) before it is decoded; `encoding` (optional) says which it was.
Matrix readContainerFile(const QString& path, ContainerEncoding* encoding = nullptr);

// The statistics of a matrix read by readDistinctMatrix, with `distinct` noted. Refuses (InputError
// naming `source`) when the host cannot hold the counters; threadLimit 0: as many threads as pay.
MatrixStats matrixStatistics(const Matrix& matrix, const DistinctEntriesReport& distinct, const QString& source,
                             unsigned threadLimit = 0);

} // namespace spyglass::app
