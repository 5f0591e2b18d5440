#pragma once
// How much device memory Spyglass's own buffers hold, beside the cap of spyglass/backend.h
// (setDeviceMemoryCap; users set it with SPYGLASS_GPU_MEMORY_CAP or --gpu-memory-cap, see
// app/core/gpumemorycap.h). The vendor libraries' own workspaces (cuBLAS, cuSPARSE, cuSOLVER handles)
// are counted by neither.
#include <cstddef>

namespace spyglass {

// Bytes held now (0 without CUDA). After any call, failed or not, it is back where it was: this is how
// the tests see that an error path (a "GPU out of memory" half way through) leaked nothing.
std::size_t deviceMemoryInUse();

} // namespace spyglass
