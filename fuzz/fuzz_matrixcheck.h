#pragma once
// The property the file-reader harnesses check on every matrix they read: its arrays agree with its
// size (every index in range, one value per entry, one imaginary part per value for complex), else
// abort so that libFuzzer keeps the input.
#include "spyglass/matrix.h"

#include <cstddef>
#include <cstdlib>

inline void checkMatrixArrays(const spyglass::Matrix& m) {
    const std::size_t n = m.rowIndex.size();
    if (m.colIndex.size() != n) std::abort();
    if (m.field != spyglass::Field::Pattern && m.real.size() != n) std::abort();
    if (m.field == spyglass::Field::Complex && m.imag.size() != n) std::abort();
    for (std::size_t k = 0; k < n; ++k)
        if (m.rowIndex[k] < 0 || m.rowIndex[k] >= m.rows || m.colIndex[k] < 0 || m.colIndex[k] >= m.cols) std::abort();
}
