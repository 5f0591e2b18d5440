// CPU SpMV for CSR and the diagonal formats: the reference backend and the oracle of the GPU tests.
// Sums run in T in the same order as the kernels (ascending diagonal or column), with no tricks.
#include "spyglass/segdia_spmv.h"

#include "spyglass/error.h"

#include <string>

namespace spyglass {

namespace {
void checkVector(const char* what, Index cols, std::size_t xSize) {
    if (xSize != static_cast<std::size_t>(cols))
        throw InputError(std::string(what) + ": x has " + std::to_string(xSize) + " entries but the matrix has " +
                         std::to_string(cols) + " columns");
}
} // namespace

template <typename T>
std::vector<T> spmvReference(const CsrMatrix<T>& a, const std::vector<T>& x) {
    checkVector("CSR SpMV", a.cols, x.size());
    if (a.rowPtr.size() != static_cast<std::size_t>(a.rows) + 1)
        throw InputError("CSR SpMV: rowPtr has " + std::to_string(a.rowPtr.size()) + " entries, expected rows + 1 = " +
                         std::to_string(Count(a.rows) + 1));
    std::vector<T> y(static_cast<std::size_t>(a.rows), T(0));
    for (Index i = 0; i < a.rows; ++i) {
        T sum(0);
        for (Count k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) sum += a.values[k] * x[a.colIndex[k]];
        y[i] = sum;
    }
    return y;
}

template <typename T>
std::vector<T> spmvReference(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x) {
    checkVector("segmented DIA SpMV", a.cols, x.size());
    std::vector<T> y(static_cast<std::size_t>(a.rows), T(0));
    // Walk the merged blocks as the GPU does, so a block that lost a segment leaves a row unwritten.
    std::vector<char> written(y.size(), 0);
    for (Index b = 0; b < a.blocks(); ++b) {
        for (Index k = a.blockStart[b]; k < a.blockStart[b + 1]; ++k) {
            const Index s = a.blockSegments[k];
            const Index rowsHere = a.segmentRows(s);
            const Index diagonals = a.segmentDiagonals(s);
            const Index* offsets = a.offsets.data() + a.segmentOffsetStart[s];
            const T* values = a.values.data() + a.segmentValueStart[s];
            const bool remainder = a.segmentRemainderCount(s) > 0;
            const Index* rowStart = remainder ? a.remainderRowStart.data() + a.segmentRemainderRowStart[s] : nullptr;
            const Index* columns = a.remainderColumns.data() + a.segmentRemainderStart[s];
            const T* remainderValues = a.remainderValues.data() + a.segmentRemainderStart[s];
            for (Index i = 0; i < rowsHere; ++i) {
                const Index row = a.segmentFirstRow[s] + i;
                T sum(0);
                for (Index d = 0; d < diagonals; ++d) {
                    const Index col = row + offsets[d];
                    if (col >= 0 && col < a.cols) sum += values[Count(d) * rowsHere + i] * x[col];
                }
                // The remainder's row is summed on its own and added, as the kernel does.
                if (remainder) {
                    T rest(0);
                    for (Index k = rowStart[i]; k < rowStart[i + 1]; ++k) rest += remainderValues[k] * x[columns[k]];
                    sum += rest;
                }
                y[row] = sum;
                written[row] = 1;
            }
        }
    }
    for (std::size_t i = 0; i < written.size(); ++i)
        if (!written[i]) throw InputError("segmented DIA SpMV: row " + std::to_string(i) + " belongs to no block");
    return y;
}

template <typename T>
std::vector<T> spmvReference(const DiaMatrix<T>& a, const std::vector<T>& x) {
    checkVector("DIA SpMV", a.cols, x.size());
    std::vector<T> y(static_cast<std::size_t>(a.rows), T(0));
    for (Index i = 0; i < a.rows; ++i) {
        T sum(0);
        for (std::size_t d = 0; d < a.offsets.size(); ++d) {
            const Index col = i + a.offsets[d];
            if (col >= 0 && col < a.cols) sum += a.values[Count(d) * a.rows + i] * x[col];
        }
        y[i] = sum;
    }
    return y;
}

template std::vector<float> spmvReference(const CsrMatrix<float>&, const std::vector<float>&);
template std::vector<double> spmvReference(const CsrMatrix<double>&, const std::vector<double>&);
template std::vector<float> spmvReference(const SegmentedDiaMatrix<float>&, const std::vector<float>&);
template std::vector<double> spmvReference(const SegmentedDiaMatrix<double>&, const std::vector<double>&);
template std::vector<float> spmvReference(const DiaMatrix<float>&, const std::vector<float>&);
template std::vector<double> spmvReference(const DiaMatrix<double>&, const std::vector<double>&);
// Complex values: the CPU backend and oracle of every diagonal format for c64 and c128 matrices.
#define SPYGLASS_SPMV_REFERENCE_COMPLEX(T)                                                        \
    template std::vector<T> spmvReference(const CsrMatrix<T>&, const std::vector<T>&);           \
    template std::vector<T> spmvReference(const SegmentedDiaMatrix<T>&, const std::vector<T>&);  \
    template std::vector<T> spmvReference(const DiaMatrix<T>&, const std::vector<T>&);
SPYGLASS_SPMV_REFERENCE_COMPLEX(std::complex<float>)
SPYGLASS_SPMV_REFERENCE_COMPLEX(std::complex<double>)
#undef SPYGLASS_SPMV_REFERENCE_COMPLEX

} // namespace spyglass
