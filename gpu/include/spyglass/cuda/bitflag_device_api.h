#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// Method A on the device: the bit-flag arrays in device memory and the kernels' launchers. The device
// copy always holds 64-bit flag words (a 32-bit line is widened, its high half zero) so that one kernel
// serves both geometries, and always carries per-word prefix counts for add and multiply; whether the
// batch get uses them is the caller's choice (usePrefix), as in the host format.
#include "spyglass/cuda/devicebuffer.h"

#include "spyglass/bitflag.h"

#include <cstdint>
#include <string>

namespace spyglass::cuda {

// Grows a buffer only when it is too small, so that an output reused across calls is not reallocated.
template <typename U>
void reserveAtLeast(DeviceBuffer<U>& buffer, std::size_t count) {
    if (buffer.size() < count) buffer.resize(count);
}

template <typename T>
struct BitFlagView {
    Index rows, cols, lines, wordsPerLine;
    const std::uint64_t* flags;
    const Count* lineStart;
    const std::uint32_t* prefix;
    const T* values;
};

template <typename T>
class DeviceBitFlag {
public:
    DeviceBitFlag() = default;
    explicit DeviceBitFlag(const BitFlagMatrix<T>& m, cudaStream_t stream = nullptr);
    BitFlagView<T> view() const;
    // Host bit-flag form of what the device holds (the host word geometry restored).
    BitFlagMatrix<T> download(BitFlagOrder order, bool prefixCounts, cudaStream_t stream = nullptr) const;
    // Bytes of the matrix itself (buffers may be larger: outputs keep their capacity between calls).
    std::size_t bytes(bool withPrefix) const {
        const std::size_t words = std::size_t(lines) * std::size_t(wordsPerLine);
        return words * sizeof(std::uint64_t) + (std::size_t(lines) + 1) * sizeof(Count) + std::size_t(nonzeros) * sizeof(T) +
               (withPrefix ? words * sizeof(std::uint32_t) : 0);
    }

    Index rows = 0, cols = 0, lines = 0, wordsPerLine = 0;
    Count nonzeros = 0;
    DeviceBuffer<std::uint64_t> m_flags;
    DeviceBuffer<Count> m_lineStart;
    DeviceBuffer<std::uint32_t> m_prefix;
    DeviceBuffer<T> m_values;
};

// out[q] = A(rowsQ[q], colsQ[q]); one thread per query.
template <typename T>
void launchBitFlagGet(const BitFlagView<T>& a, BitFlagOrder order, bool usePrefix, const Index* rowsQ, const Index* colsQ,
                      T* out, Count queries, cudaStream_t stream);
template <typename T>
void launchCsrGet(Index rows, const Count* rowPtr, const Index* colIndex, const T* values, const Index* rowsQ,
                  const Index* colsQ, T* out, Count queries, cudaStream_t stream);

// C = A + sign B (same order and shape), one kernel: per line the popcount of (flags A | flags B), a
// decoupled look-back across tiles of lines for C's line starts, then the values by popcount-ranked
// positions (flags of C = A | B, known without a symbolic pass). C's buffers grow only when too small;
// the values are sized nnz(A) + nnz(B) (the union can not be larger), so no count is read back before
// the fill; one synchronisation at the end reads nnz(C).
template <typename T>
void bitFlagAddDevice(const DeviceBitFlag<T>& a, const DeviceBitFlag<T>& b, T sign, DeviceBitFlag<T>& c,
                      DeviceBuffer<unsigned char>& scratch, cudaStream_t stream);
// C = A B (A row-major, B column-major; C row-major): symbolic pass (one thread per element, flags
// by warp ballot), scan of word counts, numeric pass (one thread per element).
template <typename T>
void bitFlagMultiplyDevice(const DeviceBitFlag<T>& a, const DeviceBitFlag<T>& b, DeviceBitFlag<T>& c,
                           DeviceBuffer<unsigned char>& scratch, cudaStream_t stream);

} // namespace spyglass::cuda

namespace spyglass::cuda {
// Largest order whose dense n x n fits the LU kernel's 48 KiB of shared memory.
template <typename T> Index luMaxOrder();
// Shared-memory LU of a square matrix (n <= luMaxOrder<T>()); dense receives the row-major result
// (L below the diagonal, U on and above). Returns the failed step, -1 when every pivot passed.
template <typename T>
int bitFlagLuDevice(const DeviceBitFlag<T>& a, BitFlagOrder order, double threshold, DeviceBuffer<T>& dense,
                    T* failedPivot, cudaStream_t stream = nullptr);
} // namespace spyglass::cuda

