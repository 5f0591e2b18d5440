#pragma once
// How every spyglass-cli command reads its input matrix: Matrix Market (plain or gzip) or a Spyglass
// container (.spy, any encoding), told apart by content (spyglass/matrixfile.h), parsed on the number
// of threads the global option --threads N asks for (default: every hardware thread).
#include "spyglass/distinctentries.h"
#include "spyglass/matrix.h"

#include <QString>

#include <string>

namespace spyglass::cli {

// 0 = every hardware thread. Set once by main from --threads, before any command runs.
void setReaderThreads(unsigned threads);
unsigned readerThreads();

// One entry per position (spyglass/distinctentries.h): duplicates summed, a dense array's zeros
// dropped, as the statistics count them; `report` (optional) says what was removed.
Matrix readInputMatrix(const std::string& path, DistinctEntriesReport* report = nullptr);
Matrix readInputMatrix(const QString& file, DistinctEntriesReport* report = nullptr);  // QFile::encodeName
// The entries exactly as the file lists them (convert keeps a dense array dense).
Matrix readInputMatrixAsStored(const QString& file);

} // namespace spyglass::cli
