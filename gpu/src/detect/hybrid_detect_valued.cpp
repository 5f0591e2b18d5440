// Detection on a valued matrix's pattern, then the valued hybrid encoding: the one entry the
// command-line tool, the GUI job and the benchmark share.
#include "spyglass/hybrid_valued.h"

#include <complex>

namespace spyglass {

template <typename T>
HybridValuedMatrix<T> detectAndEncodeHybridValued(const CsrMatrix<T>& matrix, const DetectionOptions& options,
                                                  DetectionResult* detected) {
    DetectionResult result = detectDenseRegions(patternOfCsr(matrix), options);
    HybridValuedOptions encoding;
    encoding.threads = options.threads;
    encoding.cancel = options.cancel;
    HybridValuedMatrix<T> hybrid = encodeHybridValued(matrix, result.regions, encoding);
    if (detected) *detected = std::move(result);
    return hybrid;
}

template HybridValuedMatrix<float> detectAndEncodeHybridValued(const CsrMatrix<float>&, const DetectionOptions&,
                                                               DetectionResult*);
template HybridValuedMatrix<double> detectAndEncodeHybridValued(const CsrMatrix<double>&, const DetectionOptions&,
                                                                DetectionResult*);
template HybridValuedMatrix<std::complex<float>> detectAndEncodeHybridValued(const CsrMatrix<std::complex<float>>&,
                                                                             const DetectionOptions&, DetectionResult*);
template HybridValuedMatrix<std::complex<double>> detectAndEncodeHybridValued(const CsrMatrix<std::complex<double>>&,
                                                                              const DetectionOptions&, DetectionResult*);

} // namespace spyglass
