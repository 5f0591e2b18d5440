// Method A's vendor LU as a whole operation: cuSOLVER getrf on the dense expansion of a bit-flag
// matrix, answered in the same terms as bitFlagLuPivoted (row order, unit L with its ones stored, U,
// the same singularity rule) so that the application and the CLI can put it beside ours.
#include "../core/bitflag_internal.h"
#include "bitflag_device.h"
#include "bitflag_lu_factors.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <cmath>
#include <numeric>
#include <sstream>

namespace spyglass {

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

template <typename T>
BitFlagPivotedLu<T> bitFlagLuPivotedCusolver(const BitFlagMatrix<T>& a, double tolerance) {
    const std::string what = "cuSOLVER getrf";
    if (a.rows != a.cols)
        throw InputError(what + ": the matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                         ", LU needs a square matrix");
    const Index n = a.rows;
    if (double(n) * double(n) > 4e8)
        throw InputError(what + ": order " + std::to_string(n) + " is too large for the dense expansion");
    const DeviceInfo info = cudaDeviceInfo();
    if (!info.present) throw BackendUnavailableError(what + ": " + info.reason);
    double maxAbs = 0;
    std::vector<T> d = denseColumnMajor(a, what, maxAbs);
    if (tolerance < 0) tolerance = defaultPivotTolerance<T>(n);
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
    dense.upload(d);
    std::vector<int> pivots(static_cast<std::size_t>(n));
    int getrfInfo = 0;
    {
        cuda::CusolverDenseLu<T> lu(int(n), dense.data());
        lu.factor(dense.data());
        getrfInfo = lu.info();
        lu.pivots().download(pivots.data(), pivots.size());
    }
    dense.download(d.data(), d.size());
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());

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

template BitFlagPivotedLu<float> bitFlagLuPivotedCusolver(const BitFlagMatrix<float>&, double);
template BitFlagPivotedLu<double> bitFlagLuPivotedCusolver(const BitFlagMatrix<double>&, double);

} // namespace spyglass
