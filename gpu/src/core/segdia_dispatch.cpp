// spmv for method B: validates the request, then runs the CPU reference or hands over to the device.
#include "core/instantiate.h"
#include "core/segdia_device.h"
#include "core/spmv_checks.h"
#include "spyglass/error.h"
#include "spyglass/segdia_spmv.h"

#include <string>

namespace spyglass {

void validateSegmentedDiaVariant(const SegmentedDiaVariant& variant) {
    const auto kernel = variant.remainder;
    if (kernel != SegmentedDiaRemainderKernel::Automatic && kernel != SegmentedDiaRemainderKernel::RowBlocks &&
        kernel != SegmentedDiaRemainderKernel::Owners && kernel != SegmentedDiaRemainderKernel::SubWarps)
        throw InputError("segmented DIA SpMV: unknown remainder kernel " + std::to_string(int(kernel)));
    const int width = variant.remainderWidth;
    if (kernel != SegmentedDiaRemainderKernel::SubWarps && width != 0)
        throw InputError(std::string("segmented DIA SpMV: a remainder width (") + std::to_string(width) +
                         ") is for the sub-warps kernel; the " + toString(kernel) + " kernel takes 0");
    if (width != 0 && (width < 1 || width > 32 || (width & (width - 1)) != 0))
        throw InputError("segmented DIA SpMV: remainder width must be 0 (from each segment's mean row length) "
                         "or a power of two from 1 to 32, got " + std::to_string(width));
}

namespace {

// What each format needs besides a device before it goes there.
template <typename T> void checkForDevice(const SegmentedDiaMatrix<T>&, const SpmvOptions& options) {
    validateSegmentedDiaVariant(options.variant);
}
template <typename T> void checkForDevice(const DiaMatrix<T>&, const SpmvOptions&) {}
template <typename T> void checkForDevice(const CsrMatrix<T>& a, const SpmvOptions&) {
    spmv_checks::requireRowPointers("cuSPARSE CSR SpMV", a);
}

// x checked, then the CPU reference, or the one device backend that multiplies this format
// (`format`: "DIA"; `takes`: the backends it takes, for the refusal).
template <typename Matrix, typename T>
std::vector<T> dispatchSpmv(const Matrix& a, const std::vector<T>& x, const SpmvOptions& options, const char* format,
                            SpmvBackend device, const char* takes) {
    spmv_checks::requireXOfColumns((std::string(format) + " SpMV").c_str(), a.cols, x.size());
    if (options.backend == SpmvBackend::Reference) return spmvReference(a, x);
    if (options.backend != device)
        throw InputError(std::string(format) + " SpMV: the " + toString(options.backend) +
                         " backend does not multiply this format (" + takes + ")");
    checkForDevice(a, options);
    return segdia_detail::spmvOnDevice(a, x, options);
}

} // namespace

template <typename T>
std::vector<T> spmv(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options) {
    return dispatchSpmv(a, x, options, "segmented DIA", SpmvBackend::Cuda, "use cpu or cuda");
}

template <typename T>
std::vector<T> spmv(const DiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options) {
    return dispatchSpmv(a, x, options, "DIA", SpmvBackend::Cuda, "use cpu or cuda");
}

template <typename T>
std::vector<T> spmv(const CsrMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options) {
    return dispatchSpmv(a, x, options, "CSR", SpmvBackend::Cusparse, "use cpu or cusparse");
}

#define SPYGLASS_INSTANTIATE_SPMV(T)                                                                        \
    template std::vector<T> spmv(const SegmentedDiaMatrix<T>&, const std::vector<T>&, const SpmvOptions&); \
    template std::vector<T> spmv(const DiaMatrix<T>&, const std::vector<T>&, const SpmvOptions&);          \
    template std::vector<T> spmv(const CsrMatrix<T>&, const std::vector<T>&, const SpmvOptions&);
SPYGLASS_FOR_EACH_SCALAR(SPYGLASS_INSTANTIATE_SPMV)

} // namespace spyglass
