// Bit-flag SpMV on the CPU: every set bit of a line, low bit first, is the next value of M.
#include "core/bitflag_internal.h"
#include "reference/bitflag_reference.h"

#include "spyglass/bitflag_spmv.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass {

namespace {

template <typename T>
void checkShapes(const BitFlagMatrix<T>& a, std::size_t xSize, const char* what) {
    if (xSize != static_cast<std::size_t>(a.cols))
        throw InputError(std::string(what) + ": x has " + std::to_string(xSize) + " entries but the matrix has " +
                         std::to_string(a.cols) + " columns");
    if (a.lineStart.size() != static_cast<std::size_t>(a.lines()) + 1 || a.values.size() != static_cast<std::size_t>(a.nonzeros))
        throw InputError(std::string(what) + ": the line starts or the values do not match the matrix's size (validateBitFlag names the fault)");
}

} // namespace

template <typename T>
std::vector<T> bitflag_reference::spmv(const BitFlagMatrix<T>& a, const std::vector<T>& x) {
    checkShapes(a, x.size(), "bit-flag SpMV");
    std::vector<T> y(static_cast<std::size_t>(a.rows), T(0));
    const int bits = a.wordBits;
    for (Index line = 0; line < a.lines(); ++line) {
        Count slot = a.lineStart[std::size_t(line)];
        T rowSum(0);
        for (Index w = 0; w < a.wordsPerLine; ++w) {
            std::uint64_t word = a.word(line, w);
            while (word) {
                const Index pos = Index(w) * bits + Index(__builtin_ctzll(word));
                word &= word - 1;
                const T value = a.values[std::size_t(slot++)];
                if (a.order == BitFlagOrder::RowMajor) rowSum += value * x[std::size_t(pos)];
                else y[std::size_t(pos)] += value * x[std::size_t(line)];
            }
        }
        if (a.order == BitFlagOrder::RowMajor) y[std::size_t(line)] = rowSum;
    }
    return y;
}

std::size_t bitFlagSpmvDeviceBytes(Index rows, Index cols, Count nonzeros, std::size_t valueBytes) {
    const std::size_t words = std::size_t(rows) * std::size_t(bitflag_detail::wordsPerLineFor(cols));
    return words * sizeof(std::uint64_t) + (std::size_t(rows) + 1) * sizeof(Count) + std::size_t(nonzeros) * valueBytes;
}

template std::vector<float> bitflag_reference::spmv(const BitFlagMatrix<float>&, const std::vector<float>&);
template std::vector<double> bitflag_reference::spmv(const BitFlagMatrix<double>&, const std::vector<double>&);

} // namespace spyglass
