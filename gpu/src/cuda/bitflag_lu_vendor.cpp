// The dense LU baselines of method A: cuSOLVER getrf (one large matrix, partial pivoting) and cuBLAS
// getrfBatched (many small ones, with or without pivoting), called directly so that a benchmark times
// the library call and nothing around it.
#include "spyglass/cuda/bitflag_device_api.h"

namespace spyglass::cuda {

namespace {

cusolverStatus_t getrfBufferSize(cusolverDnHandle_t h, int n, float* a, int* lwork) {
    return cusolverDnSgetrf_bufferSize(h, n, n, a, n, lwork);
}
cusolverStatus_t getrfBufferSize(cusolverDnHandle_t h, int n, double* a, int* lwork) {
    return cusolverDnDgetrf_bufferSize(h, n, n, a, n, lwork);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int n, float* a, float* work, int* pivots, int* info) {
    return cusolverDnSgetrf(h, n, n, a, n, work, pivots, info);
}
cusolverStatus_t getrf(cusolverDnHandle_t h, int n, double* a, double* work, int* pivots, int* info) {
    return cusolverDnDgetrf(h, n, n, a, n, work, pivots, info);
}
cublasStatus_t getrfBatched(cublasHandle_t h, int n, float* const a[], int* pivots, int* info, int batch) {
    return cublasSgetrfBatched(h, n, a, n, pivots, info, batch);
}
cublasStatus_t getrfBatched(cublasHandle_t h, int n, double* const a[], int* pivots, int* info, int batch) {
    return cublasDgetrfBatched(h, n, a, n, pivots, info, batch);
}

} // namespace

template <typename T>
CusolverDenseLu<T>::CusolverDenseLu(int n, T* a, cudaStream_t stream) : m_n(n) {
    SPYGLASS_CUDA_CHECK(cusolverDnCreate(&m_handle));
    SPYGLASS_CUDA_CHECK(cusolverDnSetStream(m_handle, stream));
    int lwork = 0;
    SPYGLASS_CUDA_CHECK(getrfBufferSize(m_handle, n, a, &lwork));
    m_work.resize(std::size_t(std::max(lwork, 1)));
    m_pivots.resize(std::size_t(std::max(n, 1)));
    m_info.resize(1);
}

template <typename T>
CusolverDenseLu<T>::~CusolverDenseLu() {
    cusolverDnDestroy(m_handle);
}

template <typename T>
void CusolverDenseLu<T>::factor(T* a) {
    SPYGLASS_CUDA_CHECK(getrf(m_handle, m_n, a, m_work.data(), m_pivots.data(), m_info.data()));
}

template <typename T>
int CusolverDenseLu<T>::info() const {
    cudaStream_t stream = nullptr;
    SPYGLASS_CUDA_CHECK(cusolverDnGetStream(m_handle, &stream));
    int info = 0;
    m_info.download(&info, 1, stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return info;
}

template <typename T>
CublasBatchedLu<T>::CublasBatchedLu(int n, int batch, T* matrices, cudaStream_t stream) : m_n(n), m_batch(batch) {
    SPYGLASS_CUDA_CHECK(cublasCreate(&m_handle));
    SPYGLASS_CUDA_CHECK(cublasSetStream(m_handle, stream));
    std::vector<T*> pointers(static_cast<std::size_t>(batch));
    for (int b = 0; b < batch; ++b) pointers[std::size_t(b)] = matrices + std::size_t(b) * std::size_t(n) * std::size_t(n);
    m_pointers.upload(pointers, stream);
    m_pivots.resize(std::max<std::size_t>(std::size_t(n) * std::size_t(batch), 1));
    m_info.resize(std::max<std::size_t>(std::size_t(batch), 1));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename T>
CublasBatchedLu<T>::~CublasBatchedLu() {
    cublasDestroy(m_handle);
}

template <typename T>
void CublasBatchedLu<T>::factor(bool pivoting) {
    // A null pivot array is cuBLAS's LU without pivoting, the seed's algorithm.
    SPYGLASS_CUDA_CHECK(getrfBatched(m_handle, m_n, m_pointers.data(), pivoting ? m_pivots.data() : nullptr, m_info.data(),
                                     m_batch));
}

template <typename T>
std::vector<int> CublasBatchedLu<T>::infos() const {
    std::vector<int> result(static_cast<std::size_t>(m_batch));
    m_info.download(result.data(), result.size());
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    return result;
}

template class CusolverDenseLu<float>;
template class CusolverDenseLu<double>;
template class CublasBatchedLu<float>;
template class CublasBatchedLu<double>;

} // namespace spyglass::cuda
