#pragma once
// Method A on the device: the bit-flag arrays in device memory and the kernels' launchers. The device
// copy always holds 64-bit flag words (a 32-bit line is widened, its high half zero) so that one kernel
// serves both geometries, and always carries per-word prefix counts for add and multiply; whether the
// batch get uses them is the caller's choice (usePrefix), as in the host format.
#include "device_buffer.h"

#include "spyglass/bitflag.h"

#include <cstdint>

namespace spyglass::cuda {

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
    std::size_t bytes(bool withPrefix) const {
        return m_flags.bytes() + m_lineStart.bytes() + m_values.bytes() + (withPrefix ? m_prefix.bytes() : 0);
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

// C = A + sign B (same order and shape). Allocates C's arrays; symbolic count, scan, numeric fill.
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
// Each call does the whole operation, output allocation included, as the bit-flag versions do.
struct DeviceCsr32 {
    int rows = 0, cols = 0, nnz = 0;
    DeviceBuffer<int> rowPtr, colIndex;
    DeviceBuffer<float> values;
    explicit DeviceCsr32(const CsrMatrix<float>& csr);
    DeviceCsr32() = default;
    CsrMatrix<float> download() const;
};
// C = A + B by csrgeam2.
void cusparseCsrAdd(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, cudaStream_t stream = nullptr);
// C = A B by the generic SpGEMM (ALG_DEFAULT).
void cusparseCsrMultiply(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, cudaStream_t stream = nullptr);
} // namespace spyglass::cuda
