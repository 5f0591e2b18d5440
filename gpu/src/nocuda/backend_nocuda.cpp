// Built when CUDA is off: the library reports no device instead of #ifdefs through the code.
#include "spyglass/backend.h"
#include "spyglass/devicememory.h"

#include <atomic>

namespace spyglass {

namespace {
std::atomic<std::size_t> g_memoryCap{0};
}

void setDeviceMemoryCap(std::size_t bytes) { g_memoryCap = bytes; }
std::size_t deviceMemoryCap() { return g_memoryCap; }
std::size_t deviceMemoryInUse() { return 0; }

bool builtWithCuda() { return false; }

DeviceInfo cudaDeviceInfo() {
    DeviceInfo info;
    info.reason = "built without CUDA";
    return info;
}

std::vector<BackendInfo> availableBackends() {
    return {{BackendKind::Reference, true, "CPU reference backend"},
            {BackendKind::Cuda, false, "CUDA kernels: built without CUDA"},
            {BackendKind::Vendor, false, "cuSPARSE/cuBLAS/cuSOLVER: built without CUDA"}};
}

std::string backendSummary() { return "CPU reference backend (built without CUDA)"; }

} // namespace spyglass
