// Stacked Matrix Market batches -> the column-major batch layout of the batched kernels.
#include "stackedmatrices.h"

#include "spyglass/error.h"

#include <complex>
#include <string>
#include <type_traits>

namespace spyglass::app {

template <typename T>
std::vector<T> readStackedMatrices(const QString& path, int rowsPerMatrix, int& cols, qint64& count,
                                   const ReadOptions& options) {
    constexpr bool complexT = !std::is_floating_point_v<T>;
    const std::string where = path.toStdString();
    if (rowsPerMatrix < 1) throw InputError(where + ": the rows per matrix must be at least 1");
    const Matrix file = readMatrixMarket(where, options);
    const std::string shape = std::to_string(file.rows) + " x " + std::to_string(file.cols);
    if (file.rows < 1 || file.cols < 1) throw InputError(where + ": the file holds no matrix (" + shape + ")");
    if (file.rows % rowsPerMatrix != 0)
        throw InputError(where + ": " + shape + " is not a stack of matrices with " + std::to_string(rowsPerMatrix) +
                         " rows each (the file's rows must be a multiple of " + std::to_string(rowsPerMatrix) + ")");
    if (file.isComplex() && !complexT)
        throw InputError(where + ": the file holds complex values; choose the type c64 or c128");
    if (file.symmetry != Symmetry::General && file.rows != file.cols)
        throw InputError(where + ": a " + toString(file.symmetry) + " file can hold only one square matrix (got " + shape + ")");
    // A coordinate file of a few bytes can declare any size; densified it must stay within the limit the
    // reader puts on a declared array, checked before allocating.
    const Count dense = static_cast<Count>(file.rows) * file.cols;
    if (dense > options.maxEntries)
        throw InputError(where + ": " + shape + " holds " + std::to_string(dense) + " values once dense, more than the limit of " +
                         std::to_string(options.maxEntries));
    cols = file.cols;
    count = file.rows / rowsPerMatrix;
    const std::size_t size = static_cast<std::size_t>(rowsPerMatrix) * cols;
    std::vector<T> values(size * static_cast<std::size_t>(count), T(0));
    auto put = [&](Index r, Index c, double re, double im) {
        const std::size_t b = static_cast<std::size_t>(r / rowsPerMatrix), i = static_cast<std::size_t>(r % rowsPerMatrix);
        T& slot = values[b * size + static_cast<std::size_t>(c) * rowsPerMatrix + i];
        if constexpr (complexT) slot = T(static_cast<typename T::value_type>(re), static_cast<typename T::value_type>(im));
        else slot = static_cast<T>(re);
    };
    for (Count e = 0; e < file.stored(); ++e) {
        const Index r = file.rowIndex[e], c = file.colIndex[e];
        const double re = file.isPattern() ? 1.0 : file.real[e];
        const double im = file.isComplex() ? file.imag[e] : 0.0;
        put(r, c, re, im);
        if (r == c) continue;
        if (file.symmetry == Symmetry::Symmetric) put(c, r, re, im);
        else if (file.symmetry == Symmetry::SkewSymmetric) put(c, r, -re, -im);
        else if (file.symmetry == Symmetry::Hermitian) put(c, r, re, -im);
    }
    return values;
}

template <typename T>
void writeStackedMatrices(const QString& path, const std::vector<T>& values, int rowsPerMatrix, int cols, qint64 count,
                          const std::string& comment) {
    constexpr bool complexT = !std::is_floating_point_v<T>;
    const std::size_t size = static_cast<std::size_t>(rowsPerMatrix) * cols, entries = size * count;
    if (rowsPerMatrix < 1 || cols < 0 || count < 0 || values.size() != entries)
        throw InputError(path.toStdString() + ": " + std::to_string(values.size()) + " values are not " +
                         std::to_string(count) + " matrices of " + std::to_string(rowsPerMatrix) + " x " + std::to_string(cols));
    Matrix file;
    file.layout = Layout::Array;
    file.field = complexT ? Field::Complex : Field::Real;
    file.rows = static_cast<Index>(count * rowsPerMatrix);
    file.cols = cols;
    if (!comment.empty()) file.comments.push_back(" " + comment);
    file.rowIndex.reserve(entries);
    file.colIndex.reserve(entries);
    file.real.reserve(entries);
    if (complexT) file.imag.reserve(entries);
    for (Index c = 0; c < cols; ++c)  // array files are column-major over the whole stack
        for (Index r = 0; r < file.rows; ++r) {
            const T& x = values[static_cast<std::size_t>(r / rowsPerMatrix) * size + static_cast<std::size_t>(c) * rowsPerMatrix +
                                static_cast<std::size_t>(r % rowsPerMatrix)];
            file.rowIndex.push_back(r);
            file.colIndex.push_back(c);
            if constexpr (complexT) {
                file.real.push_back(static_cast<double>(x.real()));
                file.imag.push_back(static_cast<double>(x.imag()));
            } else {
                file.real.push_back(static_cast<double>(x));
            }
        }
    writeMatrixMarket(path.toStdString(), file);
}

#define SPYGLASS_INSTANTIATE_STACKED(T) \
    template std::vector<T> readStackedMatrices<T>(const QString&, int, int&, qint64&, const ReadOptions&); \
    template void writeStackedMatrices<T>(const QString&, const std::vector<T>&, int, int, qint64, const std::string&);
SPYGLASS_INSTANTIATE_STACKED(float)
SPYGLASS_INSTANTIATE_STACKED(double)
SPYGLASS_INSTANTIATE_STACKED(std::complex<float>)
SPYGLASS_INSTANTIATE_STACKED(std::complex<double>)

} // namespace spyglass::app
