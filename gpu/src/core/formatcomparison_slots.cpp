#include "core/formatcomparison_slots.h"

#include <algorithm>
#include <vector>

namespace spyglass::compare_detail {

template <typename T>
DiaFootprint diaFootprint(const CsrMatrix<T>& csr, Index groupRows) {
    DiaFootprint footprint;
    if (csr.rows == 0 || groupRows < 1) return footprint;
    // stamp[d] = 1 + the last group that met diagonal d (col - row + rows - 1): one pass, no sort.
    std::vector<Index> stamp(std::size_t(csr.rows) + std::size_t(csr.cols), 0);
    Index group = 0;
    for (Index first = 0; first < csr.rows; first += std::min(groupRows, csr.rows - first), ++group) {
        const Index last = first + std::min(groupRows, csr.rows - first);
        Count distinct = 0;
        for (Index i = first; i < last; ++i)
            for (Count k = csr.rowPtr[std::size_t(i)]; k < csr.rowPtr[std::size_t(i) + 1]; ++k) {
                const std::size_t d = std::size_t(Count(csr.colIndex[std::size_t(k)]) - i + csr.rows - 1);
                if (stamp[d] != group + 1) {
                    stamp[d] = group + 1;
                    ++distinct;
                }
            }
        footprint.slots += distinct * Count(last - first);
        footprint.diagonals = std::max(footprint.diagonals, distinct);
    }
    return footprint;
}

template DiaFootprint diaFootprint(const CsrMatrix<float>&, Index);
template DiaFootprint diaFootprint(const CsrMatrix<double>&, Index);
template DiaFootprint diaFootprint(const CsrMatrix<std::complex<float>>&, Index);
template DiaFootprint diaFootprint(const CsrMatrix<std::complex<double>>&, Index);

} // namespace spyglass::compare_detail
