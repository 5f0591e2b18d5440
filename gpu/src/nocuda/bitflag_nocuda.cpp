// Without CUDA the bit-flag GPU paths report the missing backend; the reference backend still works.
#include "spyglass/bitflag.h"
#include "spyglass/error.h"
#include "core/csr_vendor_checks.h"

namespace spyglass {

namespace {
[[noreturn]] void unavailable(const char* what) {
    throw BackendUnavailableError(std::string(what) + ": this build has no CUDA backend");
}
} // namespace

template <typename T>
std::vector<T> bitFlagGetBatchCuda(const BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&) { unavailable("bit-flag batch get on CUDA"); }
template <typename T>
std::vector<T> csrGetBatchCuda(const CsrMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&) { unavailable("CSR batch get on CUDA"); }
template <typename T> BitFlagMatrix<T> bitFlagAddCuda(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&) { unavailable("bit-flag add on CUDA"); }
template <typename T> BitFlagMatrix<T> bitFlagSubCuda(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&) { unavailable("bit-flag subtract on CUDA"); }
template <typename T> BitFlagMatrix<T> bitFlagMultiplyCuda(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&) { unavailable("bit-flag multiply on CUDA"); }
template <typename T> Index bitFlagLuCudaMaxOrder() { return 0; }
template <typename T> BitFlagLu<T> bitFlagLuCuda(const BitFlagMatrix<T>&, double) { unavailable("bit-flag LU on CUDA"); }
template <typename T>
std::vector<BitFlagLu<T>> bitFlagLuBatchedCuda(const std::vector<BitFlagMatrix<T>>&, double, BitFlagBatchedLuLayout) {
    unavailable("bit-flag batched LU on CUDA");
}
template <typename T> Index bitFlagLuPivotedBatchedCudaMaxOrder() { return 0; }
template <typename T>
std::vector<BitFlagPivotedLu<T>> bitFlagLuPivotedBatchedCuda(const std::vector<BitFlagMatrix<T>>&, double) {
    unavailable("bit-flag batched LU with partial pivoting on CUDA");
}
template <typename T> Index bitFlagLuPivotedCudaMaxOrder() { return 0; }
template <typename T>
BitFlagPivotedLu<T> bitFlagLuPivotedCuda(const BitFlagMatrix<T>&, const BitFlagBlockedLuOptions&) {
    unavailable("bit-flag LU with partial pivoting on CUDA");
}

CsrMatrix<float> csrAddCusparse(const CsrMatrix<float>& a, const CsrMatrix<float>& b, float) {
    vendor_checks::requireSameShape(a, b);
    unavailable("cuSPARSE add");
}
CsrMatrix<float> csrMultiplyCusparse(const CsrMatrix<float>& a, const CsrMatrix<float>& b) {
    vendor_checks::requireMultipliable(a, b);
    unavailable("cuSPARSE multiply");
}

#define SPYGLASS_BITFLAG_NOCUDA(T)                                                                                      \
    template std::vector<T> bitFlagGetBatchCuda(const BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&); \
    template std::vector<T> csrGetBatchCuda(const CsrMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&); \
    template BitFlagMatrix<T> bitFlagAddCuda(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&);                         \
    template BitFlagMatrix<T> bitFlagSubCuda(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&);                         \
    template BitFlagMatrix<T> bitFlagMultiplyCuda(const BitFlagMatrix<T>&, const BitFlagMatrix<T>&);                    \
    template Index bitFlagLuCudaMaxOrder<T>();                                                                          \
    template BitFlagLu<T> bitFlagLuCuda(const BitFlagMatrix<T>&, double);                                            \
    template std::vector<BitFlagLu<T>> bitFlagLuBatchedCuda(const std::vector<BitFlagMatrix<T>>&, double,                \
                                                            BitFlagBatchedLuLayout);                                    \
    template Index bitFlagLuPivotedBatchedCudaMaxOrder<T>();                                                            \
    template std::vector<BitFlagPivotedLu<T>> bitFlagLuPivotedBatchedCuda(const std::vector<BitFlagMatrix<T>>&, double); \
    template Index bitFlagLuPivotedCudaMaxOrder<T>();                                                                   \
    template BitFlagPivotedLu<T> bitFlagLuPivotedCuda(const BitFlagMatrix<T>&, const BitFlagBlockedLuOptions&);
SPYGLASS_BITFLAG_NOCUDA(float)
SPYGLASS_BITFLAG_NOCUDA(double)

template <typename T>
BitFlagMatrix<T> bitFlagSetBatchCuda(const BitFlagMatrix<T>&, const std::vector<Index>&, const std::vector<Index>&,
                                     const std::vector<T>&) {
    unavailable("bit-flag batch set on CUDA");
}
template BitFlagMatrix<float> bitFlagSetBatchCuda(const BitFlagMatrix<float>&, const std::vector<Index>&,
                                                  const std::vector<Index>&, const std::vector<float>&);
template BitFlagMatrix<double> bitFlagSetBatchCuda(const BitFlagMatrix<double>&, const std::vector<Index>&,
                                                   const std::vector<Index>&, const std::vector<double>&);

template <typename T> BitFlagPivotedLu<T> bitFlagLuPivotedCusolver(const BitFlagMatrix<T>& a, double) {
    if (a.rows != a.cols)
        throw InputError("cuSOLVER getrf: the matrix is " + std::to_string(a.rows) + " x " + std::to_string(a.cols) +
                         ", LU needs a square matrix");
    unavailable("cuSOLVER getrf");
}
template BitFlagPivotedLu<float> bitFlagLuPivotedCusolver(const BitFlagMatrix<float>&, double);
template BitFlagPivotedLu<double> bitFlagLuPivotedCusolver(const BitFlagMatrix<double>&, double);

} // namespace spyglass
