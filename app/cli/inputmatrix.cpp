#include "inputmatrix.h"

#include "spyglass/matrixfile.h"

#include <QFile>

namespace spyglass::cli {

namespace {
// A process-wide option of the command-line tool, like --gpu-memory-cap: main sets it before dispatch.
unsigned g_readerThreads = 0;
} // namespace

void setReaderThreads(unsigned threads) { g_readerThreads = threads; }
unsigned readerThreads() { return g_readerThreads; }

namespace {
Matrix readAsStored(const std::string& path) {
    ReadOptions options;
    options.threads = g_readerThreads;
    return readMatrixFile(path, options);
}
} // namespace

Matrix readInputMatrix(const std::string& path, DistinctEntriesReport* report) {
    Matrix matrix = readAsStored(path);
    const DistinctEntriesReport removed = makeEntriesDistinct(matrix, g_readerThreads);
    if (report) *report = removed;
    return matrix;
}

Matrix readInputMatrix(const QString& file, DistinctEntriesReport* report) {
    return readInputMatrix(QFile::encodeName(file).toStdString(), report);
}

Matrix readInputMatrixAsStored(const QString& file) { return readAsStored(QFile::encodeName(file).toStdString()); }

} // namespace spyglass::cli
