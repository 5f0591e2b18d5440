#include "formatcomparisonjob.h"
#include "vectorfile.h"

#include "spyglass/error.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/hostmemory.h"
#include "spyglass/scalar.h"

#include <complex>
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>

namespace spyglass::app {

namespace {

// x for the comparison: all ones, seeded uniform in [-1, 1] (both parts for a complex x, so that
// a conjugated or transposed value cannot agree by accident), or read from a file (real numbers: a
// complex x from a file has zero imaginary parts).
template <typename T>
std::vector<T> makeX(const FormatComparisonRequest& request, Index cols) {
    std::vector<T> x(static_cast<std::size_t>(cols), T(1));
    if (!request.xFile.isEmpty()) {
        const std::vector<double> values = readVectorFile(request.xFile, cols, "compare");
        std::transform(values.begin(), values.end(), x.begin(), [](double v) { return T(RealOf<T>(v)); });
        return x;
    }
    if (!request.randomX) return x;
    std::mt19937 rng(request.seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    for (T& v : x) {
        if constexpr (isComplexScalar<T>) {
            const double re = dist(rng);
            v = T(RealOf<T>(re), RealOf<T>(dist(rng)));
        } else {
            v = T(dist(rng));
        }
    }
    return x;
}

template <typename T>
FormatComparison compareIn(const Matrix& m, const FormatComparisonRequest& request, const FormatComparisonOptions& options) {
    return compareSpmvFormats(m, makeX<T>(request, m.cols), options);
}

} // namespace

FormatComparison runFormatComparison(const FormatComparisonRequest& request, const std::atomic<bool>* cancel,
                                     const std::function<void(double, const std::string&)>& progress) {
    if (!request.matrix) throw InputError("no matrix is open");
    const Matrix& m = *request.matrix;
    const std::string source = request.source.isEmpty() ? std::string("format comparison") : request.source.toStdString();
    // Row pointers, x and y are sized by the header alone (each at most 8 bytes an element).
    requireHostMemory(16 * (std::uint64_t(m.rows) + 1) + 8 * std::uint64_t(m.cols),
                      source + ": SpMV of a " + std::to_string(m.rows) + " x " + std::to_string(m.cols) + " matrix");
    FormatComparisonOptions options;
    options.useGpu = request.useGpu;
    options.repeats = std::max(1, request.repeats);
    options.warmup = std::max(0, request.warmup);
    options.cpuRepeats = request.cpuRepeats > 0 ? request.cpuRepeats : std::min(options.repeats, 5);
    options.cancel = cancel;
    options.progress = progress;
    options.findDenseRegions = [](const BinaryPattern& pattern) { return detectDenseRegions(pattern).regions; };
    // A complex matrix is compared in complex values of the chosen precision (c64 or c128).
    if (m.isComplex())
        return request.singlePrecision ? compareIn<std::complex<float>>(m, request, options)
                                       : compareIn<std::complex<double>>(m, request, options);
    return request.singlePrecision ? compareIn<float>(m, request, options) : compareIn<double>(m, request, options);
}

template <>
FormatComparisonJob::ComputeJob(QObject* parent)
    : ComputeJob(
          parent,
          [](const FormatComparisonRequest& request, const std::atomic<bool>* cancel, const JobProgress& progress) {
              return runFormatComparison(request, cancel, [&progress](double fraction, const std::string& step) {
                  progress(progressPercent(fraction), QString::fromStdString(step));
              });
          },
          QStringLiteral("comparing the formats")) {}

} // namespace spyglass::app
