#pragma once
// Method A's CPU oracles, called by the dispatch (core/bitflag_dispatch.cpp) for the Reference backend.
// Each checks its own input too, so that it stays a complete oracle on its own.
#include "spyglass/bitflag.h"

#include <vector>

namespace spyglass::bitflag_reference {

template <typename T> BitFlagMatrix<T> add(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b);
template <typename T> BitFlagMatrix<T> subtract(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b);
// options: cancel and progress.
template <typename T>
BitFlagMatrix<T> multiply(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b, const BitFlagRunOptions& options);
// options: tolerance, cancel and progress.
template <typename T> BitFlagLu<T> lu(const BitFlagMatrix<T>& a, const BitFlagRunOptions& options);
template <typename T> BitFlagPivotedLu<T> luPivoted(const BitFlagMatrix<T>& a, double tolerance);
template <typename T>
void setBatch(BitFlagMatrix<T>& m, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ, const std::vector<T>& values);
template <typename T> std::vector<T> spmv(const BitFlagMatrix<T>& a, const std::vector<T>& x);

} // namespace spyglass::bitflag_reference
