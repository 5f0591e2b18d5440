#pragma once
// Method A: bit-flag matrix storage with popcount access (seeds/000, SEEDS.md A).
//
//   R, C, S          rows, columns, nonzeros
//   M[S]             the nonzero values, line by line (rows for row-major, columns for column-major)
//   F                per line, one bit per element, low bit first: a line of <= 32 elements is one
//                    32-bit word, <= 64 one 64-bit word, longer lines ceil(len/64) 64-bit words
//   P[lines+1]       P[0] = 0, P[l+1] = P[l] + nonzeros of line l, P[lines] = S
// Element (i,j) of a row-major matrix: flag bit j of row i; when set its value is
// M[P[i] + popcount(bits of row i before j)]. Optional per-word prefix counts (nonzeros of the line
// before each word) make that O(1) for wide lines instead of a popcount over every earlier word.
#include "spyglass/error.h"
#include "spyglass/matrix.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace spyglass {

enum class BitFlagOrder { RowMajor, ColumnMajor };
const char* toString(BitFlagOrder order);

struct BitFlagOptions {
    BitFlagOrder order = BitFlagOrder::RowMajor;
    bool prefixCounts = false;       // per-word prefix counts for O(1) access on wide lines
    bool keepExplicitZeros = false;  // the seed flags nonzeros only; true keeps stored zeros (exact structure)
};

template <typename T>
struct BitFlagMatrix {
    Index rows = 0, cols = 0;
    BitFlagOrder order = BitFlagOrder::RowMajor;
    Count nonzeros = 0;                  // S
    int wordBits = 64;                   // 32 when a line has <= 32 elements, else 64
    Index wordsPerLine = 0;              // 1 for wordBits 32, else ceil(lineLength / 64)
    std::vector<T> values;               // M[S]
    std::vector<std::uint32_t> flags32;  // lines x 1, used when wordBits == 32
    std::vector<std::uint64_t> flags64;  // lines x wordsPerLine, used when wordBits == 64
    std::vector<Count> lineStart;        // P[lines + 1]
    bool withPrefixCounts = false;
    std::vector<std::uint32_t> wordPrefix;  // lines x wordsPerLine when withPrefixCounts: nonzeros of the line before the word

    Index lines() const { return order == BitFlagOrder::RowMajor ? rows : cols; }
    Index lineLength() const { return order == BitFlagOrder::RowMajor ? cols : rows; }
    std::uint64_t word(Index line, Index w) const {
        return wordBits == 32 ? flags32[std::size_t(line)]
                              : flags64[std::size_t(line) * std::size_t(wordsPerLine) + std::size_t(w)];
    }
};

// Bytes of each storage (indices 32-bit, P and CSR row pointers 64-bit) and where each wins.
struct BitFlagStats {
    Count nonzeros = 0;
    double density = 0;            // S / (R C)
    std::size_t bitFlagBytes = 0;  // M + F + P (+ prefix counts when present)
    std::size_t flagBytes = 0, prefixBytes = 0;
    std::size_t csrBytes = 0;      // values + 32-bit column indices + 64-bit row pointers
    // Density above which the bit flags take fewer bytes than CSR: flag bytes per line / (4 x lineLength).
    // M and P cost the same in both, so bit flags win when F (+ prefix) < 4 bytes x S.
    double breakEvenDensity = 0;
};

// Encoding. Out-of-range entries throw InputError naming the entry; duplicates are summed.
// T: float or double.
template <typename T> BitFlagMatrix<T> encodeBitFlag(const CsrMatrix<T>& csr, const BitFlagOptions& options = {});
template <typename T> BitFlagMatrix<T> encodeBitFlag(const CooMatrix<T>& coo, const BitFlagOptions& options = {});
// Back to CSR (sorted columns), whatever the order of the bit-flag form.
template <typename T> CsrMatrix<T> decodeBitFlag(const BitFlagMatrix<T>& matrix);
// The same matrix in the other order (or with/without prefix counts).
template <typename T> BitFlagMatrix<T> reorderBitFlag(const BitFlagMatrix<T>& matrix, BitFlagOrder order, bool prefixCounts);
// Adds or removes the per-word prefix counts in place.
template <typename T> void setPrefixCounts(BitFlagMatrix<T>& matrix, bool enabled);
// Checks every invariant (sizes, P monotone and equal to the popcounts, no bits past the line end);
// throws InputError naming the first violation.
template <typename T> void validateBitFlag(const BitFlagMatrix<T>& matrix);

template <typename T> BitFlagStats computeBitFlagStats(const BitFlagMatrix<T>& matrix);
// The break-even density of a shape without building anything.
double bitFlagBreakEvenDensity(Index rows, Index cols, BitFlagOrder order, bool prefixCounts);

