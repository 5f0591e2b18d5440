// Method A reference operations: add/sub by the seed's four flag cases, multiply by AND of bit rows.
#include "core/bitflag_internal.h"
#include "reference/bitflag_reference.h"

#include "spyglass/bitflag.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass {

using namespace bitflag_detail;

namespace {

template <typename T>
void requireSameShape(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const char* what) {
    if (a.rows != b.rows || a.cols != b.cols)
        throw InputError(std::string(what) + ": A is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                         " but B is " + std::to_string(b.rows) + " x " + std::to_string(b.cols));
    if (a.order != b.order)
        throw InputError(std::string(what) + ": A is " + toString(a.order) + " but B is " + toString(b.order));
}

template <typename T>
BitFlagMatrix<T> addOrSubtract(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, T sign, const char* what) {
    requireSameShape(a, b, what);
    BitFlagMatrix<T> c = emptyBitFlag<T>(a.rows, a.cols, a.order);
    const int bitsPerWord = a.wordBits;
    for (Index line = 0; line < a.lines(); ++line) {
        Count ka = a.lineStart[std::size_t(line)], kb = b.lineStart[std::size_t(line)];
        for (Index w = 0; w < a.wordsPerLine; ++w) {
            const std::uint64_t wa = a.word(line, w), wb = b.word(line, w);
            std::uint64_t both = wa | wb;
            while (both) {
                const int bit = __builtin_ctzll(both);
                both &= both - 1;
                const bool inA = (wa >> bit) & 1u, inB = (wb >> bit) & 1u;
                T value = inA ? a.values[std::size_t(ka++)] : T(0);
                if (inB) value += sign * b.values[std::size_t(kb++)];
                c.values.push_back(value);
                setFlag(c, line, Index(w * bitsPerWord + bit));
            }
        }
        c.lineStart[std::size_t(line) + 1] = Count(c.values.size());
    }
    c.nonzeros = Count(c.values.size());
    setPrefixCounts(c, a.withPrefixCounts);
    return c;
}

} // namespace

namespace bitflag_reference {

template <typename T>
BitFlagMatrix<T> add(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b) {
    return addOrSubtract(a, b, T(1), "bit-flag add");
}

template <typename T>
BitFlagMatrix<T> subtract(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b) {
    return addOrSubtract(a, b, T(-1), "bit-flag subtract");
}

template <typename T>
BitFlagMatrix<T> multiply(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagRunOptions& control) {
    if (a.order != BitFlagOrder::RowMajor || b.order != BitFlagOrder::ColumnMajor)
        throw InputError(std::string("bit-flag multiply: needs A row-major and B column-major, got A ") +
                         toString(a.order) + " and B " + toString(b.order));
    if (a.cols != b.rows)
        throw InputError("bit-flag multiply: A has " + std::to_string(a.cols) + " columns but B has " +
                         std::to_string(b.rows) + " rows");
    BitFlagMatrix<T> c = emptyBitFlag<T>(a.rows, b.cols, BitFlagOrder::RowMajor);
    const Index words = a.wordsPerLine;  // A's rows and B's columns have the same length
    for (Index i = 0; i < a.rows; ++i) {
        // R x C x words: the one reference operation that can run for minutes, so it stops on request.
        if (control.cancel && control.cancel->load()) throw CancelledError();
        if (control.progress) control.progress(double(i) / double(a.rows));
        for (Index j = 0; j < b.cols; ++j) {
            // Symbolic and numeric in one sweep here; the GPU splits them into two passes.
            Count ka = a.lineStart[std::size_t(i)], kb = b.lineStart[std::size_t(j)];
            bool any = false;
            T sum(0);
            for (Index w = 0; w < words; ++w) {
                const std::uint64_t wa = a.word(i, w), wb = b.word(j, w);
                std::uint64_t shared = wa & wb;
                while (shared) {
                    const int bit = __builtin_ctzll(shared);
                    shared &= shared - 1;
                    const std::uint64_t below = (std::uint64_t(1) << bit) - 1;
                    sum += a.values[std::size_t(ka + popcount64(wa & below))] * b.values[std::size_t(kb + popcount64(wb & below))];
                    any = true;
                }
                ka += popcount64(wa);
                kb += popcount64(wb);
            }
            if (any) {
                setFlag(c, i, j);
                c.values.push_back(sum);
            }
        }
        c.lineStart[std::size_t(i) + 1] = Count(c.values.size());
    }
    c.nonzeros = Count(c.values.size());
    setPrefixCounts(c, a.withPrefixCounts);
    return c;
}

#define SPYGLASS_BITFLAG_OPS(T)                                                                   \
    template BitFlagMatrix<T> add(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&);              \
    template BitFlagMatrix<T> subtract(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&);         \
    template BitFlagMatrix<T> multiply(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&, const BitFlagRunOptions&);
SPYGLASS_BITFLAG_OPS(float)
SPYGLASS_BITFLAG_OPS(double)

} // namespace bitflag_reference

} // namespace spyglass
