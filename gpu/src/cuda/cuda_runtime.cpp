// Error translation, capped allocation and device discovery for the CUDA backend.
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/backend.h"
#include "spyglass/devicememory.h"

#include <atomic>
#include <mutex>
#include <vector>
#include <cstdio>
#include <string>

namespace spyglass {

namespace {
// Every device out-of-memory message starts with this (host ones do not), so that a user reads the
// cause before the detail, and the CLI, the window and the tests can all tell it apart.
constexpr char kGpuOutOfMemory[] = "GPU out of memory: ";

std::atomic<std::size_t> g_memoryCap{0};
// Per GPU: the cap applies to each device on its own (a partitioned run spreads a matrix over GPUs
// that each honour it).
constexpr int kMaxDevices = 64;
std::atomic<std::size_t> g_memoryInUse[kMaxDevices];

int currentDevice() {
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return device >= 0 && device < kMaxDevices ? device : 0;
}

std::string formatBytes(std::size_t bytes) {
    char text[64];
    std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
    return text;
}
} // namespace

void setDeviceMemoryCap(std::size_t bytes) { g_memoryCap = bytes; }
std::size_t deviceMemoryCap() { return g_memoryCap; }
std::size_t deviceMemoryInUse() { return g_memoryInUse[currentDevice()]; }

bool builtWithCuda() { return true; }

DeviceInfo cudaDeviceInfo() {
    DeviceInfo info;
    int count = 0;
    cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) {
        cudaGetLastError();  // clear the sticky-free error so later queries start clean
        // Without a driver at all the runtime says "driver version is insufficient"; say it plainly.
        if (status == cudaErrorInsufficientDriver || status == cudaErrorNoDevice)
            info.reason = "no CUDA device or driver on this machine";
        else
            info.reason = std::string("no CUDA device: ") + cudaGetErrorString(status);
        return info;
    }
    if (count == 0) {
        info.reason = "no CUDA device found";
        return info;
    }
    cudaDeviceProp prop{};
    status = cudaGetDeviceProperties(&prop, 0);
    if (status != cudaSuccess) {
        info.reason = std::string("CUDA device query failed: ") + cudaGetErrorString(status);
        return info;
    }
    // A GPU this build has no kernel image for would fail at the first launch: say so now and let
    // every caller fall back to the CPU reference.
    const std::string mismatch = kernelImageMismatch(SPYGLASS_CUDA_ARCHITECTURES, prop.major, prop.minor, prop.name);
    if (!mismatch.empty()) {
        info.reason = mismatch;
        info.name = prop.name;
        info.computeMajor = prop.major;
        info.computeMinor = prop.minor;
        return info;
    }
    info.present = true;
    info.index = 0;
    info.name = prop.name;
    info.computeMajor = prop.major;
    info.computeMinor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.totalMemory = prop.totalGlobalMem;
    info.l2CacheBytes = static_cast<std::size_t>(prop.l2CacheSize);
    std::size_t freeBytes = 0, totalBytes = 0;
    if (cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess) info.freeMemory = freeBytes;
    cudaRuntimeGetVersion(&info.runtimeVersion);
    cudaDriverGetVersion(&info.driverVersion);
    return info;
}

std::vector<BackendInfo> availableBackends() {
    std::vector<BackendInfo> backends;
    backends.push_back({BackendKind::Reference, true, "CPU reference backend"});
    const DeviceInfo device = cudaDeviceInfo();
    const std::string detail = device.present ? device.name : device.reason;
    backends.push_back({BackendKind::Cuda, device.present, "CUDA kernels: " + detail});
    backends.push_back({BackendKind::Vendor, device.present, "cuSPARSE/cuBLAS/cuSOLVER: " + detail});
    return backends;
}

std::string backendSummary() {
    const DeviceInfo device = cudaDeviceInfo();
    if (!device.present) return "CPU reference backend (" + device.reason + ")";
    return "CUDA: " + device.name + " (" + std::to_string(device.multiprocessors) + " SMs, " +
           formatBytes(device.totalMemory) + ")";
}

namespace cuda {

void throwCudaError(cudaError_t status, const char* call, const char* file, int line) {
    const std::string what = std::string(call) + " failed: " + cudaGetErrorName(status) + " (" +
                             cudaGetErrorString(status) + ")";
    if (status == cudaErrorMemoryAllocation) {
        cudaGetLastError();  // an allocation failure is not sticky; clear it so the device stays usable
        throw OutOfMemoryError(kGpuOutOfMemory + what, file, line);
    }
    throw DeviceError(what, file, line);
}

void throwLibraryError(const char* library, int status, const char* call, const char* file, int line) {
    const std::string what = std::string(library) + " call " + call + " failed with status " + std::to_string(status);
    // All three libraries use 3 for "allocation failed".
    if (status == 3) throw OutOfMemoryError(kGpuOutOfMemory + what, file, line);
    throw DeviceError(what, file, line);
}

namespace {
std::mutex g_keptMutex;
std::vector<void (*)()> g_keptReleases;

// Frees what every owner keeps for reuse; false when nothing is registered (no point trying again).
bool releaseKeptMemory() {
    std::vector<void (*)()> releases;
    {
        std::lock_guard<std::mutex> lock(g_keptMutex);
        releases = g_keptReleases;
    }
    for (auto release : releases) release();
    return !releases.empty();
}

void* allocateOnce(std::size_t bytes, const char* file, int line) {
    const std::size_t cap = g_memoryCap;
    const int device = currentDevice();
    std::atomic<std::size_t>& inUse = g_memoryInUse[device];
    if (cap != 0 && inUse + bytes > cap) {
        throw OutOfMemoryError(std::string(kGpuOutOfMemory) + "a device allocation of " + std::to_string(bytes) +
                                   " bytes exceeds the memory cap of " + std::to_string(cap) + " bytes (" +
                                   std::to_string(inUse.load()) + " in use on GPU " + std::to_string(device) + ")",
                               file, line);
    }
    void* pointer = nullptr;
    const cudaError_t status = cudaMalloc(&pointer, bytes);
    if (status != cudaSuccess) {
        cudaGetLastError();
        const std::string what = "cudaMalloc of " + std::to_string(bytes) + " bytes failed: " + cudaGetErrorString(status);
        if (status == cudaErrorMemoryAllocation) throw OutOfMemoryError(kGpuOutOfMemory + what, file, line);
        throw DeviceError(what, file, line);
    }
    inUse += bytes;
    return pointer;
}
} // namespace

void registerKeptMemoryRelease(void (*release)()) {
    std::lock_guard<std::mutex> lock(g_keptMutex);
    g_keptReleases.push_back(release);
}

void* deviceAllocate(std::size_t bytes, const char* file, int line) {
    try {
        return allocateOnce(bytes, file, line);
    } catch (const OutOfMemoryError&) {
        if (!releaseKeptMemory()) throw;
    }
    return allocateOnce(bytes, file, line);
}

void deviceFree(void* pointer, std::size_t bytes) noexcept {
    if (!pointer) return;
    // The pointer's own device, which need not be the current one when an owner is destroyed.
    cudaPointerAttributes attributes{};
    int device = currentDevice();
    if (cudaPointerGetAttributes(&attributes, pointer) == cudaSuccess && attributes.device >= 0 && attributes.device < kMaxDevices)
        device = attributes.device;
    else
        cudaGetLastError();
    cudaFree(pointer);
    g_memoryInUse[device] -= bytes;
}

} // namespace cuda
} // namespace spyglass
