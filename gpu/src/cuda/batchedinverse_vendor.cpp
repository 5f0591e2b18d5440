// The vendor baseline of method E: cuBLAS batched LU (getrf) + inverse from LU (getri), and the
// direct matinvBatched (n <= 32). Same data, same stream as Spyglass's kernels.
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/error.h"

#include <cublas_v2.h>
#include <cuComplex.h>

#include <complex>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace spyglass::cuda {

namespace {
template <typename T> struct CublasScalar { using type = T; };
template <> struct CublasScalar<std::complex<float>> { using type = cuComplex; };
template <> struct CublasScalar<std::complex<double>> { using type = cuDoubleComplex; };

cublasStatus_t getrf(cublasHandle_t h, int n, float* const a[], int* piv, int* info, int batch) {
    return cublasSgetrfBatched(h, n, a, n, piv, info, batch);
}
cublasStatus_t getrf(cublasHandle_t h, int n, double* const a[], int* piv, int* info, int batch) {
    return cublasDgetrfBatched(h, n, a, n, piv, info, batch);
}
cublasStatus_t getrf(cublasHandle_t h, int n, cuComplex* const a[], int* piv, int* info, int batch) {
    return cublasCgetrfBatched(h, n, a, n, piv, info, batch);
}
cublasStatus_t getrf(cublasHandle_t h, int n, cuDoubleComplex* const a[], int* piv, int* info, int batch) {
    return cublasZgetrfBatched(h, n, a, n, piv, info, batch);
}
cublasStatus_t getri(cublasHandle_t h, int n, const float* const a[], const int* piv, float* const c[], int* info, int batch) {
    return cublasSgetriBatched(h, n, a, n, piv, c, n, info, batch);
}
cublasStatus_t getri(cublasHandle_t h, int n, const double* const a[], const int* piv, double* const c[], int* info, int batch) {
    return cublasDgetriBatched(h, n, a, n, piv, c, n, info, batch);
}
cublasStatus_t getri(cublasHandle_t h, int n, const cuComplex* const a[], const int* piv, cuComplex* const c[], int* info,
                     int batch) {
    return cublasCgetriBatched(h, n, a, n, piv, c, n, info, batch);
}
cublasStatus_t getri(cublasHandle_t h, int n, const cuDoubleComplex* const a[], const int* piv, cuDoubleComplex* const c[],
                     int* info, int batch) {
    return cublasZgetriBatched(h, n, a, n, piv, c, n, info, batch);
}
cublasStatus_t matinv(cublasHandle_t h, int n, const float* const a[], float* const c[], int* info, int batch) {
    return cublasSmatinvBatched(h, n, a, n, c, n, info, batch);
}
cublasStatus_t matinv(cublasHandle_t h, int n, const double* const a[], double* const c[], int* info, int batch) {
    return cublasDmatinvBatched(h, n, a, n, c, n, info, batch);
}
cublasStatus_t matinv(cublasHandle_t h, int n, const cuComplex* const a[], cuComplex* const c[], int* info, int batch) {
    return cublasCmatinvBatched(h, n, a, n, c, n, info, batch);
}
cublasStatus_t matinv(cublasHandle_t h, int n, const cuDoubleComplex* const a[], cuDoubleComplex* const c[], int* info,
                      int batch) {
    return cublasZmatinvBatched(h, n, a, n, c, n, info, batch);
}
// Strided copies (cublas<t>copy): U's k-th diagonal entry of every matrix in one call.
cublasStatus_t copy(cublasHandle_t h, int count, const float* x, int incx, float* y, int incy) {
    return cublasScopy(h, count, x, incx, y, incy);
}
cublasStatus_t copy(cublasHandle_t h, int count, const double* x, int incx, double* y, int incy) {
    return cublasDcopy(h, count, x, incx, y, incy);
}
cublasStatus_t copy(cublasHandle_t h, int count, const cuComplex* x, int incx, cuComplex* y, int incy) {
    return cublasCcopy(h, count, x, incx, y, incy);
}
cublasStatus_t copy(cublasHandle_t h, int count, const cuDoubleComplex* x, int incx, cuDoubleComplex* y, int incy) {
    return cublasZcopy(h, count, x, incx, y, incy);
}
} // namespace

template <typename T>
struct CublasBatchedInverse<T>::State {
    using C = typename CublasScalar<T>::type;
    int n = 0;
    std::int64_t capacity = 0;
    cudaStream_t stream = nullptr;
    cublasHandle_t handle = nullptr;
    DeviceBuffer<int> pivots, secondInfo;
    DeviceBuffer<T> pivotDiagonals;  // reservePivotDiagonals(): capacity * n, matrix b's at b*n
    // One device array of matrix pointers per buffer, built once: a user of the batched API keeps
    // these beside the buffers they describe.
    std::vector<std::pair<const T*, std::unique_ptr<DeviceBuffer<C*>>>> pointerArrays;
    std::int64_t pointerArraysBuilt = 0;

