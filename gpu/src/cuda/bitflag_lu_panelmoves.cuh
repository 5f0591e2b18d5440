#pragma once
// The last part of both blocked-LU leaf kernels (bitflag_lu_blocked.cu: one block;
// bitflag_lu_clusterleaf.cu: a cluster): one column of the panel outside the leaf. The leaf moved at
// most 2 ib rows: moved row q comes from matrix row moveFrom[q] and goes to rowOf(q). Every moved
// value of the column is read into registers before any is written. Right of the leaf the top ib rows
// (q < ib, which go to row q) are then solved with the leaf's unit lower L11, lower(i, q).
#include "spyglass/matrix.h"

#include <cstddef>

namespace spyglass::cuda {

template <typename T, int kMaxLeaf, typename RowOf, typename Lower>
__device__ __forceinline__ void movePanelColumn(T* top, Index n, Index col, bool leftOfLeaf, int ib, const int* moveFrom,
                                                RowOf rowOf, Lower lower) {
    T moved[2 * kMaxLeaf];
#pragma unroll
    for (int q = 0; q < 2 * kMaxLeaf; ++q)
        if (q < 2 * ib) moved[q] = top[std::size_t(moveFrom[q]) * n + col];
    if (leftOfLeaf) {
#pragma unroll
        for (int q = 0; q < 2 * kMaxLeaf; ++q)
            if (q < 2 * ib) top[std::size_t(rowOf(q)) * n + col] = moved[q];
        return;
    }
#pragma unroll
    for (int q = 0; q < 2 * kMaxLeaf; ++q)
        if (q >= ib && q < 2 * ib) top[std::size_t(rowOf(q)) * n + col] = moved[q];
#pragma unroll
    for (int i = 1; i < kMaxLeaf; ++i)
        if (i < ib) {
            T sum = moved[i];
#pragma unroll
            for (int q = 0; q < i; ++q) sum -= lower(i, q) * moved[q];
            moved[i] = sum;
        }
#pragma unroll
    for (int i = 0; i < kMaxLeaf; ++i)
        if (i < ib) top[std::size_t(i) * n + col] = moved[i];
}

} // namespace spyglass::cuda
