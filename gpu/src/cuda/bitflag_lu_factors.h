#pragma once
// L and U in bit-flag form from a dense n x n that holds L below the diagonal (unit diagonal implied)
// and U on and above it, as every dense LU leaves them: ours row-major, cuSOLVER's column-major.
#include "../core/bitflag_internal.h"

#include <cstddef>
#include <utility>
#include <vector>

namespace spyglass::cuda {

// Element (i,j) is d[i * rowStride + j * colStride]. L gets its ones stored, as the reference's.
template <typename T>
std::pair<BitFlagMatrix<T>, BitFlagMatrix<T>> splitDenseFactors(const T* d, Index n, std::size_t rowStride,
                                                                std::size_t colStride, bool prefixCounts) {
    std::vector<bitflag_detail::LineEntry<T>> lower, upper;
    for (Index i = 0; i < n; ++i) {
        lower.push_back({i, i, T(1)});
        for (Index j = 0; j < n; ++j) {
            const T v = d[std::size_t(i) * rowStride + std::size_t(j) * colStride];
            if (v == T(0)) continue;
            (j < i ? lower : upper).push_back({i, j, v});
        }
    }
    BitFlagOptions options;
    options.prefixCounts = prefixCounts;
    return {bitflag_detail::buildFromLineEntries(n, n, options, std::move(lower)),
            bitflag_detail::buildFromLineEntries(n, n, options, std::move(upper))};
}

} // namespace spyglass::cuda
