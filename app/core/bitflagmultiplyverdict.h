#pragma once
// Why the bit-flag multiply wins or loses against cuSPARSE SpGEMM on the operands at hand (issue #31:
// "where the bit-flag form cannot win, the tab says so and why"). The two do different work: the
// bit-flag product ANDs a row's flag words with a column's for every output position, R x C x K/64
// word ANDs whatever the density; SpGEMM does one multiply-add per pair of matching stored entries
// (sum over A's entries (i, k) of B's row k length), which shrinks with the square of the density.
#include "spyglass/matrix.h"

#include <QString>

namespace spyglass::app {

// SpGEMM's intermediate products for A B: sum over A's stored (i, k) of B's row k length.
Count spgemmProducts(const CsrMatrix<double>& a, const CsrMatrix<double>& b);

struct MultiplyWork {
    Count rows = 0, cols = 0, inner = 0;  // C is rows x cols, the shared dimension is inner
    Count products = 0;                   // spgemmProducts(A, B)
    double density = 0;                   // of A (stored / (rows x inner))
};

// One sentence for the tab: which was faster, by how much, and the two operation counts that say
// why. bitFlagMs and vendorMs are the measurement engine's medians (both > 0).
QString bitFlagMultiplyVerdict(double bitFlagMs, double vendorMs, const MultiplyWork& work);

} // namespace spyglass::app
