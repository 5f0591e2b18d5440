#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// Launchers of the batched-inverse kernels (device pointers, host scalar types) and the cuBLAS
// baseline. Used by batchedinverse_run.cpp and by bench_batchedinverse. Every launch is checked.
#include "spyglass/batchedinverse.h"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>

namespace spyglass::cuda {

// K for the seed kernel: about 256 threads per block within 48 KiB of shared memory.
int seedMatricesPerBlock(int n, std::size_t elementBytes);
// What Auto means for this order, element type and number of matrices in one launch.
InverseKernel resolveAutoInverseKernel(int n, std::size_t elementBytes, std::int64_t count);
// The kernel a launch of `kernel` (Auto included) runs on the current device, as a run reports it: the
// TMA kernel where it cannot run (before sm_90, too little shared memory per block, or on mapped host
// memory: hostMemory) is the pipelined one.
InverseKernel inverseKernelThatRuns(InverseKernel kernel, int n, std::size_t elementBytes, std::int64_t count,
                                    bool hostMemory = false);

template <typename T>
void launchSeedInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock, cudaStream_t stream);
// matricesPerBlock: 32 or 64 for smaller blocks, anything else for the default.
template <typename T>
void launchThreadPerMatrixInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock,
                                  cudaStream_t stream);
// Thread per matrix in persistent blocks, tiles double-buffered through shared memory by cp.async
// (orders 1..8; misaligned pointers fall back to launchThreadPerMatrixInverse). matricesPerBlock:
// 32 or 64 for smaller tiles, anything else for the default.
template <typename T>
void launchPipelinedInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock,
                            cudaStream_t stream);
// Matrices per tile of the two tiled kernels by default: 128, or 64 or 32 where two buffers of 128
// would not fit their shared-memory budget (orders 1..8).
int tiledInverseMatricesPerTile(int n, std::size_t elementBytes);
// The same tiles with one buffer per block (load, eliminate, store in turn): half the shared memory,
// so more blocks per multiprocessor overlap one another's phases instead.
template <typename T>
void launchStagedInverse(const T* in, T* out, int* info, int n, std::int64_t count, int matricesPerBlock,
                         cudaStream_t stream);
// A pipeline per warp, its tiles of 32 matrices moved by the tensor-memory accelerator (sm_90 up) for
// the shapes tmaInverseSupports names; the pipelined kernel runs the others, GPUs before sm_90 or
// without its shared memory per block, and pointers that are not this GPU's own memory.
template <typename T>
void launchTmaInverse(const T* in, T* out, int* info, int n, std::int64_t count, cudaStream_t stream);
// Matrices of whole 128-byte rows, at most 512 bytes, whose columns are a power of two of bytes.
bool tmaInverseSupports(int n, std::size_t elementBytes);
// The shape is supported and the current device can run the TMA kernel (sm_90 or later, enough shared
// memory per block).
bool tmaInverseRunsOnCurrentDevice(int n, std::size_t elementBytes);
// For tests: the ticket slot (0..63) that a TMA launch on `stream` from this thread takes on the
// current device, taken as a launch would take it, or -1 when every slot is held by a launch still
// running or by a captured graph (the launch then hands out fixed shares of the tiles).
int tmaTicketSlotFor(cudaStream_t stream);
// For tests: the ticket slot of this thread's last launch of the TMA kernel (-1: fixed shares).
int tmaLastTicketSlot();
// For tests: how many of the current device's ticket slots captured graphs hold (a slot goes back
// when its graph and the graph's executable copies are destroyed).
int tmaTicketSlotsHeldByGraphs();
// For bench_batchedinverse only: the TMA kernel's loads and stores of 8x8 f32 with the elimination
// skipped (out = in, statuses 0), its data path alone. Throws DeviceError before sm_90 or for pointers
// that are not device memory.
void launchTmaDataPath(const float* in, float* out, int* info, std::int64_t count, cudaStream_t stream);
// For bench_batchedinverse only (8x8 f32): two lanes a matrix, a warp's 16 matrices (4 KiB) moved by
// the TMA in blocks that take one tile a warp and leave: the tile size at which the loads and stores
// pass 92 % of the copy bandwidth, with the elimination split over the pair (the same inverses and
// statuses as the TMA kernel, bit for bit) or, eliminate = false, skipped (out = in, statuses 0). See
// batchedinverse_pairedlanes.cu. Throws DeviceError before sm_90 or for memory that is not this GPU's.
void launchPairedLanesInverse(const float* in, float* out, int* info, std::int64_t count, bool eliminate, cudaStream_t stream);
// Shared memory per block of the pipelined kernel at its default tile (orders 1..8).
int pipelinedInverseSharedBytes(int n, std::size_t elementBytes);
// For bench_batchedinverse only (f32): the tiled kernels' elimination with `extraPasses` more passes
// over each matrix in registers, at the occupancy that sharedBytesPerBlock (unused) leaves; the
// result is the inverse, as from the other kernels. See batchedinverse_eliminationceiling.cu.
template <typename T>
void launchEliminationCeiling(const T* in, T* out, int* info, int n, std::int64_t count, int extraPasses,
                              std::size_t sharedBytesPerBlock, cudaStream_t stream);
