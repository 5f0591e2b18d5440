// CPU reference SpMV on the valued hybrid form: the oracle for the CUDA kernel and the CPU backend.
#include "spyglass/error.h"
#include "spyglass/hybrid_valued.h"

namespace spyglass {

template <typename T>
std::vector<T> hybridValuedSpmvReference(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x) {
    if (x.size() != static_cast<std::size_t>(hybrid.cols))
        throw InputError("valued hybrid SpMV: x has " + std::to_string(x.size()) + " entries, the matrix has " +
                         std::to_string(hybrid.cols) + " columns");
    std::vector<double> acc(static_cast<std::size_t>(hybrid.rows), 0.0);
    for (const HybridValuedBlock<T>& block : hybrid.blocks) {
        const DenseRegion& region = block.region;
        const T* cells = block.values.data();
        for (Index row = region.rowBegin; row < region.rowEnd; ++row) {
            const ColumnSpan s = region.span(row);
            double sum = 0.0;
            for (Index j = s.begin; j < s.end; ++j) sum += static_cast<double>(*cells++) * static_cast<double>(x[j]);
            acc[row] += sum;
        }
    }
    const CsrMatrix<T>& residual = hybrid.residual;
    for (Index row = 0; row < hybrid.rows; ++row)
        for (Count k = residual.rowPtr[row]; k < residual.rowPtr[row + 1]; ++k)
            acc[row] += static_cast<double>(residual.values[k]) * static_cast<double>(x[residual.colIndex[k]]);
    return std::vector<T>(acc.begin(), acc.end());
}

template std::vector<float> hybridValuedSpmvReference(const HybridValuedMatrix<float>&, const std::vector<float>&);
template std::vector<double> hybridValuedSpmvReference(const HybridValuedMatrix<double>&, const std::vector<double>&);

} // namespace spyglass
