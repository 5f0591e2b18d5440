#include "hybridspmv_complex.h"


#include "spyglass/error.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/measurement.h"
#include "spyglass/segdia_spmv.h"
#include "spyglass/spmvtiming.h"

#include <cmath>
#include <limits>
#include <random>

namespace spyglass::app {

namespace {

using Complex = std::complex<double>;

// x with small whole-number parts (as the real path's), both parts set so that a conjugated or
// transposed product cannot agree.
std::vector<Complex> wholeNumberX(Index cols, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> part(-4, 4);
    std::vector<Complex> x(static_cast<std::size_t>(cols));
    for (Complex& v : x) {
        const int re = part(rng);  // named: the order of the two draws is fixed
        v = {double(re), double(part(rng))};
    }
    return x;
}

// Each row within 2 (n_i + 1) eps sum_j |a_ij x_j| of complex CSR's y (a complex product's rounding,
// at most 2 sqrt(2) u in modulus, stays inside the same bound), the difference taken by modulus.
void check(HybridSpmvRun& run, const CsrMatrix<Complex>& a, const std::vector<Complex>& x, const std::vector<Complex>& y) {
    const std::vector<Complex> reference = spmvReference(a, x);
    if (y.size() != reference.size()) {
        run.error = QStringLiteral("result has %1 entries, expected %2").arg(y.size()).arg(reference.size());
        return;
    }
    const double eps = std::numeric_limits<double>::epsilon();
    double worst = 0, worstRatio = 0;
    for (Index i = 0; i < a.rows; ++i) {
        const std::size_t row = std::size_t(i);
        if (y[row] == reference[row]) continue;
        double magnitude = 0;
        for (Count k = a.rowPtr[row]; k < a.rowPtr[row + 1]; ++k)
            magnitude += std::abs(a.values[std::size_t(k)] * x[std::size_t(a.colIndex[std::size_t(k)])]);
        const double bound = 2.0 * double(a.rowPtr[row + 1] - a.rowPtr[row] + 1) * eps * magnitude;
        const double difference = std::abs(y[row] - reference[row]);
        if (std::isnan(difference)) {
            worst = worstRatio = std::numeric_limits<double>::infinity();
            continue;
        }
        worst = std::max(worst, difference);
        worstRatio = std::max(worstRatio, bound > 0 ? difference / bound : std::numeric_limits<double>::infinity());
    }
    run.maxAbsError = worst;
    run.errorOverBound = worstRatio;
    run.matches = worstRatio <= 1.0;
}

} // namespace

HybridSpmvResult runComplexHybridSpmv(const HybridSpmvRequest& request, const std::atomic<bool>* cancel) {
    const HybridValuedMatrix<Complex>& hybrid = *request.complexValued;
    HybridSpmvResult result = resultBeforeRuns(hybrid, hybridBytes(hybrid), request);
    result.complexX = wholeNumberX(hybrid.cols, request.seed);
    // The oracle reads what the encoding decodes to (decoding is exact, tst_hybrid_valued).
    const CsrMatrix<Complex> csr = decodeHybridValued(hybrid);
    for (HybridSpmvKernel backend : request.backends) {
        appendRun(result, backend, cancel, [&](HybridSpmvRun& run) {
            switch (backend) {
            case HybridSpmvKernel::CpuHybrid:
                run.name = QStringLiteral("CPU hybrid (reference kernel, c128)");
                run.timing = measureRepeated(
                    [&] {
                        run.complexY = hybridSpmv(hybrid, result.complexX, {HybridSpmvBackend::Reference});
                        return -1.0;  // the steady clock times it
                    },
                    {request.warmup, request.repeats});
                break;
            // The GPU rows are timed as the real path's are: CUDA events by the measurement engine
            // (spmvtiming.h), the cold first call apart, warm-up, the median; y of the last call.
            case HybridSpmvKernel::CudaHybrid: {
                run.name = QStringLiteral("CUDA hybrid (c128)");
                TimedSpmvOf<Complex> timed =
                    timeHybridSpmv(hybrid, result.complexX, {HybridSpmvBackend::Cuda}, {request.warmup, request.repeats});
                run.timing = timed.timing;
                run.bytesMoved = timed.bytesMoved;
                run.complexY = std::move(timed.y);
                deviceCopyBandwidthGBs();  // measured here on the worker, never by the table on the GUI thread
                break;
            }
            case HybridSpmvKernel::CusparseCsr: {
                run.name = QStringLiteral("cuSPARSE CSR (c128)");
                TimedSpmvOf<Complex> timed = timeSpmv(csr, result.complexX, {SpmvBackend::Cusparse}, {request.warmup, request.repeats});
                run.timing = timed.timing;
                run.bytesMoved = timed.bytesMoved;
                run.complexY = std::move(timed.y);
                deviceCopyBandwidthGBs();
                break;
            }
            }
            check(run, csr, result.complexX, run.complexY);
        });
    }
    return result;
}

} // namespace spyglass::app
