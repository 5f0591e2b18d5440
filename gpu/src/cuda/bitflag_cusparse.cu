// The vendor baselines of method A: cuSPARSE csrgeam2 for add and the generic SpGEMM for multiply.
#include "bitflag_device.h"

#include <limits>

namespace spyglass::cuda {

namespace {

class SparseHandle {
public:
    explicit SparseHandle(cudaStream_t stream) {
        SPYGLASS_CUDA_CHECK(cusparseCreate(&m_handle));
        SPYGLASS_CUDA_CHECK(cusparseSetStream(m_handle, stream));
    }
    ~SparseHandle() { cusparseDestroy(m_handle); }
    SparseHandle(const SparseHandle&) = delete;
    SparseHandle& operator=(const SparseHandle&) = delete;
    cusparseHandle_t get() const { return m_handle; }

private:
    cusparseHandle_t m_handle = nullptr;
};

cusparseSpMatDescr_t describe(const DeviceCsr32& m) {
    cusparseSpMatDescr_t d = nullptr;
    SPYGLASS_CUDA_CHECK(cusparseCreateCsr(&d, m.rows, m.cols, m.nnz, const_cast<int*>(m.rowPtr.data()),
                                          const_cast<int*>(m.colIndex.data()), const_cast<float*>(m.values.data()),
                                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    return d;
}

} // namespace

DeviceCsr32::DeviceCsr32(const CsrMatrix<float>& csr) : rows(csr.rows), cols(csr.cols), nnz(int(csr.nnz())) {
    if (csr.nnz() > std::numeric_limits<int>::max()) throw InputError("cuSPARSE baseline: too many entries for 32-bit indices");
    const std::vector<int> rowPtr32(csr.rowPtr.begin(), csr.rowPtr.end());
    rowPtr.upload(rowPtr32);
    colIndex.resize(std::max<std::size_t>(csr.colIndex.size(), 1));
    values.resize(std::max<std::size_t>(csr.values.size(), 1));
    colIndex.upload(csr.colIndex);
    values.upload(csr.values);
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
}

CsrMatrix<float> DeviceCsr32::download() const {
    CsrMatrix<float> csr;
    csr.rows = rows;
    csr.cols = cols;
    std::vector<int> rowPtr32(std::size_t(rows) + 1);
    rowPtr.download(rowPtr32.data(), rowPtr32.size());
    csr.colIndex.resize(std::size_t(nnz));
    csr.values.resize(std::size_t(nnz));
    colIndex.download(csr.colIndex.data(), csr.colIndex.size());
    values.download(csr.values.data(), csr.values.size());
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    csr.rowPtr.assign(rowPtr32.begin(), rowPtr32.end());
    return csr;
}

void cusparseCsrAdd(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, cudaStream_t stream) {
    SparseHandle handle(stream);
    cusparseMatDescr_t descr = nullptr;
    SPYGLASS_CUDA_CHECK(cusparseCreateMatDescr(&descr));
    const float one = 1.0f;
    c.rows = a.rows;
    c.cols = a.cols;
    c.rowPtr.resize(std::size_t(a.rows) + 1);
    std::size_t bufferBytes = 0;
    SPYGLASS_CUDA_CHECK(cusparseScsrgeam2_bufferSizeExt(handle.get(), a.rows, a.cols, &one, descr, a.nnz, a.values.data(),
                                                        a.rowPtr.data(), a.colIndex.data(), &one, descr, b.nnz,
                                                        b.values.data(), b.rowPtr.data(), b.colIndex.data(), descr,
                                                        nullptr, c.rowPtr.data(), nullptr, &bufferBytes));
    DeviceBuffer<unsigned char> buffer(std::max<std::size_t>(bufferBytes, 1));
    int nnz = 0;
    SPYGLASS_CUDA_CHECK(cusparseSetPointerMode(handle.get(), CUSPARSE_POINTER_MODE_HOST));
    SPYGLASS_CUDA_CHECK(cusparseXcsrgeam2Nnz(handle.get(), a.rows, a.cols, descr, a.nnz, a.rowPtr.data(), a.colIndex.data(),
                                             descr, b.nnz, b.rowPtr.data(), b.colIndex.data(), descr, c.rowPtr.data(),
                                             &nnz, buffer.data()));
    c.nnz = nnz;
    c.colIndex.resize(std::max(nnz, 1));
    c.values.resize(std::max(nnz, 1));
    SPYGLASS_CUDA_CHECK(cusparseScsrgeam2(handle.get(), a.rows, a.cols, &one, descr, a.nnz, a.values.data(), a.rowPtr.data(),
                                          a.colIndex.data(), &one, descr, b.nnz, b.values.data(), b.rowPtr.data(),
                                          b.colIndex.data(), descr, c.values.data(), c.rowPtr.data(), c.colIndex.data(),
                                          buffer.data()));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    cusparseDestroyMatDescr(descr);
}

void cusparseCsrMultiply(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, cudaStream_t stream) {
    SparseHandle handle(stream);
    cusparseSpMatDescr_t da = describe(a), db = describe(b), dc = nullptr;
    SPYGLASS_CUDA_CHECK(cusparseCreateCsr(&dc, a.rows, b.cols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    cusparseSpGEMMDescr_t gemm = nullptr;
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_createDescr(&gemm));
    const float alpha = 1.0f, beta = 0.0f;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    std::size_t bytes1 = 0, bytes2 = 0;
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_workEstimation(handle.get(), op, op, &alpha, da, db, &beta, dc, CUDA_R_32F,
                                                      CUSPARSE_SPGEMM_DEFAULT, gemm, &bytes1, nullptr));
    DeviceBuffer<unsigned char> buffer1(std::max<std::size_t>(bytes1, 1));
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_workEstimation(handle.get(), op, op, &alpha, da, db, &beta, dc, CUDA_R_32F,
                                                      CUSPARSE_SPGEMM_DEFAULT, gemm, &bytes1, buffer1.data()));
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_compute(handle.get(), op, op, &alpha, da, db, &beta, dc, CUDA_R_32F,
                                               CUSPARSE_SPGEMM_DEFAULT, gemm, &bytes2, nullptr));
    DeviceBuffer<unsigned char> buffer2(std::max<std::size_t>(bytes2, 1));
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_compute(handle.get(), op, op, &alpha, da, db, &beta, dc, CUDA_R_32F,
                                               CUSPARSE_SPGEMM_DEFAULT, gemm, &bytes2, buffer2.data()));
    int64_t rows = 0, cols = 0, nnz = 0;
    SPYGLASS_CUDA_CHECK(cusparseSpMatGetSize(dc, &rows, &cols, &nnz));
    c.rows = a.rows;
    c.cols = b.cols;
    c.nnz = int(nnz);
    c.rowPtr.resize(std::size_t(a.rows) + 1);
    c.colIndex.resize(std::size_t(std::max<int64_t>(nnz, 1)));
    c.values.resize(std::size_t(std::max<int64_t>(nnz, 1)));
    SPYGLASS_CUDA_CHECK(cusparseCsrSetPointers(dc, c.rowPtr.data(), c.colIndex.data(), c.values.data()));
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_copy(handle.get(), op, op, &alpha, da, db, &beta, dc, CUDA_R_32F,
                                            CUSPARSE_SPGEMM_DEFAULT, gemm));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    cusparseSpGEMM_destroyDescr(gemm);
    cusparseDestroySpMat(da);
    cusparseDestroySpMat(db);
    cusparseDestroySpMat(dc);
}

} // namespace spyglass::cuda
