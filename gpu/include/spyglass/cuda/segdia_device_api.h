#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// Device-resident SpMV operators of method B and its baselines. Each uploads its matrix once; then
// multiply() launches on a stream with x and y already on the device (what the benchmark times).
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"

namespace spyglass::cuda {

// Remainder rows with more entries than this are summed by a whole warp instead of their owner thread.
constexpr Index kLongRow = 16;

// Segmented DIA with merged blocks (and HDIA, which is the same storage without merging).
template <typename T>
class DeviceSegmentedDia {
public:
    explicit DeviceSegmentedDia(const SegmentedDiaMatrix<T>& matrix, cudaStream_t stream = nullptr);
    // y = A x with the kernel the variant picks (segdia_spmv.h: SegmentedDiaVariant); throws
    // InputError for a variant out of range.
    void multiply(const T* x, T* y, cudaStream_t stream = nullptr, const SegmentedDiaVariant& variant = {}) const;
    // The row-blocks remainder pass alone, as multiply runs it after the DIA pass: y += R x on rows of
    // segments with diagonals, y = R x on rows of segments without (for the benchmark's comparison with
    // cuSPARSE on the same rows). False, with nothing launched, when the row blocks do not apply.
    bool multiplyRemainderRowBlocks(const T* x, T* y, cudaStream_t stream = nullptr) const;
    // Row blocks of the remainder pass (0 without a remainder).
    Index remainderBlocks() const { return m_remainderBlockCount; }
    // One step of power iteration in the multiply's pass (segdia_powerstep.cu), for matrices without
    // a CSR remainder (canFusePowerStep; float and double): y = s A x with s = *scale on the device,
    // and for each thread block b < blocks() the partial sums y'y, x^'y, x^'x^ of x^ = s xOwn over its
    // rows in blockDots[3 b .. 3 b + 2]. xOwn is x at this matrix's row 0 (a partition's own share).
    bool canFusePowerStep() const { return !m_hasRemainder; }
    void powerStep(const T* x, const T* xOwn, T* y, const double* scale, double* blockDots, cudaStream_t stream) const;
    Index blocks() const { return m_blocks; }
    // Bytes one SpMV must move at least: the format's arrays, x once and y once.
    double bytesMoved() const { return m_bytes; }
    Index rows() const { return m_rows; }
    Index cols() const { return m_cols; }

private:
    Index m_rows = 0, m_cols = 0, m_blocks = 0, m_threshold = 0;
    double m_bytes = 0;
    bool m_hasRemainder = false;
    DeviceBuffer<Index> m_blockStart, m_blockSegments, m_segmentFirstRow, m_offsets;
    DeviceBuffer<Count> m_segmentOffsetStart, m_segmentValueStart;
    DeviceBuffer<T> m_values;
    // The CSR remainder, uploaded only when the matrix has one.
    DeviceBuffer<Count> m_segmentRemainderStart, m_segmentRemainderRowStart;
    DeviceBuffer<Index> m_remainderRowStart, m_remainderColumns, m_longRowStart, m_longRows;
    DeviceBuffer<T> m_remainderValues;
    // The row-blocks kernel's view of the remainder (core/segdia_remainder_blocks.h): global row starts
    // and row blocks; empty when the remainder does not index with 32 bits (Owners runs instead).
    DeviceBuffer<Index> m_remainderGlobalRowStart;
    DeviceBuffer<Index> m_remainderBlocks;  // RemainderRowBlock fields, five per block
    Index m_remainderBlockCount = 0;
    bool m_remainderLight = false;  // Automatic runs Owners (remainderIsLight)
    // The DIA pass that runs before the row blocks: segments with diagonals, merged by DIA work alone.
    DeviceBuffer<Index> m_diaPassBlockStart, m_diaPassBlockSegments;
    Index m_diaPassBlocks = 0;
};

// Plain DIA (Bell & Garland 2009): one thread per row over the whole matrix, offsets in shared memory.
template <typename T>
class DeviceDia {
public:
    explicit DeviceDia(const DiaMatrix<T>& matrix, cudaStream_t stream = nullptr);
    void multiply(const T* x, T* y, cudaStream_t stream = nullptr) const;
    double bytesMoved() const { return m_bytes; }

private:
    Index m_rows = 0, m_cols = 0, m_diagonals = 0;
    double m_bytes = 0;
    DeviceBuffer<Index> m_offsets;
    DeviceBuffer<T> m_values;
};

// cuSPARSE CSR SpMV through the generic API (cusparseSpMV), bound to device vectors x and y.
template <typename T>
class CusparseCsrSpmv {
public:
    // algorithm: CUSPARSE_SPMV_CSR_ALG1 (the default, cuSPARSE's fastest) or CUSPARSE_SPMV_CSR_ALG2
    // (deterministic row split).
    CusparseCsrSpmv(const CsrMatrix<T>& matrix, const T* x, T* y, cudaStream_t stream = nullptr,
                    cusparseSpMVAlg_t algorithm = CUSPARSE_SPMV_CSR_ALG1);
    ~CusparseCsrSpmv();
    CusparseCsrSpmv(const CusparseCsrSpmv&) = delete;
    CusparseCsrSpmv& operator=(const CusparseCsrSpmv&) = delete;
    // y = A x, or y += A x when accumulating (beta = 1: a second part of the same rows).
    void multiply(cudaStream_t stream = nullptr, bool accumulate = false);
    double bytesMoved() const { return m_bytes; }

private:
    Index m_rows = 0, m_cols = 0;
    double m_bytes = 0;
    cusparseSpMVAlg_t m_algorithm = CUSPARSE_SPMV_CSR_ALG1;
    cusparseHandle_t m_handle = nullptr;
    cusparseSpMatDescr_t m_matrix = nullptr;
    cusparseDnVecDescr_t m_x = nullptr, m_y = nullptr;
    DeviceBuffer<int> m_rowPtr, m_colIndex;
    DeviceBuffer<T> m_values;
    DeviceBuffer<unsigned char> m_workspace;
};

} // namespace spyglass::cuda
