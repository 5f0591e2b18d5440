#pragma once
// The blocked LU's leaf kernels share this (bitflag_lu_blocked.cu holds the one-block leaf and the
// driver, bitflag_lu_clusterleaf.cu the cluster leaf).
#include "spyglass/cuda/bitflag_device_api.h"

#include <cstddef>
#include <string>

namespace spyglass::cuda {

// Widest leaf per type: the moved rows of one panel column live in registers (2 x leaf values).
template <typename T> constexpr int blockedLuMaxLeafWidth() { return sizeof(T) == 4 ? 32 : 16; }

// What the device allows the cluster leaf: the most blocks of one cluster (16 where the device runs
// non-portable cluster sizes, else 8, ...; 0: none, `reason` says why) and the dynamic shared memory
// one block may use. Asking also sets the kernel's attributes (shared memory, non-portable sizes), so
// it must precede the first launch on the device.
struct ClusterLeafLimits {
    int maxBlocks = 0;
    std::size_t bytes = 0;
    std::string reason;
};
template <typename T> ClusterLeafLimits clusterLeafLimits();

// Dynamic shared memory of one block of a `blocks`-block cluster holding rowsPerBlock leaf rows of ib
// columns (the rows, and the exchange through which the warps hand every block their candidates).
template <typename T> std::size_t clusterLeafBytes(int rowsPerBlock, int ib, int blocks);

// Factors columns c0 .. c0+ib-1 of rows c0 .. n-1 of the row-major n x n at a (the leaf, inside the
// panel p0 .. p0+jb-1) on one cluster of `blocks` blocks, block b holding leaf rows b rowsPerBlock ..
// (b+1) rowsPerBlock - 1; then, as the one-block leaf, the leaf's swaps on the panel's other columns
// and the solve of the leaf's rows right of it with L11. pivots[c0 + j] receives the row swapped with
// c0 + j; the first bad pivot goes to failedStep / failedPivot. Enqueues only.
template <typename T>
void launchClusterLeaf(T* a, Index n, Index p0, Index jb, Index c0, int ib, int blocks, int rowsPerBlock, double threshold,
                       int* pivots, int* failedStep, T* failedPivot, cudaStream_t stream);

} // namespace spyglass::cuda
