#pragma once
// Input checks shared by the SpMV entries of methods B and D (spmv, hybridSpmv and their timed forms),
// so that every entry refuses a bad x or CSR with the same words before any device question is asked.
#include "spyglass/error.h"
#include "spyglass/matrix.h"

#include <string>

namespace spyglass::spmv_checks {

inline void requireXOfColumns(const char* what, Index cols, std::size_t xSize) {
    if (xSize != static_cast<std::size_t>(cols))
        throw InputError(std::string(what) + ": x has " + std::to_string(xSize) + " entries but the matrix has " +
                         std::to_string(cols) + " columns");
}

template <typename T>
void requireRowPointers(const char* what, const CsrMatrix<T>& a) {
    if (a.rowPtr.size() != static_cast<std::size_t>(a.rows) + 1)
        throw InputError(std::string(what) + ": rowPtr has " + std::to_string(a.rowPtr.size()) + " entries, expected rows + 1");
}

} // namespace spyglass::spmv_checks
