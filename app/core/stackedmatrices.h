#pragma once
// A batch of small matrices in one Matrix Market file: `count` matrices of rowsPerMatrix x cols
// stacked one below the other (file rows = count * rowsPerMatrix, file cols = cols), the form
// `spyglass-cli invert --in/--out` uses. Returned column-major, one matrix after the other, the
// layout of the batched kernels (element (i,j) of matrix b at [b*rows*cols + j*rows + i]).
#include "spyglass/matrixmarket.h"

#include <QString>

#include <string>
#include <vector>

namespace spyglass::app {

// T is float, double, std::complex<float> or std::complex<double>. Throws ParseError for a
// malformed file and InputError (naming the file) when the rows are not a multiple of
// rowsPerMatrix, the file is empty, complex values would go into a real T, or the dense batch would
// exceed options.maxEntries; CancelledError through options.cancel.
template <typename T>
std::vector<T> readStackedMatrices(const QString& path, int rowsPerMatrix, int& cols, qint64& count,
                                   const ReadOptions& options = {});

// The inverse of readStackedMatrices: `count` column-major rowsPerMatrix x cols matrices written as one
// Matrix Market array file of count * rowsPerMatrix rows, atomically (the target is the old file or
// the whole new one). `comment` goes into the header. T as above.
template <typename T>
void writeStackedMatrices(const QString& path, const std::vector<T>& values, int rowsPerMatrix, int cols, qint64 count,
                          const std::string& comment);

} // namespace spyglass::app
