#pragma once
// Decoded container encodings to the coordinate Matrix the callers use, built in place: no
// intermediate COO or CSR copy, the long loops on threads. Entry order and values are exactly those of
// segmentedDiaToCoo / fromCsr(decodeHybridValued(...)): rows in order, columns ascending.
#include "io/container_early_arrays.h"
#include "io/container_segdia_slots.h"

#include "spyglass/bitflag.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/matrix.h"
#include "spyglass/segdia.h"

namespace spyglass::container_decode {

// An empty general coordinate matrix of the given size and field, for a decoder to fill.
Matrix coordinateMatrix(Index rows, Index cols, Field field);

// Sizes m's row, column and (unless a pattern) value arrays to `entries`, the arrays at once on
// different threads.
void sizeCoordinateArrays(Matrix& m, std::size_t entries);

// Straight from the slots where they lie in the file (m.values is empty): no array of rows or
// columns, which a tiny file may declare as 2^31. Into the arrays `early` sizes when they are for its
// entries (otherwise `early` is dropped).
Matrix matrixFromSegmentedDia(const SegmentedDiaMatrix<double>& s, const container_io::SegdiaSlotValues& slots, Field field,
                              EarlyCoordinateArrays* early = nullptr);

// Consumes the checked bit-flag form (its values become the matrix's when it is row-major): rows in
// order, columns ascending, as decodeBitFlag gives them.
Matrix matrixFromBitFlag(BitFlagMatrix<double>&& b, Field field);

// Consumes a decoded binary pattern: its columns become the matrix's, the row of each entry is filled
// on threads.
// `rows`, when `rowsFilled`, is the row of each entry already (the early path of a CSR fallback).
Matrix matrixFromPattern(BinaryPattern&& pattern, std::vector<Index>&& rows = {}, bool rowsFilled = false);

// Consumes the hybrid: a CSR fallback's residual columns and values become the matrix's, and
// entryRows (sized to its entries by hybridValuedWithRowsFromContainer, or empty) its row array,
// filled here unless `rowsFilled`.
Matrix matrixFromHybridValued(HybridValuedMatrix<double>&& h, Field field, std::vector<Index>&& entryRows = {},
                              bool rowsFilled = false);

} // namespace spyglass::container_decode
