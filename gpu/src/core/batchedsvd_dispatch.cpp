// svdBatched: validates the request, then runs the CPU reference or hands over to the device.
#include "core/batchedsvd_device.h"
#include "spyglass/batchedsvd.h"
#include "spyglass/error.h"
#include "spyglass/measurement.h"

#include <algorithm>
#include <complex>
#include <limits>
#include <string>
#include <type_traits>

namespace spyglass {

std::int64_t SvdRunInfo::notConvergedCount() const {
    return std::count(status.begin(), status.end(), SvdStatus::NotConverged);
}
std::int64_t SvdRunInfo::nonFiniteCount() const {
    return std::count(status.begin(), status.end(), SvdStatus::NonFiniteInput);
}

template <typename T> double defaultSvdTolerance(int m) {
    return std::max(m, 1) * static_cast<double>(std::numeric_limits<SvdReal<T>>::epsilon());
}

template <typename T>
SvdRunInfo svdBatched(const T* a, T* u, SvdReal<T>* sigma, T* v, int m, int n, std::int64_t count,
                      const SvdOptions& options) {
    const std::string shape = std::to_string(m) + " x " + std::to_string(n);
    if (n < 1) throw InputError("batched SVD: the column count n must be at least 1 (got " + shape + ")");
    if (m < n) throw InputError("batched SVD: needs m >= n (got " + shape + "); decompose the conjugate transpose");
    if (n > kMaxSvdColumns)
        throw InputError("batched SVD: at most " + std::to_string(kMaxSvdColumns) + " columns (got " + shape + ")");
    if (m > 1024) throw InputError("batched SVD: at most 1024 rows (got " + shape + ")");
    if (count < 0) throw InputError("batched SVD: negative batch size " + std::to_string(count));
    if (count > 0 && (!a || !u || !sigma || !v)) throw InputError("batched SVD: null input or output buffer");
    if (!(options.tolerance >= 0) || !(options.tolerance < 1))
        throw InputError("batched SVD: tolerance must be in [0, 1) (0 = automatic), got " + std::to_string(options.tolerance));
    if (options.maxSweeps < 1 || options.maxSweeps > 1000)
        throw InputError("batched SVD: max sweeps must be 1..1000 (got " + std::to_string(options.maxSweeps) + ")");
    if (!options.devices.empty() && options.backend != SvdBackend::Cuda)
        throw InputError(std::string("batched SVD: several GPUs (devices) run the cuda backend, not ") + toString(options.backend));
    if (options.streamChunk < 0) throw InputError("batched SVD: streamChunk must not be negative");
    if (options.widthBatch < 0) throw InputError("batched SVD: widthBatch must not be negative");
    requireValidTiming("batched SVD", options.timing);
    if (options.historyMatrices < 0)
        throw InputError("batched SVD: historyMatrices must not be negative (got " + std::to_string(options.historyMatrices) + ")");
    if (options.backend == SvdBackend::Cusolver && m > kMaxCusolverSvdSize)
        throw InputError("batched SVD: cuSOLVER gesvdjBatched takes m, n <= 32 (got " + shape +
                         "); the cusolver-gesvda backend has no such limit");
    if (options.variant != SvdVariant::Auto && options.backend != SvdBackend::Cuda)
        throw InputError(std::string("batched SVD: the variant ") + toString(options.variant) +
                         " applies to the cuda backend only (got backend " + toString(options.backend) + ")");
    if (options.variant == SvdVariant::RegisterResident) {
        if (!std::is_same_v<T, SvdReal<T>>)
            throw InputError("batched SVD: the register-resident variant is for real matrices (got a complex type)");
        if (registerResidentPairs(m, n) == 0)
            throw InputError("batched SVD: the register-resident variant takes n <= 16 and m no more than n rounded up to a "
                             "power of two, at least 2 (got " + shape + "; use register-groups)");
    }
    if (options.variant == SvdVariant::RealEmbedding) {
        if (std::is_same_v<T, SvdReal<T>>)
            throw InputError("batched SVD: the real-embedding variant is for complex matrices (got a real type)");
        if (n > kMaxEmbeddedSvdColumns || m > kMaxEmbeddedSvdRows)
            throw InputError("batched SVD: the real embedding is 2m x 2n, so it takes n <= " +
                             std::to_string(kMaxEmbeddedSvdColumns) + " and m <= " + std::to_string(kMaxEmbeddedSvdRows) +
                             " (got " + shape + ")");
    }
    SvdOptions resolved = options;
    if (resolved.tolerance == 0) resolved.tolerance = defaultSvdTolerance<T>(m);
    if (options.backend != SvdBackend::Reference)
        return svd_detail::svdBatchedOnDevice(a, u, sigma, v, m, n, count, resolved);

    SvdRunInfo run;
    run.device = "CPU reference";
    run.variant = "reference";
    run.tolerance = resolved.tolerance;
    run.status.assign(static_cast<std::size_t>(count), SvdStatus::Converged);
    run.sweeps.assign(static_cast<std::size_t>(count), 0);
    run.offOrthogonality.assign(static_cast<std::size_t>(count), 0.0);
    run.sweepHistory.resize(static_cast<std::size_t>(std::min(options.historyMatrices, count)));
    // The CPU reference: one run by the steady clock (the engine without warm-up; it has no module to load).
    run.timing = measureRepeated(
        [&] {
            svdBatchedReference(a, u, sigma, v, m, n, count, resolved.tolerance, resolved.maxSweeps, run.status.data(),
                                run.sweeps.data(), run.offOrthogonality.data(), options.cancel, &run.sweepHistory);
            return -1.0;
        },
        TimingOptions{0, 1}, {}, false);
    run.computeMs = run.totalMs = run.timing.medianMs;
    return run;
}

#define SPYGLASS_INSTANTIATE_SVD(T)                                                                                   \
    template SvdRunInfo svdBatched<T>(const T*, T*, SvdReal<T>*, T*, int, int, std::int64_t, const SvdOptions&);      \
    template double defaultSvdTolerance<T>(int);
SPYGLASS_INSTANTIATE_SVD(float)
SPYGLASS_INSTANTIATE_SVD(double)
SPYGLASS_INSTANTIATE_SVD(std::complex<float>)
SPYGLASS_INSTANTIATE_SVD(std::complex<double>)

} // namespace spyglass
