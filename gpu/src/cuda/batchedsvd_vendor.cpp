// The vendor baselines of method C: cuSOLVER <t>gesvdjBatched (batched Jacobi, m, n <= 32) and
// <t>gesvdaStridedBatched (approximate, any m >= n), called directly so that the benchmark times the
// library call and nothing around it: handles, parameters and workspaces are made in the constructors.
#include "spyglass/cuda/batchedsvd_device_api.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"

#include <cuComplex.h>
#include <cusolverDn.h>

#include <complex>
#include <string>
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

// What both cuSOLVER baselines hold: a handle on their stream, the batch's shape, the workspace.
template <typename T> struct CusolverBatch {
    cusolverDnHandle_t handle = nullptr;
    cudaStream_t stream = nullptr;
    int m = 0, n = 0, count = 0, lwork = 0;
    DeviceBuffer<T> work;
    CusolverBatch() = default;
    CusolverBatch(const CusolverBatch&) = delete;
    CusolverBatch& operator=(const CusolverBatch&) = delete;
    ~CusolverBatch() {
        if (handle) cusolverDnDestroy(handle);
    }
    void open(int rows, int cols, int batch, cudaStream_t on) {
        m = rows;
        n = cols;
        count = batch;
        stream = on;
        SPYGLASS_CUDA_CHECK(cusolverDnCreate(&handle));
        SPYGLASS_CUDA_CHECK(cusolverDnSetStream(handle, stream));
    }
    void allocateWork() { work.resize(static_cast<std::size_t>(lwork > 0 ? lwork : 1)); }
};

} // namespace

template <typename T>
struct CusolverBatchedSvd<T>::State : CusolverBatch<T> {
    gesvdjInfo_t params = nullptr;
    DeviceBuffer<T> fullU;
    ~State() {
        if (params) cusolverDnDestroyGesvdjInfo(params);
    }
};

