#include "matrixentryindex.h"

#include "spyglass/error.h"

#include <algorithm>
#include <limits>
#include <string>

namespace spyglass::app {

namespace {
void throwIfCancelled(const std::atomic<bool>* cancel) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw CancelledError();
}
} // namespace

MatrixEntryIndex::MatrixEntryIndex(std::shared_ptr<const Matrix> matrix, const std::atomic<bool>* cancel)
    : m_matrix(std::move(matrix)) {
    const Matrix& m = *m_matrix;
    const Count stored = m.stored();
    // Entry numbers fit 32 bits up to 4.29 x 10^9 entries, above the readers' default limit.
    if (stored > Count(std::numeric_limits<std::uint32_t>::max()))
        throw InputError("the hover index holds at most " + std::to_string(std::numeric_limits<std::uint32_t>::max()) +
                         " entries, the matrix has " + std::to_string(stored));
    // Two counting-sort passes (by column, then stably by row) sort by (row, column) in linear
    // time; a comparison sort per row was several times slower on large random matrices.
    std::vector<Count> colStart(static_cast<std::size_t>(m.cols) + 1, 0);
    for (Count e = 0; e < stored; ++e) ++colStart[static_cast<std::size_t>(m.colIndex[e]) + 1];
    for (std::size_t c = 0; c < static_cast<std::size_t>(m.cols); ++c) colStart[c + 1] += colStart[c];
    std::vector<std::uint32_t> byColumn(static_cast<std::size_t>(stored));
    for (Count e = 0; e < stored; ++e) byColumn[colStart[m.colIndex[e]]++] = static_cast<std::uint32_t>(e);
    colStart = {};
    throwIfCancelled(cancel);

    m_rowStart.assign(static_cast<std::size_t>(m.rows) + 1, 0);
    for (Count e = 0; e < stored; ++e) ++m_rowStart[static_cast<std::size_t>(m.rowIndex[e]) + 1];
    for (std::size_t r = 0; r < static_cast<std::size_t>(m.rows); ++r) m_rowStart[r + 1] += m_rowStart[r];
    throwIfCancelled(cancel);

    m_order.resize(static_cast<std::size_t>(stored));
    std::vector<Count> next(m_rowStart.begin(), m_rowStart.end() - (m.rows > 0 ? 1 : 0));
    for (std::uint32_t e : byColumn) m_order[next[m.rowIndex[e]]++] = e;
}

CellValue MatrixEntryIndex::lookupStored(Index row, Index col) const {
    const Matrix& m = *m_matrix;
    CellValue cell;
    auto first = m_order.begin() + m_rowStart[row];
    auto last = m_order.begin() + m_rowStart[row + 1];
    auto it = std::lower_bound(first, last, col, [&m](std::uint32_t e, Index c) { return m.colIndex[e] < c; });
    for (; it != last && m.colIndex[*it] == col; ++it) {
        const Count e = *it;
        const double re = m.isPattern() ? 1.0 : m.real[e];
        const double im = m.isComplex() ? m.imag[e] : 0.0;
        if (cell.present) ++cell.duplicates;
        cell.present = true;
        cell.value += std::complex<double>(re, im);
    }
    return cell;
}

CellValue MatrixEntryIndex::lookup(Index row, Index col) const {
    const Matrix& m = *m_matrix;
    if (row < 0 || col < 0 || row >= m.rows || col >= m.cols) return {};
    CellValue cell = lookupStored(row, col);
    if (cell.present || m.symmetry == Symmetry::General || row == col) return cell;
    // Symmetric kinds store one triangle; the other is the mirror, negated or conjugated by kind.
    cell = lookupStored(col, row);
    if (!cell.present) return cell;
    cell.mirrored = true;
    if (m.symmetry == Symmetry::SkewSymmetric) cell.value = -cell.value;
    if (m.symmetry == Symmetry::Hermitian) cell.value = std::conj(cell.value);
    return cell;
}

} // namespace spyglass::app
