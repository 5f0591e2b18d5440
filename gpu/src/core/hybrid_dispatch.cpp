// hybridSpmv for method D: validates the request, then runs the CPU reference or hands over to the
// device.
#include "core/hybrid_device.h"
#include "core/spmv_checks.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_spmv.h"

#include <string>

namespace spyglass {

template <typename T>
std::vector<T> hybridSpmv(const HybridBinaryMatrix& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options) {
    spmv_checks::requireXOfColumns("hybrid SpMV", hybrid.cols, x.size());
    if (options.backend == HybridSpmvBackend::Reference) return hybridSpmvReference(hybrid, x);
    return hybrid_detail::hybridSpmvOnDevice(hybrid, x, options);
}

template <typename T>
std::vector<T> hybridSpmv(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options) {
    spmv_checks::requireXOfColumns("valued hybrid SpMV", hybrid.cols, x.size());
    if (options.backend == HybridSpmvBackend::Reference) return hybridValuedSpmvReference(hybrid, x);
    // Complex values too: the valued kernel sums them in complex<double>, as the reference does.
    return hybrid_detail::hybridSpmvOnDevice(hybrid, x, options);
}

#define SPYGLASS_INSTANTIATE_HYBRID_SPMV(T)                                                                        \
    template std::vector<T> hybridSpmv(const HybridBinaryMatrix&, const std::vector<T>&, const HybridSpmvOptions&); \
    template std::vector<T> hybridSpmv(const HybridValuedMatrix<T>&, const std::vector<T>&, const HybridSpmvOptions&);
SPYGLASS_INSTANTIATE_HYBRID_SPMV(float)
SPYGLASS_INSTANTIATE_HYBRID_SPMV(double)
// Complex values (c64, c128): the valued form only (a binary pattern multiplies real x).
template std::vector<std::complex<float>> hybridSpmv(const HybridValuedMatrix<std::complex<float>>&,
                                                     const std::vector<std::complex<float>>&, const HybridSpmvOptions&);
template std::vector<std::complex<double>> hybridSpmv(const HybridValuedMatrix<std::complex<double>>&,
                                                      const std::vector<std::complex<double>>&, const HybridSpmvOptions&);

} // namespace spyglass
