// Facts about a matrix in file form that do not need a conversion.
#include "spyglass/matrix.h"

namespace spyglass {

Matrix Matrix::generalHeader(Layout newLayout) const {
    Matrix header;
    header.layout = newLayout;
    header.field = field;
    header.rows = rows;
    header.cols = cols;
    header.comments = comments;
    return header;
}

Count Matrix::expandedEntries() const {
    if (symmetry == Symmetry::General) {
        return stored();
    }
    // Every off-diagonal stored entry gains its mirror. The reader never stores a skew-symmetric
    // diagonal, so this single rule covers all three symmetric kinds and the array layout too.
    Count offDiagonal = 0;
    for (std::size_t k = 0; k < rowIndex.size(); ++k) {
        offDiagonal += rowIndex[k] != colIndex[k] ? 1 : 0;
    }
    return stored() + offDiagonal;
}

bool Matrix::isBinary() const {
    if (field == Field::Pattern) {
        return true;
    }
    for (double value : real) {
        if (value != 1.0) {
            return false;
        }
    }
    for (double value : imag) {
        if (value != 0.0) {
            return false;
        }
    }
    return true;
}

} // namespace spyglass
