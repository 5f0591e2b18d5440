// CPU reference SpMV on the hybrid form: the oracle for the CUDA kernel and the CPU backend.
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/scalar.h"

namespace spyglass {

namespace {
void checkVector(const char* what, std::size_t size, Index expected) {
    if (size != static_cast<std::size_t>(expected))
        throw InputError(std::string(what) + ": x has " + std::to_string(size) + " entries, the matrix has " +
                         std::to_string(expected) + " columns");
}
} // namespace

template <typename T>
std::vector<T> hybridSpmvReference(const HybridBinaryMatrix& hybrid, const std::vector<T>& x) {
    checkVector("hybrid SpMV", x.size(), hybrid.cols);
    // prefix[j] = x[0] + ... + x[j-1]: the sum over any column run is one subtraction. Sums in
    // double (std::complex<double> for a complex x), rounded to T once at the end.
    using Wide = WideOf<T>;
    std::vector<Wide> prefix(static_cast<std::size_t>(hybrid.cols) + 1, Wide(0));
    for (Index j = 0; j < hybrid.cols; ++j) prefix[j + 1] = prefix[j] + widen(x[j]);
    std::vector<Wide> acc(static_cast<std::size_t>(hybrid.rows), Wide(0));
    for (const HybridBlock& block : hybrid.blocks) {
        const DenseRegion& region = block.region;
        for (Index row = region.rowBegin; row < region.rowEnd; ++row) {
            const ColumnSpan s = region.span(row);
            if (!s.size()) continue;
            Wide sum = prefix[s.end] - prefix[s.begin];
            const Index local = row - region.rowBegin;
            for (std::uint32_t z = block.zeroRowPtr[local]; z < block.zeroRowPtr[local + 1]; ++z)
                sum -= widen(x[s.begin + block.zeroOffsets[z]]);
            acc[row] += sum;
        }
    }
    const BinaryPattern& residual = hybrid.residual;
    for (Index row = 0; row < hybrid.rows; ++row)
        for (Count k = residual.rowPtr[row]; k < residual.rowPtr[row + 1]; ++k)
            acc[row] += widen(x[residual.colIndex[k]]);
    std::vector<T> y(acc.size());
    for (std::size_t i = 0; i < acc.size(); ++i) y[i] = T(acc[i]);
    return y;
}

template <typename T>
std::vector<T> patternSpmvReference(const BinaryPattern& pattern, const std::vector<T>& x) {
    checkVector("pattern SpMV", x.size(), pattern.cols);
    std::vector<T> y(static_cast<std::size_t>(pattern.rows));
    for (Index row = 0; row < pattern.rows; ++row) {
        double sum = 0.0;
        for (Count k = pattern.rowPtr[row]; k < pattern.rowPtr[row + 1]; ++k) sum += static_cast<double>(x[pattern.colIndex[k]]);
        y[row] = static_cast<T>(sum);
    }
    return y;
}

template std::vector<float> hybridSpmvReference(const HybridBinaryMatrix&, const std::vector<float>&);
template std::vector<double> hybridSpmvReference(const HybridBinaryMatrix&, const std::vector<double>&);
template std::vector<std::complex<float>> hybridSpmvReference(const HybridBinaryMatrix&, const std::vector<std::complex<float>>&);
template std::vector<std::complex<double>> hybridSpmvReference(const HybridBinaryMatrix&, const std::vector<std::complex<double>>&);
template std::vector<float> patternSpmvReference(const BinaryPattern&, const std::vector<float>&);
template std::vector<double> patternSpmvReference(const BinaryPattern&, const std::vector<double>&);

} // namespace spyglass
