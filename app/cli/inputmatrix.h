#pragma once
// How every spyglass-cli command reads its input matrix: Matrix Market (plain or gzip) or a Spyglass
// container (.spy, any encoding), told apart by content (spyglass/matrixfile.h), parsed on the number
// of threads the global option --threads N asks for (default: every hardware thread).
#include "spyglass/matrix.h"

#include <QString>

#include <string>

namespace spyglass::cli {

// 0 = every hardware thread. Set once by main from --threads, before any command runs.
void setReaderThreads(unsigned threads);
unsigned readerThreads();

Matrix readInputMatrix(const std::string& path);
Matrix readInputMatrix(const QString& file);  // encoded with QFile::encodeName

} // namespace spyglass::cli
