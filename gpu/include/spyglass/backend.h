#pragma once
// Which compute backends this build and this machine offer. A missing GPU is a state, not an error.
#include <cstddef>
#include <string>
#include <vector>

namespace spyglass {

enum class BackendKind {
    Reference,  // plain C++ on the CPU: always present, also the test oracle
    Cuda,       // Spyglass's own CUDA kernels
    Vendor      // NVIDIA's libraries (cuSPARSE, cuBLAS, cuSOLVER) as baselines
};

const char* toString(BackendKind kind);

struct DeviceInfo {
    bool present = false;
    std::string reason;          // why no device, when !present ("built without CUDA", driver error ...)
    int index = 0;
    std::string name;
    int computeMajor = 0, computeMinor = 0;
    int multiprocessors = 0;
    std::size_t totalMemory = 0;  // bytes
    std::size_t freeMemory = 0;   // bytes, at the time of the query
    std::size_t l2CacheBytes = 0;
    int runtimeVersion = 0, driverVersion = 0;
};

struct BackendInfo {
    BackendKind kind = BackendKind::Reference;
    bool available = false;
    std::string description;  // "CPU reference backend", "CUDA on NVIDIA H100 80GB HBM3" ...
};

// True when this build has the CUDA backend compiled in (it may still find no device).
bool builtWithCuda();

// The message for a GPU this build has no kernels for (the build's CMAKE_CUDA_ARCHITECTURES, e.g.
// "90" or "80;86-real;90-virtual", against the device's compute capability): what it is and what to rebuild with. Empty when
// one of the built architectures runs on the device (the same major version, minor not above it; or
// PTX, "NN-virtual" or "NN" with JIT, for an equal or older architecture).
std::string kernelImageMismatch(const std::string& builtArchitectures, int major, int minor, const std::string& deviceName);
// The first CUDA device, or present == false with the reason.
DeviceInfo cudaDeviceInfo();
// Reference always; Cuda and Vendor when a device is present.
std::vector<BackendInfo> availableBackends();
// One line for status bars and CLI banners: "CUDA: NVIDIA H100 (132 SMs, 79.1 GiB)" or
// "CPU reference backend (no CUDA device: ...)".
std::string backendSummary();

// A cap on device memory that Spyglass's own allocations may take (0 = no cap). Used to simulate a
// small GPU: an allocation past the cap throws OutOfMemoryError like a real cudaMalloc failure.
void setDeviceMemoryCap(std::size_t bytes);
std::size_t deviceMemoryCap();

} // namespace spyglass
