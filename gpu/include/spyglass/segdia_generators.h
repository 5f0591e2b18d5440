#pragma once
// Diagonal-structured test and benchmark matrices for method B, generated as COO in row order.
// Stencil values are small integers (exact sums); the CFD-like case uses seeded random values.
#include "spyglass/matrix.h"

#include <cstdint>

namespace spyglass::generators {

// 5-point Laplacian on an nx x ny grid (4 on the diagonal, -1 to each neighbour; Dirichlet edges).
CooMatrix<double> laplacian2d(Index nx, Index ny);
// 7-point Laplacian on an nx x ny x nz grid.
CooMatrix<double> laplacian3d(Index nx, Index ny, Index nz);
// 27-point stencil (every neighbour in the 3x3x3 cube) on an nx x ny x nz grid: 27 diagonals.
CooMatrix<double> stencil27(Index nx, Index ny, Index nz);

// The ship-CFD-like case the seed is about: a 7-point stencil on an nx x ny x nz grid, plus
// `brokenDiagonals` extra diagonals that exist only on scattered row pieces (each diagonal covers
// about a third of the rows in pieces of a few thousand rows), plus `scatteredPoints` isolated
// entries far from the band. Plain DIA pads every broken diagonal and every scattered point to a
// full-length diagonal; segmented DIA pads them only inside the segments they touch.
CooMatrix<double> cfdLike(Index nx, Index ny, Index nz, int brokenDiagonals, int scatteredPoints, std::uint64_t seed);

// A random diagonal-structured matrix for tests: `diagonals` random offsets in (-cols, rows), each
// filled with probability fill, plus `scattered` random entries; integer values in [-8, 8] \ {0}.
CooMatrix<double> randomBanded(Index rows, Index cols, int diagonals, double fill, int scattered, std::uint64_t seed);

// A small real matrix scaled up for benchmarks: `copies` copies of `block` along the diagonal
// (block-diagonal), so a banded matrix from a file stays banded with the same diagonals and
// copies times the nonzeros. Entries come out in row order; rows and columns must fit 32 bits.
CooMatrix<double> tiledAlongDiagonal(const CooMatrix<double>& block, Index copies);

// Rows in pieces of pieceRows: most pieces tridiagonal, one in eight (at seeded random places) a
// 33-diagonal band. The diagonal set changes every few pieces, so 1024-row segments take the union of
// their pieces' diagonals while pieceRows-row segments stay exact (the case for choosing the segment length).
CooMatrix<double> scatteredBands(Index rows, Index pieceRows, std::uint64_t seed);
// A wide band (half-width 16) over the first eighth of the rows, a narrow one (2) elsewhere: equal row
// groups differ sixfold in work, and the heavy ones sit together (the case for merging).
CooMatrix<double> imbalancedBand(Index rows);

} // namespace spyglass::generators
