// Without CUDA the hybrid SpMV reports the missing backend; the reference path stays available.
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"

namespace spyglass {

template <typename T>
std::vector<T> hybridSpmvCuda(const HybridBinaryMatrix&, const std::vector<T>&) {
    throw BackendUnavailableError("hybrid SpMV on CUDA: built without CUDA");
}

template std::vector<float> hybridSpmvCuda(const HybridBinaryMatrix&, const std::vector<float>&);
template std::vector<double> hybridSpmvCuda(const HybridBinaryMatrix&, const std::vector<double>&);

} // namespace spyglass
