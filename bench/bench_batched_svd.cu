// Method C benchmark: Spyglass's batched one-sided Jacobi kernel against cuSOLVER gesvdjBatched (the
// vendor's batched Jacobi, m = n <= 32) on the same matrices in one process. Kernel-only time (CUDA
// events, median after warm-up), matrices per second, and accuracy of a sample of each run
// (reconstruction, orthogonality of U and V, singular values against the CPU reference).
//
//   bench_batched_svd [--quick] [--out STEM]      (STEM.md and STEM.json are written)
#include "cuda/batchedsvd_kernels.h"
#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"
#include "cuda/event_timer.h"
#include "spyglass/backend.h"
#include "spyglass/batchedsvd.h"
#include "spyglass/benchmark.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace spyglass;
using spyglass::bench::Report;
using spyglass::bench::Row;

namespace {

template <typename T> const char* typeName();
template <> const char* typeName<float>() { return "f32"; }
template <> const char* typeName<std::complex<float>>() { return "c64"; }

struct Config {
    bool quick = false;
};

// Accuracy of the first `sample` matrices of a run, against the CPU reference for sigma.
template <typename T>
std::string accuracyNote(const std::vector<T>& host, int n, std::int64_t sample, const cuda::DeviceBuffer<T>& u,
                         const cuda::DeviceBuffer<SvdReal<T>>& sigma, const cuda::DeviceBuffer<T>& v,
                         const std::vector<SvdReal<T>>& referenceSigma, cudaStream_t stream, double& reconstruction) {
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    std::vector<T> uh(sample * nn), vh(sample * nn);
    std::vector<SvdReal<T>> sh(sample * n);
    u.download(uh.data(), uh.size(), stream);
    v.download(vh.data(), vh.size(), stream);
    sigma.download(sh.data(), sh.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    const SvdAccuracy acc = svdAccuracy(host.data(), uh.data(), sh.data(), vh.data(), n, n, sample);
    double sigmaError = 0;
    for (std::int64_t b = 0; b < sample; ++b)
        for (int k = 0; k < n; ++k)
            sigmaError = std::max(sigmaError, std::abs(double(sh[b * n + k]) - double(referenceSigma[b * n + k])) /
                                                  double(referenceSigma[b * n]));
    reconstruction = acc.reconstruction;
    char note[200];
    std::snprintf(note, sizeof note, "sigma err %.1e, |UhU-I| %.1e, |VhV-I| %.1e", sigmaError, acc.uOrthogonality,
                  acc.vOrthogonality);
    return note;
}

template <typename T> void runSize(Report& report, const Config& config, int n, std::int64_t count, cudaStream_t stream) {
    using R = SvdReal<T>;
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    const std::vector<T> host = generateSvdBatch<T>(SvdBatchKind::Random, n, n, count, 2026 + n);
    const std::int64_t sample = std::min<std::int64_t>(count, 64);
    const double tolerance = defaultSvdTolerance<T>(n);
    const int maxSweeps = 30;
    std::vector<T> ur(sample * nn), vr(sample * nn);
    std::vector<R> sr(sample * n);
    std::vector<SvdStatus> st(sample);
    std::vector<int> sw(sample);
    std::vector<double> off(sample);
    svdBatchedReference(host.data(), ur.data(), sr.data(), vr.data(), n, n, sample, tolerance, maxSweeps, st.data(),
                        sw.data(), off.data());

    cuda::DeviceBuffer<T> a(host.size()), work(host.size()), u(host.size()), v(host.size());
    cuda::DeviceBuffer<R> sigma(count * n), offDevice(count);
    cuda::DeviceBuffer<int> status(count), sweeps(count);
    a.upload(host, stream);
    cuda::EventTimer timer(stream);
    const int warmup = 3, repeats = config.quick ? 7 : 15;
    const std::string benchmark = "svd " + std::to_string(n) + "x" + std::to_string(n) + " " + typeName<T>() +
                                  " batch " + std::to_string(count);

    if (n <= kMaxCusolverSvdSize) {
        cuda::CusolverBatchedSvd<T> vendor(n, n, static_cast<int>(count), tolerance, maxSweeps, stream);
        auto run = [&] {
            // gesvdj overwrites A: refresh it outside the timed interval
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(work.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, stream));
            timer.start();
            vendor.run(work.data(), u.data(), sigma.data(), v.data(), status.data());
            return double(timer.stopMilliseconds());
        };
        Row row;
        row.benchmark = benchmark;
        row.variant = "cuSOLVER gesvdjBatched";
        row.isBaseline = true;
        row.time = bench::measure(run, warmup, repeats);
        row.bytes = (3.0 * nn + n) * count * sizeof(T);
        row.note = accuracyNote(host, n, sample, u, sigma, v, sr, stream, row.error);
        report.add(row);
        report.print(row);
    }
    {
        auto run = [&] {
            timer.start();
            cuda::launchJacobiSvd(a.data(), u.data(), sigma.data(), v.data(), status.data(), sweeps.data(), offDevice.data(),
                                  n, n, count, tolerance, maxSweeps, stream);
            return double(timer.stopMilliseconds());
        };
        Row row;
        row.benchmark = benchmark;
        row.variant = "spyglass jacobi block-per-matrix";
        row.time = bench::measure(run, warmup, repeats);
        row.bytes = (3.0 * nn + n) * count * sizeof(T);
        row.note = accuracyNote(host, n, sample, u, sigma, v, sr, stream, row.error);
        std::vector<int> sweepsHost(count), statusHost(count);
        sweeps.download(sweepsHost.data(), count, stream);
        status.download(statusHost.data(), count, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        char extra[120];
        std::snprintf(extra, sizeof extra, ", sweeps max %d, not converged %lld, %.3g M matrices/s",
                      *std::max_element(sweepsHost.begin(), sweepsHost.end()),
                      static_cast<long long>(std::count(statusHost.begin(), statusHost.end(), 1)),
                      count / (row.time.medianMs * 1e3));
        row.note += extra;
        report.add(row);
        report.print(row);
    }
}

} // namespace

int main(int argc, char** argv) {
    Config config;
    std::string stem = "bench/results/batched_svd";
    for (int a = 1; a < argc; ++a) {
        if (!std::strcmp(argv[a], "--quick")) config.quick = true;
        else if (!std::strcmp(argv[a], "--out") && a + 1 < argc) stem = argv[++a];
        else {
            std::fprintf(stderr, "usage: %s [--quick] [--out STEM]\n", argv[0]);
            return 2;
        }
    }
    try {
        const DeviceInfo device = cudaDeviceInfo();
        if (!device.present) {
            std::fprintf(stderr, "bench_batched_svd: no CUDA device (%s)\n", device.reason.c_str());
            return 1;
        }
        cuda::CudaStream stream;
        std::printf("device %s; tolerance m*eps, max sweeps 30 for both; error column = ||A-USV^H||/||A|| of a "
                    "64-matrix sample\n", device.name.c_str());
        Report report("Method C: batched one-sided Jacobi SVD vs cuSOLVER gesvdjBatched", device.name);
        for (int n : {8, 16, 32, 48, 64})
            for (std::int64_t count : {std::int64_t(128), std::int64_t(10000)}) runSize<float>(report, config, n, count, stream.get());
        for (int n : {8, 16, 32, 64})
            for (std::int64_t count : {std::int64_t(128), std::int64_t(10000)})
                runSize<std::complex<float>>(report, config, n, count, stream.get());
        report.write(stem);
        std::printf("wrote %s.md and %s.json\n", stem.c_str(), stem.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_batched_svd: %s\n", e.what());
        return 1;
    }
    return 0;
}
