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

// The residual's row pointers as the fused pass needs them, read where they lie in the file (`pointerBytes`,
// rows + 1 little-endian 64-bit counts): starting at 0 and never decreasing. Checked on threads; when
// they are not, the reader takes its ordinary path, whose validation names the first bad row.
bool pointersOrdered(std::string_view pointerBytes);

// Copies the residual's columns from `columnBytes` (and values from `valueBytes` of `valueType`, f32 or
// f64, when `values` is not empty) into early's arrays, fills their rows from `pointerBytes`, and hands
// the three arrays over. The row pointers are read from the file, never unpacked: the Matrix needs only
// the row of each entry (unpacking 14 MB of pointers on one thread came before every other stage of a
// 12 M-entry reopen). Returns whether every column lies in [0, cols) and rises strictly within its row.
// Needs early.sizingFor(last pointer, !valueBytes.empty()) and pointersOrdered(pointerBytes).
bool copyResidualBehindSizing(container_decode::EarlyCoordinateArrays& early, std::string_view pointerBytes, Index cols,
                              std::string_view columnBytes, std::string_view valueBytes, std::uint32_t valueType,
                              container_decode::CoordinateArrays& out);

} // namespace spyglass::container_io
