// Method A's Vendor backend as whole host-to-host operations (core/bitflag_device.h): cuSPARSE on CSR
// for add/sub/multiply, and cuSOLVER getrf on the dense expansion of a bit-flag matrix, answered in the
// same terms as the reference's LU with partial pivoting (row order, unit L with its ones stored, U,
// the same singularity rule) so that the application and the CLI can put it beside ours.
#include "core/bitflag_device.h"
#include "core/bitflag_internal.h"
#include "spyglass/cuda/bitflag_device_api.h"
#include "bitflag_lu_factors.h"
#include "bitflag_run_support.h"

#include <cmath>
#include <numeric>
#include <optional>
#include <sstream>

namespace spyglass::bitflag_device {

namespace {

using bitflag_detail::LineEntry;

// Column-major dense n x n (LAPACK's layout, so getrf factors A and not its transpose); max|A| out.
template <typename T>
std::vector<T> denseColumnMajor(const BitFlagMatrix<T>& a, const std::string& what, double& maxAbs) {
    const Index n = a.rows;
    std::vector<T> d(std::size_t(n) * std::size_t(n), T(0));
    maxAbs = 0;
    for (const LineEntry<T>& e : bitflag_detail::lineEntries(a)) {
        const Index i = a.order == BitFlagOrder::RowMajor ? e.line : e.pos;
        const Index j = a.order == BitFlagOrder::RowMajor ? e.pos : e.line;
        if (!std::isfinite(double(e.value)))
            throw InputError(what + ": entry (" + std::to_string(i) + ", " + std::to_string(j) + ") is not finite");
        d[std::size_t(j) * n + i] = e.value;
        maxAbs = std::max(maxAbs, std::abs(double(e.value)));
    }
    return d;
}

} // namespace

CsrMatrix<float> csrAddVendor(const CsrMatrix<float>& a, const CsrMatrix<float>& b, float sign, const BitFlagRunOptions& options) {
    cuda::requireDevice(sign == 1.0f ? "cuSPARSE add" : "cuSPARSE subtract");
    // csrgeam2 takes a beta, but the baseline wrapper fixes it at 1: a subtraction adds -B instead,
    // which costs one host pass over B and leaves the measured device work unchanged.
    CsrMatrix<float> negated;
    const CsrMatrix<float>* second = &b;
    if (sign != 1.0f) {
        negated = b;
        for (float& v : negated.values) v *= sign;
        second = &negated;
    }
    const cudaStream_t stream = cuda::streamOf(options);
    std::optional<cuda::DeviceCsr32> da, db;
    cuda::runTimedCopy(options, stream, &Measurement::uploadMs, [&] {
        da.emplace(a);
        db.emplace(*second);
    });
    cuda::DeviceCsr32 dc;
    cuda::runMeasured(options, stream, [&] { cuda::cusparseCsrAdd(*da, *db, dc, stream); });
    CsrMatrix<float> c;
    cuda::runTimedCopy(options, stream, &Measurement::downloadMs, [&] { c = dc.download(); });
    return c;
}

CsrMatrix<float> csrMultiplyVendor(const CsrMatrix<float>& a, const CsrMatrix<float>& b, const BitFlagRunOptions& options) {
    cuda::requireDevice("cuSPARSE multiply");
    const cudaStream_t stream = cuda::streamOf(options);
    std::optional<cuda::DeviceCsr32> da, db;
    cuda::runTimedCopy(options, stream, &Measurement::uploadMs, [&] {
        da.emplace(a);
        db.emplace(b);
    });
    cuda::DeviceCsr32 dc;
    cuda::CusparseWorkspace workspace(stream);
    // ALG_DEFAULT's buffer grows with the number of products and runs out on large, dense-ish products
    // (INSUFFICIENT_RESOURCES); the chunked algorithm then still gives the answer. The choice is made
    // once, untimed, so that the measured calls all run the algorithm that works.
    cuda::SpGemmAlgorithm algorithm = cuda::SpGemmAlgorithm::Default;
    try {
        cuda::cusparseCsrMultiply(*da, *db, dc, workspace);
    } catch (const Error&) {
        algorithm = cuda::SpGemmAlgorithm::MemoryBounded;
    }
    cuda::runMeasured(options, stream, [&] { cuda::cusparseCsrMultiply(*da, *db, dc, workspace, algorithm); });
    CsrMatrix<float> c;
    cuda::runTimedCopy(options, stream, &Measurement::downloadMs, [&] { c = dc.download(); });
    return c;
}

template <typename T>
BitFlagPivotedLu<T> luPivotedVendor(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options) {
    const std::string what = "cuSOLVER getrf";
    const Index n = a.rows;
    cuda::requireDevice(what);
    const cudaStream_t stream = cuda::streamOf(options);
    double maxAbs = 0;
    std::vector<T> d = denseColumnMajor(a, what, maxAbs);
    const double tolerance = options.tolerance < 0 ? defaultPivotTolerance<T>(n) : options.tolerance;
    const double threshold = tolerance * maxAbs;

    BitFlagPivotedLu<T> result;
    result.rowOrder.resize(std::size_t(n));
    std::iota(result.rowOrder.begin(), result.rowOrder.end(), Index(0));
    if (n == 0) {
        result.lower = bitflag_detail::emptyBitFlag<T>(0, 0, BitFlagOrder::RowMajor);
        result.upper = result.lower;
        return result;
    }
    cuda::DeviceBuffer<T> dense;
    auto uploadDense = [&] { dense.upload(d, stream); };
    cuda::runTimedCopy(options, stream, &Measurement::uploadMs, uploadDense);
    std::vector<int> pivots(static_cast<std::size_t>(n));
    int getrfInfo = 0;
    {
        cuda::CusolverDenseLu<T> lu(int(n), dense.data(), stream);
        // getrf factors in place: each measured call gets A back first.
        cuda::runMeasured(options, stream, [&] { lu.factor(dense.data()); }, uploadDense);
        getrfInfo = lu.info();
        lu.pivots().download(pivots.data(), pivots.size(), stream);
    }
    cuda::runTimedCopy(options, stream, &Measurement::downloadMs, [&] { dense.download(d.data(), d.size(), stream); });
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));

    // getrf stops reporting at the first exactly zero pivot (info = its 1-based step); the tolerance
    // rule of the reference is applied to U's diagonal, so a tiny pivot fails here as it fails there.
    for (Index k = 0; k < n; ++k) {
        const T pivot = d[std::size_t(k) * n + k];
        if (!(std::abs(double(pivot)) > threshold) || pivot == T(0) || k == getrfInfo - 1) {
            std::ostringstream message;
            message.precision(6);
            message << what << ": step " << k << ": pivot |U(" << k << "," << k << ")| = " << std::abs(double(pivot))
                    << (pivot == T(0) ? " is zero" : " is tiny") << " (threshold " << threshold
                    << "): the matrix is singular to working precision";
            throw BitFlagPivotError(k, double(pivot), message.str());
        }
    }
    // LAPACK's pivots are sequential swaps, 1-based: step k exchanged rows k and pivots[k] - 1.
    for (Index k = 0; k < n; ++k)
        std::swap(result.rowOrder[std::size_t(k)], result.rowOrder[std::size_t(pivots[std::size_t(k)] - 1)]);

    auto [lower, upper] = cuda::splitDenseFactors(d.data(), n, 1, std::size_t(n), a.withPrefixCounts);
    result.lower = std::move(lower);
    result.upper = std::move(upper);
    return result;
}

template BitFlagPivotedLu<float> luPivotedVendor(const BitFlagMatrix<float>&, const BitFlagRunOptions&);
template BitFlagPivotedLu<double> luPivotedVendor(const BitFlagMatrix<double>&, const BitFlagRunOptions&);

} // namespace spyglass::bitflag_device
