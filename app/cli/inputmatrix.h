#pragma once
// How every spyglass-cli command reads its input matrix: app::readDistinctMatrix, the window's own
// path (any kind Spyglass reads, told apart by content), parsed on the number of threads the global
// option --threads N asks for (default: every hardware thread).
#include "core/matrixread.h"

#include <QString>

namespace spyglass::cli {

// 0 = every hardware thread. Set once by main from --threads, before any command runs.
void setReaderThreads(unsigned threads);
unsigned readerThreads();

// One entry per position: duplicates summed, a dense array's zeros dropped, as the statistics count
// them; `report` (optional) says what was removed.
Matrix readInputMatrix(const QString& file, DistinctEntriesReport* report = nullptr);
// The entries exactly as the file lists them (convert keeps a dense array dense).
Matrix readInputMatrixAsStored(const QString& file);

} // namespace spyglass::cli
