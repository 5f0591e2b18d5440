#pragma once
// Method D, steps 4-6: the hybrid encoding of a binary matrix and SpMV on it.
// Dense regions are reverse-encoded (shape parameters + the positions of their ZEROS, CSR per region,
// each zero stored as a 16-bit offset from the start of its row's span); every other nonzero goes to a
// forward-encoded CSR residual. y = sum over shapes (prefix sums of x) - y_zero + y_residual.
#include "spyglass/hybrid_regions.h"

#include <cstdint>
#include <string>
#include <vector>

namespace spyglass {

// One reverse-encoded region: its shape and its zeros, row by row.
struct HybridBlock {
    DenseRegion region;
    std::vector<std::uint32_t> zeroRowPtr;  // region.height() + 1, offsets into zeroOffsets
    std::vector<std::uint16_t> zeroOffsets; // per zero: column - span(row).begin
    Count zeros() const { return static_cast<Count>(zeroOffsets.size()); }
};

struct HybridBinaryMatrix {
    Index rows = 0, cols = 0;
    std::vector<HybridBlock> blocks;  // non-overlapping
    BinaryPattern residual;           // the nonzeros outside every block (forward-encoded CSR)
    bool csrFallback = false;         // true: no block kept, the residual is the whole matrix
    std::string fallbackReason;       // why, when csrFallback

    Count nnz() const;
    Count zeros() const;                          // stored zero positions over all blocks
    std::size_t encodedBytes() const;              // every number stored, at its stored width
};

// Bytes of the plain pattern CSR this encoding competes with: (rows + 1) 64-bit row pointers and a
// 32-bit column index per nonzero (what BinaryPattern and CsrMatrix hold, values left out).
std::size_t patternCsrBytes(Index rows, Count nnz);
// Bytes of the CSR cuSPARSE multiplies: 32-bit row pointers and columns plus a float value per nonzero.
std::size_t vendorCsrBytes(Index rows, Count nnz);

struct HybridEncodeOptions {
    // Regions whose span in some row is longer than this cannot hold 16-bit zero offsets: not kept.
    Index maxSpan = 65535;
    // Keep every given region even where it costs more than CSR, and never fall back: reproduces
    // worked examples (the seed's 10 x 10) whose regions are too small to pay for themselves.
    bool forceRegions = false;
    // Threads: 0 = every core. Rows are counted, then filled, in chunks at offsets from prefix sums:
    // the encoding is the same bit for bit for every count (tst_hybrid_parallel).
    int threads = 0;
    const std::atomic<bool>* cancel = nullptr;  // polled between row chunks (CancelledError)
};

// Encodes with the given regions (they are validated, checked for overlap, and their ones recounted).
// A region whose reverse encoding would cost more than forward-encoding its ones is not used; if
// the result is not smaller than plain CSR, the encoding falls back to CSR only (flag + reason).
HybridBinaryMatrix encodeHybrid(const BinaryPattern& pattern, const std::vector<DenseRegion>& regions,
                                const HybridEncodeOptions& options = {});
// The exact pattern back.
BinaryPattern decodeHybrid(const HybridBinaryMatrix& hybrid);
// Throws InputError naming the inconsistency (overlap, offsets past the span, unsorted zeros,
// residual entries inside a block, pointer ranges): used on everything read from a file.
void validateHybrid(const HybridBinaryMatrix& hybrid);

// CPU reference SpMV on the hybrid form (the test oracle; hybridSpmv's Reference backend). Shape sums come from fp64 prefix sums of x;
// everything is accumulated in fp64 and rounded once to T. T: float or double.
template <typename T>
std::vector<T> hybridSpmvReference(const HybridBinaryMatrix& hybrid, const std::vector<T>& x);
// Plain pattern-CSR SpMV (the forward-encoded baseline), fp64 accumulation.
template <typename T>
std::vector<T> patternSpmvReference(const BinaryPattern& pattern, const std::vector<T>& x);

// hybridSpmv (hybrid_spmv.h) runs it, or the CUDA kernel with the same arithmetic, by backend.

// Generators of binary test matrices (deterministic for a seed).
struct BlockyMatrixSpec {
    Index rows = 0, cols = 0;
    int rectangles = 0, triangles = 0, bands = 0;
    Index blockSize = 64;               // rectangle/triangle side; band length
    Index bandWidth = 9;                // diagonals per band
    double fillMin = 0.5, fillMax = 0.95;
    Count scattered = 0;                // uniformly scattered ones outside the blocks
    std::uint64_t seed = 1;
};
struct GeneratedBinary {
    BinaryPattern pattern;
    std::vector<DenseRegion> planted;   // the shapes the generator filled (ones counted)
};
// Places the shapes on a coarse grid so that they never overlap; throws InputError when they cannot fit.
GeneratedBinary generateBlockyBinary(const BlockyMatrixSpec& spec);
// The seed's worked example: a 10 x 10 matrix with 39 ones: a rectangle holding 10, a triangle
// holding 9, a diagonal block holding 15 and a residual of 5 (reconstructed from the seed text).
GeneratedBinary seedExampleBinary();

} // namespace spyglass