namespace spyglass::cuda {
// cuSPARSE baselines for the bit-flag operations, fp32 CSR with 32-bit indices, on device arrays.
// Each call does the whole operation and leaves the complete output (row pointers, column indices,
// values, nnz on the host) as the bit-flag versions do.
struct DeviceCsr32 {
    int rows = 0, cols = 0, nnz = 0;
    DeviceBuffer<int> rowPtr, colIndex;
    DeviceBuffer<float> values;
    explicit DeviceCsr32(const CsrMatrix<float>& csr);
    DeviceCsr32() = default;
    CsrMatrix<float> download() const;
};
// What an application keeps between cuSPARSE calls: the handle, the work buffers (grown only when too
// small) and the device-side scalars of the device pointer mode.
class CusparseWorkspace {
public:
    explicit CusparseWorkspace(cudaStream_t stream = nullptr);
    ~CusparseWorkspace();
    CusparseWorkspace(const CusparseWorkspace&) = delete;
    CusparseWorkspace& operator=(const CusparseWorkspace&) = delete;
    cusparseHandle_t handle() const { return m_handle; }
    cudaStream_t stream() const { return m_stream; }
    // csrgeam2's general matrix description, made once: an application keeps it with its handle.
    cusparseMatDescr_t generalDescription() const { return m_general; }
    // buffer3: ALG3's estimate buffer, kept so that a repeated multiply allocates nothing.
    DeviceBuffer<unsigned char> buffer1, buffer2, buffer3;
    DeviceBuffer<float> one;  // 1.0f
    DeviceBuffer<int> nnz;

private:
    cusparseHandle_t m_handle = nullptr;
    cusparseMatDescr_t m_general = nullptr;
    cudaStream_t m_stream = nullptr;
};
// C = A + B by csrgeam2 in device pointer mode: C's column and value arrays are sized nnz(A) + nnz(B)
// up front, so the library's count pass is not followed by a host round trip; nnz(C) is read at the end.
void cusparseCsrAdd(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, CusparseWorkspace& workspace);
// The generic SpGEMM's algorithms: Default (ALG_DEFAULT, the fastest, whose work buffer grows with
// the number of products and fails with INSUFFICIENT_RESOURCES on large dense-ish products) and
// MemoryBounded (ALG3: the products in chunks of a fifth, buffer sized by estimateMemory).
enum class SpGemmAlgorithm { Default, MemoryBounded };
const char* toString(SpGemmAlgorithm algorithm);
// C = A B by the generic SpGEMM; buffers and outputs grow only when too small.
void cusparseCsrMultiply(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, CusparseWorkspace& workspace,
                         SpGemmAlgorithm algorithm = SpGemmAlgorithm::Default);
// The same with a workspace of their own (handle created and destroyed per call).
void cusparseCsrAdd(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, cudaStream_t stream = nullptr);
void cusparseCsrMultiply(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, cudaStream_t stream = nullptr);
} // namespace spyglass::cuda

namespace spyglass::cuda {
// Dense LU baselines for method A (float or double).
// cuSOLVER getrf with partial pivoting on one column-major n x n matrix, in place; the workspace,
// pivots and info are allocated once. factor() only enqueues (nothing is read back).
template <typename T>
class CusolverDenseLu {
public:
    // a: a device n x n (column-major) of the size to be factored, for the workspace query.
    CusolverDenseLu(int n, T* a, cudaStream_t stream = nullptr);
    ~CusolverDenseLu();
    CusolverDenseLu(const CusolverDenseLu&) = delete;
    CusolverDenseLu& operator=(const CusolverDenseLu&) = delete;
    void factor(T* a);
    const DeviceBuffer<int>& pivots() const { return m_pivots; }  // 1-based, LAPACK's
    int info() const;                                             // reads back getrf's info (0: success)

private:
    int m_n;
    cusolverDnHandle_t m_handle = nullptr;
    DeviceBuffer<T> m_work;
    DeviceBuffer<int> m_pivots, m_info;
};
// cuBLAS getrfBatched on `batch` contiguous column-major n x n matrices, in place, with partial
// pivoting or without (the seed's algorithm); per-matrix info stays on the device.
template <typename T>
class CublasBatchedLu {
public:
    CublasBatchedLu(int n, int batch, T* matrices, cudaStream_t stream = nullptr);
    ~CublasBatchedLu();
    CublasBatchedLu(const CublasBatchedLu&) = delete;
    CublasBatchedLu& operator=(const CublasBatchedLu&) = delete;
    void factor(bool pivoting);
    std::vector<int> infos() const;
    const DeviceBuffer<int>& pivots() const { return m_pivots; }  // n per matrix, 1-based, LAPACK's (after factor(true))

private:
    int m_n, m_batch;
    cublasHandle_t m_handle = nullptr;
    DeviceBuffer<T*> m_pointers;
    DeviceBuffer<int> m_pivots, m_info;
};
} // namespace spyglass::cuda

