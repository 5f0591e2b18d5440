// Method A public CUDA entry points: validate, upload, run once, download.
#include "../core/bitflag_internal.h"
#include "bitflag_device.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <cmath>
#include <functional>
#include <sstream>

namespace spyglass {

namespace {

void requireDevice(const char* what) {
    const DeviceInfo info = cudaDeviceInfo();
    if (!info.present) throw BackendUnavailableError(std::string(what) + ": " + info.reason);
}

void checkQueries(Index rows, Index cols, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                  const char* what) {
    if (rowsQ.size() != colsQ.size())
        throw InputError(std::string(what) + ": " + std::to_string(rowsQ.size()) + " row indices but " +
                         std::to_string(colsQ.size()) + " column indices");
    for (std::size_t q = 0; q < rowsQ.size(); ++q)
        if (rowsQ[q] < 0 || rowsQ[q] >= rows || colsQ[q] < 0 || colsQ[q] >= cols)
            throw InputError(std::string(what) + ": query " + std::to_string(q) + " (" + std::to_string(rowsQ[q]) + ", " +
                             std::to_string(colsQ[q]) + ") lies outside the " + std::to_string(rows) + " x " +
                             std::to_string(cols) + " matrix");
}

template <typename T>
std::vector<T> runQueries(const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                          const std::function<void(const Index*, const Index*, T*, Count)>& launch) {
    const std::size_t n = rowsQ.size();
    cuda::DeviceBuffer<Index> dr(std::max<std::size_t>(n, 1)), dc(std::max<std::size_t>(n, 1));
    cuda::DeviceBuffer<T> out(std::max<std::size_t>(n, 1));
    dr.upload(rowsQ);
    dc.upload(colsQ);
    launch(dr.data(), dc.data(), out.data(), Count(n));
    std::vector<T> result(n);
    out.download(result.data(), n);
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    return result;
}

template <typename T>
BitFlagMatrix<T> addOrSubtractCuda(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, T sign, const char* what) {
    if (a.rows != b.rows || a.cols != b.cols || a.order != b.order)
        throw InputError(std::string(what) + ": A (" + std::to_string(a.rows) + " x " + std::to_string(a.cols) + ", " +
                         toString(a.order) + ") and B (" + std::to_string(b.rows) + " x " + std::to_string(b.cols) +
                         ", " + toString(b.order) + ") differ in shape or order");
    requireDevice(what);
    cuda::DeviceBitFlag<T> da(a), db(b), dc;
    cuda::DeviceBuffer<unsigned char> scratch;
    cuda::bitFlagAddDevice(da, db, sign, dc, scratch, nullptr);
    return dc.download(a.order, a.withPrefixCounts);
}

} // namespace

template <typename T>
std::vector<T> bitFlagGetBatchCuda(const BitFlagMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ) {
    checkQueries(m.rows, m.cols, rowsQ, colsQ, "bit-flag batch get");
    requireDevice("bit-flag batch get");
    cuda::DeviceBitFlag<T> dm(m);
    return runQueries<T>(rowsQ, colsQ, [&](const Index* r, const Index* c, T* out, Count n) {
        cuda::launchBitFlagGet(dm.view(), m.order, m.withPrefixCounts, r, c, out, n, nullptr);
    });
}

template <typename T>
std::vector<T> csrGetBatchCuda(const CsrMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ) {
    if (m.rowPtr.size() != std::size_t(m.rows) + 1) throw InputError("CSR batch get: rowPtr must have rows + 1 entries");
    checkQueries(m.rows, m.cols, rowsQ, colsQ, "CSR batch get");
    requireDevice("CSR batch get");
    cuda::DeviceBuffer<Count> rowPtr;
    cuda::DeviceBuffer<Index> colIndex(std::max<std::size_t>(m.colIndex.size(), 1));
    cuda::DeviceBuffer<T> values(std::max<std::size_t>(m.values.size(), 1));
    rowPtr.upload(m.rowPtr);
    colIndex.upload(m.colIndex);
    values.upload(m.values);
    return runQueries<T>(rowsQ, colsQ, [&](const Index* r, const Index* c, T* out, Count n) {
        cuda::launchCsrGet(m.rows, rowPtr.data(), colIndex.data(), values.data(), r, c, out, n, nullptr);
    });
}

template <typename T>
BitFlagMatrix<T> bitFlagAddCuda(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b) {
    return addOrSubtractCuda(a, b, T(1), "bit-flag add on CUDA");
}

template <typename T>
BitFlagMatrix<T> bitFlagSubCuda(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b) {
    return addOrSubtractCuda(a, b, T(-1), "bit-flag subtract on CUDA");
}

template <typename T>
BitFlagMatrix<T> bitFlagMultiplyCuda(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b) {
    if (a.order != BitFlagOrder::RowMajor || b.order != BitFlagOrder::ColumnMajor)
        throw InputError("bit-flag multiply on CUDA: needs A row-major and B column-major");
    if (a.cols != b.rows)
        throw InputError("bit-flag multiply on CUDA: A has " + std::to_string(a.cols) + " columns but B has " +
                         std::to_string(b.rows) + " rows");
    requireDevice("bit-flag multiply on CUDA");
    cuda::DeviceBitFlag<T> da(a), db(b), dc;
    cuda::DeviceBuffer<unsigned char> scratch;
    cuda::bitFlagMultiplyDevice(da, db, dc, scratch, nullptr);
    return dc.download(BitFlagOrder::RowMajor, a.withPrefixCounts);
}

template <typename T>
Index bitFlagLuCudaMaxOrder() {
    return cuda::luMaxOrder<T>();
}

template <typename T>
BitFlagLu<T> bitFlagLuCuda(const BitFlagMatrix<T>& a, double tolerance) {
    if (a.rows != a.cols)
        throw InputError("bit-flag LU on CUDA: the matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                         ", LU needs a square matrix");
    const Index n = a.rows;
    if (n > cuda::luMaxOrder<T>())
        throw InputError("bit-flag LU on CUDA: order " + std::to_string(n) + " exceeds " +
                         std::to_string(cuda::luMaxOrder<T>()) + ", the largest whose dense form fits 48 KiB of shared "
                         "memory; use the CPU backend");
    if (tolerance < 0) tolerance = defaultPivotTolerance<T>(n);
    double maxAbs = 0;
    for (const T v : a.values) {
        if (!std::isfinite(double(v))) throw InputError("bit-flag LU on CUDA: the matrix has a value that is not finite");
        maxAbs = std::max(maxAbs, std::abs(double(v)));
    }
    const double threshold = tolerance * maxAbs;
    requireDevice("bit-flag LU on CUDA");
    cuda::DeviceBitFlag<T> da(a);
    cuda::DeviceBuffer<T> dense;
    T pivot(0);
    const int failed = cuda::bitFlagLuDevice(da, a.order, threshold, dense, &pivot);
    if (failed >= 0) {
        std::ostringstream message;
        message.precision(6);
        message << "bit-flag LU on CUDA: step " << failed << ": pivot U(" << failed << "," << failed << ") = " << double(pivot)
                << (pivot == T(0) ? " is zero" : " is tiny") << " (threshold " << threshold
                << "); this LU does not pivot, reorder the matrix";
        throw BitFlagPivotError(failed, double(pivot), message.str());
    }
    std::vector<T> d(std::size_t(n) * std::size_t(n));
    dense.download(d.data(), d.size());
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<bitflag_detail::LineEntry<T>> lower, upper;
    for (Index i = 0; i < n; ++i) {
        lower.push_back({i, i, T(1)});
        for (Index j = 0; j < n; ++j) {
            const T v = d[std::size_t(i) * n + j];
            if (v == T(0)) continue;
            (j < i ? lower : upper).push_back({i, j, v});
        }
    }
    BitFlagOptions options;
    options.prefixCounts = a.withPrefixCounts;
    return BitFlagLu<T>{bitflag_detail::buildFromLineEntries(n, n, options, std::move(lower)),
                        bitflag_detail::buildFromLineEntries(n, n, options, std::move(upper))};
}

#define SPYGLASS_BITFLAG_API(T)                                                                                         \
    template std::vector<T> bitFlagGetBatchCuda(const BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&); \
    template std::vector<T> csrGetBatchCuda(const CsrMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&); \
    template BitFlagMatrix<T> bitFlagAddCuda(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&);                         \
    template BitFlagMatrix<T> bitFlagSubCuda(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&);                         \
    template BitFlagMatrix<T> bitFlagMultiplyCuda(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&);                    \
    template Index bitFlagLuCudaMaxOrder<T>();                                                                          \
    template BitFlagLu<T> bitFlagLuCuda(const BitFlagMatrix<T>&, double);
SPYGLASS_BITFLAG_API(float)
SPYGLASS_BITFLAG_API(double)

} // namespace spyglass
