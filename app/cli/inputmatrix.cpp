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

Matrix readInputMatrix(const std::string& path) {
    ReadOptions options;
    options.threads = g_readerThreads;
    return readMatrixFile(path, options);
}

Matrix readInputMatrix(const QString& file) { return readInputMatrix(QFile::encodeName(file).toStdString()); }

} // namespace spyglass::cli