namespace spyglass::cuda {
// The seed's shared-memory LU on a batch: `stacked` is the batch as one row-major bit-flag matrix of
// batch x n rows and n columns (matrix b is rows b n .. b n + n - 1); each matrix is expanded into
// shared memory, max|A_b| sets its pivot threshold (tolerance x max|A_b|), and it is eliminated
// without pivoting. dense receives the row-major factors of every matrix (L below the diagonal, U on
// and above); failedStep[b] is -1 or the first bad step of matrix b, failedPivot[b] its pivot.
// Layout: the seed's one block per matrix (two block barriers a step), one warp per matrix (a lane
// owns rows in shared memory, one __syncwarp a step, several matrices a block), or register rows.
// RegisterRows: a lane holds a row in registers (bitflag_lu_registerrows.cu), n <= registerRowsLuMaxOrder<T>().
// Auto: RegisterRows where it applies (the fastest measured, bench/results/bitflag.md), else WarpPerMatrix.
enum class BatchedLuLayout { BlockPerMatrix, WarpPerMatrix, RegisterRows, Auto };
template <typename T>
void bitFlagLuBatchedDevice(const DeviceBitFlag<T>& stacked, Index n, double tolerance, DeviceBuffer<T>& dense,
                            DeviceBuffer<int>& failedStep, DeviceBuffer<T>& failedPivot, cudaStream_t stream = nullptr,
                            BatchedLuLayout layout = BatchedLuLayout::Auto);

// Register rows: a group of lanes holds one matrix, a lane one row (n <= 32, several matrices a warp)
// or two (33..64, fp32), each read straight from the bit flags into registers; step k broadcasts the
// pivot row by __shfl_sync. The largest order it takes: 64 in fp32, 32 in fp64.
template <typename T> Index registerRowsLuMaxOrder();
// With pivoting, partial pivoting as bitFlagLuPivoted (largest |a(i,k)| among the rows not yet
// pivoted, the first by current position on ties), row exchanges done by reassigning positions;
// rowOrder[b n + i] = the row of A_b that is row i of P A_b, dense the row-major factors of P A_b.
// Without, the seed's elimination (rowOrder unused, may be null). failedStep/failedPivot as above.
template <typename T>
void launchRegisterRowsLu(const DeviceBitFlag<T>& stacked, Index n, Count batch, double tolerance, bool pivoting, T* dense,
                          int* rowOrder, int* failedStep, T* failedPivot, cudaStream_t stream);
// The pivoted batch with buffers grown as needed (n <= registerRowsLuMaxOrder<T>()).
template <typename T>
void bitFlagLuPivotedBatchedDevice(const DeviceBitFlag<T>& stacked, Index n, double tolerance, DeviceBuffer<T>& dense,
                                   DeviceBuffer<int>& rowOrder, DeviceBuffer<int>& failedStep, DeviceBuffer<T>& failedPivot,
                                   cudaStream_t stream = nullptr);

// Blocked right-looking LU with partial pivoting of the dense form of a square bit-flag matrix
// (row-major; in cuBLAS's column-major terms the transpose, so row swaps move contiguous rows).
//   expand:  one thread per element of the dense n x n (flag bit, prefix count, popcount);
//   panel:   for panels of panelWidth columns: a leaf kernel factors leafWidth columns at a time with
//            their rows in shared memory (pivot search, swap, scale, rank-1 update), applies its swaps
//            to the rest of the panel and solves the panel's next rows; cuBLAS gemm updates the
//            panel's remaining columns. Two leaf kernels (BlockedLuLeaf): the one-block leaf (all the
//            leaf's rows in one block) and the cluster leaf (bitflag_lu_clusterleaf.cu: a thread-block
//            cluster, each block a slice of the rows, the pivot search through distributed shared
//            memory; compute capability 9.0). Both pick the same pivots and compute the same factors;
//   outside: one kernel applies the panel's swaps to every other column (and, for a panel of at most
//            32 columns, gives U12 = L11^-1 A12); cuBLAS trsm gives U12 of wider panels and gemm
//            updates the trailing matrix.
// Auto picks per leaf: the one-block leaf up to the 1024 rows its registers hold, the cluster leaf on
// taller leaves where the device runs clusters (else the one-block leaf, narrowed where its rows do not
// fit the block's shared memory).
// A candidate pivot <= threshold is recorded (the first step and its value) and its column is left
// unscaled, so no inf or NaN is produced; the caller reports it.
enum class BlockedLuLeaf { OneBlock, Cluster, Auto };
template <typename T>
class BlockedLu {
public:
    explicit BlockedLu(cudaStream_t stream = nullptr);
    ~BlockedLu();
    BlockedLu(const BlockedLu&) = delete;
    BlockedLu& operator=(const BlockedLu&) = delete;
    static Index maxOrder();
    // The most blocks this device runs as one cluster of the cluster leaf (16 or 8; 0: no thread-block
    // clusters, the cluster leaf is not available). Asked of the device once per process.
    static int clusterLeafMaxBlocks();
    // Expands a (n x n) and factors it; enqueues only. panelWidth 1..256 (0: by the rows left, see
    // automaticPanelWidth), leafWidth 1..32. The cluster leaf takes clusterBlocks blocks at most (0:
    // automatic); an explicit Cluster on a device without clusters throws BackendUnavailableError before
    // enqueueing anything (Auto then takes the one-block leaf throughout).
    void factor(const DeviceBitFlag<T>& a, BitFlagOrder order, double threshold, Index panelWidth, Index leafWidth,
                BlockedLuLeaf leaf = BlockedLuLeaf::OneBlock, int clusterBlocks = 0);
    // Factors the row-major n x n already in dense().
    void factorDense(Index n, double threshold, Index panelWidth, Index leafWidth, BlockedLuLeaf leaf = BlockedLuLeaf::OneBlock,
                     int clusterBlocks = 0);
    // The automatic panel for a panel whose rows (n - p0) are `rows`. fp32: 32 up to 2560 rows, where
    // every leaf is the whole panel, 256 above, where the trailing gemm's width pays (H200: order 4096
    // 12.83 ms against 13.24 ms with 128 and 13.53 ms with 256 throughout,
    // bench/results/h200/bitflag_lu_exchange_sweep.md). fp64: 256 throughout; its leaves are at most 16
    // columns wide, so a panel of 32 is already two leaves and the wider gemm pays from 1024 rows on
    // (H200: 1024..4096 0.92x/0.94x/0.89x/0.87x getrf at panel 256 against 0.90x/0.92x/0.86x/0.85x by
    // the fp32 rule, bench/results/h200/bitflag_lu_fp64_trials.md).
    static Index automaticPanelWidth(Index rows) { return sizeof(T) == 8 || rows > 2560 ? 256 : 32; }
    // Reads back the first failed step (-1 when every pivot passed) and its pivot.
    int failedStep(T* pivot) const;
    DeviceBuffer<T>& dense() { return m_dense; }
    const DeviceBuffer<int>& pivots() const { return m_pivots; }  // 0-based: at step k rows k and pivots[k] swapped

private:
    cudaStream_t m_stream;
    cublasHandle_t m_handle = nullptr;
    DeviceBuffer<T> m_dense, m_failedPivot;
    DeviceBuffer<int> m_pivots, m_failedStep;
    std::size_t m_leafBytes = 0;  // dynamic shared memory a one-block leaf may use
    Index m_maxOrder = 0;
    // The cluster leaf, asked of the device at its first use (-1: not yet asked; 0: not available,
    // m_clusterLeafUnavailable says why).
    int m_clusterLeafMaxBlocks = -1;
    std::size_t m_clusterLeafBytes = 0;  // dynamic shared memory one block of the cluster leaf may use
    std::string m_clusterLeafUnavailable;
    // Asks once whether the device runs the cluster leaf.
    bool clustersRun();
    // Asks once; throws BackendUnavailableError when the device runs no cluster leaf.
    void askForClusters();
};
} // namespace spyglass::cuda
