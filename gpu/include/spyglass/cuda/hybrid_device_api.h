#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// Device side of method D: the hybrid form and a pattern-only CSR, uploaded once and multiplied
// many times: the stream-level device API the benchmarks time.
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/hybrid_binary.h"

namespace spyglass::cuda {

// One region as the kernel reads it: shape, box, and where its zeros live in the flat arrays.
struct DeviceRegion {
    std::int32_t shape, corner;
    std::int32_t rowBegin, rowEnd, colBegin, colEnd, bandLow, bandHigh;
    std::int64_t zeroRowPtrBase;  // index of the region's first row pointer in the flat array
    std::int64_t zeroBase;        // index of the region's first zero in the flat offsets
};

// One block's work in the SpMV kernel: rows [rowBegin, rowEnd) of one covered strip (strip >= 0), a
// warp per row; or residual-only rows: a run of short ones whose entries fit the block's shared
// buffer (kResidualRun), longer ones a warp each (kWarpRows), or one very long row (kLongRow).
struct HybridTile {
    static constexpr std::int32_t kResidualRun = -1, kLongRow = -2, kWarpRows = -3;
    std::int32_t rowBegin, rowEnd, strip, unused;
};

class HybridDeviceMatrix {
public:
    // Plans the tiles and lays out the region arrays (once; not part of the upload). The zeros and
    // their row pointers are not copied on the host: upload() sends each block's arrays straight
    // to its place in the device arrays, so `hybrid` must outlive the upload.
    void stage(const HybridBinaryMatrix& hybrid);
    // Copies the staged arrays to the device; returns when the copies are done.
    void upload(cudaStream_t stream);
    void upload(const HybridBinaryMatrix& hybrid, cudaStream_t stream) {
        stage(hybrid);
        upload(stream);
    }
    // y = A x on the device; x has cols entries, y rows. T: float or double.
    template <typename T>
    void multiply(const T* x, T* y, cudaStream_t stream);
    std::size_t uploadedBytes() const { return m_uploadedBytes; }
    Index rows() const { return m_rows; }
    Index cols() const { return m_cols; }

private:
    struct Staged {
        std::vector<DeviceRegion> regions;
        const HybridBinaryMatrix* hybrid = nullptr;  // its blocks' zeros and row pointers, sent as they are
        std::size_t zeroRowPtrCount = 0;
        std::size_t zeroCount = 0, paddedZeroCount = 0;  // padded: cp.async reads whole 16-byte chunks
        const BinaryPattern* residual = nullptr;
        std::vector<std::int32_t> stripRegionPtr, stripRegions;
        std::vector<HybridTile> tiles;
    };
    Staged m_staged;
    Index m_rows = 0, m_cols = 0;
    std::int32_t m_regionCount = 0, m_tileCount = 0;
    std::size_t m_uploadedBytes = 0;
    DeviceBuffer<DeviceRegion> m_regions;
    DeviceBuffer<std::uint32_t> m_zeroRowPtr;
    DeviceBuffer<std::uint16_t> m_zeroOffsets;
    DeviceBuffer<Count> m_residualRowPtr;
    DeviceBuffer<Index> m_residualCols;
    // Covered strips: maximal row ranges covered by the same non-empty set of regions (at most
    // 2 * regions), each with its list of regions; the tiles point into them.
    DeviceBuffer<std::int32_t> m_stripRegionPtr, m_stripRegions;
    DeviceBuffer<HybridTile> m_tiles;
};

// Our own pattern-only CSR (no values: every entry is 1), warp per row.
class PatternCsrDevice {
public:
    void upload(const BinaryPattern& pattern, cudaStream_t stream);
    template <typename T>
    void multiply(const T* x, T* y, cudaStream_t stream);
    std::size_t uploadedBytes() const { return m_rowPtr.bytes() + m_cols.bytes(); }

private:
    Index m_rows = 0;
    DeviceBuffer<Count> m_rowPtr;
    DeviceBuffer<Index> m_cols;
};

} // namespace spyglass::cuda
