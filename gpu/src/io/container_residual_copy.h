#pragma once
// A hybrid CSR fallback reopened into arrays sized early (container_early_arrays.h): its residual's
// columns (and values) are copied into them right behind the sizing, each entry's row is filled and
// each column checked as the residual's validation would, all in one pass on every thread. Shared by
// the binary and the valued hybrid readers.
#include "io/container_early_arrays.h"

#include "spyglass/matrix.h"

#include <cstdint>
#include <string_view>
#include <vector>

namespace spyglass::container_io {

// The residual's row pointers as the fused pass needs them: starting at 0 and never decreasing (they
// are not yet checked when it runs; otherwise the reader takes its ordinary path).
bool pointersOrdered(const std::vector<Count>& pointers);

// Copies `pointers.back()` columns from `columnBytes` (and values from `valueBytes` of `valueType`,
// f32 or f64, when `values` is not empty) into early's arrays, fills their rows, and hands the three
// arrays over. Returns whether every column lies in [0, cols) and rises strictly within its row.
// Needs early.sizingFor(pointers.back(), !valueBytes.empty()) and pointersOrdered(pointers).
bool copyResidualBehindSizing(container_decode::EarlyCoordinateArrays& early, const std::vector<Count>& pointers, Index cols,
                              std::string_view columnBytes, std::string_view valueBytes, std::uint32_t valueType,
                              container_decode::CoordinateArrays& out);

} // namespace spyglass::container_io
