#pragma once
// Method A's SpMV on the device: the row-major bit-flag form uploaded once, multiplied many times
// (what the format comparison and the benchmark time). Internal to gpu/.
#include "spyglass/cuda/devicebuffer.h"

#include "spyglass/bitflag.h"

#include <cstdint>

namespace spyglass::cuda {

template <typename T>
class DeviceBitFlagSpmv {
public:
    // m must be row-major (the caller checks). Flag words are uploaded as 64-bit words (a <= 32-column
    // row widened, its high half zero) so that one kernel serves both geometries.
    explicit DeviceBitFlagSpmv(const BitFlagMatrix<T>& m, cudaStream_t stream = nullptr);
    // y = A x: a group of groupWidth() lanes per row (a warp for wide rows, fewer for short ones).
    void multiply(const T* x, T* y, cudaStream_t stream = nullptr) const;
    int groupWidth() const { return m_groupWidth; }
    // Bytes held on the device for the matrix (flags, row starts, values).
    std::size_t deviceBytes() const { return m_flags.bytes() + m_rowStart.bytes() + m_values.bytes(); }
    // Bytes one SpMV must move at least: the matrix, x once and y once.
    double bytesMoved() const { return m_bytesMoved; }

private:
    Index m_rows = 0, m_cols = 0, m_wordsPerLine = 0;
    int m_groupWidth = 32;
    double m_bytesMoved = 0;
    DeviceBuffer<std::uint64_t> m_flags;
    DeviceBuffer<Count> m_rowStart;
    DeviceBuffer<T> m_values;
};

} // namespace spyglass::cuda
