#pragma once
// Method B: y = A x for the diagonal formats (segmented DIA, plain DIA) and the CSR baseline, behind
// one call, spmv(matrix, x, options), on every backend:
//   Reference: plain C++ (the CPU path and the test oracle), every format.
//   Cuda:      Spyglass's kernels (segmented DIA, HDIA, plain DIA).
//   Cusparse:  cuSPARSE's generic cusparseSpMV on CSR, the vendor baseline.
// The GPU backends upload, run once on options.stream and download; they throw
// BackendUnavailableError in a build or on a machine without CUDA. Sizes, the backend's fit to the
// format and the variant are validated before dispatch (InputError). Every backend multiplies real
// (fp32, fp64) and complex (c64, c128) values; complex products are summed in complex arithmetic of
// the same precision, never split into real and imaginary runs.
#include "spyglass/matrix.h"
#include "spyglass/segdia.h"

#include <vector>

namespace spyglass {

enum class SpmvBackend {
    Reference,  // plain C++ on the CPU
    Cuda,       // Spyglass's kernels: SegmentedDiaMatrix and DiaMatrix
    Cusparse    // NVIDIA cuSPARSE (the vendor baseline): CsrMatrix
};

// How the segmented-DIA kernel loads values: Vector16 gives each thread 16 bytes of consecutive rows
// per diagonal (segments that are not 16-byte aligned fall back to scalar loads inside the kernel);
// Scalar is the first version, one element per load, kept for comparison.
enum class SegmentedDiaLoads { Vector16, Scalar };

// How the segmented-DIA kernels sum the CSR remainder (matrices without one ignore it).
enum class SegmentedDiaRemainderKernel {
    // The default: Owners where the remainder is light (at most an eighth of the nonzeros, and in no
    // segment more entries than its DIA slots), RowBlocks otherwise. A light remainder costs the fused
    // kernel little, where a pass of its own costs a launch and a second read of x: watt_2 x900 ran
    // 1.72x cuSPARSE with Owners and 1.61x with RowBlocks, n1024-l1 x320 0.0314 against 0.0408 ms;
    // west0479 x5300, all remainder, 0.75x against 1.18x (H200, bench/results/h200/spmv_dia_scaled.md,
    // bench/results/spmv_dia_remainder.md).
    Automatic,
    // A pass of its own after the DIA pass: rows cut into blocks of about 2048 entries,
    // each block's products gathered in coalesced sweeps into shared memory, then summed by sub-warps
    // as wide as its rows allow (CSR-Stream). The DIA pass skips segments without diagonals; this pass
    // writes their rows. A remainder past 2^31 - 1 entries falls back to Owners.
    RowBlocks,
    // In the DIA pass: the thread that owns a row also sums its remainder, a warp each row longer than
    // 16 entries (the kernel before RowBlocks, kept for comparison).
    Owners,
    // In the DIA pass: sub-warps sum every remainder row into shared memory first (remainderWidth).
    SubWarps
};

// Which segmented-DIA kernel the Cuda backend launches; the other formats and backends ignore it.
// All variants give the same y up to summation order.
struct SegmentedDiaVariant {
    SegmentedDiaLoads loads = SegmentedDiaLoads::Vector16;
    // Scalar loads: rows each thread keeps in flight at once (1, 2 or 4; 0 picks threshold / 256, so
    // that one pass of the block covers a segment); Vector16 loads: 8 or more asks for two 16-byte
    // groups per thread instead of one.
    int rowsPerThread = 0;
    // SubWarps only (0 otherwise): lanes per remainder row, a power of two from 1 to 32, or 0 for the
    // power of two at or above each segment's mean remainder row length.
    int remainderWidth = 0;
    SegmentedDiaRemainderKernel remainder = SegmentedDiaRemainderKernel::Automatic;
};

struct SpmvOptions {
    SpmvBackend backend = SpmvBackend::Reference;
    SegmentedDiaVariant variant{};  // its own defaults (so {backend} leaves no member uninitialised)
    // GPU backends: the cudaStream_t to run on (nullptr: the default stream). void* keeps this header
    // free of CUDA; the call returns once the stream has delivered y.
    void* stream = nullptr;
};

const char* toString(SpmvBackend backend);
const char* toString(SegmentedDiaRemainderKernel kernel);
// Throws InputError when the variant's fields are out of range (spmv checks it; so do device callers).
void validateSegmentedDiaVariant(const SegmentedDiaVariant& variant);

template <typename T> std::vector<T> spmv(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options = {});
template <typename T> std::vector<T> spmv(const DiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options = {});
template <typename T> std::vector<T> spmv(const CsrMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options = {});

// The CPU references alone (the oracles; also what spmv runs for SpmvBackend::Reference).
template <typename T> std::vector<T> spmvReference(const CsrMatrix<T>& a, const std::vector<T>& x);
template <typename T> std::vector<T> spmvReference(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x);
template <typename T> std::vector<T> spmvReference(const DiaMatrix<T>& a, const std::vector<T>& x);

} // namespace spyglass
