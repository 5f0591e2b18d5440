// Timed SpMV (spmvtiming.h) on the GPU: set-up and upload once, timed apart, then the multiply through
// the measurement engine (cuda/measure.h). Arguments are validated by core/spmvtiming_dispatch.cpp.
#include "core/spmvtiming_device.h"
#include "spyglass/backend.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/cuda/measure.h"
#include "spyglass/cuda/hybrid_device_api.h"
#include "spyglass/cuda/hybrid_valued_device_api.h"
#include "spyglass/cuda/segdia_device_api.h"
#include "spyglass/error.h"

#include <complex>
#include <memory>
#include <optional>
#include <string>

namespace spyglass::spmvtiming_detail {

namespace {
void requireDevice(const char* what) {
    const DeviceInfo device = cudaDeviceInfo();
    if (!device.present) throw BackendUnavailableError(std::string(what) + " needs a CUDA device: " + device.reason);
}

// The caller's stream, or one of our own when it gave none (the default stream would serialise the
// timed runs with every other user of the device).
class TimingStream {
public:
    explicit TimingStream(void* given) : m_given(static_cast<cudaStream_t>(given)) {
        if (!m_given) m_own.emplace();
    }
    cudaStream_t get() const { return m_given ? m_given : m_own->get(); }
    void synchronize() const { SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(get())); }

private:
    cudaStream_t m_given = nullptr;
    std::optional<cuda::CudaStream> m_own;
};

// Every timed SpMV has the same device life: any host-side preparation (stage(), not timed), x and y
// on the device, the matrix put there with x (upload(dx, dy, stream), timed as the upload), the
// multiply measured warm (multiply(dx, dy, stream)), y downloaded (timed). Nothing runs for a matrix
// of no rows.
template <typename T, typename Stage, typename Upload, typename Multiply>
TimedSpmvOf<T> timedOnDevice(const char* what, Index rows, const std::vector<T>& x, void* givenStream,
                             const SpmvTiming& timing, Stage stage, Upload upload, Multiply multiply) {
    requireDevice(what);
    TimedSpmvOf<T> run;
    run.y.assign(static_cast<std::size_t>(rows), T{});
    if (rows == 0) return run;
    stage();
    const TimingStream stream(givenStream);
    cuda::DeviceBuffer<T> dx(x.empty() ? 1 : x.size()), dy(run.y.size());
    const double uploadMs = cuda::timeOnStream(stream.get(), [&] {
        dx.upload(x, stream.get());
        upload(dx.data(), dy.data(), stream.get());
    });
    run.timing = cuda::measureOnStream(stream.get(), [&] { multiply(dx.data(), dy.data(), stream.get()); }, timing);
    run.timing.uploadMs = uploadMs;
    run.timing.downloadMs = cuda::timeOnStream(stream.get(), [&] { dy.download(run.y.data(), run.y.size(), stream.get()); });
    return run;
}

// For the matrices whose upload needs no host-side preparation.
constexpr auto kNothingToStage = [] {};

// Both hybrid forms (binary and valued; the valued one in real or complex T): staged on the host
// first (flattening and tile planning, not a transfer), then uploaded.
template <typename DeviceMatrix, typename Hybrid, typename T>
TimedSpmvOf<T> hybridTimed(const char* what, const Hybrid& hybrid, const std::vector<T>& x, const HybridSpmvOptions& options,
                           const SpmvTiming& timing) {
    DeviceMatrix matrix;
    TimedSpmvOf<T> run = timedOnDevice(
        what, hybrid.rows, x, options.stream, timing, [&] { matrix.stage(hybrid); },
        [&](const T*, T*, cudaStream_t stream) { matrix.upload(stream); },
        [&](const T* dx, T* dy, cudaStream_t stream) { matrix.multiply(dx, dy, stream); });
    if (hybrid.rows > 0) {
        run.deviceBytes = matrix.uploadedBytes();
        run.bytesMoved = double(run.deviceBytes) + double(x.size() + run.y.size()) * sizeof(T);
    }
    return run;
}

} // namespace

TimedSpmv timeHybridSpmvOnDevice(const HybridBinaryMatrix& hybrid, const std::vector<double>& x,
                                 const HybridSpmvOptions& options, const SpmvTiming& timing) {
    return hybridTimed<cuda::HybridDeviceMatrix>("hybrid SpMV (CUDA, timed)", hybrid, x, options, timing);
}

template <typename T>
TimedSpmvOf<T> timeHybridSpmvOnDevice(const HybridValuedMatrix<T>& hybrid, const std::vector<T>& x,
                                      const HybridSpmvOptions& options, const SpmvTiming& timing) {
    return hybridTimed<cuda::HybridValuedDeviceMatrix<T>>("valued hybrid SpMV (CUDA, timed)", hybrid, x, options, timing);
}

template <typename T>
TimedSpmvOf<T> timeSpmvOnDevice(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options,
                                const SpmvTiming& timing) {
    std::unique_ptr<cuda::DeviceSegmentedDia<T>> device;
    TimedSpmvOf<T> run = timedOnDevice(
        "segmented DIA SpMV (timed)", a.rows, x, options.stream, timing, kNothingToStage,
        [&](const T*, T*, cudaStream_t stream) { device = std::make_unique<cuda::DeviceSegmentedDia<T>>(a, stream); },
        [&](const T* dx, T* dy, cudaStream_t stream) { device->multiply(dx, dy, stream, options.variant); });
    if (device) {
        run.bytesMoved = device->bytesMoved();
        run.deviceBytes = static_cast<std::size_t>(run.bytesMoved) - (x.size() + run.y.size()) * sizeof(T);
    }
    return run;
}

template <typename T>
TimedSpmvOf<T> timeSpmvOnDevice(const CsrMatrix<T>& a, const std::vector<T>& x, const SpmvOptions& options,
                                const SpmvTiming& timing) {
    // The operator uploads the matrix and makes the handle, descriptors and workspace in one step: both
    // are reported as set-up + upload together (uploadMs), as a caller pays them once.
    std::unique_ptr<cuda::CusparseCsrSpmv<T>> op;
    TimedSpmvOf<T> run = timedOnDevice(
        "cuSPARSE CSR SpMV (timed)", a.rows, x, options.stream, timing, kNothingToStage,
        [&](const T* dx, T* dy, cudaStream_t stream) { op = std::make_unique<cuda::CusparseCsrSpmv<T>>(a, dx, dy, stream); },
        [&](const T*, T*, cudaStream_t stream) { op->multiply(stream); });
    if (op) {
        run.deviceBytes = (a.rowPtr.size() + a.colIndex.size()) * sizeof(int) + a.values.size() * sizeof(T);
        run.bytesMoved = op->bytesMoved();
    }
    return run;
}

SPYGLASS_FOR_EACH_TIMED_SPMV_SCALAR(SPYGLASS_INSTANTIATE_TIMED_SPMV_DEVICE)

} // namespace spyglass::spmvtiming_detail
