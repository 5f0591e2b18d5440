#pragma once
// The x of an SpMV read from a text file: exactly `count` whitespace-separated numbers, one per
// column of the matrix. Shared by the format comparison and `spyglass-cli spmv --x FILE`, so that
// both refuse a short, long or unreadable file with the same words. Throws InputError; `who` names
// the caller in the "cannot open" message.
#include "spyglass/matrix.h"

#include <QString>

#include <complex>
#include <string>
#include <vector>

namespace spyglass::app {

std::vector<double> readVectorFile(const QString& file, Index count, const std::string& who);
// A complex x: `count` pairs "real imaginary" (as a Matrix Market complex array lists them), the
// same refusals.
std::vector<std::complex<double>> readComplexVectorFile(const QString& file, Index count, const std::string& who);

} // namespace spyglass::app
