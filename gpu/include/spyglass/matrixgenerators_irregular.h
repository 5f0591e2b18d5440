#pragma once
// Irregular benchmark matrices (no diagonal structure), generated as COO in row order.
#include "spyglass/matrix.h"

#include <cstdint>

namespace spyglass::generators {

// Rows whose lengths follow a power law (graph-like degree distribution): each row draws its length
// from a discrete Pareto law, floor(minPerRow u^(-1 / (exponent - 1))) with u uniform in (0, 1],
// capped at maxPerRow and cols, so few rows are very long and most are short; columns uniform and
// distinct within a row, integer values in [-8, 8] \ {0}. exponent > 2 gives a finite mean of
// minPerRow (exponent - 1) / (exponent - 2). Deterministic for a seed; bad sizes throw InputError.
CooMatrix<double> powerLawRows(Index rows, Index cols, Index minPerRow, double exponent, Index maxPerRow, std::uint64_t seed);

} // namespace spyglass::generators
