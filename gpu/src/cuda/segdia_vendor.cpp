// The vendor baseline: cuSPARSE CSR SpMV through the generic API, with 32-bit indices (what a user of
// cuSPARSE would pick for these sizes) and the workspace allocated once, outside the timed call.
#include "core/instantiate.h"
#include "spyglass/cuda/segdia_device_api.h"
#include "spyglass/error.h"

#include <complex>
#include <limits>
#include <string>
#include <type_traits>

namespace spyglass::cuda {

namespace {
// The values' type is also the compute type: cusparseSpMV accumulates c64 in c64, as it does fp32.
template <typename T>
constexpr cudaDataType valueType() {
    if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
    else if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
    else if constexpr (std::is_same_v<T, std::complex<float>>) return CUDA_C_32F;
    else {
        static_assert(std::is_same_v<T, std::complex<double>>, "cuSPARSE SpMV takes fp32, fp64, c64 or c128");
        return CUDA_C_64F;
    }
}
} // namespace

template <typename T>
CusparseCsrSpmv<T>::CusparseCsrSpmv(const CsrMatrix<T>& a, const T* x, T* y, cudaStream_t stream, cusparseSpMVAlg_t algorithm)
    : m_rows(a.rows), m_cols(a.cols), m_algorithm(algorithm) {
    if (a.nnz() > std::numeric_limits<int>::max())
        throw InputError("cuSPARSE CSR SpMV: " + std::to_string(a.nnz()) + " entries exceed 32-bit indices");
    std::vector<int> rowPtr(a.rowPtr.begin(), a.rowPtr.end());
    m_rowPtr.upload(rowPtr, stream);
    m_colIndex.upload(a.colIndex, stream);
    m_values.upload(a.values, stream);
    m_bytes = double(rowPtr.size() * sizeof(int) + a.colIndex.size() * sizeof(int) + a.values.size() * sizeof(T)) +
              double(sizeof(T)) * (double(a.rows) + double(a.cols));
    SPYGLASS_CUDA_CHECK(cusparseCreate(&m_handle));
    SPYGLASS_CUDA_CHECK(cusparseSetStream(m_handle, stream));
    // cuSPARSE rejects null pointers even for an empty matrix; a one-element buffer stands in.
    if (m_colIndex.size() == 0) m_colIndex.resize(1);
    if (m_values.size() == 0) m_values.resize(1);
    SPYGLASS_CUDA_CHECK(cusparseCreateCsr(&m_matrix, a.rows, a.cols, a.nnz(), m_rowPtr.data(), m_colIndex.data(),
                                          m_values.data(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_BASE_ZERO, valueType<T>()));
    SPYGLASS_CUDA_CHECK(cusparseCreateDnVec(&m_x, a.cols, const_cast<T*>(x), valueType<T>()));
    SPYGLASS_CUDA_CHECK(cusparseCreateDnVec(&m_y, a.rows, y, valueType<T>()));
    const T alpha(1), beta(0);
    std::size_t workspaceBytes = 0;
    SPYGLASS_CUDA_CHECK(cusparseSpMV_bufferSize(m_handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, m_matrix, m_x, &beta,
                                                m_y, valueType<T>(), m_algorithm, &workspaceBytes));
    m_workspace.resize(workspaceBytes > 0 ? workspaceBytes : 1);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename T>
CusparseCsrSpmv<T>::~CusparseCsrSpmv() {
    if (m_x) cusparseDestroyDnVec(m_x);
    if (m_y) cusparseDestroyDnVec(m_y);
    if (m_matrix) cusparseDestroySpMat(m_matrix);
    if (m_handle) cusparseDestroy(m_handle);
}

template <typename T>
void CusparseCsrSpmv<T>::multiply(cudaStream_t stream, bool accumulate) {
    if (m_rows == 0) return;
    const T alpha(1), beta(accumulate ? 1 : 0);
    SPYGLASS_CUDA_CHECK(cusparseSetStream(m_handle, stream));
    SPYGLASS_CUDA_CHECK(cusparseSpMV(m_handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, m_matrix, m_x, &beta, m_y,
                                     valueType<T>(), m_algorithm, m_workspace.data()));
}

#define SPYGLASS_INSTANTIATE_CUSPARSE_CSR(T) template class CusparseCsrSpmv<T>;
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_CUSPARSE_CSR)

} // namespace spyglass::cuda
