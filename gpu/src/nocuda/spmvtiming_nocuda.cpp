// Without CUDA the timed SpMV reports the missing backend; the CPU reference stays available.
#include "spyglass/error.h"
#include "spyglass/spmvtiming.h"

namespace spyglass {

TimedSpmv hybridSpmvCudaTimed(const HybridBinaryMatrix&, const std::vector<double>&, int, int) {
    throw BackendUnavailableError("hybrid SpMV on CUDA: built without CUDA");
}

TimedSpmv hybridValuedSpmvCudaTimed(const HybridValuedMatrix<double>&, const std::vector<double>&, int, int) {
    throw BackendUnavailableError("valued hybrid SpMV on CUDA: built without CUDA");
}

TimedSpmv cusparseCsrSpmvTimed(const CsrMatrix<double>&, const std::vector<double>&, int, int) {
    throw BackendUnavailableError("cuSPARSE CSR SpMV: built without CUDA");
}

} // namespace spyglass
