#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// Device side of the valued hybrid form (method D on any real matrix): uploaded once, multiplied
// many times: the stream-level device API the benchmarks time.
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/hybrid_valued.h"

namespace spyglass::cuda {

// One row of one region as the kernel reads it: the span's first column, its length, and where its
// values start in the flat value array. Planned on the host from DenseRegion::span, so the kernel
// needs no copy of the shape geometry.
struct ValuedRegionRow {
    std::int32_t colBegin, length;
    std::int64_t valueStart;
};

// A region: its rows and the index of its first ValuedRegionRow.
struct ValuedDeviceRegion {
    std::int32_t rowBegin, rowEnd;
    std::int64_t rowInfoBase;
};

// One block's work: rows [rowBegin, rowEnd) of a covered strip (strip >= 0; a warp per row, each
// region of the strip a dense dot product over the row's span, plus the row's residual entries), or
// residual-only rows: `lanes` threads per row (kResidualRows), or one very long row (kLongRow).
struct ValuedTile {
    static constexpr std::int32_t kResidualRows = -1, kLongRow = -2;
    std::int32_t rowBegin, rowEnd, strip, lanes;
};

template <typename T>
class HybridValuedDeviceMatrix {
public:
    // Flattens the encoding into the arrays the device reads and plans the tiles (host only, once).
    void stage(const HybridValuedMatrix<T>& hybrid);
    // Copies the staged arrays (and the blocks' values, straight from the encoding) to the device.
    void upload(cudaStream_t stream);
    void upload(const HybridValuedMatrix<T>& hybrid, cudaStream_t stream) {
        stage(hybrid);
        upload(stream);
    }
    // y = A x on the device; x has cols entries, y rows.
    void multiply(const T* x, T* y, cudaStream_t stream);
    std::size_t uploadedBytes() const { return m_uploadedBytes; }

private:
    const HybridValuedMatrix<T>* m_source = nullptr;
    Index m_rows = 0, m_cols = 0;
    std::int32_t m_tileCount = 0;
    std::size_t m_uploadedBytes = 0;
    std::vector<ValuedDeviceRegion> m_hostRegions;
    std::vector<ValuedRegionRow> m_hostRegionRows;
    std::vector<std::int32_t> m_hostStripRegionPtr, m_hostStripRegions;
    std::vector<ValuedTile> m_hostTiles;
    std::vector<std::int64_t> m_valueStarts;  // per block, into m_values

    DeviceBuffer<ValuedDeviceRegion> m_regions;
    DeviceBuffer<ValuedRegionRow> m_regionRows;
    DeviceBuffer<T> m_values;
    DeviceBuffer<Count> m_residualRowPtr;
    DeviceBuffer<Index> m_residualCols;
    DeviceBuffer<T> m_residualValues;
    DeviceBuffer<std::int32_t> m_stripRegionPtr, m_stripRegions;
    DeviceBuffer<ValuedTile> m_tiles;
};

} // namespace spyglass::cuda
