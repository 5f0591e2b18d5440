// Method A's dispatched entries: validate the request, then run the CPU reference or hand over to the
// device half (core/bitflag_device.h). Checks that do not depend on a device live here, so that bad
// input is named the same way by every backend and in every build.
#include "core/bitflag_device.h"
#include "core/csr_vendor_checks.h"
#include "core/instantiate.h"
#include "reference/bitflag_reference.h"
#include "spyglass/bitflag.h"
#include "spyglass/bitflag_baselines.h"
#include "spyglass/bitflag_spmv.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass {

namespace {

// The largest order whose dense n x n stays within the 4e8 elements the CPU expansions allow.
constexpr Index kDenseMaxOrder = 20000;

[[noreturn]] void notOffered(const std::string& what, BitFlagBackend backend) {
    throw InputError(what + ": the " + toString(backend) + " backend does not offer this operation");
}

void requireBackend(const std::string& what, const BitFlagRunOptions& options, std::initializer_list<BitFlagBackend> offered) {
    for (const BitFlagBackend backend : offered)
        if (backend == options.backend) return;
    notOffered(what, options.backend);
}

// The GPU backends cannot be stopped half way, so a request cancelled before they start is honoured.
void checkCancelled(const BitFlagRunOptions& options) {
    if (options.cancel && options.cancel->load()) throw CancelledError();
}

void checkQueries(Index rows, Index cols, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                  const std::string& what) {
    if (rowsQ.size() != colsQ.size())
        throw InputError(what + ": " + std::to_string(rowsQ.size()) + " row indices but " + std::to_string(colsQ.size()) +
                         " column indices");
    for (std::size_t q = 0; q < rowsQ.size(); ++q)
        if (rowsQ[q] < 0 || rowsQ[q] >= rows || colsQ[q] < 0 || colsQ[q] >= cols)
            throw InputError(what + ": query " + std::to_string(q) + ": (" + std::to_string(rowsQ[q]) + ", " +
                             std::to_string(colsQ[q]) + ") lies outside the " + std::to_string(rows) + " x " +
                             std::to_string(cols) + " matrix");
}

template <typename T>
void requireSameShape(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const std::string& what) {
    if (a.rows != b.rows || a.cols != b.cols)
        throw InputError(what + ": A is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + " but B is " +
                         std::to_string(b.rows) + " x " + std::to_string(b.cols));
    if (a.order != b.order) throw InputError(what + ": A is " + toString(a.order) + " but B is " + toString(b.order));
}

template <typename T>
void requireSquare(const BitFlagMatrix<T>& a, const std::string& what) {
    if (a.rows != a.cols)
        throw InputError(what + ": the matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                         ", LU needs a square matrix");
}

template <typename T>
BitFlagMatrix<T> addOrSubtract(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, T sign, const BitFlagRunOptions& options) {
    const std::string what = sign > T(0) ? "bit-flag add" : "bit-flag subtract";
    requireBackend(what, options, {BitFlagBackend::Reference, BitFlagBackend::Cuda});
    requireSameShape(a, b, what);
    if (options.backend == BitFlagBackend::Reference)
        return sign > T(0) ? bitflag_reference::add(a, b) : bitflag_reference::subtract(a, b);
    checkCancelled(options);
    return bitflag_device::addOrSubtract(a, b, sign, options);
}

} // namespace

template <typename T>
std::vector<T> bitFlagGetBatch(const BitFlagMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                               const BitFlagRunOptions& options) {
    const std::string what = "bit-flag batch get";
    requireBackend(what, options, {BitFlagBackend::Reference, BitFlagBackend::Cuda});
    checkQueries(m.rows, m.cols, rowsQ, colsQ, what);
    if (options.backend == BitFlagBackend::Cuda) {
        checkCancelled(options);
        return bitflag_device::getBatch(m, rowsQ, colsQ, options);
    }
    std::vector<T> out(rowsQ.size());
    for (std::size_t q = 0; q < rowsQ.size(); ++q) out[q] = bitFlagGet(m, rowsQ[q], colsQ[q]);
    return out;
}

template <typename T>
void bitFlagSetBatch(BitFlagMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                     const std::vector<T>& values, const BitFlagRunOptions& options) {
    const std::string what = "bit-flag batch set";
    requireBackend(what, options, {BitFlagBackend::Reference, BitFlagBackend::Cuda});
    if (rowsQ.size() != colsQ.size() || rowsQ.size() != values.size())
        throw InputError(what + ": " + std::to_string(rowsQ.size()) + " row indices, " + std::to_string(colsQ.size()) +
                         " column indices and " + std::to_string(values.size()) + " values; they must be equally many");
    checkQueries(m.rows, m.cols, rowsQ, colsQ, what);
    if (options.backend == BitFlagBackend::Reference) return bitflag_reference::setBatch(m, rowsQ, colsQ, values);
    checkCancelled(options);
    if (!rowsQ.empty()) m = bitflag_device::setBatch(m, rowsQ, colsQ, values, options);
}

template <typename T>
BitFlagMatrix<T> bitFlagAdd(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagRunOptions& options) {
    return addOrSubtract(a, b, T(1), options);
}

template <typename T>
BitFlagMatrix<T> bitFlagSub(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagRunOptions& options) {
    return addOrSubtract(a, b, T(-1), options);
}

template <typename T>
BitFlagMatrix<T> bitFlagMultiply(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagRunOptions& options) {
    const std::string what = "bit-flag multiply";
    requireBackend(what, options, {BitFlagBackend::Reference, BitFlagBackend::Cuda});
    if (a.order != BitFlagOrder::RowMajor || b.order != BitFlagOrder::ColumnMajor)
        throw InputError(what + ": needs A row-major and B column-major, got A " + toString(a.order) + " and B " +
                         toString(b.order));
    if (a.cols != b.rows)
        throw InputError(what + ": A has " + std::to_string(a.cols) + " columns but B has " + std::to_string(b.rows) + " rows");
    if (options.backend == BitFlagBackend::Reference) return bitflag_reference::multiply(a, b, options);
    checkCancelled(options);
    return bitflag_device::multiply(a, b, options);
}

template <typename T>
BitFlagLu<T> bitFlagLu(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options) {
    const std::string what = "bit-flag LU";
    requireBackend(what, options, {BitFlagBackend::Reference, BitFlagBackend::Cuda});
    requireSquare(a, what);
    if (options.backend == BitFlagBackend::Reference) return bitflag_reference::lu(a, options);
    checkCancelled(options);
    return bitflag_device::lu(a, options);
}

template <typename T>
BitFlagPivotedLu<T> bitFlagLuPivoted(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options) {
    const std::string what = options.backend == BitFlagBackend::Vendor ? "cuSOLVER getrf" : "bit-flag LU with partial pivoting";
    requireSquare(a, what);
    if (options.backend == BitFlagBackend::Reference) return bitflag_reference::luPivoted(a, options.tolerance);
    checkCancelled(options);
    if (options.backend == BitFlagBackend::Vendor) {
        if (double(a.rows) * double(a.rows) > 4e8)
            throw InputError(what + ": order " + std::to_string(a.rows) + " is too large for the dense expansion");
        return bitflag_device::luPivotedVendor(a, options);
    }
    if (options.panelWidth < 0 || options.panelWidth > 256)
        throw InputError(what + ": panel width " + std::to_string(options.panelWidth) + " is outside 1..256 (0: automatic)");
    if (options.leafWidth < 1 || options.leafWidth > 32)
        throw InputError(what + ": leaf width " + std::to_string(options.leafWidth) + " is outside 1..32");
    if (options.leaf != BitFlagLuLeaf::OneBlock && options.leaf != BitFlagLuLeaf::Cluster && options.leaf != BitFlagLuLeaf::Auto)
        throw InputError(what + ": unknown leaf kernel " + std::to_string(int(options.leaf)));
    if (options.leafClusterBlocks < 0 || options.leafClusterBlocks > 16)
        throw InputError(what + ": leaf cluster blocks " + std::to_string(options.leafClusterBlocks) +
                         " is outside 0..16 (0: automatic)");
    return bitflag_device::luPivoted(a, options);
}

template <typename T>
std::vector<BitFlagLu<T>> bitFlagLuBatched(const std::vector<BitFlagMatrix<T>>& batch, const BitFlagRunOptions& options) {
    requireBackend("bit-flag batched LU", options, {BitFlagBackend::Cuda});
    if (batch.empty()) return {};
    checkCancelled(options);
    return bitflag_device::luBatched(batch, options);
}

template <typename T>
std::vector<BitFlagPivotedLu<T>> bitFlagLuPivotedBatched(const std::vector<BitFlagMatrix<T>>& batch,
                                                         const BitFlagRunOptions& options) {
    requireBackend("bit-flag batched LU with partial pivoting", options, {BitFlagBackend::Cuda});
    if (batch.empty()) return {};
    checkCancelled(options);
    return bitflag_device::luPivotedBatched(batch, options);
}

template <typename T>
Index bitFlagLuMaxOrder(BitFlagLuForm form, const BitFlagRunOptions& options) {
    const bool batched = form == BitFlagLuForm::Batched || form == BitFlagLuForm::PivotedBatched;
    switch (options.backend) {
    case BitFlagBackend::Reference: return batched ? 0 : kDenseMaxOrder;
    case BitFlagBackend::Vendor: return form == BitFlagLuForm::Pivoted ? kDenseMaxOrder : 0;
    case BitFlagBackend::Cuda: return bitflag_device::luMaxOrder<T>(form, options);
    }
    return 0;
}

template <typename T>
std::vector<T> bitFlagSpmv(const BitFlagMatrix<T>& a, const std::vector<T>& x, const BitFlagRunOptions& options) {
    const std::string what = "bit-flag SpMV";
    requireBackend(what, options, {BitFlagBackend::Reference, BitFlagBackend::Cuda});
    if (x.size() != static_cast<std::size_t>(a.cols))
        throw InputError(what + ": x has " + std::to_string(x.size()) + " entries but the matrix has " +
                         std::to_string(a.cols) + " columns");
    if (options.backend == BitFlagBackend::Reference) return bitflag_reference::spmv(a, x);
    if (a.order != BitFlagOrder::RowMajor)
        throw InputError(what + " on CUDA: the matrix is column-major; the kernel reads rows (reorderBitFlag converts)");
    validateBitFlag(a);
    checkCancelled(options);
    return bitflag_device::spmv(a, x, options);
}

CsrMatrix<float> csrAdd(const CsrMatrix<float>& a, const CsrMatrix<float>& b, const BitFlagRunOptions& options) {
    vendor_checks::requireSameShape(a, b);
    requireBackend("cuSPARSE add", options, {BitFlagBackend::Vendor});
    checkCancelled(options);
    return bitflag_device::csrAddVendor(a, b, 1.0f, options);
}

CsrMatrix<float> csrSub(const CsrMatrix<float>& a, const CsrMatrix<float>& b, const BitFlagRunOptions& options) {
    vendor_checks::requireSameShape(a, b);
    requireBackend("cuSPARSE subtract", options, {BitFlagBackend::Vendor});
    checkCancelled(options);
    return bitflag_device::csrAddVendor(a, b, -1.0f, options);
}

CsrMatrix<float> csrMultiply(const CsrMatrix<float>& a, const CsrMatrix<float>& b, const BitFlagRunOptions& options) {
    vendor_checks::requireMultipliable(a, b);
    requireBackend("cuSPARSE multiply", options, {BitFlagBackend::Vendor});
    checkCancelled(options);
    return bitflag_device::csrMultiplyVendor(a, b, options);
}

template <typename T>
std::vector<T> csrGetBatch(const CsrMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                           const BitFlagRunOptions& options) {
    const std::string what = "CSR batch get";
    requireBackend(what, options, {BitFlagBackend::Cuda});
    if (m.rowPtr.size() != std::size_t(m.rows) + 1) throw InputError(what + ": rowPtr must have rows + 1 entries");
    checkQueries(m.rows, m.cols, rowsQ, colsQ, what);
    checkCancelled(options);
    return bitflag_device::csrGetBatch(m, rowsQ, colsQ, options);
}

#define SPYGLASS_BITFLAG_DISPATCH(T)                                                                                    \
    template std::vector<T> bitFlagGetBatch(const BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&, \
                                            const BitFlagRunOptions&);                                                  \
    template void bitFlagSetBatch(BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&,              \
                                  const std::vector<T>&, const BitFlagRunOptions&);                                     \
    template BitFlagMatrix<T> bitFlagAdd(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&, const BitFlagRunOptions&);   \
    template BitFlagMatrix<T> bitFlagSub(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&, const BitFlagRunOptions&);   \
    template BitFlagMatrix<T> bitFlagMultiply(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&, const BitFlagRunOptions&); \
    template BitFlagLu<T> bitFlagLu(const BitFlagMatrix<T>&, const BitFlagRunOptions&);                                 \
    template BitFlagPivotedLu<T> bitFlagLuPivoted(const BitFlagMatrix<T>&, const BitFlagRunOptions&);                   \
    template std::vector<BitFlagLu<T>> bitFlagLuBatched(const std::vector<BitFlagMatrix<T>>&, const BitFlagRunOptions&); \
    template std::vector<BitFlagPivotedLu<T>> bitFlagLuPivotedBatched(const std::vector<BitFlagMatrix<T>>&,             \
                                                                      const BitFlagRunOptions&);                        \
    template Index bitFlagLuMaxOrder<T>(BitFlagLuForm, const BitFlagRunOptions&);                                       \
    template std::vector<T> bitFlagSpmv(const BitFlagMatrix<T>&, const std::vector<T>&, const BitFlagRunOptions&);      \
    template std::vector<T> csrGetBatch(const CsrMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&,       \
                                        const BitFlagRunOptions&);
SPYGLASS_FOR_EACH_REAL(SPYGLASS_BITFLAG_DISPATCH)

} // namespace spyglass
