// CPU reference SpMV on the valued hybrid form: the oracle for the CUDA kernel and the CPU backend.
#include "spyglass/error.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/scalar.h"

namespace spyglass {

template <typename T>
std::vector<T> hybridValuedSpmvReference(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x) {
    if (x.size() != static_cast<std::size_t>(hybrid.cols))
        throw InputError("valued hybrid SpMV: x has " + std::to_string(x.size()) + " entries, the matrix has " +
                         std::to_string(hybrid.cols) + " columns");
    // Sums in double (std::complex<double> for complex values), rounded to T once at the end.
    using Wide = WideOf<T>;
    std::vector<Wide> acc(static_cast<std::size_t>(hybrid.rows), Wide(0));
    for (const HybridValuedBlock<T>& block : hybrid.blocks) {
        const DenseRegion& region = block.region;
        const T* cells = block.values.data();
        for (Index row = region.rowBegin; row < region.rowEnd; ++row) {
            const ColumnSpan s = region.span(row);
            Wide sum(0);
            for (Index j = s.begin; j < s.end; ++j) sum += widen(*cells++) * widen(x[j]);
            acc[row] += sum;
        }
    }
    const CsrMatrix<T>& residual = hybrid.residual;
    for (Index row = 0; row < hybrid.rows; ++row)
        for (Count k = residual.rowPtr[row]; k < residual.rowPtr[row + 1]; ++k)
            acc[row] += widen(residual.values[k]) * widen(x[residual.colIndex[k]]);
    std::vector<T> y(acc.size());
    for (std::size_t i = 0; i < acc.size(); ++i) y[i] = T(acc[i]);
    return y;
}

template std::vector<float> hybridValuedSpmvReference(const HybridValuedMatrix<float>&, const std::vector<float>&);
template std::vector<double> hybridValuedSpmvReference(const HybridValuedMatrix<double>&, const std::vector<double>&);
template std::vector<std::complex<float>> hybridValuedSpmvReference(const HybridValuedMatrix<std::complex<float>>&,
                                                                    const std::vector<std::complex<float>>&);
template std::vector<std::complex<double>> hybridValuedSpmvReference(const HybridValuedMatrix<std::complex<double>>&,
                                                                     const std::vector<std::complex<double>>&);

} // namespace spyglass
