#pragma once
// Method A as an SpMV format: y = A x on the bit-flag storage (spyglass/bitflag.h). The flags say
// where a row's nonzeros are, the values follow in the same order, so the k-th set bit of row i
// (counting words low bit first) holds M[P[i] + k]: no column index is stored at all.
//   Reference: plain C++ over the set bits (either order), the CPU path and the oracle.
//   Cuda:      Spyglass's kernel (row-major only): a warp or sub-warp per row, its lanes read
//              consecutive flag words and consecutive values (coalesced) and find each value's
//              column by ranking it among the set bits (popcount + select).
#include "spyglass/bitflag.h"

#include <vector>

namespace spyglass {

// y = A x. Sums run in T, row by row in ascending column order. x must have cols entries (InputError).
// Cuda: uploads, runs once, downloads; column-major input throws InputError (the row-major form is the
// SpMV layout: reorderBitFlag converts). Reference, Cuda.
template <typename T>
std::vector<T> bitFlagSpmv(const BitFlagMatrix<T>& a, const std::vector<T>& x, const BitFlagRunOptions& options = {});

// Bytes the device form of the SpMV holds: 64-bit flag words (a 32-bit line widened), 64-bit row
// starts and the values. The per-word prefix counts are not uploaded: the kernel walks each row's
// words in order, so the running count a warp scan gives is the prefix, and storing it would add
// 4 bytes of traffic to every 8-byte word.
std::size_t bitFlagSpmvDeviceBytes(Index rows, Index cols, Count nonzeros, std::size_t valueBytes);

} // namespace spyglass
