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

#include "spyglass/measurement.h"

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
// ||P A - L U||_F / ||A||_F computed in double (dense, O(n^3): for checking, not for large n).
template <typename T> double bitFlagLuResidual(const BitFlagMatrix<T>& a, const BitFlagPivotedLu<T>& lu);

// Who computes an operation. Not every backend offers every operation: one that does not throws
// InputError naming the operation and the backend (the list is at each entry below).
enum class BitFlagBackend {
    Reference,  // plain C++ on the CPU: the CPU path and the test oracle
    Cuda,       // Spyglass's kernels
    Vendor      // NVIDIA's libraries as baselines: cuSOLVER getrf (LU), cuSPARSE (the CSR baselines)
};
const char* toString(BitFlagBackend backend);

// How the Cuda batched LU maps matrices onto the GPU: the seed's one block per matrix (dense in shared
// memory), one warp per matrix (rows in shared memory, a lane per row), or register rows (a lane holds
// a row in registers, the pivot row broadcast by warp shuffles; n <= bitFlagLuMaxOrder(PivotedBatched)).
// Auto: register rows where they apply (the fastest measured, bench/results/bitflag.md), else a warp per matrix.
enum class BitFlagBatchedLuLayout { Auto, BlockPerMatrix, WarpPerMatrix, RegisterRows };
const char* toString(BitFlagBatchedLuLayout layout);

// Which kernel factors a leaf (the panel's columns taken leafWidth at a time) of the Cuda LU with
// partial pivoting: the one-block leaf (one thread block, the leaf's rows in its shared memory) or the
// cluster leaf (a Hopper thread-block cluster, each block a slice of the leaf's rows, the pivot search
// across the cluster through distributed shared memory; needs compute capability 9.0: elsewhere
// bitFlagLuPivoted throws BackendUnavailableError). At equal leaf widths both give the same pivots and
// factors (the one-block leaf narrows where its rows do not fit one block; the cluster leaf does not).
// Auto: per leaf, the one-block leaf up to the 1024 rows its registers hold and the cluster leaf on
// taller leaves where the device runs clusters, else the one-block leaf throughout (on an H200,
// bench/results/bitflag_lu.md: the cluster leaf of 8 blocks beats the one-block leaf once that leaf
// keeps rows in shared memory, and loses to it on shorter leaves, where its exchange a column costs
// more than one block's steps).
enum class BitFlagLuLeaf { OneBlock, Cluster, Auto };
const char* toString(BitFlagLuLeaf leaf);

// Everything an operation takes besides its operands. Fields an operation or backend does not use are
// ignored.
struct BitFlagRunOptions {
    BitFlagBackend backend = BitFlagBackend::Reference;
    // LU: a pivot <= tolerance x max|A| fails (BitFlagPivotError); < 0: defaultPivotTolerance<T>(n).
    double tolerance = -1;
    // The Cuda batched LU without pivoting: its layout (the variant of that kernel family).
    BitFlagBatchedLuLayout layout = BitFlagBatchedLuLayout::Auto;
    // The Cuda LU with partial pivoting (blocked, right-looking, on the dense form): panels of
    // panelWidth columns (1..256; 0: automatic by the rows a panel has left, 32 up to 2560 and 128
    // above, the fastest measured on an H200, docs/method-a-bitflag.md) factored leafWidth columns at a time (1..32; smaller where a
    // leaf's rows do not fit shared memory), the rest by cuBLAS trsm and gemm.
    Index panelWidth = 0;
    Index leafWidth = 32;
    // The leaf's kernel (BitFlagLuLeaf) and, for the cluster leaf, its blocks (0: automatic, at least 32
    // rows a block, at least 2, at most 8 (faster than 16 and 4 at every order measured), fewer where
    // the device runs no cluster that large; 1..16: that many, fewer only where the device runs no
    // cluster that large, and 1 runs as 2: the blocks exchange candidates through distributed shared
    // memory, which needs a cluster of two).
    BitFlagLuLeaf leaf = BitFlagLuLeaf::Auto;
    Index leafClusterBlocks = 0;
    // The GPU backends' stream, a cudaStream_t (void* so that this header stays CUDA-free); null: the
    // default stream. Every entry still returns only when its result is on the host.
    void* stream = nullptr;
    // Reference multiply (R x C output elements) and LU (n^3 / 3): polled once per output row or
    // elimination step; the GPU backends look before they start. true -> CancelledError.
    const std::atomic<bool>* cancel = nullptr;
    // Reference multiply and LU: the fraction done (0..1), from the calling thread. May be empty.
    std::function<void(double)> progress;
    // GPU backends of add, subtract, multiply and LU: when set, the device work (kernels, or the
    // vendor's calls, with what the benchmark times beside them: scratch sizing, nnz readback) is
    // measured by the measurement engine with `timing` (measurement.h) and the figure stored here, the
    // upload and download timed apart. The result is that of the last timed call.
    Measurement* measured = nullptr;
    TimingOptions timing;
};

