// Method A's device half (core/bitflag_device.h) for the LU beyond the single shared-memory matrix:
// the seed's LU on a batch (three layouts), the batch with partial pivoting (register rows), and the
// blocked LU with partial pivoting. Check what depends on the device, upload, run, download, pack
// into bit flags.
#include "core/bitflag_device.h"
#include "core/bitflag_internal.h"
#include "spyglass/cuda/bitflag_device_api.h"
#include "bitflag_lu_factors.h"
#include "bitflag_run_support.h"

#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <sstream>

namespace spyglass::bitflag_device {

using cuda::requireDevice;

namespace {

template <typename T>
double maxAbsOfFinite(const BitFlagMatrix<T>& a, const std::string& what) {
    double maxAbs = 0;
    for (const T v : a.values) {
        if (!std::isfinite(double(v))) throw InputError(what + ": the matrix has a value that is not finite");
        maxAbs = std::max(maxAbs, std::abs(double(v)));
    }
    return maxAbs;
}


// The batch as one row-major bit-flag matrix of batch x n rows (matrix b is rows b n .. b n + n - 1).
template <typename T>
BitFlagMatrix<T> stackRowMajor(const std::vector<BitFlagMatrix<T>>& batch, Index n) {
    BitFlagMatrix<T> s;
    s.rows = Index(std::min<Count>(Count(batch.size()) * n, Count(std::numeric_limits<Index>::max())));
    s.cols = n;
    s.order = BitFlagOrder::RowMajor;
    s.wordBits = bitflag_detail::wordBitsFor(n);
    s.wordsPerLine = bitflag_detail::wordsPerLineFor(n);
    s.lineStart.push_back(0);
    for (const BitFlagMatrix<T>& given : batch) {
        const BitFlagMatrix<T> m = given.order == BitFlagOrder::RowMajor ? given : reorderBitFlag(given, BitFlagOrder::RowMajor, false);
        const Count base = s.lineStart.back();
        for (Index line = 0; line < n; ++line) s.lineStart.push_back(base + m.lineStart[std::size_t(line) + 1]);
        s.values.insert(s.values.end(), m.values.begin(), m.values.end());
        s.flags32.insert(s.flags32.end(), m.flags32.begin(), m.flags32.end());
        s.flags64.insert(s.flags64.end(), m.flags64.begin(), m.flags64.end());
    }
    s.nonzeros = Count(s.values.size());
    return s;
}

// Every matrix n x n with the same n <= maxOrder, finite, the stacked rows within Index; returns n.
template <typename T>
Index validateBatch(const std::vector<BitFlagMatrix<T>>& batch, const std::string& what, Index maxOrder, const std::string& limit) {
    const Index n = batch.front().rows;
    for (std::size_t b = 0; b < batch.size(); ++b) {
        const BitFlagMatrix<T>& m = batch[b];
        if (m.rows != n || m.cols != n)
            throw InputError(what + ": matrix " + std::to_string(b) + " is " + std::to_string(m.rows) + " x " +
                             std::to_string(m.cols) + ", every matrix of the batch must be " + std::to_string(n) + " x " +
                             std::to_string(n));
        maxAbsOfFinite(m, what + ": matrix " + std::to_string(b));
    }
    if (n > maxOrder)
        throw InputError(what + ": order " + std::to_string(n) + " exceeds " + std::to_string(maxOrder) + ", " + limit);
    if (Count(batch.size()) * n > Count(std::numeric_limits<Index>::max()))
        throw InputError(what + ": " + std::to_string(batch.size()) + " matrices of order " + std::to_string(n) +
                         " exceed 2^31 rows stacked");
    return n;
}

// What a batched LU kernel leaves on the device, brought back: per matrix the failed step (-1: none)
// and its pivot, and the dense factors of all.
template <typename T>
struct BatchOutcome {
    std::vector<int> step;
    std::vector<T> pivot, dense;
};
template <typename T>
BatchOutcome<T> downloadBatch(const cuda::DeviceBuffer<int>& steps, const cuda::DeviceBuffer<T>& pivots,
                              const cuda::DeviceBuffer<T>& dense, std::size_t batch, Index n, cudaStream_t stream) {
    BatchOutcome<T> out{std::vector<int>(batch), std::vector<T>(batch), std::vector<T>(batch * std::size_t(n) * std::size_t(n))};
    steps.download(out.step.data(), out.step.size(), stream);
    pivots.download(out.pivot.data(), out.pivot.size(), stream);
    dense.download(out.dense.data(), out.dense.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return out;
}

} // namespace

template <typename T>
std::vector<BitFlagLu<T>> luBatched(const std::vector<BitFlagMatrix<T>>& batch, const BitFlagRunOptions& options) {
    const std::string what = "bit-flag batched LU on CUDA";
    const BitFlagBatchedLuLayout layout = options.layout;
    double tolerance = options.tolerance;
    const cudaStream_t stream = cuda::streamOf(options);
    const bool registers = layout == BitFlagBatchedLuLayout::RegisterRows;
    const Index n = registers ? validateBatch(batch, what + " (register rows)", cuda::registerRowsLuMaxOrder<T>(),
                                              "the largest whose rows fit a lane's registers")
                              : validateBatch(batch, what, cuda::luMaxOrder<T>(),
                                              "the largest whose dense form fits 48 KiB of shared memory");
    requireDevice(what);
    if (tolerance < 0) tolerance = defaultPivotTolerance<T>(n);
    const cuda::BatchedLuLayout deviceLayout = layout == BitFlagBatchedLuLayout::BlockPerMatrix ? cuda::BatchedLuLayout::BlockPerMatrix
                                               : layout == BitFlagBatchedLuLayout::WarpPerMatrix ? cuda::BatchedLuLayout::WarpPerMatrix
                                               : registers ? cuda::BatchedLuLayout::RegisterRows
                                                           : cuda::BatchedLuLayout::Auto;
    const cuda::DeviceBitFlag<T> stacked(stackRowMajor(batch, n), stream);
    cuda::DeviceBuffer<T> dense, pivots;
    cuda::DeviceBuffer<int> steps;
    cuda::bitFlagLuBatchedDevice(stacked, n, tolerance, dense, steps, pivots, stream, deviceLayout);
    const auto [step, pivot, d] = downloadBatch(steps, pivots, dense, batch.size(), n, stream);
    for (std::size_t b = 0; b < batch.size(); ++b)
        if (step[b] >= 0) {
            std::ostringstream message;
            message.precision(6);
            message << what << ": matrix " << b << ": step " << step[b] << ": pivot U(" << step[b] << "," << step[b]
                    << ") = " << double(pivot[b]) << (pivot[b] == T(0) ? " is zero" : " is tiny") << " (threshold "
                    << tolerance * maxAbsOfFinite(batch[b], what) << "); this LU does not pivot, reorder the matrix";
            throw BitFlagPivotError(step[b], double(pivot[b]), message.str());
        }
    std::vector<BitFlagLu<T>> result;
    result.reserve(batch.size());
    for (std::size_t b = 0; b < batch.size(); ++b) {
        auto [lower, upper] = cuda::splitDenseFactors(d.data() + b * std::size_t(n) * std::size_t(n), n, std::size_t(n), 1, batch[b].withPrefixCounts);
        result.push_back(BitFlagLu<T>{std::move(lower), std::move(upper)});
    }
    return result;
}

template <typename T>
std::vector<BitFlagPivotedLu<T>> luPivotedBatched(const std::vector<BitFlagMatrix<T>>& batch, const BitFlagRunOptions& options) {
    const std::string what = "bit-flag batched LU with partial pivoting on CUDA";
    double tolerance = options.tolerance;
    const cudaStream_t stream = cuda::streamOf(options);
    const Index n = validateBatch(batch, what, cuda::registerRowsLuMaxOrder<T>(), "the largest whose rows fit a lane's registers");
    requireDevice(what);
    if (tolerance < 0) tolerance = defaultPivotTolerance<T>(n);
    const cuda::DeviceBitFlag<T> stacked(stackRowMajor(batch, n), stream);
    cuda::DeviceBuffer<T> dense, pivots;
    cuda::DeviceBuffer<int> order, steps;
    cuda::bitFlagLuPivotedBatchedDevice(stacked, n, tolerance, dense, order, steps, pivots, stream);
    std::vector<int> rows(batch.size() * std::size_t(n));
    order.download(rows.data(), rows.size(), stream);
    const auto [step, pivot, d] = downloadBatch(steps, pivots, dense, batch.size(), n, stream);
    for (std::size_t b = 0; b < batch.size(); ++b)
        if (step[b] >= 0) {
            std::ostringstream message;
            message.precision(6);
            message << what << ": matrix " << b << ": step " << step[b] << ": the largest candidate pivot |" << double(pivot[b])
                    << "|" << (pivot[b] == T(0) ? " is zero" : " is tiny") << " (threshold "
                    << tolerance * maxAbsOfFinite(batch[b], what) << "): the matrix is singular to working precision";
            throw BitFlagPivotError(step[b], double(pivot[b]), message.str());
        }
    std::vector<BitFlagPivotedLu<T>> result(batch.size());
    for (std::size_t b = 0; b < batch.size(); ++b) {
        auto [lower, upper] = cuda::splitDenseFactors(d.data() + b * std::size_t(n) * std::size_t(n), n, std::size_t(n), 1, batch[b].withPrefixCounts);
        result[b].lower = std::move(lower);
        result[b].upper = std::move(upper);
        result[b].rowOrder.assign(rows.begin() + std::ptrdiff_t(b * std::size_t(n)), rows.begin() + std::ptrdiff_t((b + 1) * std::size_t(n)));
    }
    return result;
}

template <typename T>
Index luMaxOrder(BitFlagLuForm form, const BitFlagRunOptions& options) {
    switch (form) {
    case BitFlagLuForm::Single: return cuda::luMaxOrder<T>();
    case BitFlagLuForm::Batched:
        return options.layout == BitFlagBatchedLuLayout::RegisterRows ? cuda::registerRowsLuMaxOrder<T>() : cuda::luMaxOrder<T>();
    // These two ask the device for its shared memory or registers: no device, no order.
    case BitFlagLuForm::Pivoted: return cudaDeviceInfo().present ? cuda::BlockedLu<T>::maxOrder() : 0;
    case BitFlagLuForm::PivotedBatched: return cudaDeviceInfo().present ? cuda::registerRowsLuMaxOrder<T>() : 0;
    }
    return 0;
}

template <typename T>
BitFlagPivotedLu<T> luPivoted(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options) {
    const std::string what = "bit-flag LU with partial pivoting on CUDA";
    const cudaStream_t stream = cuda::streamOf(options);
    const double maxAbs = maxAbsOfFinite(a, what);
    requireDevice(what);
    const Index n = a.rows;
    if (n > cuda::BlockedLu<T>::maxOrder())
        throw InputError(what + ": order " + std::to_string(n) + " exceeds " + std::to_string(cuda::BlockedLu<T>::maxOrder()) +
                         ", the largest whose one-column leaf fits the GPU's shared memory");
    const double tolerance = options.tolerance < 0 ? defaultPivotTolerance<T>(n) : options.tolerance;
    const double threshold = tolerance * maxAbs;
    std::optional<cuda::DeviceBitFlag<T>> da;
    cuda::runTimedCopy(options, stream, &Measurement::uploadMs, [&] { da.emplace(a, stream); });
    cuda::BlockedLu<T> lu(stream);
    // Auto: per leaf, the one-block leaf up to the 1024 rows its registers hold and the cluster leaf on
    // taller leaves (if this device runs clusters: else the one-block leaf, silently; only an explicit
    // Cluster refuses). Panel 0: by the rows left (BlockedLu::automaticPanelWidth).
    const cuda::BlockedLuLeaf leaf = options.leaf == BitFlagLuLeaf::Cluster    ? cuda::BlockedLuLeaf::Cluster
                                     : options.leaf == BitFlagLuLeaf::OneBlock ? cuda::BlockedLuLeaf::OneBlock
                                                                               : cuda::BlockedLuLeaf::Auto;
    const Index panel = options.panelWidth;
    cuda::runMeasured(options, stream, [&] {
        lu.factor(*da, a.order, threshold, panel, options.leafWidth, leaf, int(options.leafClusterBlocks));
    });
    T pivot(0);
    const int failed = lu.failedStep(&pivot);
    if (failed >= 0) {
        std::ostringstream message;
        message.precision(6);
        message << what << ": step " << failed << ": the largest candidate pivot |" << double(pivot) << "|"
                << (pivot == T(0) ? " is zero" : " is tiny") << " (threshold " << threshold
                << "): the matrix is singular to working precision";
        throw BitFlagPivotError(failed, double(pivot), message.str());
    }
    std::vector<T> d(std::size_t(n) * std::size_t(n));
    std::vector<int> swaps(static_cast<std::size_t>(n));
    cuda::runTimedCopy(options, stream, &Measurement::downloadMs, [&] {
        lu.dense().download(d.data(), d.size(), stream);
        lu.pivots().download(swaps.data(), swaps.size(), stream);
    });
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    BitFlagPivotedLu<T> result;
    result.rowOrder.resize(std::size_t(n));
    std::iota(result.rowOrder.begin(), result.rowOrder.end(), Index(0));
    for (Index k = 0; k < n; ++k) std::swap(result.rowOrder[std::size_t(k)], result.rowOrder[std::size_t(swaps[std::size_t(k)])]);
    auto [lower, upper] = cuda::splitDenseFactors(d.data(), n, std::size_t(n), 1, a.withPrefixCounts);
    result.lower = std::move(lower);
    result.upper = std::move(upper);
    return result;
}

#define SPYGLASS_BITFLAG_RUN_LU(T)                                                                                      \
    template std::vector<BitFlagLu<T>> luBatched(const std::vector<BitFlagMatrix<T>>&, const BitFlagRunOptions&);        \
    template std::vector<BitFlagPivotedLu<T>> luPivotedBatched(const std::vector<BitFlagMatrix<T>>&, const BitFlagRunOptions&); \
    template Index luMaxOrder<T>(BitFlagLuForm, const BitFlagRunOptions&);                                              \
    template BitFlagPivotedLu<T> luPivoted(const BitFlagMatrix<T>&, const BitFlagRunOptions&);
SPYGLASS_BITFLAG_RUN_LU(float)
SPYGLASS_BITFLAG_RUN_LU(double)

} // namespace spyglass::bitflag_device
