// The vendor baselines of method A: cuSPARSE csrgeam2 for add and the generic SpGEMM for multiply,
// with a handle and buffers kept between calls as an application would.
#include "spyglass/cuda/bitflag_device_api.h"

#include <limits>

namespace spyglass::cuda {

namespace {

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

CusparseWorkspace::CusparseWorkspace(cudaStream_t stream) : m_stream(stream) {
    SPYGLASS_CUDA_CHECK(cusparseCreate(&m_handle));
    SPYGLASS_CUDA_CHECK(cusparseSetStream(m_handle, stream));
    SPYGLASS_CUDA_CHECK(cusparseCreateMatDescr(&m_general));
    const float unit = 1.0f;
    one.upload(&unit, 1, stream);
    nnz.resize(1);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

CusparseWorkspace::~CusparseWorkspace() {
    cusparseDestroyMatDescr(m_general);
    cusparseDestroy(m_handle);
}

void cusparseCsrAdd(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, CusparseWorkspace& ws) {
    const cudaStream_t stream = ws.stream();
    const cusparseMatDescr_t descr = ws.generalDescription();
    c.rows = a.rows;
    c.cols = a.cols;
    reserveAtLeast(c.rowPtr, std::size_t(a.rows) + 1);
    // The sum can not hold more than nnz(A) + nnz(B): sized so, the column and value arrays exist before
    // the count, and the count stays on the device (device pointer mode).
    const std::size_t bound = std::size_t(a.nnz) + std::size_t(b.nnz);
    if (bound > std::size_t(std::numeric_limits<int>::max())) throw InputError("cuSPARSE add: too many entries for 32-bit indices");
    reserveAtLeast(c.colIndex, std::max<std::size_t>(bound, 1));
    reserveAtLeast(c.values, std::max<std::size_t>(bound, 1));
    SPYGLASS_CUDA_CHECK(cusparseSetPointerMode(ws.handle(), CUSPARSE_POINTER_MODE_DEVICE));
    const float* one = ws.one.data();
    std::size_t bufferBytes = 0;
    SPYGLASS_CUDA_CHECK(cusparseScsrgeam2_bufferSizeExt(ws.handle(), a.rows, a.cols, one, descr, a.nnz, a.values.data(),
                                                        a.rowPtr.data(), a.colIndex.data(), one, descr, b.nnz,
                                                        b.values.data(), b.rowPtr.data(), b.colIndex.data(), descr,
                                                        c.values.data(), c.rowPtr.data(), c.colIndex.data(), &bufferBytes));
    reserveAtLeast(ws.buffer1, std::max<std::size_t>(bufferBytes, 1));
    SPYGLASS_CUDA_CHECK(cusparseXcsrgeam2Nnz(ws.handle(), a.rows, a.cols, descr, a.nnz, a.rowPtr.data(), a.colIndex.data(),
                                             descr, b.nnz, b.rowPtr.data(), b.colIndex.data(), descr, c.rowPtr.data(),
                                             ws.nnz.data(), ws.buffer1.data()));
    SPYGLASS_CUDA_CHECK(cusparseScsrgeam2(ws.handle(), a.rows, a.cols, one, descr, a.nnz, a.values.data(), a.rowPtr.data(),
                                          a.colIndex.data(), one, descr, b.nnz, b.values.data(), b.rowPtr.data(),
                                          b.colIndex.data(), descr, c.values.data(), c.rowPtr.data(), c.colIndex.data(),
                                          ws.buffer1.data()));
    int nnz = 0;
    SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(&nnz, ws.nnz.data(), sizeof(int), cudaMemcpyDeviceToHost, stream));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    c.nnz = nnz;
}

const char* toString(SpGemmAlgorithm algorithm) {
    return algorithm == SpGemmAlgorithm::Default ? "ALG_DEFAULT" : "ALG3, chunks of 1/5";
}

namespace {
// Destroys the SpGEMM's descriptors whether the library call sequence finishes or throws.
struct SpGemmDescriptors {
    cusparseSpMatDescr_t a = nullptr, b = nullptr, c = nullptr;
    cusparseSpGEMMDescr_t gemm = nullptr;
    ~SpGemmDescriptors() {
        if (gemm) cusparseSpGEMM_destroyDescr(gemm);
        for (cusparseSpMatDescr_t m : {a, b, c})
            if (m) cusparseDestroySpMat(m);
    }
};
} // namespace

void cusparseCsrMultiply(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, CusparseWorkspace& ws,
                         SpGemmAlgorithm algorithm) {
    const cudaStream_t stream = ws.stream();
    const cusparseHandle_t handle = ws.handle();
    SPYGLASS_CUDA_CHECK(cusparseSetPointerMode(handle, CUSPARSE_POINTER_MODE_HOST));
    SpGemmDescriptors d;
    d.a = describe(a);
    d.b = describe(b);
    SPYGLASS_CUDA_CHECK(cusparseCreateCsr(&d.c, a.rows, b.cols, 0, nullptr, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                          CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_createDescr(&d.gemm));
    const float alpha = 1.0f, beta = 0.0f;
    const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
    const cusparseSpGEMMAlg_t alg = algorithm == SpGemmAlgorithm::Default ? CUSPARSE_SPGEMM_DEFAULT : CUSPARSE_SPGEMM_ALG3;
    std::size_t bytes1 = 0, bytes2 = 0;
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, d.a, d.b, &beta, d.c, CUDA_R_32F, alg, d.gemm,
                                                      &bytes1, nullptr));
    reserveAtLeast(ws.buffer1, std::max<std::size_t>(bytes1, 1));
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_workEstimation(handle, op, op, &alpha, d.a, d.b, &beta, d.c, CUDA_R_32F, alg, d.gemm,
                                                      &bytes1, ws.buffer1.data()));
    if (algorithm == SpGemmAlgorithm::MemoryBounded) {
        // ALG3 sizes the compute buffer itself, through a temporary third buffer.
        constexpr float chunkFraction = 0.2f;
        std::size_t bytes3 = 0;
        SPYGLASS_CUDA_CHECK(cusparseSpGEMM_estimateMemory(handle, op, op, &alpha, d.a, d.b, &beta, d.c, CUDA_R_32F, alg,
                                                          d.gemm, chunkFraction, &bytes3, nullptr, nullptr));
        reserveAtLeast(ws.buffer3, std::max<std::size_t>(bytes3, 1));
        SPYGLASS_CUDA_CHECK(cusparseSpGEMM_estimateMemory(handle, op, op, &alpha, d.a, d.b, &beta, d.c, CUDA_R_32F, alg,
                                                          d.gemm, chunkFraction, &bytes3, ws.buffer3.data(), &bytes2));
    } else {
        SPYGLASS_CUDA_CHECK(cusparseSpGEMM_compute(handle, op, op, &alpha, d.a, d.b, &beta, d.c, CUDA_R_32F, alg, d.gemm,
                                                   &bytes2, nullptr));
    }
    reserveAtLeast(ws.buffer2, std::max<std::size_t>(bytes2, 1));
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_compute(handle, op, op, &alpha, d.a, d.b, &beta, d.c, CUDA_R_32F, alg, d.gemm,
                                               &bytes2, ws.buffer2.data()));
    int64_t rows = 0, cols = 0, nnz = 0;
    SPYGLASS_CUDA_CHECK(cusparseSpMatGetSize(d.c, &rows, &cols, &nnz));
    if (nnz > std::numeric_limits<int>::max()) throw InputError("cuSPARSE multiply: too many entries for 32-bit indices");
    c.rows = a.rows;
    c.cols = b.cols;
    c.nnz = int(nnz);
    reserveAtLeast(c.rowPtr, std::size_t(a.rows) + 1);
    reserveAtLeast(c.colIndex, std::size_t(std::max<int64_t>(nnz, 1)));
    reserveAtLeast(c.values, std::size_t(std::max<int64_t>(nnz, 1)));
    SPYGLASS_CUDA_CHECK(cusparseCsrSetPointers(d.c, c.rowPtr.data(), c.colIndex.data(), c.values.data()));
    SPYGLASS_CUDA_CHECK(cusparseSpGEMM_copy(handle, op, op, &alpha, d.a, d.b, &beta, d.c, CUDA_R_32F, alg, d.gemm));
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
}

void cusparseCsrAdd(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, cudaStream_t stream) {
    CusparseWorkspace workspace(stream);
    cusparseCsrAdd(a, b, c, workspace);
}

void cusparseCsrMultiply(const DeviceCsr32& a, const DeviceCsr32& b, DeviceCsr32& c, cudaStream_t stream) {
    CusparseWorkspace workspace(stream);
    cusparseCsrMultiply(a, b, c, workspace);
}

} // namespace spyglass::cuda
