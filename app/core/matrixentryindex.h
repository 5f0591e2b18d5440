#pragma once
// Value lookup for the hovered cell: the stored entries sorted by (row, column) once, so that a
// lookup is a binary search instead of a scan of millions of entries on every mouse move.
// The index holds entry numbers, not entries: 4 bytes per entry (a quarter of a real matrix's 16),
// 4 more while it is built.
#include "spyglass/matrix.h"

#include <atomic>
#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

namespace spyglass::app {

struct CellValue {
    bool present = false;        // some stored entry (or its symmetric mirror) lies in the cell
    std::complex<double> value;  // summed over duplicates; 1 for pattern matrices
    int duplicates = 0;          // stored entries beyond the first that fall in the cell
    bool mirrored = false;       // found through symmetric expansion, not stored as such
};

class MatrixEntryIndex {
public:
    // Builds the index; throws CancelledError when cancel becomes true (it is polled, not waited on).
    MatrixEntryIndex(std::shared_ptr<const Matrix> matrix, const std::atomic<bool>* cancel = nullptr);

    // 0-based row and column. Cells outside the matrix are reported as not present.
    CellValue lookup(Index row, Index col) const;

private:
    CellValue lookupStored(Index row, Index col) const;

    std::shared_ptr<const Matrix> m_matrix;
    std::vector<Count> m_rowStart;       // rows + 1 offsets into m_order
    std::vector<std::uint32_t> m_order;  // stored entry numbers, by row then column
};

} // namespace spyglass::app
