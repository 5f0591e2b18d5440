// One step of power iteration fused into the segmented-DIA multiply (pure-DIA matrices: no CSR
// remainder). Unfused, a step is the multiply, a pass over y and x for the three dot products and a
// pass that writes y / ||y|| into x: 32 more bytes a row on top of a 7-point stencil's 72 (f64), plus
// two launches. Here the normalisation is applied when x is read instead of when it is written
// (y = s A x with s = 1 / ||previous y||, read from device memory so that no step waits for the host),
// and each thread adds its rows' terms of y'y, x^'y and x^'x^ (x^ = s x, its own rows) to three sums
// that the block reduces into blockDots. Partial sums per block and a fixed summing order keep the
// result deterministic, as in the unfused path (multigpu_kernels.cu).
#include "device_scalar_access.cuh"
#include "segdia_vector16.cuh"
#include "spyglass/cuda/segdia_device_api.h"

namespace spyglass::cuda {

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

struct DotSums {
    double yy = 0, xy = 0, xx = 0;
    __device__ void add(double y, double x) {
        yy += y * y;
        xy += x * y;
        xx += x * x;
    }
};

// Row r of the segment (r = firstRow + i, local to the matrix): y[r] = s sum, and its dot terms.
template <typename T>
__device__ __forceinline__ void finishRow(T sum, double scale, Index r, const T* __restrict__ xOwn, T* __restrict__ y,
                                          DotSums& dots) {
    const T value = static_cast<T>(scale * static_cast<double>(sum));
    y[r] = value;
    dots.add(static_cast<double>(value), scale * static_cast<double>(cachedLoad(xOwn + r)));
}

// Rows of a segment one per thread, scalar loads (segments whose rows or starts are not multiples of
// the vector width).
template <typename T>
__device__ void scalarSegment(Index firstRow, Index rows, Index diagonals, const Index* __restrict__ offsets,
                              const T* __restrict__ values, const T* __restrict__ x, const T* __restrict__ xOwn,
                              T* __restrict__ y, Index cols, double scale, DotSums& dots) {
    for (Index i = threadIdx.x; i < rows; i += kThreads) {
        T sum{};
        for (Index d = 0; d < diagonals; ++d) {
            const Index col = firstRow + i + __ldg(offsets + d);
            if (col >= 0 && col < cols) sum += streamedLoad(values + Count(d) * rows + i) * cachedLoad(x + col);
        }
        finishRow(sum, scale, firstRow + i, xOwn, y, dots);
    }
}

template <typename T>
__device__ void vectorSegment(Index firstRow, Index rows, Index diagonals, const Index* __restrict__ offsets,
                              const T* __restrict__ values, const T* __restrict__ x, const T* __restrict__ xOwn,
                              T* __restrict__ y, Index cols, double scale, DotSums& dots) {
    using V = typename Vector16<T>::Type;
    constexpr int kLanes = Vector16<T>::lanes;
    const Index groups = rows / kLanes;
    for (Index group = threadIdx.x; group < groups; group += kThreads) {
        T sum[kLanes];
#pragma unroll
        for (int e = 0; e < kLanes; ++e) sum[e] = T{};
#pragma unroll 2
        for (Index d = 0; d < diagonals; ++d) {
            const Index col0 = firstRow + group * kLanes + __ldg(offsets + d);
            T a[kLanes];
            Vector16<T>::unpack(__ldcs(reinterpret_cast<const V*>(values + Count(d) * rows) + group), a);
#pragma unroll
            for (int e = 0; e < kLanes; ++e)
                if (col0 + e >= 0 && col0 + e < cols) sum[e] += a[e] * cachedLoad(x + col0 + e);
        }
        T out[kLanes];
#pragma unroll
        for (int e = 0; e < kLanes; ++e) {
            out[e] = static_cast<T>(scale * static_cast<double>(sum[e]));
            dots.add(static_cast<double>(out[e]), scale * static_cast<double>(cachedLoad(xOwn + firstRow + group * kLanes + e)));
        }
        reinterpret_cast<V*>(y + firstRow)[group] = Vector16<T>::pack(out);
    }
}

__device__ __forceinline__ double warpSum(double v) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    segmentedDiaPowerStepKernel(const Index* __restrict__ blockStart, const Index* __restrict__ blockSegments,
                                const Index* __restrict__ segmentFirstRow, const Count* __restrict__ segmentOffsetStart,
                                const Index* __restrict__ offsets, const Count* __restrict__ segmentValueStart,
                                const T* __restrict__ values, const T* __restrict__ x, const T* __restrict__ xOwn,
                                T* __restrict__ y, Index cols, const double* __restrict__ scaleIn, double* __restrict__ blockDots) {
    constexpr int kLanes = Vector16<T>::lanes;
    const double scale = *scaleIn;
    DotSums dots;
    const Index end = blockStart[blockIdx.x + 1];
    for (Index k = blockStart[blockIdx.x]; k < end; ++k) {
        const Index s = blockSegments[k];
        const Index firstRow = segmentFirstRow[s], rows = segmentFirstRow[s + 1] - firstRow;
        const Count offsetStart = segmentOffsetStart[s], valueStart = segmentValueStart[s];
        const Index diagonals = static_cast<Index>(segmentOffsetStart[s + 1] - offsetStart);
        // The same per-segment choice as the multiply's vector kernel, uniform across the block.
        if (rows % kLanes != 0 || firstRow % kLanes != 0 || valueStart % kLanes != 0)
            scalarSegment(firstRow, rows, diagonals, offsets + offsetStart, values + valueStart, x, xOwn, y, cols, scale, dots);
        else
            vectorSegment(firstRow, rows, diagonals, offsets + offsetStart, values + valueStart, x, xOwn, y, cols, scale, dots);
    }
    // The block's sums: warps first, then warp 0 over the warps, always in the same order.
    __shared__ double perWarp[3][kWarps];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const double yy = warpSum(dots.yy), xy = warpSum(dots.xy), xx = warpSum(dots.xx);
    if (lane == 0) {
        perWarp[0][warp] = yy;
        perWarp[1][warp] = xy;
        perWarp[2][warp] = xx;
    }
    __syncthreads();
    if (warp == 0)
        for (int c = 0; c < 3; ++c) {
            const double total = warpSum(lane < kWarps ? perWarp[c][lane] : 0.0);
            if (lane == 0) blockDots[3 * blockIdx.x + c] = total;
        }
}

} // namespace

template <typename T>
void DeviceSegmentedDia<T>::powerStep(const T* x, const T* xOwn, T* y, const double* scale, double* blockDots,
                                      cudaStream_t stream) const {
    if (!canFusePowerStep())
        throw InputError("segmented DIA power step: the matrix has a CSR remainder; multiply and form the dot products apart");
    if (m_blocks == 0) return;
    segmentedDiaPowerStepKernel<T><<<m_blocks, kThreads, 0, stream>>>(
        m_blockStart.data(), m_blockSegments.data(), m_segmentFirstRow.data(), m_segmentOffsetStart.data(), m_offsets.data(),
        m_segmentValueStart.data(), m_values.data(), x, xOwn, y, m_cols, scale, blockDots);
    SPYGLASS_CUDA_CHECK_LAUNCH();
}

template void DeviceSegmentedDia<float>::powerStep(const float*, const float*, float*, const double*, double*, cudaStream_t) const;
template void DeviceSegmentedDia<double>::powerStep(const double*, const double*, double*, const double*, double*, cudaStream_t) const;

} // namespace spyglass::cuda
