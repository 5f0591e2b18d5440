// The vendor baseline of method C: cuSOLVER <t>gesvdjBatched (batched Jacobi, m, n <= 32), called
// directly so that the benchmark times the library call and nothing around it.
#include "batchedsvd_kernels.h"
#include "cuda_check.h"
#include "device_buffer.h"

#include <cuComplex.h>
#include <cusolverDn.h>

#include <complex>
#include <type_traits>

namespace spyglass::cuda {

namespace {
cusolverStatus_t bufferSize(cusolverDnHandle_t h, int m, int n, const float* a, const float* s, const float* u,
                            const float* v, int* lwork, gesvdjInfo_t p, int batch) {
    return cusolverDnSgesvdjBatched_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, m, n, a, m, s, u, m, v, n, lwork, p, batch);
}
cusolverStatus_t bufferSize(cusolverDnHandle_t h, int m, int n, const double* a, const double* s, const double* u,
                            const double* v, int* lwork, gesvdjInfo_t p, int batch) {
    return cusolverDnDgesvdjBatched_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, m, n, a, m, s, u, m, v, n, lwork, p, batch);
}
cusolverStatus_t bufferSize(cusolverDnHandle_t h, int m, int n, const std::complex<float>* a, const float* s,
                            const std::complex<float>* u, const std::complex<float>* v, int* lwork, gesvdjInfo_t p,
                            int batch) {
    return cusolverDnCgesvdjBatched_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, m, n, reinterpret_cast<const cuComplex*>(a), m,
                                               s, reinterpret_cast<const cuComplex*>(u), m,
                                               reinterpret_cast<const cuComplex*>(v), n, lwork, p, batch);
}
cusolverStatus_t bufferSize(cusolverDnHandle_t h, int m, int n, const std::complex<double>* a, const double* s,
                            const std::complex<double>* u, const std::complex<double>* v, int* lwork, gesvdjInfo_t p,
                            int batch) {
    return cusolverDnZgesvdjBatched_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, m, n,
                                               reinterpret_cast<const cuDoubleComplex*>(a), m, s,
                                               reinterpret_cast<const cuDoubleComplex*>(u), m,
                                               reinterpret_cast<const cuDoubleComplex*>(v), n, lwork, p, batch);
}
cusolverStatus_t gesvdj(cusolverDnHandle_t h, int m, int n, float* a, float* s, float* u, float* v, float* w, int lw,
                        int* info, gesvdjInfo_t p, int batch) {
    return cusolverDnSgesvdjBatched(h, CUSOLVER_EIG_MODE_VECTOR, m, n, a, m, s, u, m, v, n, w, lw, info, p, batch);
}
cusolverStatus_t gesvdj(cusolverDnHandle_t h, int m, int n, double* a, double* s, double* u, double* v, double* w,
                        int lw, int* info, gesvdjInfo_t p, int batch) {
    return cusolverDnDgesvdjBatched(h, CUSOLVER_EIG_MODE_VECTOR, m, n, a, m, s, u, m, v, n, w, lw, info, p, batch);
}
cusolverStatus_t gesvdj(cusolverDnHandle_t h, int m, int n, std::complex<float>* a, float* s, std::complex<float>* u,
                        std::complex<float>* v, std::complex<float>* w, int lw, int* info, gesvdjInfo_t p, int batch) {
    return cusolverDnCgesvdjBatched(h, CUSOLVER_EIG_MODE_VECTOR, m, n, reinterpret_cast<cuComplex*>(a), m, s,
                                    reinterpret_cast<cuComplex*>(u), m, reinterpret_cast<cuComplex*>(v), n,
                                    reinterpret_cast<cuComplex*>(w), lw, info, p, batch);
}
cusolverStatus_t gesvdj(cusolverDnHandle_t h, int m, int n, std::complex<double>* a, double* s,
                        std::complex<double>* u, std::complex<double>* v, std::complex<double>* w, int lw, int* info,
                        gesvdjInfo_t p, int batch) {
    return cusolverDnZgesvdjBatched(h, CUSOLVER_EIG_MODE_VECTOR, m, n, reinterpret_cast<cuDoubleComplex*>(a), m, s,
                                    reinterpret_cast<cuDoubleComplex*>(u), m, reinterpret_cast<cuDoubleComplex*>(v), n,
                                    reinterpret_cast<cuDoubleComplex*>(w), lw, info, p, batch);
}
} // namespace

