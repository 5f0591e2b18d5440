// GPU trials of the format comparison: every format through its device operator (the same ones the
// method benchmarks time), on the default stream, x and y uploaded once per trial, the operator's
// handles, plans and workspaces made outside the timed calls.
#include "../core/formatcomparison_trials.h"

#include "bitflag_spmv_device.h"
#include "spyglass/cuda/copybandwidth.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/cuda/hybrid_device_api.h"
#include "spyglass/cuda/hybrid_valued_device_api.h"
#include "spyglass/cuda/segdia_device_api.h"

#include "spyglass/error.h"

#include <algorithm>
#include <chrono>
#include <functional>

namespace spyglass::compare_detail {

namespace {

double millisecondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// x on the device, y poisoned (all bits set: NaN) so that a kernel that skipped a row shows.
template <typename T>
struct Vectors {
    cuda::DeviceBuffer<T> x, y;
    Vectors(const std::vector<T>& host, Index rows)
        : x(std::max<std::size_t>(host.size(), 1)), y(std::max<std::size_t>(std::size_t(rows), 1)) {
        x.upload(host);
        SPYGLASS_CUDA_CHECK(cudaMemset(y.data(), 0xff, y.bytes()));
        SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    }
};

template <typename T>
void timeRuns(Trial<T>& trial, const TrialRuns& runs, Vectors<T>& v, Index rows, const std::function<void()>& launch) {
    cuda::EventTimer timer;
    trial.time = bench::measure([&] {
        timer.start();
        launch();
        return double(timer.stopMilliseconds());
    }, runs.warmup, runs.repeats);
    trial.y.resize(std::size_t(rows));
    v.y.download(trial.y.data(), trial.y.size());
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
}

} // namespace

void prepareGpu() {
    SPYGLASS_CUDA_CHECK(cudaFree(nullptr));
    cusparseHandle_t handle = nullptr;
    SPYGLASS_CUDA_CHECK(cusparseCreate(&handle));
    cusparseDestroy(handle);
}

double gpuCopyBandwidth() {
    // 256 MiB each way unless the device (or the cap) has less: then halve until it fits.
    for (std::size_t bytes = std::size_t(256) << 20; bytes >= (std::size_t(1) << 20); bytes /= 2) {
        try {
            return cuda::copyBandwidthGBs(bytes, 3, 10);
        } catch (const OutOfMemoryError&) {
        }
    }
    throw OutOfMemoryError("no room on the device for a 1 MiB copy to measure the bandwidth", __FILE__, __LINE__);
}

template <typename T>
Trial<T> gpuCsrTrial(const CsrMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs) {
    Trial<T> trial;
    Vectors<T> v(x, a.rows);
    const auto start = std::chrono::steady_clock::now();
    cuda::CusparseCsrSpmv<T> op(a, v.x.data(), v.y.data());
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    trial.uploadMs = millisecondsSince(start);
    trial.deviceBytes = (std::size_t(a.rows) + 1) * sizeof(int) + std::size_t(a.nnz()) * (sizeof(int) + sizeof(T));
    trial.bytesMoved = op.bytesMoved();
    timeRuns(trial, runs, v, a.rows, [&] { op.multiply(); });
    trial.note = "cusparseSpMV CSR_ALG1, 32-bit indices";
    return trial;
}

template <typename T>
Trial<T> gpuDiaTrial(const DiaMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs) {
    Trial<T> trial;
    Vectors<T> v(x, a.rows);
    const auto start = std::chrono::steady_clock::now();
    cuda::DeviceDia<T> op(a);
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    trial.uploadMs = millisecondsSince(start);
    trial.deviceBytes = a.offsets.size() * sizeof(Index) + a.values.size() * sizeof(T);
    trial.bytesMoved = op.bytesMoved();
    timeRuns(trial, runs, v, a.rows, [&] { op.multiply(v.x.data(), v.y.data()); });
    return trial;
}

template <typename T>
Trial<T> gpuSegmentedDiaTrial(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs) {
    Trial<T> trial;
    Vectors<T> v(x, a.rows);
    const auto start = std::chrono::steady_clock::now();
    cuda::DeviceSegmentedDia<T> op(a);
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    trial.uploadMs = millisecondsSince(start);
    trial.deviceBytes = computeSegmentedDiaStats(a).bytes;
    trial.bytesMoved = op.bytesMoved();
    // The defaults are the fastest measured variant (vector loads, remainder by owner threads).
    timeRuns(trial, runs, v, a.rows, [&] { op.multiply(v.x.data(), v.y.data()); });
    return trial;
}

namespace {

// Both hybrid forms live the same way on the device: staged on the host (flattening and tile planning,
// counted with the build), uploaded, multiplied.
template <typename T, typename DeviceMatrix, typename Hybrid>
Trial<T> stagedTrial(const Hybrid& a, const std::vector<T>& x, const TrialRuns& runs) {
    Trial<T> trial;
    Vectors<T> v(x, a.rows);
    DeviceMatrix op;
    auto start = std::chrono::steady_clock::now();
    op.stage(a);
    trial.stageMs = millisecondsSince(start);
    start = std::chrono::steady_clock::now();
    op.upload(nullptr);
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    trial.uploadMs = millisecondsSince(start);
    trial.deviceBytes = op.uploadedBytes();
    trial.bytesMoved = double(op.uploadedBytes()) + double(sizeof(T)) * (double(a.rows) + double(a.cols));
    timeRuns(trial, runs, v, a.rows, [&] { op.multiply(v.x.data(), v.y.data(), nullptr); });
    return trial;
}

} // namespace

template <typename T>
Trial<T> gpuHybridTrial(const HybridBinaryMatrix& a, const std::vector<T>& x, const TrialRuns& runs) {
    return stagedTrial<T, cuda::HybridDeviceMatrix>(a, x, runs);
}

template <typename T>
Trial<T> gpuHybridValuedTrial(const HybridValuedMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs) {
    return stagedTrial<T, cuda::HybridValuedDeviceMatrix<T>>(a, x, runs);
}

template <typename T>
Trial<T> gpuBitFlagTrial(const BitFlagMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs) {
    if (a.order != BitFlagOrder::RowMajor) throw InputError("bit-flag SpMV: the kernel reads row-major flags");
    Trial<T> trial;
    Vectors<T> v(x, a.rows);
    const auto start = std::chrono::steady_clock::now();
    cuda::DeviceBitFlagSpmv<T> op(a);
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    trial.uploadMs = millisecondsSince(start);
    trial.deviceBytes = op.deviceBytes();
    trial.bytesMoved = op.bytesMoved();
    timeRuns(trial, runs, v, a.rows, [&] { op.multiply(v.x.data(), v.y.data()); });
    trial.note = std::to_string(op.groupWidth()) + " lanes a row";
    return trial;
}

SPYGLASS_FORMATCOMPARISON_TRIALS(float)
SPYGLASS_FORMATCOMPARISON_TRIALS(double)

} // namespace spyglass::compare_detail
