#pragma once
// NCCL, loaded when a partitioned run first needs it (dlopen of libnccl.so.2) rather than linked:
// every other Spyglass program and test starts on machines without NCCL, and a multi-GPU request
// there gets a clear message instead of a loader error at start-up.
#include <nccl.h>

namespace spyglass::cuda {

struct NcclLibrary {
    decltype(&::ncclCommInitAll) commInitAll = nullptr;
    decltype(&::ncclGetUniqueId) getUniqueId = nullptr;  // one process per GPU: rank 0's id ...
    decltype(&::ncclCommInitRank) commInitRank = nullptr;  // ... that every rank joins with
    decltype(&::ncclCommDestroy) commDestroy = nullptr;
    decltype(&::ncclAllReduce) allReduce = nullptr;
    decltype(&::ncclBroadcast) broadcast = nullptr;
    decltype(&::ncclAllGather) allGather = nullptr;
    decltype(&::ncclSend) send = nullptr;
    decltype(&::ncclRecv) recv = nullptr;
    decltype(&::ncclGroupStart) groupStart = nullptr;
    decltype(&::ncclGroupEnd) groupEnd = nullptr;
    decltype(&::ncclGetErrorString) errorString = nullptr;
    decltype(&::ncclGetVersion) getVersion = nullptr;
};

// The loaded library; throws BackendUnavailableError naming what was tried when it cannot be loaded.
const NcclLibrary& nccl();
// "2.28.3" (loads the library).
const char* ncclVersionText();
// Throws DeviceError with NCCL's message and the call when status is not ncclSuccess.
void checkNccl(ncclResult_t status, const char* call, const char* file, int line);

} // namespace spyglass::cuda

#define SPYGLASS_NCCL_CHECK(call) ::spyglass::cuda::checkNccl((call), #call, __FILE__, __LINE__)
