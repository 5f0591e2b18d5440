#pragma once
// The per-matrix status contract of method E (see batchedinverse.h) applied to inverses that did
// not come from Spyglass's kernels: cuBLAS reports only exactly zero pivots and passes NaN/Inf
// through, so a (numerically) singular matrix came back as finite garbage with info 0. This gives
// such results the same verdicts as our kernels: the relative tiny-pivot rule on the pivots of the
// library's own LU factors, the non-finite check, and all-NaN outputs for every failed matrix.
#include <cstdint>

namespace spyglass {

// For each of `count` matrices (column-major, order n, as in batchedinverse.h):
//  - input holding NaN/Inf: info = kInverseNonFiniteInput;
//  - else info == 0 and luPivots given: info = k+1 for the first k whose pivot (U's k-th diagonal
//    entry, luPivots[b*n + k]) is tiny, |u_kk| <= eps(T) * max|a_ij| (squared magnitudes for
//    complex, as the kernels compare), or not a number; a code the library set stays as it is;
//  - every matrix with info != 0 gets an all-NaN output.
// luPivots may be null (only the non-finite check and the NaN fill). Returns the number of
// matrices whose info this call changed from 0.
template <typename T>
std::int64_t applyInverseStatusRule(const T* input, const T* luPivots, T* output, int n, std::int64_t count, int* info);

} // namespace spyglass