// Element access. Index of (i,j) in M, or nullopt when the flag is clear. Out of range: InputError.
template <typename T> std::optional<Count> bitFlagValueIndex(const BitFlagMatrix<T>& matrix, Index i, Index j);
template <typename T> T bitFlagGet(const BitFlagMatrix<T>& matrix, Index i, Index j);  // 0 where the flag is clear
// Writing is allowed only where the flag is set (the seed): elsewhere InputError naming (i,j).
template <typename T> void bitFlagSet(BitFlagMatrix<T>& matrix, Index i, Index j, T value);
// A batch of writes, all or nothing: every query is checked first (equal lengths, inside the matrix,
// flag set) and the first bad one throws InputError naming its index and (i,j) with the matrix
// untouched; then the writes apply in order, so of repeated (i,j) the last value stays.
template <typename T>
void bitFlagSetBatch(BitFlagMatrix<T>& matrix, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                     const std::vector<T>& values);

// Optional control of the long CPU reference operations (multiply: R x C output elements, LU: n^3/3):
// cancel is polled once per output row or elimination step (true -> CancelledError), progress gets the
// fraction done (0..1) from the calling thread. Both may be left empty.
struct BitFlagControl {
    const std::atomic<bool>* cancel = nullptr;
    std::function<void(double)> progress;
};

// CPU reference operations (the test oracle).
// add/sub: same shape and order; flags of C = flags A | flags B; both -> a +- b, only A -> a,
// only B -> +-b. A cancellation keeps its flag with a stored 0, as cuSPARSE's geam does.
template <typename T> BitFlagMatrix<T> bitFlagAdd(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b);
template <typename T> BitFlagMatrix<T> bitFlagSub(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b);
// C = A B with A row-major and B column-major (other orders throw InputError): the flag of c(i,j)
// is set when row i of A and column j of B share a set bit (symbolic pass), its value is the sum of
// a(i,k) b(k,j) over the shared bits (numeric pass). C is row-major.
template <typename T> BitFlagMatrix<T> bitFlagMultiply(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b);
template <typename T>
BitFlagMatrix<T> bitFlagMultiply(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagControl& control);

// Thrown when LU without pivoting meets a pivot that is zero or tiny (|pivot| <= tolerance x max|A|).
class BitFlagPivotError : public InputError {
public:
    BitFlagPivotError(Index step, double pivot, const std::string& message)
        : InputError(message), m_step(step), m_pivot(pivot) {}
    Index step() const { return m_step; }    // 0-based elimination step
    double pivot() const { return m_pivot; }

private:
    Index m_step;
    double m_pivot;
};

template <typename T>
struct BitFlagLu {
    BitFlagMatrix<T> lower;  // unit lower triangular, the ones stored
    BitFlagMatrix<T> upper;
};
// LU with partial pivoting (past the seed, for large n): P A = L U, where row i of P A is row
// rowOrder[i] of A. L is unit lower (the ones stored), U upper.
template <typename T>
struct BitFlagPivotedLu {
    BitFlagMatrix<T> lower;
    BitFlagMatrix<T> upper;
    std::vector<Index> rowOrder;
};
// Default pivot tolerance: n x epsilon of T.
template <typename T> double defaultPivotTolerance(Index n);
// LU of a square matrix without pivoting (the seed): dense expansion, Doolittle elimination.
// A zero or tiny pivot throws BitFlagPivotError naming the step; no NaN is ever returned.
// Sizes with n x n beyond 4e8 elements are refused (InputError). tolerance < 0: the default.
template <typename T> BitFlagLu<T> bitFlagLu(const BitFlagMatrix<T>& a, double tolerance = -1);
template <typename T> BitFlagLu<T> bitFlagLu(const BitFlagMatrix<T>& a, double tolerance, const BitFlagControl& control);
// LU with partial pivoting, the reference: dense expansion, at step k the row with the largest |a(i,k)|
// (i >= k, the first on ties) becomes the pivot row. When even that is <= tolerance x max|A| the matrix
// is singular to working precision: BitFlagPivotError naming the step. Same size limit as bitFlagLu.
template <typename T> BitFlagPivotedLu<T> bitFlagLuPivoted(const BitFlagMatrix<T>& a, double tolerance = -1);
// ||P A - L U||_F / ||A||_F computed in double (dense, O(n^3): for checking, not for large n).
template <typename T> double bitFlagLuResidual(const BitFlagMatrix<T>& a, const BitFlagPivotedLu<T>& lu);

// CUDA (Spyglass's kernels). Upload, run once, download. BackendUnavailableError without a device.
// Batch element get: one thread per query, uses the prefix counts when the matrix has them.
template <typename T>
std::vector<T> bitFlagGetBatchCuda(const BitFlagMatrix<T>& matrix, const std::vector<Index>& rowsQ,
                                   const std::vector<Index>& colsQ);
// Batch set on the device, the same contract as bitFlagSetBatch (checked before anything is written,
// last of repeated (i,j) wins); returns the matrix with the new values. One thread per query: a pass
// that finds each query's slot in M (flag bit, popcount) and elects the last query per slot, then a
// pass that writes the elected values.
template <typename T>
BitFlagMatrix<T> bitFlagSetBatchCuda(const BitFlagMatrix<T>& matrix, const std::vector<Index>& rowsQ,
                                     const std::vector<Index>& colsQ, const std::vector<T>& values);
