#pragma once
// Shared by the suites that write a matrix somewhere (a container, a file format, the CLI) and read it
// back: the entries the round trip must give, and a bitwise comparison of values; and small
// hand-written matrices to start from.
#include "spyglass/convert.h"
#include "spyglass/matrix.h"

#include <cstring>
#include <utility>
#include <vector>

namespace matrixentries {

// A rows x cols real general coordinate matrix holding the given entries (0-based, in this order):
// a small hand-written case, as the reader would return it.
inline spyglass::Matrix realEntries(spyglass::Index rows, spyglass::Index cols, std::vector<spyglass::Index> rowIndex,
                                    std::vector<spyglass::Index> colIndex, std::vector<double> real) {
    spyglass::Matrix m;
    m.rows = rows;
    m.cols = cols;
    m.rowIndex = std::move(rowIndex);
    m.colIndex = std::move(colIndex);
    m.real = std::move(real);
    return m;
}

// The entries whose value is not zero, in their order.
inline spyglass::CooMatrix<double> nonzeros(const spyglass::CooMatrix<double>& coo) {
    spyglass::CooMatrix<double> kept;
    kept.rows = coo.rows;
    kept.cols = coo.cols;
    for (std::size_t k = 0; k < coo.values.size(); ++k)
        if (coo.values[k] != 0.0) {
            kept.rowIndex.push_back(coo.rowIndex[k]);
            kept.colIndex.push_back(coo.colIndex[k]);
            kept.values.push_back(coo.values[k]);
        }
    return kept;
}

// The entries a round trip must give back: the expanded matrix, duplicates summed, pattern entries 1;
// optionally without explicit zeros (segmented DIA and bit flags cannot tell them from padding).
inline spyglass::CsrMatrix<double> expectedEntries(const spyglass::Matrix& m, bool dropZeros) {
    spyglass::CsrMatrix<double> csr = spyglass::toCsr<double>(m);
    if (m.field == spyglass::Field::Pattern) csr.values.assign(csr.values.size(), 1.0);
    if (!dropZeros) return csr;
    return spyglass::cooToCsr(nonzeros(spyglass::csrToCoo(csr)));
}

// Bitwise, so that NaN payloads and signed zeros count too.
inline bool sameBits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// The first part in which two matrices differ ("layout", "field", ..., "comments", "row indices",
// "real values"), or nullptr when they are the same; values are compared by `sameValues`.
template <typename SameValues>
const char* matrixDifference(const spyglass::Matrix& a, const spyglass::Matrix& b, SameValues sameValues) {
    const std::pair<const char*, bool> parts[] = {
        {"layout", a.layout == b.layout},           {"field", a.field == b.field},
        {"symmetry", a.symmetry == b.symmetry},     {"rows", a.rows == b.rows},
        {"columns", a.cols == b.cols},              {"comments", a.comments == b.comments},
        {"row indices", a.rowIndex == b.rowIndex},  {"column indices", a.colIndex == b.colIndex},
        {"real values", sameValues(a.real, b.real)}, {"imaginary values", sameValues(a.imag, b.imag)}};
    for (const auto& [part, same] : parts)
        if (!same) return part;
    return nullptr;
}

// The same shape, positions and value bits.
inline bool sameCsrBits(const spyglass::CsrMatrix<double>& a, const spyglass::CsrMatrix<double>& b) {
    return a.rows == b.rows && a.cols == b.cols && a.rowPtr == b.rowPtr && a.colIndex == b.colIndex && sameBits(a.values, b.values);
}

} // namespace matrixentries
