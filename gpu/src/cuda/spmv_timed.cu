// Timed SpMV for the GUI (spmvtiming.h): upload once, then warm, event-timed multiplies.
#include "event_timer.h"
#include "spyglass/cuda/hybrid_device_api.h"
#include "spyglass/cuda/hybrid_valued_device_api.h"
#include "spyglass/cuda/segdia_device_api.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/spmvtiming.h"

#include <string>

namespace spyglass {

namespace {
void requireDevice(const char* what) {
    const DeviceInfo device = cudaDeviceInfo();
    if (!device.present) throw BackendUnavailableError(std::string(what) + " needs a CUDA device: " + device.reason);
}

void requireRepeats(const char* what, int warmup, int repeats) {
    if (warmup < 0 || repeats < 1)
        throw InputError(std::string(what) + ": warm-up runs must be >= 0 and timed runs >= 1 (got " +
                         std::to_string(warmup) + " and " + std::to_string(repeats) + ")");
}

// Both hybrid forms (binary and valued) have the same device life: stage on the host, upload (timed),
// multiply (timed, warm), download.
template <typename DeviceMatrix, typename Hybrid>
TimedSpmv hybridTimed(const char* what, const Hybrid& hybrid, const std::vector<double>& x, int warmup, int repeats) {
    if (x.size() != static_cast<std::size_t>(hybrid.cols))
        throw InputError(std::string(what) + ": x has " + std::to_string(x.size()) + " entries, the matrix has " +
                         std::to_string(hybrid.cols) + " columns");
    requireRepeats(what, warmup, repeats);
    requireDevice(what);
    TimedSpmv run;
    run.y.assign(static_cast<std::size_t>(hybrid.rows), 0.0);
    if (hybrid.rows == 0) return run;
    cuda::CudaStream stream;
    DeviceMatrix matrix;
    matrix.stage(hybrid);  // host-side flattening and tile planning: not a transfer
    cuda::DeviceBuffer<double> dx(x.empty() ? 1 : x.size()), dy(run.y.size());
    cuda::EventTimer upload(stream.get());
    upload.start();
    matrix.upload(stream.get());
    dx.upload(x, stream.get());
    run.uploadMs = upload.stopMilliseconds();
    run.deviceBytes = matrix.uploadedBytes();
    cuda::EventTimer timer(stream.get());
    run.multiply = bench::measure(
        [&] {
            timer.start();
            matrix.multiply(dx.data(), dy.data(), stream.get());
            SPYGLASS_CUDA_CHECK(cudaGetLastError());
            return double(timer.stopMilliseconds());
        },
        warmup, repeats);
    dy.download(run.y.data(), run.y.size(), stream.get());
    stream.synchronize();
    return run;
}

} // namespace

TimedSpmv hybridSpmvCudaTimed(const HybridBinaryMatrix& hybrid, const std::vector<double>& x, int warmup, int repeats) {
    return hybridTimed<cuda::HybridDeviceMatrix>("hybrid SpMV (CUDA, timed)", hybrid, x, warmup, repeats);
}

TimedSpmv hybridValuedSpmvCudaTimed(const HybridValuedMatrix<double>& hybrid, const std::vector<double>& x, int warmup,
                                    int repeats) {
    return hybridTimed<cuda::HybridValuedDeviceMatrix<double>>("valued hybrid SpMV (CUDA, timed)", hybrid, x, warmup, repeats);
}

TimedSpmv cusparseCsrSpmvTimed(const CsrMatrix<double>& a, const std::vector<double>& x, int warmup, int repeats) {
    const char* what = "cuSPARSE CSR SpMV (timed)";
    if (x.size() != static_cast<std::size_t>(a.cols))
        throw InputError(std::string(what) + ": x has " + std::to_string(x.size()) + " entries but the matrix has " +
                         std::to_string(a.cols) + " columns");
    if (a.rowPtr.size() != static_cast<std::size_t>(a.rows) + 1)
        throw InputError(std::string(what) + ": rowPtr has " + std::to_string(a.rowPtr.size()) + " entries, expected rows + 1");
    requireRepeats(what, warmup, repeats);
    requireDevice(what);
    TimedSpmv run;
    run.y.assign(static_cast<std::size_t>(a.rows), 0.0);
    if (a.rows == 0) return run;
    cuda::CudaStream stream;
    cuda::DeviceBuffer<double> dx(x.empty() ? 1 : x.size()), dy(run.y.size());
    cuda::EventTimer upload(stream.get());
    upload.start();
    dx.upload(x, stream.get());
    cuda::CusparseCsrSpmv<double> op(a, dx.data(), dy.data(), stream.get());
    run.uploadMs = upload.stopMilliseconds();
    run.deviceBytes = (a.rowPtr.size() + a.colIndex.size()) * sizeof(int) + a.values.size() * sizeof(double);
    cuda::EventTimer timer(stream.get());
    run.multiply = bench::measure(
        [&] {
            timer.start();
            op.multiply(stream.get());
            return double(timer.stopMilliseconds());
        },
        warmup, repeats);
    dy.download(run.y.data(), run.y.size(), stream.get());
    stream.synchronize();
    return run;
}

} // namespace spyglass
