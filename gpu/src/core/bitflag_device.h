#pragma once
// The GPU half of method A's dispatched entries (spyglass/bitflag.h, bitflag_spmv.h,
// bitflag_baselines.h): defined in cuda/bitflag_run.cpp (and cuda/bitflag_run_lu.cpp,
// cuda/bitflag_vendor*.cpp, the SpMV and set launchers), or by the stubs in nocuda/bitflag_nocuda.cpp
// that report the missing backend. Arguments are validated by the dispatch: shapes, orders, query
// bounds, x's length; what depends on the device (its presence, shared memory) is checked here.
#include "spyglass/bitflag.h"

#include <vector>

namespace spyglass::bitflag_device {

template <typename T>
std::vector<T> getBatch(const BitFlagMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                        const BitFlagRunOptions& options);
// The matrix with the new values; a query without a flag throws InputError naming it.
template <typename T>
BitFlagMatrix<T> setBatch(const BitFlagMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                          const std::vector<T>& values, const BitFlagRunOptions& options);
template <typename T>
BitFlagMatrix<T> addOrSubtract(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, T sign, const BitFlagRunOptions& options);
template <typename T>
BitFlagMatrix<T> multiply(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagRunOptions& options);
template <typename T> BitFlagLu<T> lu(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options);
template <typename T> BitFlagPivotedLu<T> luPivoted(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options);
template <typename T> BitFlagPivotedLu<T> luPivotedVendor(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options);
template <typename T>
std::vector<BitFlagLu<T>> luBatched(const std::vector<BitFlagMatrix<T>>& batch, const BitFlagRunOptions& options);
template <typename T>
std::vector<BitFlagPivotedLu<T>> luPivotedBatched(const std::vector<BitFlagMatrix<T>>& batch, const BitFlagRunOptions& options);
// Cuda's largest orders (bitFlagLuMaxOrder).
template <typename T> Index luMaxOrder(BitFlagLuForm form, const BitFlagRunOptions& options);
template <typename T> std::vector<T> spmv(const BitFlagMatrix<T>& a, const std::vector<T>& x, const BitFlagRunOptions& options);
template <typename T>
std::vector<T> csrGetBatch(const CsrMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                           const BitFlagRunOptions& options);
// sign -1: C = A - B.
CsrMatrix<float> csrAddVendor(const CsrMatrix<float>& a, const CsrMatrix<float>& b, float sign, const BitFlagRunOptions& options);
CsrMatrix<float> csrMultiplyVendor(const CsrMatrix<float>& a, const CsrMatrix<float>& b, const BitFlagRunOptions& options);

} // namespace spyglass::bitflag_device
