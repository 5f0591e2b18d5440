#pragma once
// NCCL, loaded when a partitioned run first needs it (dlopen of libnccl.so.2) rather than linked:
// every other Spyglass program and test starts on machines without NCCL, and a multi-GPU request
// there gets a clear message instead of a loader error at start-up.
#include <nccl.h>

namespace spyglass::cuda {

// The NCCL functions Spyglass calls: each member of NcclLibrary with the symbol it is loaded from,
// listed once for both the struct and the loader (nccl_library.cpp), so that the two cannot disagree.
#define SPYGLASS_NCCL_FUNCTIONS(X)                                                                      \
    X(commInitAll, ncclCommInitAll)                                                                     \
    X(getUniqueId, ncclGetUniqueId)   /* one process per GPU: rank 0's id ... */                       \
    X(commInitRank, ncclCommInitRank) /* ... that every rank joins with */                             \
    X(commDestroy, ncclCommDestroy)                                                                     \
    X(allReduce, ncclAllReduce)                                                                         \
    X(broadcast, ncclBroadcast)                                                                         \
    X(allGather, ncclAllGather)                                                                         \
    X(send, ncclSend)                                                                                   \
    X(recv, ncclRecv)                                                                                   \
    X(groupStart, ncclGroupStart)                                                                       \
    X(groupEnd, ncclGroupEnd)                                                                           \
    X(errorString, ncclGetErrorString)                                                                  \
    X(getVersion, ncclGetVersion)

struct NcclLibrary {
#define SPYGLASS_NCCL_MEMBER(member, symbol) decltype(&::symbol) member = nullptr;
    SPYGLASS_NCCL_FUNCTIONS(SPYGLASS_NCCL_MEMBER)
#undef SPYGLASS_NCCL_MEMBER
};

// The loaded library; throws BackendUnavailableError naming what was tried when it cannot be loaded.
const NcclLibrary& nccl();
// "2.28.3" (loads the library).
const char* ncclVersionText();
// Throws DeviceError with NCCL's message and the call when status is not ncclSuccess.
void checkNccl(ncclResult_t status, const char* call, const char* file, int line);

} // namespace spyglass::cuda

#define SPYGLASS_NCCL_CHECK(call) ::spyglass::cuda::checkNccl((call), #call, __FILE__, __LINE__)
