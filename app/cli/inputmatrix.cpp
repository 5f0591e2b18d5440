#include "inputmatrix.h"

namespace spyglass::cli {

namespace {
// A process-wide option of the command-line tool, like --gpu-memory-cap: main sets it before dispatch.
unsigned g_readerThreads = 0;

app::MatrixReadOptions readOptions() {
    app::MatrixReadOptions options;
    options.threads = g_readerThreads;
    return options;
}
} // namespace

void setReaderThreads(unsigned threads) { g_readerThreads = threads; }
unsigned readerThreads() { return g_readerThreads; }

Matrix readInputMatrix(const QString& file, DistinctEntriesReport* report) { return app::readDistinctMatrix(file, report, readOptions()); }

Matrix readInputMatrixAsStored(const QString& file) { return app::readMatrixAsStored(file, readOptions()); }

} // namespace spyglass::cli
