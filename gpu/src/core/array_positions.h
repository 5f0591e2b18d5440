#pragma once
// The positions of a general array matrix: every (row, column) once, column by column, the order in
// which the Matrix Market array format stores its values. Used where an array Matrix is built from
// values alone: a dense matrix converted, a symmetric array expanded for writing.
#include "spyglass/matrix.h"

#include <cstddef>

namespace spyglass::arraylayout {

inline void appendArrayPositions(Matrix& m) {
    const std::size_t count = static_cast<std::size_t>(m.rows) * static_cast<std::size_t>(m.cols);
    m.rowIndex.reserve(m.rowIndex.size() + count);
    m.colIndex.reserve(m.colIndex.size() + count);
    for (Index j = 0; j < m.cols; ++j) {
        for (Index i = 0; i < m.rows; ++i) {
            m.rowIndex.push_back(i);
            m.colIndex.push_back(j);
        }
    }
}

} // namespace spyglass::arraylayout
