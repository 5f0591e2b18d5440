// Built without CUDA: the GPU backends of method B's SpMV report that they are missing; the reference
// backend still works.
#include "core/instantiate.h"
#include "core/segdia_device.h"
#include "nocuda/backend_unavailable.h"
#include "spyglass/error.h"

#include <string>

namespace spyglass::segdia_detail {

namespace {
[[noreturn]] void unavailable(const char* what, const SpmvOptions& options) {
    nocuda::backendUnavailable(what, toString(options.backend));
}
} // namespace

template <typename T>
std::vector<T> spmvOnDevice(const SegmentedDiaMatrix<T>&, const std::vector<T>&, const SpmvOptions& options) {
    unavailable("segmented DIA SpMV", options);
}
template <typename T>
std::vector<T> spmvOnDevice(const DiaMatrix<T>&, const std::vector<T>&, const SpmvOptions& options) {
    unavailable("DIA SpMV", options);
}
template <typename T>
std::vector<T> spmvOnDevice(const CsrMatrix<T>&, const std::vector<T>&, const SpmvOptions& options) {
    unavailable("cuSPARSE CSR SpMV", options);
}

SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_SPMV_DEVICE)

} // namespace spyglass::segdia_detail