template <typename T> int eliminationCeilingWarpsPerSm(int n, std::size_t sharedBytesPerBlock);
template <typename T>
void launchLaneGroupInverse(const T* in, T* out, int* info, int n, std::int64_t count, cudaStream_t stream);
// Two entries per lane, one warp per 8x8 (orders 1..8): the shortest latency per matrix.
template <typename T>
void launchLaneEntriesInverse(const T* in, T* out, int* info, int n, std::int64_t count, cudaStream_t stream);

// Any of Spyglass's kernels (Auto resolved here).
template <typename T>
void launchInverseKernel(InverseKernel kernel, const T* in, T* out, int* info, int n, std::int64_t count,
                         int matricesPerBlock, cudaStream_t stream);

// cuBLAS getrf+getri or matinv on up to `count` device matrices. Holds the handle, the pivots and,
// per buffer, the device array of matrix pointers the batched API takes, so that repeated runs time
// the library calls alone, as a user who keeps those arrays would run them.
template <typename T>
class CublasBatchedInverse {
public:
    CublasBatchedInverse(int n, std::int64_t count, cudaStream_t stream);
    ~CublasBatchedInverse();
    CublasBatchedInverse(const CublasBatchedInverse&) = delete;
    CublasBatchedInverse& operator=(const CublasBatchedInverse&) = delete;
    // Builds the pointer arrays of both buffers now (upload and synchronise) unless already built.
    // Call it for every buffer before timing; run() builds a missing one itself, which costs that.
    void bind(const T* work, const T* out);
    // How many pointer arrays were built so far (a benchmark checks that none was built in a timed run).
    std::int64_t pointerArraysBuilt() const;
    // getrf works in place: `work` (count*n*n) is overwritten by the LU factors (U's diagonal holds
    // the pivots); for matinv it is only read. Inverses go to `out`, status codes to `info` (device,
    // count ints). count: the first `count` matrices (<= the constructor's), -1 for all.
    void run(InverseKernel kernel, T* work, T* out, int* info, std::int64_t count = -1);
    // getrf alone, in place on `work`: the LU factors whose pivots decide the status of a matinv run.
    void factorize(T* work, std::int64_t count = -1);
    // U's diagonal of the LU factors in `factors` (after run() with getrf+getri, or factorize()), to
    // host memory as hostPivots[b*n + k] (asynchronous on the stream: synchronise before reading).
    // Needs reservePivotDiagonals() first (count*n elements of device memory).
    void reservePivotDiagonals();
    void downloadPivotDiagonals(const T* factors, T* hostPivots, std::int64_t count = -1);
    // Device bytes the helper itself needs per matrix (pointer arrays, pivots, second info array),
    // and with reservePivotDiagonals() n elements more.
    static std::size_t extraBytesPerMatrix(int n);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

} // namespace spyglass::cuda
