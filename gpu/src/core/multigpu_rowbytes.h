#pragma once
// The planner's cost of one CSR row, shared by the plan of a matrix in memory (csrRowCosts) and the
// row blocks of a file read one rank at a time (csrRowBlocks): both must cut the rows alike.
#include "spyglass/matrix.h"

#include <cstddef>
#include <cstdint>

namespace spyglass {

// What cuSPARSE reads for the row: a 32-bit row start, a column and a value per entry, y.
inline std::uint64_t csrRowBytes(Count entries, std::size_t valueBytes) {
    return sizeof(std::int32_t) + valueBytes + std::uint64_t(entries) * (sizeof(Index) + valueBytes);
}

} // namespace spyglass
