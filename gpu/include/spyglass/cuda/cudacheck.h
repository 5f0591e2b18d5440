#pragma once
// Public but CUDA-bound: it includes CUDA headers, so only the CUDA backend (gpu/src/cuda) and the .cu
// benchmarks include it; every other public header stays CUDA-free.
// Every CUDA runtime and library call goes through one of these checks. A failure throws a typed
// spyglass error carrying the file and line of the call; out-of-memory becomes OutOfMemoryError so
// that callers can tell "too big for this GPU" from a bug.
#include "spyglass/error.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <cusparse.h>

#include <string>

namespace spyglass::cuda {

[[noreturn]] void throwCudaError(cudaError_t status, const char* call, const char* file, int line);
[[noreturn]] void throwLibraryError(const char* library, int status, const char* call, const char* file, int line);

inline void check(cudaError_t status, const char* call, const char* file, int line) {
    if (status != cudaSuccess) throwCudaError(status, call, file, line);
}
inline void check(cublasStatus_t status, const char* call, const char* file, int line) {
    if (status != CUBLAS_STATUS_SUCCESS) throwLibraryError("cuBLAS", static_cast<int>(status), call, file, line);
}
inline void check(cusparseStatus_t status, const char* call, const char* file, int line) {
    if (status != CUSPARSE_STATUS_SUCCESS) throwLibraryError("cuSPARSE", static_cast<int>(status), call, file, line);
}
inline void check(cusolverStatus_t status, const char* call, const char* file, int line) {
    if (status != CUSOLVER_STATUS_SUCCESS) throwLibraryError("cuSOLVER", static_cast<int>(status), call, file, line);
}

} // namespace spyglass::cuda

#define SPYGLASS_CUDA_CHECK(call) ::spyglass::cuda::check((call), #call, __FILE__, __LINE__)
// After every kernel launch: catches bad launch configurations at once (not at the next sync).
#define SPYGLASS_CUDA_CHECK_LAUNCH() ::spyglass::cuda::check(cudaGetLastError(), "kernel launch", __FILE__, __LINE__)