// Batch element get: out[q] = A(rowsQ[q], colsQ[q]). Reference, Cuda (one thread per query, the
// prefix counts used when the matrix has them). Unequal lengths or a query outside: InputError.
template <typename T>
std::vector<T> bitFlagGetBatch(const BitFlagMatrix<T>& matrix, const std::vector<Index>& rowsQ,
                               const std::vector<Index>& colsQ, const BitFlagRunOptions& options = {});
// A batch of writes, all or nothing: every query is checked first (equal lengths, inside the matrix,
// flag set) and the first bad one throws InputError naming its index and (i,j) with the matrix
// untouched; then the writes apply in order, so of repeated (i,j) the last value stays.
// Reference, Cuda (a pass that finds each query's slot in M and elects the last query per slot, then
// a pass that writes the elected values).
template <typename T>
void bitFlagSetBatch(BitFlagMatrix<T>& matrix, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                     const std::vector<T>& values, const BitFlagRunOptions& options = {});

// add/sub: same shape and order; flags of C = flags A | flags B; both -> a +- b, only A -> a,
// only B -> +-b. A cancellation keeps its flag with a stored 0, as cuSPARSE's geam does.
// Reference, Cuda (one kernel: line counts, look-back, popcount-ranked fill).
template <typename T>
BitFlagMatrix<T> bitFlagAdd(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagRunOptions& options = {});
template <typename T>
BitFlagMatrix<T> bitFlagSub(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagRunOptions& options = {});
// C = A B with A row-major and B column-major (other orders throw InputError): the flag of c(i,j)
// is set when row i of A and column j of B share a set bit (symbolic pass), its value is the sum of
// a(i,k) b(k,j) over the shared bits (numeric pass). C is row-major. Reference, Cuda.
template <typename T>
BitFlagMatrix<T> bitFlagMultiply(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagRunOptions& options = {});

// LU of a square matrix without pivoting (the seed). A zero or tiny pivot throws BitFlagPivotError
// naming the step; no NaN is ever returned. Non-finite values: InputError.
//   Reference: dense expansion, Doolittle elimination; n x n beyond 4e8 elements: InputError.
//   Cuda:      one block, the dense n x n in 48 KiB of shared memory; n above
//              bitFlagLuMaxOrder<T>(BitFlagLuForm::Single, cuda): InputError.
template <typename T> BitFlagLu<T> bitFlagLu(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options = {});
// LU with partial pivoting: at step k the row with the largest |a(i,k)| (i >= k, the first on ties)
// becomes the pivot row. When even that is <= tolerance x max|A| the matrix is singular to working
// precision: BitFlagPivotError naming the step.
//   Reference: dense expansion; the same size limit as bitFlagLu.
//   Cuda:      blocked right-looking LU on the dense form (its fill makes L and U dense at large n
//              anyway), panelWidth / leafWidth / leaf / leafClusterBlocks of the options.
//   Vendor:    cuSOLVER getrf on the dense column-major expansion; n x n beyond 4e8 elements: InputError.
template <typename T>
BitFlagPivotedLu<T> bitFlagLuPivoted(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options = {});
// The seed's LU on a batch, all n x n with the same n (Cuda only, options.layout). A bad pivot in any
// matrix throws BitFlagPivotError naming the matrix (in the message) and the step; n above the
// layout's maximum: InputError. An empty batch gives an empty answer.
template <typename T>
std::vector<BitFlagLu<T>> bitFlagLuBatched(const std::vector<BitFlagMatrix<T>>& batch, const BitFlagRunOptions& options);
// LU with partial pivoting on a batch (Cuda only, register rows), each matrix as bitFlagLuPivoted: the
// same pivot choices and row order, factors of P A_b. A matrix singular to working precision throws
// BitFlagPivotError naming the matrix (in the message) and the step; n above the maximum: InputError.
template <typename T>
std::vector<BitFlagPivotedLu<T>> bitFlagLuPivotedBatched(const std::vector<BitFlagMatrix<T>>& batch,
                                                         const BitFlagRunOptions& options);

// The LU entries, for bitFlagLuMaxOrder.
enum class BitFlagLuForm { Single, Pivoted, Batched, PivotedBatched };
// The largest order an LU entry accepts for T on options.backend (and, for Batched, options.layout):
// Cuda Single 96 in fp32 (the dense form in 48 KiB of shared memory; 0 without CUDA in the build),
// Pivoted the largest whose one-column leaf fits shared memory, PivotedBatched (register rows) 64 in
// fp32 and 32 in fp64, both 0 without a device; Reference and Vendor: the dense expansion's 20000
// (Batched forms: 0, not offered).
template <typename T> Index bitFlagLuMaxOrder(BitFlagLuForm form, const BitFlagRunOptions& options);

} // namespace spyglass
