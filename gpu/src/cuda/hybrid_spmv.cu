// Method D SpMV on the GPU: one warp per row sums the row's residual entries, and for each region
// covering the row adds the span's sum from fp64 prefix sums of x and subtracts x at its zeros.
// Everything is accumulated in fp64 and rounded once, exactly like hybridSpmvReference.
#include "hybrid_spmv_device.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <type_traits>

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

// Index of the last strip whose key is <= value (keys sorted, keys[0] <= value assumed by caller).
__device__ inline std::int32_t lastAtMost(const std::int32_t* keys, std::int32_t count, std::int32_t value) {
    std::int32_t lo = 0, hi = count - 1;
    while (lo < hi) {
        const std::int32_t mid = (lo + hi + 1) / 2;
        if (keys[mid] <= value) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

// Rows outside every region: residual entries only, G lanes per row (G matches the mean row length,
// so short rows do not leave most of a warp idle). Every lane reaches the shuffles.
template <typename T, int G>
__global__ void residualRowsKernel(std::int32_t rows, const T* __restrict__ x, const Count* __restrict__ rowPtr,
                                   const Index* __restrict__ cols, std::int32_t stripCount,
                                   const std::int32_t* __restrict__ stripRowBegin,
                                   const std::int32_t* __restrict__ stripRowsPrefix, T* __restrict__ y) {
    const std::int64_t group = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / G;
    const int lane = threadIdx.x % G;
    bool active = group < rows;
    const std::int32_t row = active ? static_cast<std::int32_t>(group) : 0;
    if (active && stripCount > 0 && stripRowBegin[0] <= row) {
        const std::int32_t s = lastAtMost(stripRowBegin, stripCount, row);
        if (row < stripRowBegin[s] + (stripRowsPrefix[s + 1] - stripRowsPrefix[s])) active = false;
    }
    double acc = 0.0;
    if (active)
        for (Count k = rowPtr[row] + lane; k < rowPtr[row + 1]; k += G) acc += static_cast<double>(x[cols[k]]);
    for (int offset = G / 2; offset > 0; offset >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, offset, G);
    if (active && lane == 0) y[row] = static_cast<T>(acc);
}

// Rows covered by regions: one warp per row; residual entries, then per region the span's sum from
// the prefix sums minus x at the region's zeros in this row.
template <typename T>
__global__ void coveredRowsKernel(std::int32_t coveredRows, const T* __restrict__ x, const double* __restrict__ prefix,
                                  const Count* __restrict__ residualRowPtr, const Index* __restrict__ residualCols,
                                  const DeviceRegion* __restrict__ regions, const std::uint32_t* __restrict__ zeroRowPtr,
                                  const std::uint16_t* __restrict__ zeroOffsets, std::int32_t stripCount,
                                  const std::int32_t* __restrict__ stripRowBegin, const std::int32_t* __restrict__ stripRowsPrefix,
                                  const std::int32_t* __restrict__ stripRegionPtr, const std::int32_t* __restrict__ stripRegions,
                                  T* __restrict__ y) {
    const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x & 31;
    if (warp >= coveredRows) return;  // uniform per warp
    const std::int32_t k = static_cast<std::int32_t>(warp);
    const std::int32_t s = lastAtMost(stripRowsPrefix, stripCount, k);
    const std::int32_t row = stripRowBegin[s] + (k - stripRowsPrefix[s]);
    double acc = 0.0;
    for (Count e = residualRowPtr[row] + lane; e < residualRowPtr[row + 1]; e += 32) acc += static_cast<double>(x[residualCols[e]]);
    for (std::int32_t q = stripRegionPtr[s]; q < stripRegionPtr[s + 1]; ++q) {
        const DeviceRegion r = regions[stripRegions[q]];
        std::int32_t begin, end;
        regionSpan(r, row, begin, end);
        if (begin >= end) continue;
        if (lane == 0) acc += prefix[end] - prefix[begin];
        const std::int64_t ptr = r.zeroRowPtrBase + (row - r.rowBegin);
        const std::int64_t zBegin = r.zeroBase + zeroRowPtr[ptr], zEnd = r.zeroBase + zeroRowPtr[ptr + 1];
        const T* xs = x + begin;
        for (std::int64_t z = zBegin + lane; z < zEnd; z += 32) acc -= static_cast<double>(xs[zeroOffsets[z]]);
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

void HybridDeviceMatrix::stage(const HybridBinaryMatrix& hybrid) {
    m_rows = hybrid.rows;
    m_cols = hybrid.cols;
    Staged staged;
    staged.residual = &hybrid.residual;
    std::vector<std::int32_t> boundaries;
    for (const HybridBlock& block : hybrid.blocks) {
        const DenseRegion& r = block.region;
        staged.regions.push_back({static_cast<std::int32_t>(r.shape), static_cast<std::int32_t>(r.corner), r.rowBegin,
                                  r.rowEnd, r.colBegin, r.colEnd, r.bandLow, r.bandHigh,
                                  static_cast<std::int64_t>(staged.zeroRowPtr.size()),
                                  static_cast<std::int64_t>(staged.zeroOffsets.size())});
        staged.zeroRowPtr.insert(staged.zeroRowPtr.end(), block.zeroRowPtr.begin(), block.zeroRowPtr.end());
        staged.zeroOffsets.insert(staged.zeroOffsets.end(), block.zeroOffsets.begin(), block.zeroOffsets.end());
        boundaries.push_back(r.rowBegin);
        boundaries.push_back(r.rowEnd);
    }
    std::sort(boundaries.begin(), boundaries.end());
    boundaries.erase(std::unique(boundaries.begin(), boundaries.end()), boundaries.end());
    staged.stripRowsPrefix.push_back(0);
    staged.stripRegionPtr.push_back(0);
    for (std::size_t s = 0; s + 1 < boundaries.size(); ++s) {
        const std::size_t before = staged.stripRegions.size();
        for (std::size_t b = 0; b < hybrid.blocks.size(); ++b)
            if (hybrid.blocks[b].region.rowBegin <= boundaries[s] && boundaries[s] < hybrid.blocks[b].region.rowEnd)
                staged.stripRegions.push_back(static_cast<std::int32_t>(b));
        if (staged.stripRegions.size() == before) continue;  // a gap between regions
        staged.stripRowBegin.push_back(boundaries[s]);
        staged.stripRowsPrefix.push_back(staged.stripRowsPrefix.back() + (boundaries[s + 1] - boundaries[s]));
        staged.stripRegionPtr.push_back(static_cast<std::int32_t>(staged.stripRegions.size()));
    }
    m_regionCount = static_cast<std::int32_t>(staged.regions.size());
    m_stripCount = static_cast<std::int32_t>(staged.stripRowBegin.size());
    m_coveredRows = staged.stripRowsPrefix.back();
    // Lanes per residual row: the power of two nearest the mean row length, 2..32.
    const double mean = hybrid.rows ? static_cast<double>(hybrid.residual.nnz()) / hybrid.rows : 0.0;
    m_groupSize = 2;
    while (m_groupSize < 32 && m_groupSize * 1.5 < mean) m_groupSize *= 2;
    m_staged = std::move(staged);
}

void HybridDeviceMatrix::upload(cudaStream_t stream) {
    const Staged& staged = m_staged;
    if (!staged.residual) throw Error("hybrid device matrix: upload before stage");
    m_regions.upload(staged.regions, stream);
    m_zeroRowPtr.upload(staged.zeroRowPtr, stream);
    m_zeroOffsets.upload(staged.zeroOffsets, stream);
    m_residualRowPtr.upload(staged.residual->rowPtr, stream);
    m_residualCols.upload(staged.residual->colIndex, stream);
    m_stripRowBegin.upload(staged.stripRowBegin, stream);
    m_stripRowsPrefix.upload(staged.stripRowsPrefix, stream);
    m_stripRegionPtr.upload(staged.stripRegionPtr, stream);
    m_stripRegions.upload(staged.stripRegions, stream);
    m_uploadedBytes = m_regions.bytes() + m_zeroRowPtr.bytes() + m_zeroOffsets.bytes() + m_residualRowPtr.bytes() +
                      m_residualCols.bytes() + m_stripRowBegin.bytes() + m_stripRowsPrefix.bytes() +
                      m_stripRegionPtr.bytes() + m_stripRegions.bytes();
    if (m_regionCount > 0 && m_prefix.size() != static_cast<std::size_t>(m_cols) + 1) {
        m_prefix.resize(static_cast<std::size_t>(m_cols) + 1);
        m_scanInput.resize(static_cast<std::size_t>(std::max<Index>(m_cols, 1)));
        std::size_t tempBytes = 0;
        SPYGLASS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, tempBytes, m_scanInput.data(), m_prefix.data() + 1,
                                                          m_cols, stream));
        m_scanTemp.resize(std::max<std::size_t>(tempBytes, 1));
        SPYGLASS_CUDA_CHECK(cudaMemsetAsync(m_prefix.data(), 0, sizeof(double), stream));
    }
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
    const unsigned residualGrid = static_cast<unsigned>((static_cast<std::int64_t>(m_rows) * m_groupSize + 255) / 256);
    auto launchResidual = [&](auto groupTag) {
        constexpr int G = decltype(groupTag)::value;
        residualRowsKernel<T, G><<<residualGrid, 256, 0, stream>>>(m_rows, x, m_residualRowPtr.data(), m_residualCols.data(),
                                                                   m_stripCount, m_stripRowBegin.data(),
                                                                   m_stripRowsPrefix.data(), y);
    };
    switch (m_groupSize) {
    case 2: launchResidual(std::integral_constant<int, 2>{}); break;
    case 4: launchResidual(std::integral_constant<int, 4>{}); break;
    case 8: launchResidual(std::integral_constant<int, 8>{}); break;
    case 16: launchResidual(std::integral_constant<int, 16>{}); break;
    default: launchResidual(std::integral_constant<int, 32>{}); break;
    }
    SPYGLASS_CUDA_CHECK_LAUNCH();
    if (m_coveredRows > 0) {
        coveredRowsKernel<T><<<gridForRows(m_coveredRows), kWarpsPerBlock * 32, 0, stream>>>(
            m_coveredRows, x, m_prefix.data(), m_residualRowPtr.data(), m_residualCols.data(), m_regions.data(),
            m_zeroRowPtr.data(), m_zeroOffsets.data(), m_stripCount, m_stripRowBegin.data(), m_stripRowsPrefix.data(),
            m_stripRegionPtr.data(), m_stripRegions.data(), y);
        SPYGLASS_CUDA_CHECK_LAUNCH();
    }
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
