#pragma once
// The property the file-reader harnesses check on every matrix they read: its arrays agree with its
// size (every index in range, one value per entry, one imaginary part per value for complex), and
// makeEntriesDistinct (what the window and the CLI run on every matrix they read) leaves each position
// once and accounts for every entry it removed; else abort so that libFuzzer keeps the input.
#include "spyglass/distinctentries.h"
#include "spyglass/matrix.h"

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <utility>
#include <vector>

inline void checkMatrixArrays(const spyglass::Matrix& m) {
    const std::size_t n = m.rowIndex.size();
    if (m.colIndex.size() != n) std::abort();
    if (m.field != spyglass::Field::Pattern && m.real.size() != n) std::abort();
    if (m.field == spyglass::Field::Complex && m.imag.size() != n) std::abort();
    for (std::size_t k = 0; k < n; ++k)
        if (m.rowIndex[k] < 0 || m.rowIndex[k] >= m.rows || m.colIndex[k] < 0 || m.colIndex[k] >= m.cols) std::abort();
    // Small matrices only: the copy and the positions would count against the reader's memory budget,
    // which the harness checks after this (and small ones reach every branch of the distinct pass).
    if (n > (std::size_t(1) << 16)) return;
    spyglass::Matrix distinct = m;
    const spyglass::DistinctEntriesReport report = spyglass::makeEntriesDistinct(distinct, 2);
    if (std::size_t(distinct.stored() + report.removed()) != n) std::abort();
    std::vector<std::pair<spyglass::Index, spyglass::Index>> positions;
    for (std::size_t k = 0; k < distinct.rowIndex.size(); ++k) positions.emplace_back(distinct.rowIndex[k], distinct.colIndex[k]);
    std::sort(positions.begin(), positions.end());
    if (std::adjacent_find(positions.begin(), positions.end()) != positions.end()) std::abort();
}
