// The vendor baseline of method E: cuBLAS batched LU (getrf) + inverse from LU (getri), and the
// direct matinvBatched (n <= 32). Same data, same stream as Spyglass's kernels.
#include "batchedinverse_kernels.h"
#include "cuda_check.h"
#include "device_buffer.h"

#include <cublas_v2.h>
#include <cuComplex.h>

#include <complex>
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
} // namespace

template <typename T>
struct CublasBatchedInverse<T>::State {
    using C = typename CublasScalar<T>::type;
    int n = 0;
    std::int64_t count = 0;
    cudaStream_t stream = nullptr;
    cublasHandle_t handle = nullptr;
    DeviceBuffer<C*> workPointers, outPointers;
    DeviceBuffer<int> pivots, secondInfo;
    T* boundWork = nullptr;
    T* boundOut = nullptr;

    // The pointer arrays depend on the buffers; rebuilt only when those change.
    void bind(T* work, T* out) {
        if (work == boundWork && out == boundOut) return;
        const std::size_t size = static_cast<std::size_t>(n) * n;
        std::vector<C*> w(static_cast<std::size_t>(count)), o(static_cast<std::size_t>(count));
        for (std::int64_t b = 0; b < count; ++b) {
            w[b] = reinterpret_cast<C*>(work + b * size);
            o[b] = reinterpret_cast<C*>(out + b * size);
        }
        workPointers.upload(w, stream);
        outPointers.upload(o, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));  // the host vectors die here
        boundWork = work;
        boundOut = out;
    }
};

template <typename T>
CublasBatchedInverse<T>::CublasBatchedInverse(int n, std::int64_t count, cudaStream_t stream) : m_state(new State) {
    if (count > 0x7fffffff) throw InputError("cuBLAS batched inverse: batch above 2^31-1 matrices");
    m_state->n = n;
    m_state->count = count;
    m_state->stream = stream;
    SPYGLASS_CUDA_CHECK(cublasCreate(&m_state->handle));
    SPYGLASS_CUDA_CHECK(cublasSetStream(m_state->handle, stream));
    m_state->workPointers.resize(static_cast<std::size_t>(count));
    m_state->outPointers.resize(static_cast<std::size_t>(count));
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
void CublasBatchedInverse<T>::run(InverseKernel kernel, T* work, T* out, int* info) {
    State& s = *m_state;
    if (s.count == 0) return;
    s.bind(work, out);
    const int batch = static_cast<int>(s.count);
    using C = typename State::C;
    if (kernel == InverseKernel::CublasMatinv) {
        SPYGLASS_CUDA_CHECK(matinv(s.handle, s.n, const_cast<const C* const*>(s.workPointers.data()), s.outPointers.data(),
                                   info, batch));
    } else {
        // getrf's info names the first zero pivot of U; getri's own info would only repeat it.
        SPYGLASS_CUDA_CHECK(getrf(s.handle, s.n, s.workPointers.data(), s.pivots.data(), info, batch));
        SPYGLASS_CUDA_CHECK(getri(s.handle, s.n, const_cast<const C* const*>(s.workPointers.data()), s.pivots.data(),
                                  s.outPointers.data(), s.secondInfo.data(), batch));
    }
}

template class CublasBatchedInverse<float>;
template class CublasBatchedInverse<double>;
template class CublasBatchedInverse<std::complex<float>>;
template class CublasBatchedInverse<std::complex<double>>;

} // namespace spyglass::cuda
