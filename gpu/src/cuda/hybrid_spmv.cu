// Method D SpMV on the GPU: one warp per row sums the row's residual entries, and for each region
// covering the row adds the span's sum from fp64 prefix sums of x and subtracts x at its zeros.
// Everything is accumulated in fp64 and rounded once, exactly like hybridSpmvReference.
#include "hybrid_spmv_device.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <cub/device/device_scan.cuh>

#include <algorithm>

namespace spyglass::cuda {

namespace {

constexpr int kWarpsPerBlock = 8;

// Mirrors DenseRegion::span (hybrid_region.cpp); the tests compare both paths on every shape.
__device__ inline void regionSpan(const DeviceRegion& r, std::int32_t row, std::int32_t& begin, std::int32_t& end) {
    const long long rr = row - r.rowBegin, h = r.rowEnd - r.rowBegin, w = r.colEnd - r.colBegin;
    long long b = 0, e = w;
    if (r.shape == 1) {
        switch (r.corner) {
        case 0: e = ((rr + 1) * w + h - 1) / h; break;
        case 1: b = (rr * w) / h; break;
        case 2: e = ((h - rr) * w + h - 1) / h; break;
        default: b = ((h - 1 - rr) * w) / h; break;
        }
    } else if (r.shape == 2) {
        b = rr + r.bandLow > 0 ? rr + r.bandLow : 0;
        e = rr + r.bandHigh + 1 < w ? rr + r.bandHigh + 1 : w;
    }
    if (e < b) e = b;
    begin = static_cast<std::int32_t>(r.colBegin + b);
    end = static_cast<std::int32_t>(r.colBegin + e);
}

__device__ inline double warpSum(double v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

template <typename T>
__global__ void toDoubleKernel(const T* x, double* out, std::int32_t n) {
    const std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (j < n) out[j] = static_cast<double>(x[j]);
}

template <typename T>
__global__ void hybridRowsKernel(std::int32_t rows, const T* __restrict__ x, const double* __restrict__ prefix,
                                 const Count* __restrict__ residualRowPtr, const Index* __restrict__ residualCols,
                                 const DeviceRegion* __restrict__ regions, const std::uint32_t* __restrict__ zeroRowPtr,
                                 const std::uint16_t* __restrict__ zeroOffsets, std::int32_t stripCount,
                                 const std::int32_t* __restrict__ stripStart, const std::int32_t* __restrict__ stripRegionPtr,
                                 const std::int32_t* __restrict__ stripRegions, T* __restrict__ y) {
    const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (warp >= rows) return;
    const std::int32_t row = static_cast<std::int32_t>(warp);
    double acc = 0.0;
    for (Count k = residualRowPtr[row] + lane; k < residualRowPtr[row + 1]; k += 32) acc += static_cast<double>(x[residualCols[k]]);
    if (stripCount > 0) {
        // Last strip starting at or before row (strip starts are sorted, stripStart[0] == 0).
        std::int32_t lo = 0, hi = stripCount - 1;
        while (lo < hi) {
            const std::int32_t mid = (lo + hi + 1) / 2;
            if (stripStart[mid] <= row) lo = mid;
            else hi = mid - 1;
        }
        for (std::int32_t s = stripRegionPtr[lo]; s < stripRegionPtr[lo + 1]; ++s) {
            const DeviceRegion r = regions[stripRegions[s]];
            std::int32_t begin, end;
            regionSpan(r, row, begin, end);
            if (begin >= end) continue;
            if (lane == 0) acc += prefix[end] - prefix[begin];
            const std::int64_t ptr = r.zeroRowPtrBase + (row - r.rowBegin);
            const std::int64_t zBegin = r.zeroBase + zeroRowPtr[ptr], zEnd = r.zeroBase + zeroRowPtr[ptr + 1];
            for (std::int64_t z = zBegin + lane; z < zEnd; z += 32) acc -= static_cast<double>(x[begin + zeroOffsets[z]]);
        }
    }
    acc = warpSum(acc);
    if (lane == 0) y[row] = static_cast<T>(acc);
}

template <typename T>
__global__ void patternCsrKernel(std::int32_t rows, const T* __restrict__ x, const Count* __restrict__ rowPtr,
                                 const Index* __restrict__ cols, T* __restrict__ y) {
    const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (warp >= rows) return;
    double acc = 0.0;
    for (Count k = rowPtr[warp] + lane; k < rowPtr[warp + 1]; k += 32) acc += static_cast<double>(x[cols[k]]);
    acc = warpSum(acc);
    if (lane == 0) y[warp] = static_cast<T>(acc);
}

unsigned gridForRows(Index rows) {
    return static_cast<unsigned>((static_cast<std::int64_t>(rows) + kWarpsPerBlock - 1) / kWarpsPerBlock);
}

} // namespace

void HybridDeviceMatrix::upload(const HybridBinaryMatrix& hybrid, cudaStream_t stream) {
    m_rows = hybrid.rows;
    m_cols = hybrid.cols;
    std::vector<DeviceRegion> regions;
    std::vector<std::uint32_t> zeroRowPtr;
    std::vector<std::uint16_t> zeroOffsets;
    std::vector<std::int32_t> boundaries{0};
    for (const HybridBlock& block : hybrid.blocks) {
        const DenseRegion& r = block.region;
        regions.push_back({static_cast<std::int32_t>(r.shape), static_cast<std::int32_t>(r.corner), r.rowBegin, r.rowEnd,
                           r.colBegin, r.colEnd, r.bandLow, r.bandHigh, static_cast<std::int64_t>(zeroRowPtr.size()),
                           static_cast<std::int64_t>(zeroOffsets.size())});
        zeroRowPtr.insert(zeroRowPtr.end(), block.zeroRowPtr.begin(), block.zeroRowPtr.end());
        zeroOffsets.insert(zeroOffsets.end(), block.zeroOffsets.begin(), block.zeroOffsets.end());
        boundaries.push_back(r.rowBegin);
        boundaries.push_back(r.rowEnd);
    }
    std::sort(boundaries.begin(), boundaries.end());
    boundaries.erase(std::unique(boundaries.begin(), boundaries.end()), boundaries.end());
    std::vector<std::int32_t> stripRegionPtr{0}, stripRegions;
    for (std::size_t s = 0; s < boundaries.size(); ++s) {
        for (std::size_t b = 0; b < hybrid.blocks.size(); ++b)
            if (hybrid.blocks[b].region.rowBegin <= boundaries[s] && boundaries[s] < hybrid.blocks[b].region.rowEnd)
                stripRegions.push_back(static_cast<std::int32_t>(b));
        stripRegionPtr.push_back(static_cast<std::int32_t>(stripRegions.size()));
    }
    m_regionCount = static_cast<std::int32_t>(regions.size());
    m_stripCount = regions.empty() ? 0 : static_cast<std::int32_t>(boundaries.size());
    m_regions.upload(regions, stream);
    m_zeroRowPtr.upload(zeroRowPtr, stream);
    m_zeroOffsets.upload(zeroOffsets, stream);
    m_residualRowPtr.upload(hybrid.residual.rowPtr, stream);
    m_residualCols.upload(hybrid.residual.colIndex, stream);
    m_stripStart.upload(boundaries, stream);
    m_stripRegionPtr.upload(stripRegionPtr, stream);
    m_stripRegions.upload(stripRegions, stream);
    m_uploadedBytes = m_regions.bytes() + m_zeroRowPtr.bytes() + m_zeroOffsets.bytes() + m_residualRowPtr.bytes() +
                      m_residualCols.bytes() + m_stripStart.bytes() + m_stripRegionPtr.bytes() + m_stripRegions.bytes();
    if (m_regionCount > 0) {
        m_prefix.resize(static_cast<std::size_t>(m_cols) + 1);
        m_scanInput.resize(static_cast<std::size_t>(std::max<Index>(m_cols, 1)));
        std::size_t tempBytes = 0;
        SPYGLASS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, tempBytes, m_scanInput.data(), m_prefix.data() + 1,
                                                          m_cols, stream));
        m_scanTemp.resize(std::max<std::size_t>(tempBytes, 1));
        SPYGLASS_CUDA_CHECK(cudaMemsetAsync(m_prefix.data(), 0, sizeof(double), stream));
    }
    // The host vectors above die on return: the pageable copies must be finished by then.
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename T>
void HybridDeviceMatrix::multiply(const T* x, T* y, cudaStream_t stream) {
    if (m_rows == 0) return;
    if (m_regionCount > 0 && m_cols > 0) {
        toDoubleKernel<T><<<static_cast<unsigned>((m_cols + 255) / 256), 256, 0, stream>>>(x, m_scanInput.data(), m_cols);
        SPYGLASS_CUDA_CHECK_LAUNCH();
        std::size_t tempBytes = m_scanTemp.size();
        SPYGLASS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(m_scanTemp.data(), tempBytes, m_scanInput.data(),
                                                          m_prefix.data() + 1, m_cols, stream));
    }
    hybridRowsKernel<T><<<gridForRows(m_rows), kWarpsPerBlock * 32, 0, stream>>>(
        m_rows, x, m_prefix.data(), m_residualRowPtr.data(), m_residualCols.data(), m_regions.data(), m_zeroRowPtr.data(),
        m_zeroOffsets.data(), m_stripCount, m_stripStart.data(), m_stripRegionPtr.data(), m_stripRegions.data(), y);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

void PatternCsrDevice::upload(const BinaryPattern& pattern, cudaStream_t stream) {
    m_rows = pattern.rows;
    m_rowPtr.upload(pattern.rowPtr, stream);
    m_cols.upload(pattern.colIndex, stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename T>
void PatternCsrDevice::multiply(const T* x, T* y, cudaStream_t stream) {
    if (m_rows == 0) return;
    patternCsrKernel<T><<<gridForRows(m_rows), kWarpsPerBlock * 32, 0, stream>>>(m_rows, x, m_rowPtr.data(), m_cols.data(), y);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template void HybridDeviceMatrix::multiply<float>(const float*, float*, cudaStream_t);
template void HybridDeviceMatrix::multiply<double>(const double*, double*, cudaStream_t);
template void PatternCsrDevice::multiply<float>(const float*, float*, cudaStream_t);
template void PatternCsrDevice::multiply<double>(const double*, double*, cudaStream_t);

} // namespace spyglass::cuda

namespace spyglass {

template <typename T>
std::vector<T> hybridSpmvCuda(const HybridBinaryMatrix& hybrid, const std::vector<T>& x) {
    if (x.size() != static_cast<std::size_t>(hybrid.cols))
        throw InputError("hybrid SpMV (CUDA): x has " + std::to_string(x.size()) + " entries, the matrix has " +
                         std::to_string(hybrid.cols) + " columns");
    const DeviceInfo device = cudaDeviceInfo();
    if (!device.present) throw BackendUnavailableError("hybrid SpMV needs a CUDA device: " + device.reason);
    std::vector<T> y(static_cast<std::size_t>(hybrid.rows));
    if (hybrid.rows == 0) return y;
    cudaStream_t stream = nullptr;
    cuda::HybridDeviceMatrix matrix;
    matrix.upload(hybrid, stream);
    cuda::DeviceBuffer<T> dx, dy(y.size());
    dx.upload(x, stream);
    if (x.empty()) dx.resize(1);
    matrix.multiply(dx.data(), dy.data(), stream);
    dy.download(y.data(), y.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return y;
}

template std::vector<float> hybridSpmvCuda(const HybridBinaryMatrix&, const std::vector<float>&);
template std::vector<double> hybridSpmvCuda(const HybridBinaryMatrix&, const std::vector<double>&);

} // namespace spyglass