    C* const* pointersOf(const T* buffer) {
        for (const auto& [base, array] : pointerArrays)
            if (base == buffer) return array->data();
        const std::size_t size = static_cast<std::size_t>(n) * n;
        std::vector<C*> host(static_cast<std::size_t>(capacity));
        for (std::int64_t b = 0; b < capacity; ++b) host[b] = reinterpret_cast<C*>(const_cast<T*>(buffer) + b * size);
        auto array = std::make_unique<DeviceBuffer<C*>>();
        array->upload(host, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vector dies here
        pointerArrays.emplace_back(buffer, std::move(array));
        ++pointerArraysBuilt;
        return pointerArrays.back().second->data();
    }
    int batchOf(std::int64_t count) const {
        if (count < 0 || count > capacity)
            throw InputError("cuBLAS batched inverse: " + std::to_string(count) + " matrices in a helper made for " +
                             std::to_string(capacity));
        return static_cast<int>(count);
    }
};

template <typename T>
CublasBatchedInverse<T>::CublasBatchedInverse(int n, std::int64_t count, cudaStream_t stream) : m_state(new State) {
    if (count > 0x7fffffff) throw InputError("cuBLAS batched inverse: batch above 2^31-1 matrices");
    m_state->n = n;
    m_state->capacity = count;
    m_state->stream = stream;
    SPYGLASS_CUDA_CHECK(cublasCreate(&m_state->handle));
    SPYGLASS_CUDA_CHECK(cublasSetStream(m_state->handle, stream));
    m_state->pivots.resize(static_cast<std::size_t>(count) * n);
    m_state->secondInfo.resize(static_cast<std::size_t>(count));
}

template <typename T>
CublasBatchedInverse<T>::~CublasBatchedInverse() {
    if (m_state && m_state->handle) cublasDestroy(m_state->handle);
}

template <typename T>
std::size_t CublasBatchedInverse<T>::extraBytesPerMatrix(int n) {
    return 2 * sizeof(void*) + static_cast<std::size_t>(n) * sizeof(int) + sizeof(int);
}

template <typename T>
void CublasBatchedInverse<T>::reservePivotDiagonals() {
    m_state->pivotDiagonals.resize(static_cast<std::size_t>(m_state->capacity) * m_state->n);
}

template <typename T>
void CublasBatchedInverse<T>::downloadPivotDiagonals(const T* factors, T* hostPivots, std::int64_t count) {
    State& s = *m_state;
    const int batch = s.batchOf(count < 0 ? s.capacity : count);
    if (batch == 0) return;
    if (s.pivotDiagonals.size() < static_cast<std::size_t>(batch) * s.n)
        throw InputError("cuBLAS batched inverse: reservePivotDiagonals() was not called");
    using C = typename State::C;
    const int n = s.n;
    // U_b(k,k) sits at b*n*n + k*(n+1): for each k one strided copy over the batch, into b*n + k.
    for (int k = 0; k < n; ++k)
        SPYGLASS_CUDA_CHECK(copy(s.handle, batch, reinterpret_cast<const C*>(factors) + static_cast<std::size_t>(k) * (n + 1),
                                 n * n, reinterpret_cast<C*>(s.pivotDiagonals.data()) + k, n));
    s.pivotDiagonals.download(hostPivots, static_cast<std::size_t>(batch) * n, s.stream);
}

template <typename T>
void CublasBatchedInverse<T>::bind(const T* work, const T* out) {
    m_state->pointersOf(work);
    m_state->pointersOf(out);
}

template <typename T>
std::int64_t CublasBatchedInverse<T>::pointerArraysBuilt() const {
    return m_state->pointerArraysBuilt;
}

template <typename T>
void CublasBatchedInverse<T>::run(InverseKernel kernel, T* work, T* out, int* info, std::int64_t count) {
    State& s = *m_state;
    const int batch = s.batchOf(count < 0 ? s.capacity : count);
    if (batch == 0) return;
    using C = typename State::C;
    C* const* workPointers = s.pointersOf(work);
    C* const* outPointers = s.pointersOf(out);
    if (kernel == InverseKernel::CublasMatinv) {
        SPYGLASS_CUDA_CHECK(matinv(s.handle, s.n, const_cast<const C* const*>(workPointers), outPointers, info, batch));
    } else {
        // getrf's info names the first zero pivot of U; getri's own info would only repeat it.
        SPYGLASS_CUDA_CHECK(getrf(s.handle, s.n, workPointers, s.pivots.data(), info, batch));
        SPYGLASS_CUDA_CHECK(getri(s.handle, s.n, const_cast<const C* const*>(workPointers), s.pivots.data(), outPointers,
                                  s.secondInfo.data(), batch));
    }
}

template <typename T>
void CublasBatchedInverse<T>::factorize(T* work, std::int64_t count) {
    State& s = *m_state;
    const int batch = s.batchOf(count < 0 ? s.capacity : count);
    if (batch == 0) return;
    // Zero pivots also show in U's diagonal, where the caller reads them; getrf's info is not needed.
    SPYGLASS_CUDA_CHECK(getrf(s.handle, s.n, s.pointersOf(work), s.pivots.data(), s.secondInfo.data(), batch));
}

template class CublasBatchedInverse<float>;
template class CublasBatchedInverse<double>;
template class CublasBatchedInverse<std::complex<float>>;
template class CublasBatchedInverse<std::complex<double>>;

} // namespace spyglass::cuda