// The CSR baseline for it: one thread per query, binary search in the row's columns.
template <typename T>
std::vector<T> csrGetBatchCuda(const CsrMatrix<T>& matrix, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ);
template <typename T> BitFlagMatrix<T> bitFlagAddCuda(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b);
template <typename T> BitFlagMatrix<T> bitFlagSubCuda(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b);
template <typename T> BitFlagMatrix<T> bitFlagMultiplyCuda(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b);
// Largest n of the shared-memory LU kernel for T (the dense n x n in 48 KiB of shared memory).
template <typename T> Index bitFlagLuCudaMaxOrder();
// Shared-memory LU, one block; n above bitFlagLuCudaMaxOrder<T>() throws InputError.
template <typename T> BitFlagLu<T> bitFlagLuCuda(const BitFlagMatrix<T>& a, double tolerance = -1);
// How the batched LU maps matrices onto the GPU: the seed's one block per matrix (dense in shared
// memory), one warp per matrix (rows in shared memory, a lane per row), or register rows (a lane holds
// a row in registers, the pivot row broadcast by warp shuffles; n <= bitFlagLuPivotedBatchedCudaMaxOrder<T>()).
// Auto: register rows where they apply (the fastest measured, bench/results/bitflag.md), else a warp per matrix.
enum class BitFlagBatchedLuLayout { Auto, BlockPerMatrix, WarpPerMatrix, RegisterRows };
const char* toString(BitFlagBatchedLuLayout layout);
// The seed's LU (no pivoting) on a batch, all n x n with the same n <= bitFlagLuCudaMaxOrder<T>()
// (register rows: n <= bitFlagLuPivotedBatchedCudaMaxOrder<T>(), else InputError). A bad pivot in any
// matrix throws BitFlagPivotError naming the matrix (in the message) and the step.
template <typename T>
std::vector<BitFlagLu<T>> bitFlagLuBatchedCuda(const std::vector<BitFlagMatrix<T>>& batch, double tolerance = -1,
                                               BitFlagBatchedLuLayout layout = BitFlagBatchedLuLayout::Auto);
// Largest order of the register-rows batched LU: 64 in fp32 (two rows a lane), 32 in fp64.
template <typename T> Index bitFlagLuPivotedBatchedCudaMaxOrder();
// LU with partial pivoting on a batch (register rows), each matrix as bitFlagLuPivoted: the same pivot
// choices and row order, factors of P A_b. A matrix singular to working precision throws
// BitFlagPivotError naming the matrix (in the message) and the step; n above the maximum: InputError.
template <typename T>
std::vector<BitFlagPivotedLu<T>> bitFlagLuPivotedBatchedCuda(const std::vector<BitFlagMatrix<T>>& batch, double tolerance = -1);

// Blocked right-looking LU with partial pivoting on the dense form of the matrix (its fill makes L and
// U dense at large n anyway): panels of panelWidth columns are factored by a one-block kernel leafWidth
// columns at a time (the leaf's rows in shared memory), the rest of the panel and the trailing matrix
// are updated by cuBLAS trsm and gemm.
struct BitFlagBlockedLuOptions {
    double tolerance = -1;  // < 0: defaultPivotTolerance
    Index panelWidth = 128; // 1..256
    Index leafWidth = 32;   // 1..32; smaller where a leaf's rows do not fit shared memory
};
// Largest order the blocked LU accepts for T (a one-column leaf of n rows must fit shared memory).
template <typename T> Index bitFlagLuPivotedCudaMaxOrder();
template <typename T>
BitFlagPivotedLu<T> bitFlagLuPivotedCuda(const BitFlagMatrix<T>& a, const BitFlagBlockedLuOptions& options = {});

// The vendor baselines the benchmark measures against, as whole operations on host CSR (upload,
// run, download): cuSPARSE csrgeam2 for C = A + sign B (sign -1 negates B's values on the host) and
// the generic SpGEMM for C = A B. fp32 with 32-bit indices, as cuSPARSE's fastest paths; more than
// 2^31 - 1 entries throw InputError, mismatched shapes InputError, no device BackendUnavailableError.
CsrMatrix<float> csrAddCusparse(const CsrMatrix<float>& a, const CsrMatrix<float>& b, float sign = 1.0f);
CsrMatrix<float> csrMultiplyCusparse(const CsrMatrix<float>& a, const CsrMatrix<float>& b);
// cuSOLVER getrf (dense, partial pivoting) on the matrix's dense expansion, as a whole operation
// (expand, upload, factor, download, pack into bit flags): the vendor answer to bitFlagLuPivoted, with
// the same row-order convention and the same singularity rule (a pivot <= tolerance x max|A| throws
// BitFlagPivotError naming the step; tolerance < 0: the default). Non-square InputError; orders whose
// dense n x n passes 4e8 elements InputError; no device BackendUnavailableError.
template <typename T> BitFlagPivotedLu<T> bitFlagLuPivotedCusolver(const BitFlagMatrix<T>& a, double tolerance = -1);

} // namespace spyglass
