#pragma once
// The tensor-memory accelerator's copies as the TMA-fed inverse kernels use them (sm_90 and up): an
// mbarrier per buffer that the load completes, bulk stores in commit groups, the 128-byte swizzle,
// and on the host the driver's tensor-map encoder and the check that a pointer is this GPU's memory.
// Shared by batchedinverse_tma.cu (the library kernel) and batchedinverse_pairedlanes.cu (benchmark).
#include "spyglass/cuda/cudacheck.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

namespace spyglass::cuda::inverse {

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
__device__ __forceinline__ unsigned sharedAddress(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void initBarrier(unsigned barrier) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(barrier) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}
__device__ __forceinline__ void expectBytes(unsigned barrier, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(bytes) : "memory");
}
__device__ __forceinline__ void waitParity(unsigned barrier, unsigned parity) {
    asm volatile(
        "{\n.reg .pred done;\nWAIT_%=:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
        "@!done bra WAIT_%=;\n}\n" ::"r"(barrier),
        "r"(parity)
        : "memory");
}
// Writes and reads of shared memory by the threads become visible to the TMA (the async proxy).
__device__ __forceinline__ void fenceForTma() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
// The out buffer may be rewritten once the TMA has read it (the global writes may still be on their way).
__device__ __forceinline__ void waitStoreRead() { asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory"); }
// Offset of byte `offset` of a tile in its swizzled buffer (1024-byte aligned).
__device__ __forceinline__ unsigned swizzled(unsigned offset) { return offset ^ (((offset >> 7) & 7u) << 4); }
#endif

// cuTensorMapEncodeTiled from the driver, found through the runtime (no link to libcuda).
inline PFN_cuTensorMapEncodeTiled_v12000 tensorMapEncoder() {
    static PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
        void* entry = nullptr;
        cudaDriverEntryPointQueryResult found{};
        SPYGLASS_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &entry, 12000, cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess || !entry)
            throw DeviceError("TMA copies: the driver has no cuTensorMapEncodeTiled", __FILE__, __LINE__);
        return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(entry);
    }();
    return encode;
}

// Memory of this device itself: not host memory, and not a peer GPU's (reached through NVLink or PCIe).
inline bool isMemoryOf(const void* p, int device) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, p) != cudaSuccess) {
        (void)cudaGetLastError();  // an unknown pointer is not device memory; the error is not sticky: clear it
        return false;
    }
    return attributes.type == cudaMemoryTypeDevice && attributes.device == device;
}

} // namespace spyglass::cuda::inverse