template <typename T>
CusolverBatchedSvd<T>::CusolverBatchedSvd(int m, int n, int count, double tolerance, int maxSweeps, cudaStream_t stream)
    : m_state(std::make_unique<State>()) {
    State& s = *m_state;
    s.open(m, n, count, stream);
    SPYGLASS_CUDA_CHECK(cusolverDnCreateGesvdjInfo(&s.params));
    SPYGLASS_CUDA_CHECK(cusolverDnXgesvdjSetTolerance(s.params, tolerance));
    SPYGLASS_CUDA_CHECK(cusolverDnXgesvdjSetMaxSweeps(s.params, maxSweeps));
    SPYGLASS_CUDA_CHECK(cusolverDnXgesvdjSetSortEig(s.params, 1));
    s.fullU.resize(static_cast<std::size_t>(m) * m * count);
    SPYGLASS_CUDA_CHECK(bufferSize(s.handle, m, n, static_cast<const T*>(nullptr), static_cast<const SvdReal<T>*>(nullptr),
                                   s.fullU.data(), static_cast<const T*>(nullptr), &s.lwork, s.params, count));
    s.allocateWork();
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

// ---- gesvdaStridedBatched ------------------------------------------------------------------------
// Strides: A m x n (lda m), S n values, U m x n (ldu m, rank n columns), V n x n (ldv n): exactly the
// batch layout of svdBatched, so no copy is needed.
namespace {
constexpr cusolverEigMode_t kVectors = CUSOLVER_EIG_MODE_VECTOR;
long long mn(int m, int n) { return static_cast<long long>(m) * n; }

cusolverStatus_t gesvdaBufferSize(cusolverDnHandle_t h, int m, int n, const float* a, const float* s, const float* u,
                                  const float* v, int* lwork, int batch) {
    return cusolverDnSgesvdaStridedBatched_bufferSize(h, kVectors, n, m, n, a, m, mn(m, n), s, n, u, m, mn(m, n), v, n,
                                                      mn(n, n), lwork, batch);
}
cusolverStatus_t gesvdaBufferSize(cusolverDnHandle_t h, int m, int n, const double* a, const double* s, const double* u,
                                  const double* v, int* lwork, int batch) {
    return cusolverDnDgesvdaStridedBatched_bufferSize(h, kVectors, n, m, n, a, m, mn(m, n), s, n, u, m, mn(m, n), v, n,
                                                      mn(n, n), lwork, batch);
}
cusolverStatus_t gesvdaBufferSize(cusolverDnHandle_t h, int m, int n, const std::complex<float>* a, const float* s,
                                  const std::complex<float>* u, const std::complex<float>* v, int* lwork, int batch) {
    return cusolverDnCgesvdaStridedBatched_bufferSize(h, kVectors, n, m, n, reinterpret_cast<const cuComplex*>(a), m,
                                                      mn(m, n), s, n, reinterpret_cast<const cuComplex*>(u), m, mn(m, n),
                                                      reinterpret_cast<const cuComplex*>(v), n, mn(n, n), lwork, batch);
}
cusolverStatus_t gesvdaBufferSize(cusolverDnHandle_t h, int m, int n, const std::complex<double>* a, const double* s,
                                  const std::complex<double>* u, const std::complex<double>* v, int* lwork, int batch) {
    return cusolverDnZgesvdaStridedBatched_bufferSize(h, kVectors, n, m, n, reinterpret_cast<const cuDoubleComplex*>(a), m,
                                                      mn(m, n), s, n, reinterpret_cast<const cuDoubleComplex*>(u), m,
                                                      mn(m, n), reinterpret_cast<const cuDoubleComplex*>(v), n, mn(n, n),
                                                      lwork, batch);
}
cusolverStatus_t gesvda(cusolverDnHandle_t h, int m, int n, const float* a, float* s, float* u, float* v, float* w,
                        int lw, int* info, double* residual, int batch) {
    return cusolverDnSgesvdaStridedBatched(h, kVectors, n, m, n, a, m, mn(m, n), s, n, u, m, mn(m, n), v, n, mn(n, n), w,
                                           lw, info, residual, batch);
}
cusolverStatus_t gesvda(cusolverDnHandle_t h, int m, int n, const double* a, double* s, double* u, double* v, double* w,
                        int lw, int* info, double* residual, int batch) {
    return cusolverDnDgesvdaStridedBatched(h, kVectors, n, m, n, a, m, mn(m, n), s, n, u, m, mn(m, n), v, n, mn(n, n), w,
                                           lw, info, residual, batch);
}
cusolverStatus_t gesvda(cusolverDnHandle_t h, int m, int n, const std::complex<float>* a, float* s,
                        std::complex<float>* u, std::complex<float>* v, std::complex<float>* w, int lw, int* info,
                        double* residual, int batch) {
    return cusolverDnCgesvdaStridedBatched(h, kVectors, n, m, n, reinterpret_cast<const cuComplex*>(a), m, mn(m, n), s, n,
                                           reinterpret_cast<cuComplex*>(u), m, mn(m, n), reinterpret_cast<cuComplex*>(v), n,
                                           mn(n, n), reinterpret_cast<cuComplex*>(w), lw, info, residual, batch);
}
cusolverStatus_t gesvda(cusolverDnHandle_t h, int m, int n, const std::complex<double>* a, double* s,
                        std::complex<double>* u, std::complex<double>* v, std::complex<double>* w, int lw, int* info,
                        double* residual, int batch) {
    return cusolverDnZgesvdaStridedBatched(h, kVectors, n, m, n, reinterpret_cast<const cuDoubleComplex*>(a), m, mn(m, n),
                                           s, n, reinterpret_cast<cuDoubleComplex*>(u), m, mn(m, n),
                                           reinterpret_cast<cuDoubleComplex*>(v), n, mn(n, n),
                                           reinterpret_cast<cuDoubleComplex*>(w), lw, info, residual, batch);
}
} // namespace

template <typename T> struct CusolverGesvdaSvd<T>::State : CusolverBatch<T> {};

template <typename T>
CusolverGesvdaSvd<T>::CusolverGesvdaSvd(int m, int n, int count, cudaStream_t stream) : m_state(std::make_unique<State>()) {
    State& s = *m_state;
    s.open(m, n, count, stream);
    // The query depends on the shape, strides and batch only; it gets valid (if tiny) pointers
    // rather than null ones, as in NVIDIA's sample, in case a version checks them.
    DeviceBuffer<T> placeholder(1);
    DeviceBuffer<SvdReal<T>> placeholderSigma(1);
    SPYGLASS_CUDA_CHECK(gesvdaBufferSize(s.handle, m, n, placeholder.data(), placeholderSigma.data(), placeholder.data(),
                                         placeholder.data(), &s.lwork, count));
    s.allocateWork();
}

template <typename T> CusolverGesvdaSvd<T>::~CusolverGesvdaSvd() = default;

template <typename T>
void CusolverGesvdaSvd<T>::run(const T* a, T* u, SvdReal<T>* sigma, T* v, int* info, double* residualNorms) {
    State& s = *m_state;
    SPYGLASS_CUDA_CHECK(gesvda(s.handle, s.m, s.n, a, sigma, u, v, s.work.data(), s.lwork, info, residualNorms, s.count));
}

template <typename T> std::size_t CusolverGesvdaSvd<T>::workspaceBytes() const {
    return m_state->work.bytes();
}

template <typename T> std::size_t CusolverGesvdaSvd<T>::extraBytesPerMatrix(int m, int n) {
    // Not documented: room for a copy of A, the Gram matrix and its eigenvectors, and a margin.
    return sizeof(T) * (2 * static_cast<std::size_t>(m) * n + 3 * static_cast<std::size_t>(n) * n) + 64;
}

std::int64_t checkCusolverSvdInfo(const int* info, std::int64_t count, const char* routine) {
    std::int64_t positive = 0;
    for (std::int64_t b = 0; b < count; ++b) {
        if (info[b] < 0)
            throw Error(std::string("cuSOLVER ") + routine + ": parameter " + std::to_string(-info[b]) +
                        " rejected (info " + std::to_string(info[b]) + " for matrix " + std::to_string(b) + ")");
        if (info[b] > 0) ++positive;
    }
    return positive;
}

template class CusolverBatchedSvd<float>;
template class CusolverBatchedSvd<double>;
template class CusolverBatchedSvd<std::complex<float>>;
template class CusolverBatchedSvd<std::complex<double>>;
template class CusolverGesvdaSvd<float>;
template class CusolverGesvdaSvd<double>;
template class CusolverGesvdaSvd<std::complex<float>>;
template class CusolverGesvdaSvd<std::complex<double>>;

} // namespace spyglass::cuda
