#include "matrixexport.h"

#include "checkedwrite.h"

#include "spyglass/convert.h"
#include "spyglass/matrixfile.h"

#include <cmath>
#include <complex>

namespace spyglass::app {

namespace {

bool sameValue(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }
bool sameValue(const std::complex<double>& a, const std::complex<double>& b) {
    return sameValue(a.real(), b.real()) && sameValue(a.imag(), b.imag());
}

// The entries every format keeps: a dense .npy stores no explicit zeros, the sparse formats do, so
// both sides are compared without them.
template <typename T>
CsrMatrix<T> nonzeros(const Matrix& matrix) {
    const CsrMatrix<T> all = toCsr<T>(matrix);
    CsrMatrix<T> kept;
    kept.rows = all.rows;
    kept.cols = all.cols;
    kept.rowPtr.assign(1, 0);
    for (Index r = 0; r < all.rows; ++r) {
        for (Count k = all.rowPtr[r]; k < all.rowPtr[r + 1]; ++k) {
            if (all.values[k] == T(0)) continue;
            kept.colIndex.push_back(all.colIndex[k]);
            kept.values.push_back(all.values[k]);
        }
        kept.rowPtr.push_back(static_cast<Count>(kept.colIndex.size()));
    }
    return kept;
}

template <typename T>
std::string difference(const Matrix& written, const Matrix& readBack) {
    const CsrMatrix<T> a = nonzeros<T>(written), b = nonzeros<T>(readBack);
    if (a.rows != b.rows || a.cols != b.cols)
        return std::to_string(b.rows) + " x " + std::to_string(b.cols) + " instead of " + std::to_string(a.rows) + " x " +
               std::to_string(a.cols);
    if (a.rowPtr != b.rowPtr || a.colIndex != b.colIndex) return "other entry positions";
    for (std::size_t k = 0; k < a.values.size(); ++k)
        if (!sameValue(a.values[k], b.values[k])) return "entry " + std::to_string(k) + " has another value";
    return {};
}

} // namespace

std::string matrixEntriesDifference(const Matrix& written, const Matrix& readBack) {
    if (written.isComplex() || readBack.isComplex()) return difference<std::complex<double>>(written, readBack);
    return difference<double>(written, readBack);
}

void exportMatrixFile(const Matrix& matrix, const QString& path, const WriteOptions& options, const std::string& matVariable,
                      const std::atomic<bool>* cancel) {
    const bool mat = matrixWriteFormatFor(localPath(path)) == MatrixWriteFormat::Mat;
    writeChecked(
        path, "matrix file",
        [&](const std::string& temp) { writeMatrixFile(temp, matrix, options, matVariable); },
        [&](const std::string& temp) {
            ReadOptions read;
            read.cancel = cancel;
            return matrixEntriesDifference(matrix, readMatrixFile(mat ? temp + ":" + matVariable : temp, read));
        },
        cancel);
}

} // namespace spyglass::app
