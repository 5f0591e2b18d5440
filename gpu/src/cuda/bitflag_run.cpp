// Method A's device half (core/bitflag_device.h) for the element access, add/sub, multiply, the
// one-block LU and SpMV: upload, run once on the options' stream, download. The LU families beyond the
// one-block kernel are in bitflag_run_lu.cpp, the vendor baselines in bitflag_vendor.cpp.
#include "core/bitflag_device.h"
#include "core/bitflag_internal.h"
#include "spyglass/cuda/bitflag_device_api.h"
#include "bitflag_spmv_device.h"
#include "bitflag_run_support.h"

#include "spyglass/error.h"

#include <cmath>
#include <optional>
#include <functional>
#include <sstream>

namespace spyglass::bitflag_device {

namespace {

template <typename T>
std::vector<T> runQueries(const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ, cudaStream_t stream,
                          const std::function<void(const Index*, const Index*, T*, Count)>& launch) {
    const std::size_t n = rowsQ.size();
    cuda::DeviceBuffer<Index> dr(std::max<std::size_t>(n, 1)), dc(std::max<std::size_t>(n, 1));
    cuda::DeviceBuffer<T> out(std::max<std::size_t>(n, 1));
    dr.upload(rowsQ, stream);
    dc.upload(colsQ, stream);
    launch(dr.data(), dc.data(), out.data(), Count(n));
    std::vector<T> result(n);
    out.download(result.data(), n, stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return result;
}

} // namespace

template <typename T>
std::vector<T> getBatch(const BitFlagMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                        const BitFlagRunOptions& options) {
    cuda::requireDevice("bit-flag batch get");
    const cudaStream_t stream = cuda::streamOf(options);
    cuda::DeviceBitFlag<T> dm(m, stream);
    return runQueries<T>(rowsQ, colsQ, stream, [&](const Index* r, const Index* c, T* out, Count n) {
        cuda::launchBitFlagGet(dm.view(), m.order, m.withPrefixCounts, r, c, out, n, stream);
    });
}

template <typename T>
std::vector<T> csrGetBatch(const CsrMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                           const BitFlagRunOptions& options) {
    cuda::requireDevice("CSR batch get");
    const cudaStream_t stream = cuda::streamOf(options);
    cuda::DeviceBuffer<Count> rowPtr;
    cuda::DeviceBuffer<Index> colIndex(std::max<std::size_t>(m.colIndex.size(), 1));
    cuda::DeviceBuffer<T> values(std::max<std::size_t>(m.values.size(), 1));
    rowPtr.upload(m.rowPtr, stream);
    colIndex.upload(m.colIndex, stream);
    values.upload(m.values, stream);
    return runQueries<T>(rowsQ, colsQ, stream, [&](const Index* r, const Index* c, T* out, Count n) {
        cuda::launchCsrGet(m.rows, rowPtr.data(), colIndex.data(), values.data(), r, c, out, n, stream);
    });
}

namespace {

// A bit-flag operation of two matrices on the options' stream: both uploaded (timed as the upload),
// run(da, db, dc, scratch, stream) measured, the result downloaded in `order` (timed as the download).
template <typename T, typename Run>
BitFlagMatrix<T> runOnPair(const char* what, const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, BitFlagOrder order,
                           const BitFlagRunOptions& options, Run run) {
    cuda::requireDevice(what);
    const cudaStream_t stream = cuda::streamOf(options);
    std::optional<cuda::DeviceBitFlag<T>> da, db;
    cuda::runTimedCopy(options, stream, &Measurement::uploadMs, [&] {
        da.emplace(a, stream);
        db.emplace(b, stream);
    });
    cuda::DeviceBitFlag<T> dc;
    cuda::DeviceBuffer<unsigned char> scratch;
    cuda::runMeasured(options, stream, [&] { run(*da, *db, dc, scratch, stream); });
    BitFlagMatrix<T> c;
    cuda::runTimedCopy(options, stream, &Measurement::downloadMs, [&] { c = dc.download(order, a.withPrefixCounts, stream); });
    return c;
}

} // namespace

template <typename T>
BitFlagMatrix<T> addOrSubtract(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, T sign, const BitFlagRunOptions& options) {
    return runOnPair(sign > T(0) ? "bit-flag add on CUDA" : "bit-flag subtract on CUDA", a, b, a.order, options,
                     [sign](const auto& da, const auto& db, auto& dc, auto& scratch, cudaStream_t stream) {
                         cuda::bitFlagAddDevice(da, db, sign, dc, scratch, stream);
                     });
}

// The product comes back row-major whatever the operands' order (bitflag_device_api.h).
template <typename T>
BitFlagMatrix<T> multiply(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagRunOptions& options) {
    return runOnPair("bit-flag multiply on CUDA", a, b, BitFlagOrder::RowMajor, options,
                     [](const auto& da, const auto& db, auto& dc, auto& scratch, cudaStream_t stream) {
                         cuda::bitFlagMultiplyDevice(da, db, dc, scratch, stream);
                     });
}

template <typename T>
BitFlagLu<T> lu(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options) {
    const Index n = a.rows;
    if (n > cuda::luMaxOrder<T>())
        throw InputError("bit-flag LU on CUDA: order " + std::to_string(n) + " exceeds " +
                         std::to_string(cuda::luMaxOrder<T>()) + ", the largest whose dense form fits 48 KiB of shared "
                         "memory; use the CPU backend");
    const double tolerance = options.tolerance < 0 ? defaultPivotTolerance<T>(n) : options.tolerance;
    double maxAbs = 0;
    for (const T v : a.values) {
        if (!std::isfinite(double(v))) throw InputError("bit-flag LU on CUDA: the matrix has a value that is not finite");
        maxAbs = std::max(maxAbs, std::abs(double(v)));
    }
    const double threshold = tolerance * maxAbs;
    cuda::requireDevice("bit-flag LU on CUDA");
    const cudaStream_t stream = cuda::streamOf(options);
    std::optional<cuda::DeviceBitFlag<T>> da;
    cuda::runTimedCopy(options, stream, &Measurement::uploadMs, [&] { da.emplace(a, stream); });
    cuda::DeviceBuffer<T> dense;
    T pivot(0);
    int failed = -1;
    cuda::runMeasured(options, stream, [&] { failed = cuda::bitFlagLuDevice(*da, a.order, threshold, dense, &pivot, stream); });
    if (failed >= 0) {
        std::ostringstream message;
        message.precision(6);
        message << "bit-flag LU on CUDA: step " << failed << ": pivot U(" << failed << "," << failed << ") = " << double(pivot)
                << (pivot == T(0) ? " is zero" : " is tiny") << " (threshold " << threshold
                << "); this LU does not pivot, reorder the matrix";
        throw BitFlagPivotError(failed, double(pivot), message.str());
    }
    std::vector<T> d(std::size_t(n) * std::size_t(n));
    cuda::runTimedCopy(options, stream, &Measurement::downloadMs, [&] { dense.download(d.data(), d.size(), stream); });
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<bitflag_detail::LineEntry<T>> lower, upper;
    for (Index i = 0; i < n; ++i) {
        lower.push_back({i, i, T(1)});
        for (Index j = 0; j < n; ++j) {
            const T v = d[std::size_t(i) * n + j];
            if (v == T(0)) continue;
            (j < i ? lower : upper).push_back({i, j, v});
        }
    }
    BitFlagOptions factorOptions;
    factorOptions.prefixCounts = a.withPrefixCounts;
    return BitFlagLu<T>{bitflag_detail::buildFromLineEntries(n, n, factorOptions, std::move(lower)),
                        bitflag_detail::buildFromLineEntries(n, n, factorOptions, std::move(upper))};
}

template <typename T>
std::vector<T> spmv(const BitFlagMatrix<T>& a, const std::vector<T>& x, const BitFlagRunOptions& options) {
    cuda::requireDevice("bit-flag SpMV on CUDA");
    const cudaStream_t stream = cuda::streamOf(options);
    cuda::DeviceBuffer<T> dx(std::max<std::size_t>(x.size(), 1)), dy(std::max<std::size_t>(std::size_t(a.rows), 1));
    dx.upload(x, stream);
    {
        cuda::DeviceBitFlagSpmv<T> op(a, stream);
        op.multiply(dx.data(), dy.data(), stream);
    }
    std::vector<T> y(static_cast<std::size_t>(a.rows));
    dy.download(y.data(), y.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return y;
}

#define SPYGLASS_BITFLAG_RUN(T)                                                                                         \
    template std::vector<T> getBatch(const BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&,      \
                                     const BitFlagRunOptions&);                                                         \
    template std::vector<T> csrGetBatch(const CsrMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&,      \
                                        const BitFlagRunOptions&);                                                      \
    template BitFlagMatrix<T> addOrSubtract(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&, T, const BitFlagRunOptions&); \
    template BitFlagMatrix<T> multiply(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&, const BitFlagRunOptions&);     \
    template BitFlagLu<T> lu(const BitFlagMatrix<T>&, const BitFlagRunOptions&);                                        \
    template std::vector<T> spmv(const BitFlagMatrix<T>&, const std::vector<T>&, const BitFlagRunOptions&);
SPYGLASS_BITFLAG_RUN(float)
SPYGLASS_BITFLAG_RUN(double)

} // namespace spyglass::bitflag_device
