#pragma once
// How the hybrid SpMV kernels cut the rows into tiles (a thread block each), shared by the kernels
// (hybrid_spmv.cu, hybrid_valued_spmv.cu) and the host code that plans the tiles (hybrid_plan.cpp,
// hybrid_valued_plan.cpp): the plan and the kernels must agree on every one of these numbers.
#include "spyglass/matrix.h"

#include <cstdint>

namespace spyglass::cuda::hybrid_tiling {

constexpr int kWarpsPerBlock = 8;
constexpr int kBlockThreads = kWarpsPerBlock * 32;
// Covered tiles: rows per tile (each warp takes every 8th row).
constexpr std::int32_t kCoveredTileRows = 32;

// Binary form. Residual runs: a block loads up to kRunCapacity entries of consecutive short rows
// (coalesced, 8 independent loads a thread) into shared memory, then one thread sums each row there.
constexpr std::int32_t kRunCapacity = 2048;
constexpr std::int32_t kRunMaxRowLength = 32;  // longer rows: a warp each
constexpr Count kBlockRowMinLength = 8192;     // from here: the whole block on one row

// Valued form.
constexpr Count kLongRowLength = 8192;  // from here: the whole block on one residual row
// Each block's values start on a 128-byte line, so rectangle rows of a multiple of 32 values do too.
constexpr std::int64_t kValueAlignBytes = 128;

} // namespace spyglass::cuda::hybrid_tiling
