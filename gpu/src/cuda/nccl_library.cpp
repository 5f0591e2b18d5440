// Loads NCCL at first use (see nccl_library.h). NCCL_NVLS_ENABLE defaults to 0 here: NVLink
// multicast is left off on shared hosts, where a program that uses it can take the GPUs out of
// service; a user who sets the variable keeps their value.
#include "nccl_library.h"

#include "spyglass/error.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace spyglass::cuda {

namespace {

template <typename F>
void bind(void* handle, F& function, const char* name) {
    function = reinterpret_cast<F>(dlsym(handle, name));
    if (!function) throw BackendUnavailableError(std::string("NCCL: libnccl.so.2 has no ") + name);
}

NcclLibrary load() {
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    // The system path first (where the GPU machines keep it), then the CUDA toolkit's own folders.
    const char* candidates[] = {"libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2", "/usr/local/cuda/lib/libnccl.so.2",
                                "/usr/lib/x86_64-linux-gnu/libnccl.so.2"};
    void* handle = nullptr;
    std::string tried;
    for (const char* name : candidates) {
        handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (handle) break;
        tried += std::string(tried.empty() ? "" : ", ") + name;
    }
    if (!handle)
        throw BackendUnavailableError("NCCL is not installed (tried " + tried +
                                      "): runs over several GPUs or partitions on a GPU need libnccl.so.2");
    NcclLibrary library;
#define SPYGLASS_NCCL_BIND(member, symbol) bind(handle, library.member, #symbol);
    SPYGLASS_NCCL_FUNCTIONS(SPYGLASS_NCCL_BIND)
#undef SPYGLASS_NCCL_BIND
    return library;
}

} // namespace

const NcclLibrary& nccl() {
    static std::mutex mutex;
    static NcclLibrary library;
    static bool loaded = false;
    std::lock_guard<std::mutex> lock(mutex);
    if (!loaded) {
        library = load();  // throws again on the next call if it failed
        loaded = true;
    }
    return library;
}

const char* ncclVersionText() {
    static char text[32] = "";
    if (!text[0]) {
        int version = 0;
        checkNccl(nccl().getVersion(&version), "ncclGetVersion", __FILE__, __LINE__);
        // NCCL >= 2.9 encodes major * 10000 + minor * 100 + patch.
        std::snprintf(text, sizeof text, "%d.%d.%d", version / 10000, version / 100 % 100, version % 100);
    }
    return text;
}

void checkNccl(ncclResult_t status, const char* call, const char* file, int line) {
    if (status == ncclSuccess) return;
    const char* message = nccl().errorString ? nccl().errorString(status) : "unknown";
    throw DeviceError(std::string("NCCL call ") + call + " failed: " + message + " (status " + std::to_string(status) + ")", file,
                      line);
}

} // namespace spyglass::cuda
