// GPU trials of the format comparison: every format through its device operator (the same ones the
// method benchmarks time), on the default stream, x and y uploaded once per trial, the operator's
// handles, plans and workspaces made outside the timed calls.
#include "../core/formatcomparison_trials.h"

#include "bitflag_spmv_device.h"
#include "spyglass/cuda/copybandwidth.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/measure.h"
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
    // The engine every tab and benchmark uses: the first launch (module loading) timed apart as cold,
    // then warm-up and the events' median, the L2 cache flushed before each call.
    trial.time = cuda::measureOnStream(nullptr, launch, TimingOptions{runs.warmup, runs.repeats});
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

namespace {

// The formats whose device operator uploads as it is made (make(v) returns it, v holding x and y on
// the device): that is the upload time; then multiply(op, v) is timed. deviceBytes(op): what it holds.
template <typename T, typename Make, typename DeviceBytes, typename Multiply>
Trial<T> uploadedTrial(Index rows, const std::vector<T>& x, const TrialRuns& runs, Make make, DeviceBytes deviceBytes,
                       Multiply multiply) {
    Trial<T> trial;
    Vectors<T> v(x, rows);
    const auto start = std::chrono::steady_clock::now();
    auto op = make(v);
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    trial.uploadMs = millisecondsSince(start);
    trial.deviceBytes = deviceBytes(op);
    trial.bytesMoved = op.bytesMoved();
    timeRuns(trial, runs, v, rows, [&] { multiply(op, v); });
    return trial;
}

// y = A x with x and y where Vectors keeps them: the DIA, segmented-DIA and bit-flag operators.
struct MultiplyVectors {
    template <typename Operator, typename T> void operator()(const Operator& op, Vectors<T>& v) const {
        op.multiply(v.x.data(), v.y.data());
    }
};

} // namespace

template <typename T>
Trial<T> gpuCsrTrial(const CsrMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs) {
    const std::size_t bytes = (std::size_t(a.rows) + 1) * sizeof(int) + std::size_t(a.nnz()) * (sizeof(int) + sizeof(T));
    Trial<T> trial = uploadedTrial<T>(
        a.rows, x, runs, [&](Vectors<T>& v) { return cuda::CusparseCsrSpmv<T>(a, v.x.data(), v.y.data()); },
        [&](const auto&) { return bytes; }, [](auto& op, Vectors<T>&) { op.multiply(); });
    trial.note = "cusparseSpMV CSR_ALG1, 32-bit indices";
    return trial;
}

template <typename T>
Trial<T> gpuDiaTrial(const DiaMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs) {
    return uploadedTrial<T>(
        a.rows, x, runs, [&](Vectors<T>&) { return cuda::DeviceDia<T>(a); },
        [&](const auto&) { return a.offsets.size() * sizeof(Index) + a.values.size() * sizeof(T); }, MultiplyVectors{});
}

template <typename T>
Trial<T> gpuSegmentedDiaTrial(const SegmentedDiaMatrix<T>& a, const std::vector<T>& x, const TrialRuns& runs) {
    // The defaults are the fastest measured variant (vector loads, remainder by owner threads).
    return uploadedTrial<T>(
        a.rows, x, runs, [&](Vectors<T>&) { return cuda::DeviceSegmentedDia<T>(a); },
        [&](const auto&) { return computeSegmentedDiaStats(a).bytes; }, MultiplyVectors{});
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
    int lanes = 0;
    Trial<T> trial = uploadedTrial<T>(
        a.rows, x, runs, [&](Vectors<T>&) { return cuda::DeviceBitFlagSpmv<T>(a); },
        [&](const auto& op) {
            lanes = op.groupWidth();
            return op.deviceBytes();
        },
        MultiplyVectors{});
    trial.note = std::to_string(lanes) + " lanes a row";
    return trial;
}

SPYGLASS_FORMATCOMPARISON_TRIALS(float)
SPYGLASS_FORMATCOMPARISON_TRIALS(double)
SPYGLASS_FORMATCOMPARISON_COMPLEX_TRIALS(std::complex<float>)
SPYGLASS_FORMATCOMPARISON_COMPLEX_TRIALS(std::complex<double>)

} // namespace spyglass::compare_detail
