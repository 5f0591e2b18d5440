// Without CUDA the valued hybrid SpMV reports the missing backend; the reference path stays available.
#include "spyglass/error.h"
#include "spyglass/hybrid_valued.h"

namespace spyglass {

template <typename T>
std::vector<T> hybridValuedSpmvCuda(const HybridValuedMatrix<T>&, const std::vector<T>&) {
    throw BackendUnavailableError("valued hybrid SpMV on CUDA: built without CUDA");
}

template std::vector<float> hybridValuedSpmvCuda(const HybridValuedMatrix<float>&, const std::vector<float>&);
template std::vector<double> hybridValuedSpmvCuda(const HybridValuedMatrix<double>&, const std::vector<double>&);

} // namespace spyglass
