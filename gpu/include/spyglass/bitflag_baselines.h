#pragma once
// Method A's baselines on CSR, the formats the bit-flag operations are measured against, through the
// same options (spyglass/bitflag.h). Whole operations on host CSR: upload, run, download.
#include "spyglass/bitflag.h"
#include "spyglass/matrix.h"

#include <vector>

namespace spyglass {

// C = A + B, C = A - B (cuSPARSE csrgeam2) and C = A B (cuSPARSE's generic SpGEMM; its memory-bounded
// algorithm where the default one runs out of resources): Vendor only. fp32 with 32-bit indices, as
// cuSPARSE's fastest paths; more than 2^31 - 1 entries InputError, mismatched shapes InputError.
CsrMatrix<float> csrAdd(const CsrMatrix<float>& a, const CsrMatrix<float>& b, const BitFlagRunOptions& options);
CsrMatrix<float> csrSub(const CsrMatrix<float>& a, const CsrMatrix<float>& b, const BitFlagRunOptions& options);
CsrMatrix<float> csrMultiply(const CsrMatrix<float>& a, const CsrMatrix<float>& b, const BitFlagRunOptions& options);
// The baseline of bitFlagGetBatch: one thread per query, binary search in the row's columns. Cuda only.
template <typename T>
std::vector<T> csrGetBatch(const CsrMatrix<T>& matrix, const std::vector<Index>& rowsQ, const std::vector<Index>& colsQ,
                           const BitFlagRunOptions& options);

} // namespace spyglass
