#pragma once
// Stored slots of the DIA kinds without building them, so that a matrix whose plain DIA would take
// gigabytes gets a reason in its row instead of an allocation.
#include "spyglass/matrix.h"

namespace spyglass::compare_detail {

struct DiaFootprint {
    Count slots = 0;       // sum over row groups of (distinct diagonals in the group) x (rows of the group)
    Count diagonals = 0;   // plain DIA: distinct diagonals of the matrix; per group: the most in one group
};

// Row groups of groupRows rows from row 0 (groupRows >= rows: one group, plain DIA). Every stored
// entry counts (explicit zeros too), as the builders count them.
template <typename T>
DiaFootprint diaFootprint(const CsrMatrix<T>& csr, Index groupRows);

} // namespace spyglass::compare_detail
