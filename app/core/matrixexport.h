#pragma once
// A matrix written as a file for the tools users have (Matrix Market, plain or gzip; MATLAB .mat;
// SciPy .npz; NumPy .npy; chosen by the name as writeMatrixFile chooses), through the checked writer:
// the file is read back and must hold the same entries (symmetry expanded, duplicates summed, zeros
// left out, values exact) before it replaces the target. The GUI's File > Export Matrix As, the hybrid
// residual and `spyglass-cli convert` / `decode` all write matrices here.
#include "spyglass/matrix.h"
#include "spyglass/matrixmarket.h"

#include <QString>

#include <atomic>
#include <string>

namespace spyglass::app {

// Throws InputError when the format cannot hold the matrix (a complex one as .mat), Error when the
// file cannot be written or does not read back (the target is untouched then), CancelledError.
void exportMatrixFile(const Matrix& matrix, const QString& path, const WriteOptions& options = {},
                      const std::string& matVariable = "A", const std::atomic<bool>* cancel = nullptr);

// What differs between the entries of two matrices, as the export compares them; empty when none.
std::string matrixEntriesDifference(const Matrix& written, const Matrix& readBack);

} // namespace spyglass::app
