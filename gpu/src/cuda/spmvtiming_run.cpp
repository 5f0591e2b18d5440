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

// Both hybrid forms (binary and valued) have the same device life: stage on the host, upload (timed),
// multiply (timed, warm), download.
template <typename DeviceMatrix, typename Hybrid>
TimedSpmv hybridTimed(const char* what, const Hybrid& hybrid, const std::vector<double>& x, const HybridSpmvOptions& options,
                      const SpmvTiming& timing) {
    requireDevice(what);
    TimedSpmv run;
    run.y.assign(static_cast<std::size_t>(hybrid.rows), 0.0);
    if (hybrid.rows == 0) return run;
    const TimingStream stream(options.stream);
    DeviceMatrix matrix;
    matrix.stage(hybrid);  // host-side flattening and tile planning: not a transfer
    cuda::DeviceBuffer<double> dx(x.empty() ? 1 : x.size()), dy(run.y.size());
    const double uploadMs = cuda::timeOnStream(stream.get(), [&] {
        matrix.upload(stream.get());
        dx.upload(x, stream.get());
    });
    run.deviceBytes = matrix.uploadedBytes();
    run.bytesMoved = double(run.deviceBytes) + double(x.size() + run.y.size()) * sizeof(double);
    run.timing = cuda::measureOnStream(stream.get(), [&] { matrix.multiply(dx.data(), dy.data(), stream.get()); }, timing);
    run.timing.uploadMs = uploadMs;
    run.timing.downloadMs = cuda::timeOnStream(stream.get(), [&] { dy.download(run.y.data(), run.y.size(), stream.get()); });
    return run;
}

} // namespace

TimedSpmv timeHybridSpmvOnDevice(const HybridBinaryMatrix& hybrid, const std::vector<double>& x,
                                 const HybridSpmvOptions& options, const SpmvTiming& timing) {
    return hybridTimed<cuda::HybridDeviceMatrix>("hybrid SpMV (CUDA, timed)", hybrid, x, options, timing);
}

TimedSpmv timeHybridSpmvOnDevice(const HybridValuedMatrix<double>& hybrid, const std::vector<double>& x,
                                 const HybridSpmvOptions& options, const SpmvTiming& timing) {
    return hybridTimed<cuda::HybridValuedDeviceMatrix<double>>("valued hybrid SpMV (CUDA, timed)", hybrid, x, options, timing);
}

TimedSpmv timeSpmvOnDevice(const SegmentedDiaMatrix<double>& a, const std::vector<double>& x, const SpmvOptions& options,
                           const SpmvTiming& timing) {
    requireDevice("segmented DIA SpMV (timed)");
    TimedSpmv run;
    run.y.assign(static_cast<std::size_t>(a.rows), 0.0);
    if (a.rows == 0) return run;
    const TimingStream stream(options.stream);
    cuda::DeviceBuffer<double> dx(x.empty() ? 1 : x.size()), dy(run.y.size());
    std::unique_ptr<cuda::DeviceSegmentedDia<double>> device;
    const double uploadMs = cuda::timeOnStream(stream.get(), [&] {
        dx.upload(x, stream.get());
        device = std::make_unique<cuda::DeviceSegmentedDia<double>>(a, stream.get());
    });
    run.bytesMoved = device->bytesMoved();
    run.deviceBytes = static_cast<std::size_t>(run.bytesMoved) - (x.size() + run.y.size()) * sizeof(double);
    run.timing = cuda::measureOnStream(
        stream.get(), [&] { device->multiply(dx.data(), dy.data(), stream.get(), options.variant); }, timing);
    run.timing.uploadMs = uploadMs;
    run.timing.downloadMs = cuda::timeOnStream(stream.get(), [&] { dy.download(run.y.data(), run.y.size(), stream.get()); });
    return run;
}

TimedSpmv timeSpmvOnDevice(const CsrMatrix<double>& a, const std::vector<double>& x, const SpmvOptions& options,
                           const SpmvTiming& timing) {
    requireDevice("cuSPARSE CSR SpMV (timed)");
    TimedSpmv run;
    run.y.assign(static_cast<std::size_t>(a.rows), 0.0);
    if (a.rows == 0) return run;
    const TimingStream stream(options.stream);
    cuda::DeviceBuffer<double> dx(x.empty() ? 1 : x.size()), dy(run.y.size());
    // The operator uploads the matrix and makes the handle, descriptors and workspace in one step: both
    // are reported as set-up + upload together (uploadMs), as a caller pays them once.
    std::unique_ptr<cuda::CusparseCsrSpmv<double>> op;
    const double uploadMs = cuda::timeOnStream(stream.get(), [&] {
        dx.upload(x, stream.get());
        op = std::make_unique<cuda::CusparseCsrSpmv<double>>(a, dx.data(), dy.data(), stream.get());
    });
    run.deviceBytes = (a.rowPtr.size() + a.colIndex.size()) * sizeof(int) + a.values.size() * sizeof(double);
    run.bytesMoved = op->bytesMoved();
    run.timing = cuda::measureOnStream(stream.get(), [&] { op->multiply(stream.get()); }, timing);
    run.timing.uploadMs = uploadMs;
    run.timing.downloadMs = cuda::timeOnStream(stream.get(), [&] { dy.download(run.y.data(), run.y.size(), stream.get()); });
    return run;
}

} // namespace spyglass::spmvtiming_detail
