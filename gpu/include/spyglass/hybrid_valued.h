#pragma once
// Method D on any real matrix: the hybrid encoding with values. Dense regions (found on the matrix's
// pattern by detectDenseRegions) store their values densely, row-major over the shape's cells, with
// explicit zeros where the matrix has no entry; every other entry stays in a CSR residual with its
// value. SpMV: each region is a small dense matrix-vector product over its rows' spans, plus the
// residual. Binary matrices keep the seed's encoding (hybrid_binary.h: regions by their zeros).
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrix.h"

#include <cstddef>
#include <string>
#include <vector>

namespace spyglass {

// One dense region with its values.
template <typename T>
struct HybridValuedBlock {
    DenseRegion region;      // region.ones: cells holding a non-zero value
    std::vector<T> values;   // region.cells() values: row by row, each row's span left to right
    Count explicitZeros() const { return region.cells() - region.ones; }
};

template <typename T>
struct HybridValuedMatrix {
    Index rows = 0, cols = 0;
    std::vector<HybridValuedBlock<T>> blocks;  // non-overlapping
    CsrMatrix<T> residual;                     // the entries outside every block, sorted columns
    bool csrFallback = false;                  // true: no block kept, the residual is the whole matrix
    std::string fallbackReason;

    Count nnz() const;            // non-zero cells of the blocks plus the residual entries
    Count explicitZeros() const;  // zero cells stored in the blocks
    std::size_t encodedBytes() const;  // every number stored, values at T's width
};

// Bytes of the CSR this encoding competes with: 64-bit row pointers, a 32-bit column and a value of
// valueBytes per entry (what CsrMatrix holds).
std::size_t valuedCsrBytes(Index rows, Count nnz, std::size_t valueBytes);

// Where each row of a region starts in its values: height + 1 entries, [0] = 0, back() = cells().
std::vector<Count> regionCellStarts(const DenseRegion& region);

struct HybridValuedOptions {
    // Keep every given region even where its dense values cost more than CSR, and never fall back.
    bool forceRegions = false;
    // Threads: 0 = every core; the encoding is the same bit for bit for every count.
    int threads = 0;
    const std::atomic<bool>* cancel = nullptr;  // polled between row chunks (CancelledError)
};

// The matrix's pattern (every stored entry, whatever its value), for detectDenseRegions.
template <typename T>
BinaryPattern patternOfCsr(const CsrMatrix<T>& matrix);

// Encodes a CSR matrix (sorted, duplicate-free columns per row: what toCsr gives) with the given
// regions (validated, checked for overlap). A region is kept when its dense values take fewer bytes
// than its entries in CSR (cells x value < entries x (4 + value)); when the result is not smaller than
// plain CSR the encoding falls back to CSR only (flag + reason). Explicitly stored zeros inside a kept
// region cannot be told from absent cells and are not kept; outside regions they stay.
template <typename T>
HybridValuedMatrix<T> encodeHybridValued(const CsrMatrix<T>& matrix, const std::vector<DenseRegion>& regions,
                                         const HybridValuedOptions& options = {});
// The matrix back: every residual entry and every non-zero cell, sorted columns per row.
template <typename T>
CsrMatrix<T> decodeHybridValued(const HybridValuedMatrix<T>& hybrid);
// Throws InputError naming the inconsistency (overlap, value counts, non-zero counts, residual order,
// residual entries inside a block): used on everything read from a file.
template <typename T>
void validateHybridValued(const HybridValuedMatrix<T>& hybrid);

// CPU reference SpMV (the test oracle; hybridSpmv's Reference backend, hybrid_spmv.h): fp64
// accumulation, rounded once to T. T: float or double.
template <typename T>
std::vector<T> hybridValuedSpmvReference(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x);

// Detection on the matrix's pattern, then the valued encoding: what `spyglass-cli` and the benchmark
// run. In target spyglass_detect (OpenCV). detected (when given) receives the detection's result.
// The encoding runs on options.threads threads and polls options.cancel too.
template <typename T>
HybridValuedMatrix<T> detectAndEncodeHybridValued(const CsrMatrix<T>& matrix, const DetectionOptions& options = {},
                                                  DetectionResult* detected = nullptr);

} // namespace spyglass
