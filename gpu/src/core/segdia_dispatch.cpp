// spmv for method B: validates the request, then runs the CPU reference or hands over to the device.
#include "core/instantiate.h"
#include "core/segdia_device.h"
#include "core/spmv_checks.h"
#include "spyglass/error.h"
#include "spyglass/segdia_spmv.h"

#include <string>

namespace spyglass {

void validateSegmentedDiaVariant(const SegmentedDiaVariant& variant) {
    const int width = variant.remainderWidth;
    if (width != 0 && width != -1 && (width < 1 || width > 32 || (width & (width - 1)) != 0))
        throw InputError("segmented DIA SpMV: remainder width must be 0 (owner threads), -1 (sub-warps, width per segment) "
                         "or a power of two from 1 to 32 (sub-warps of that width), got " + std::to_string(width));
}

namespace {
void refuseBackend(const char* format, SpmvBackend backend, const char* takes) {
    throw InputError(std::string(format) + " SpMV: the " + toString(backend) + " backend does not multiply this format (" +
                     takes + ")");
}
} // namespace

template <typename T>
std::vector<T> spmv(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options) {
    spmv_checks::requireXOfColumns("segmented DIA SpMV", a.cols, x.size());
    if (options.backend == SpmvBackend::Reference) return spmvReference(a, x);
    if (options.backend != SpmvBackend::Cuda) refuseBackend("segmented DIA", options.backend, "use cpu or cuda");
    validateSegmentedDiaVariant(options.variant);
    return segdia_detail::spmvOnDevice(a, x, options);
}

template <typename T>
std::vector<T> spmv(const DiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options) {
    spmv_checks::requireXOfColumns("DIA SpMV", a.cols, x.size());
    if (options.backend == SpmvBackend::Reference) return spmvReference(a, x);
    if (options.backend != SpmvBackend::Cuda) refuseBackend("DIA", options.backend, "use cpu or cuda");
    return segdia_detail::spmvOnDevice(a, x, options);
}

template <typename T>
std::vector<T> spmv(const CsrMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options) {
    spmv_checks::requireXOfColumns("CSR SpMV", a.cols, x.size());
    if (options.backend == SpmvBackend::Reference) return spmvReference(a, x);
    if (options.backend != SpmvBackend::Cusparse) refuseBackend("CSR", options.backend, "use cpu or cusparse");
    spmv_checks::requireRowPointers("cuSPARSE CSR SpMV", a);
    return segdia_detail::spmvOnDevice(a, x, options);
}

#define SPYGLASS_INSTANTIATE_SPMV(T)                                                                        \
    template std::vector<T> spmv(const SegmentedDiaMatrix<T>&, const std::vector<T>&, const SpmvOptions&); \
    template std::vector<T> spmv(const DiaMatrix<T>&, const std::vector<T>&, const SpmvOptions&);          \
    template std::vector<T> spmv(const CsrMatrix<T>&, const std::vector<T>&, const SpmvOptions&);
SPYGLASS_FOR_EACH_REAL(SPYGLASS_INSTANTIATE_SPMV)

} // namespace spyglass
