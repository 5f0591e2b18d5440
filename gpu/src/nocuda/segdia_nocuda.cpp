// Without CUDA the GPU SpMV paths report the missing backend; the reference backend still works.
#include "spyglass/error.h"
#include "spyglass/segdia_spmv.h"

namespace spyglass {

namespace {
[[noreturn]] void unavailable(const char* what) {
    throw BackendUnavailableError(std::string(what) + ": this build has no CUDA backend");
}
} // namespace

template <typename T> std::vector<T> spmvCuda(const SegmentedDiaMatrix<T>&, const std::vector<T>&) { unavailable("segmented DIA SpMV on CUDA"); }
template <typename T> std::vector<T> spmvCuda(const DiaMatrix<T>&, const std::vector<T>&) { unavailable("DIA SpMV on CUDA"); }
template <typename T> std::vector<T> spmvCusparse(const CsrMatrix<T>&, const std::vector<T>&) { unavailable("cuSPARSE CSR SpMV"); }

template std::vector<float> spmvCuda(const SegmentedDiaMatrix<float>&, const std::vector<float>&);
template std::vector<double> spmvCuda(const SegmentedDiaMatrix<double>&, const std::vector<double>&);
template std::vector<float> spmvCuda(const DiaMatrix<float>&, const std::vector<float>&);
template std::vector<double> spmvCuda(const DiaMatrix<double>&, const std::vector<double>&);
template std::vector<float> spmvCusparse(const CsrMatrix<float>&, const std::vector<float>&);
template std::vector<double> spmvCusparse(const CsrMatrix<double>&, const std::vector<double>&);

} // namespace spyglass
