// Built without CUDA: hybridSpmv's Cuda backend reports that it is missing (both forms); the reference
// backend still works.
#include "core/hybrid_device.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::hybrid_detail {

namespace {
[[noreturn]] void unavailable(const char* what) {
    throw BackendUnavailableError(std::string(what) + " on CUDA: built without CUDA (use --backend cpu)");
}
} // namespace

template <typename T>
std::vector<T> hybridSpmvOnDevice(const HybridBinaryMatrix&, const std::vector<T>&, const HybridSpmvOptions&) {
    unavailable("hybrid SpMV");
}
template <typename T>
std::vector<T> hybridSpmvOnDevice(const HybridValuedMatrix<T>&, const std::vector<T>&, const HybridSpmvOptions&) {
    unavailable("valued hybrid SpMV");
}

SPYGLASS_INSTANTIATE_EVERY_HYBRID_DEVICE()

} // namespace spyglass::hybrid_detail
