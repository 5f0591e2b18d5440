#pragma once
// Decoded container encodings to the coordinate Matrix the callers use, built in place: no
// intermediate COO or CSR copy, the long loops on threads. Entry order and values are exactly those of
// segmentedDiaToCoo / fromCsr(decodeHybridValued(...)): rows in order, columns ascending.
#include "spyglass/hybrid_valued.h"
#include "spyglass/matrix.h"
#include "spyglass/segdia.h"

namespace spyglass::container_decode {

// An empty general coordinate matrix of the given size and field, for a decoder to fill.
Matrix coordinateMatrix(Index rows, Index cols, Field field);

// Straight from the slots: no array of rows or columns, which a tiny file may declare as 2^31.
Matrix matrixFromSegmentedDia(const SegmentedDiaMatrix<double>& s, Field field);

// Consumes the hybrid: a CSR fallback's residual columns and values become the matrix's.
Matrix matrixFromHybridValued(HybridValuedMatrix<double>&& h, Field field);

} // namespace spyglass::container_decode