template <typename T>
struct CusolverBatchedSvd<T>::State {
    cusolverDnHandle_t handle = nullptr;
    gesvdjInfo_t params = nullptr;
    cudaStream_t stream = nullptr;
    int m = 0, n = 0, count = 0, lwork = 0;
    DeviceBuffer<T> work, fullU;
    ~State() {
        if (params) cusolverDnDestroyGesvdjInfo(params);
        if (handle) cusolverDnDestroy(handle);
    }
};

template <typename T>
CusolverBatchedSvd<T>::CusolverBatchedSvd(int m, int n, int count, double tolerance, int maxSweeps, cudaStream_t stream)
    : m_state(std::make_unique<State>()) {
    State& s = *m_state;
    s.m = m;
    s.n = n;
    s.count = count;
    s.stream = stream;
    SPYGLASS_CUDA_CHECK(cusolverDnCreate(&s.handle));
    SPYGLASS_CUDA_CHECK(cusolverDnSetStream(s.handle, stream));
    SPYGLASS_CUDA_CHECK(cusolverDnCreateGesvdjInfo(&s.params));
    SPYGLASS_CUDA_CHECK(cusolverDnXgesvdjSetTolerance(s.params, tolerance));
    SPYGLASS_CUDA_CHECK(cusolverDnXgesvdjSetMaxSweeps(s.params, maxSweeps));
    SPYGLASS_CUDA_CHECK(cusolverDnXgesvdjSetSortEig(s.params, 1));
    s.fullU.resize(static_cast<std::size_t>(m) * m * count);
    SPYGLASS_CUDA_CHECK(bufferSize(s.handle, m, n, static_cast<const T*>(nullptr), static_cast<const SvdReal<T>*>(nullptr),
                                   s.fullU.data(), static_cast<const T*>(nullptr), &s.lwork, s.params, count));
    s.work.resize(static_cast<std::size_t>(s.lwork > 0 ? s.lwork : 1));
}

template <typename T> CusolverBatchedSvd<T>::~CusolverBatchedSvd() = default;

template <typename T>
void CusolverBatchedSvd<T>::run(T* a, T* u, SvdReal<T>* sigma, T* v, int* info) {
    State& s = *m_state;
    T* fullU = s.m == s.n ? u : s.fullU.data();
    SPYGLASS_CUDA_CHECK(gesvdj(s.handle, s.m, s.n, a, sigma, fullU, v, s.work.data(), s.lwork, info, s.params, s.count));
    if (fullU != u)  // cuSOLVER returns the full m x m U; the API promises the thin m x n one
        SPYGLASS_CUDA_CHECK(cudaMemcpy2DAsync(u, sizeof(T) * s.m * s.n, fullU, sizeof(T) * s.m * s.m, sizeof(T) * s.m * s.n,
                                              s.count, cudaMemcpyDeviceToDevice, s.stream));
}

template <typename T> std::size_t CusolverBatchedSvd<T>::extraBytesPerMatrix(int m, int n) {
    // full U plus a generous share of the workspace (gesvdjBatched needs about one matrix of it)
    return sizeof(T) * (static_cast<std::size_t>(m) * m + 2 * static_cast<std::size_t>(m) * n) + sizeof(int);
}

template class CusolverBatchedSvd<float>;
template class CusolverBatchedSvd<double>;
template class CusolverBatchedSvd<std::complex<float>>;
template class CusolverBatchedSvd<std::complex<double>>;

} // namespace spyglass::cuda
