// Method C benchmark: Spyglass's batched one-sided Jacobi mappings against cuSOLVER gesvdjBatched
// (the vendor's batched Jacobi, m = n <= 32) and single-threaded CPU LAPACK (sgesvd / cgesvd, the
// stand-in for the seed's MKL) on the same matrices in one process. GPU rows: kernel-only time (CUDA
// events, median after warm-up); LAPACK: steady_clock over the same matrices one after the other.
// Accuracy of a 64-matrix sample of every run: reconstruction, orthogonality of U and V, singular
// values against LAPACK's (relative to sigma_max; against the CPU reference without LAPACK).
//
//   bench_batched_svd [--quick] [--explore] [--sizes 8,16,..] [--batches 128,10000] [--types f32,c64]
//                     [--no-lapack] [--lapack-sample N] [--out STEM]
// --explore adds every register-groups width that fits (2..32 lanes per pair) to choose Auto's.
// STEM.md (the table and a targets section) and STEM.json are written.
#include "cuda/batchedsvd_kernels.h"
#include "cuda/cuda_check.h"
#include "cuda/device_buffer.h"
#include "cuda/event_timer.h"
#include "lapack_svd.h"
#include "spyglass/atomicfile.h"
#include "spyglass/backend.h"
#include "spyglass/batchedsvd.h"
#include "spyglass/benchmark.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>
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
    bool quick = false, explore = false, lapack = true;
    std::vector<int> sizes{8, 16, 32, 48, 64};
    std::vector<std::int64_t> batches{128, 10000};
    std::vector<std::string> types{"f32", "c64"};
    std::int64_t lapackSample = 256;  // LAPACK is timed on at most this many matrices, then scaled
};

// What the targets section needs beyond the report rows.
struct RowFacts {
    std::string benchmark, type;
    int n = 0;
    std::int64_t count = 0;
    bool isAuto = false, isLapack = false;
    double sigmaError = 0, uOrth = 0, vOrth = 0, reconstruction = 0;
};

struct Run {
    Report report;
    std::vector<RowFacts> facts;  // parallel to report.rows()
    std::string lapackName;
};

// Accuracy of the first `sample` matrices from host copies of U, sigma, V.
template <typename T>
std::string accuracyNote(const std::vector<T>& host, int n, std::int64_t sample, const std::vector<T>& uh,
                         const std::vector<SvdReal<T>>& sh, const std::vector<T>& vh,
                         const std::vector<SvdReal<T>>& referenceSigma, const char* referenceName, RowFacts& facts) {
    const SvdAccuracy acc = svdAccuracy(host.data(), uh.data(), sh.data(), vh.data(), n, n, sample);
    double sigmaError = 0;
    for (std::int64_t b = 0; b < sample; ++b)
        for (int k = 0; k < n; ++k)
            sigmaError = std::max(sigmaError, std::abs(double(sh[b * n + k]) - double(referenceSigma[b * n + k])) /
                                                  double(referenceSigma[b * n]));
    facts.sigmaError = sigmaError;
    facts.uOrth = acc.uOrthogonality;
    facts.vOrth = acc.vOrthogonality;
    facts.reconstruction = acc.reconstruction;
    char note[200];
    std::snprintf(note, sizeof note, "sigma vs %s %.1e, |UhU-I| %.1e, |VhV-I| %.1e", referenceName, sigmaError,
                  acc.uOrthogonality, acc.vOrthogonality);
    return note;
}

template <typename T>
std::string deviceAccuracyNote(const std::vector<T>& host, int n, std::int64_t sample, const cuda::DeviceBuffer<T>& u,
                               const cuda::DeviceBuffer<SvdReal<T>>& sigma, const cuda::DeviceBuffer<T>& v,
                               const std::vector<SvdReal<T>>& referenceSigma, const char* referenceName,
                               cudaStream_t stream, RowFacts& facts) {
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    std::vector<T> uh(sample * nn), vh(sample * nn);
    std::vector<SvdReal<T>> sh(sample * n);
    u.download(uh.data(), uh.size(), stream);
    v.download(vh.data(), vh.size(), stream);
    sigma.download(sh.data(), sh.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return accuracyNote(host, n, sample, uh, sh, vh, referenceSigma, referenceName, facts);
}

// Floating-point work of the Jacobi sweeps actually run: per pair and row, the three sums
// (real 6, complex 16 flops) and the rotation of A and V (real 6, complex 20 per row of m + n),
// counted for every pair of every sweep (the last, checking sweep rotates nothing: an upper bound).
template <typename T> double jacobiFlops(int n, double totalSweeps) {
    constexpr bool complex = !std::is_same_v<T, SvdReal<T>>;
    const double pairs = 0.5 * n * (n - 1);
    const double perPair = complex ? 16.0 * n + 20.0 * 2 * n : 6.0 * n + 6.0 * 2 * n;
    return totalSweeps * pairs * perPair;
}

template <typename T> void runSize(Run& out, const Config& config, int n, std::int64_t count, cudaStream_t stream) {
    using R = SvdReal<T>;
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    const std::vector<T> host = generateSvdBatch<T>(SvdBatchKind::Random, n, n, count, 2026 + n);
    const std::int64_t sample = std::min<std::int64_t>(count, 64);
    const double tolerance = defaultSvdTolerance<T>(n);
    const int maxSweeps = 30;
    const int warmup = 3, repeats = config.quick ? 7 : 15;
    const std::string benchmark = "svd " + std::to_string(n) + "x" + std::to_string(n) + " " + typeName<T>() +
                                  " batch " + std::to_string(count);
    auto facts = [&] {
        RowFacts f;
        f.benchmark = benchmark;
        f.type = typeName<T>();
        f.n = n;
        f.count = count;
        return f;
    };
    auto add = [&](const Row& row, const RowFacts& f) {
        out.report.add(row);
        out.facts.push_back(f);
        out.report.print(row);
    };

    // The singular values the others are measured against: LAPACK's when linked, else the reference's.
    std::vector<R> referenceSigma(sample * n);
    const char* referenceName = "reference";
    {
        std::vector<T> ur(sample * nn), vr(sample * nn);
        std::vector<SvdStatus> st(sample);
        std::vector<int> sw(sample);
        std::vector<double> off(sample);
        svdBatchedReference(host.data(), ur.data(), referenceSigma.data(), vr.data(), n, n, sample, tolerance, maxSweeps,
                            st.data(), sw.data(), off.data());
    }
    double lapackMs = 0;
#ifdef SPYGLASS_HAVE_LAPACK
    if (config.lapack) {
        bench::LapackSvd<T> lapack(n, n);
        std::vector<T> work(host.begin(), host.begin() + sample * nn), lu(sample * nn), lvt(sample * nn), lv(sample * nn);
        std::vector<R> ls(sample * n);
        for (std::int64_t b = 0; b < sample; ++b)
            if (lapack.run(work.data() + b * nn, ls.data() + b * n, lu.data() + b * nn, lvt.data() + b * nn) != 0)
                throw Error("LAPACK gesvd failed on matrix " + std::to_string(b) + " of " + benchmark);
        for (std::int64_t b = 0; b < sample; ++b)  // V = (V^H)^H
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    const T x = lvt[b * nn + i * n + j];
                    if constexpr (std::is_same_v<T, R>) lv[b * nn + j * n + i] = x;
                    else lv[b * nn + j * n + i] = std::conj(x);
                }
        RowFacts f = facts();
        f.isLapack = true;
        Row row;
        row.benchmark = benchmark;
        row.variant = "CPU LAPACK gesvd, 1 thread";
        row.note = accuracyNote(host, n, sample, lu, ls, lv, referenceSigma, "reference", f);
        referenceSigma = ls;
        referenceName = "LAPACK";

        const std::int64_t timed = std::min(count, config.lapackSample);
        std::vector<T> batch(timed * nn), u(nn), vt(nn);
        std::vector<R> s(n);
        auto run = [&] {
            std::copy(host.begin(), host.begin() + timed * nn, batch.begin());  // gesvd overwrites A
            const auto start = std::chrono::steady_clock::now();
            for (std::int64_t b = 0; b < timed; ++b) lapack.run(batch.data() + b * nn, s.data(), u.data(), vt.data());
            const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            return ms * double(count) / double(timed);
        };
        row.time = bench::measure(run, 1, config.quick ? 3 : 5);
        row.bytes = (2.0 * nn + n) * count * sizeof(T);
        row.error = f.reconstruction;
        if (timed < count)
            row.note += ", timed on " + std::to_string(timed) + " of " + std::to_string(count) + " matrices, scaled";
        lapackMs = row.time.medianMs;
        add(row, f);
    }
#endif

    cuda::DeviceBuffer<T> a(host.size()), work(host.size()), u(host.size()), v(host.size());
    cuda::DeviceBuffer<R> sigma(count * n), offDevice(count);
    cuda::DeviceBuffer<int> status(count), sweeps(count);
    a.upload(host, stream);
    cuda::EventTimer timer(stream);

    if (n <= kMaxCusolverSvdSize) {
        cuda::CusolverBatchedSvd<T> vendor(n, n, static_cast<int>(count), tolerance, maxSweeps, stream);
        auto run = [&] {
            // gesvdj overwrites A: refresh it outside the timed interval
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(work.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, stream));
            timer.start();
            vendor.run(work.data(), u.data(), sigma.data(), v.data(), status.data());
            return double(timer.stopMilliseconds());
        };
        RowFacts f = facts();
        Row row;
        row.benchmark = benchmark;
        row.variant = "cuSOLVER gesvdjBatched";
        row.isBaseline = true;
        row.time = bench::measure(run, warmup, repeats);
        row.bytes = (2.0 * nn + n) * count * sizeof(T) + n * count * sizeof(R);
        row.note = deviceAccuracyNote(host, n, sample, u, sigma, v, referenceSigma, referenceName, stream, f);
        row.error = f.reconstruction;
        add(row, f);
    }

    // One Jacobi mapping: time, accuracy, sweeps, matrices per second, ratio to LAPACK.
    auto jacobiRow = [&](const std::string& variant, bool isAuto, const std::function<void()>& launch) {
        auto run = [&] {
            timer.start();
            launch();
            return double(timer.stopMilliseconds());
        };
        RowFacts f = facts();
        f.isAuto = isAuto;
        Row row;
        row.benchmark = benchmark;
        row.variant = "spyglass " + variant + (isAuto ? " [auto]" : "");
        row.time = bench::measure(run, warmup, repeats);
        row.bytes = (2.0 * nn + n) * count * sizeof(T) + n * count * sizeof(R);
        row.note = deviceAccuracyNote(host, n, sample, u, sigma, v, referenceSigma, referenceName, stream, f);
        row.error = f.reconstruction;
        std::vector<int> sweepsHost(count), statusHost(count);
        sweeps.download(sweepsHost.data(), count, stream);
        status.download(statusHost.data(), count, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        double totalSweeps = 0;
        for (int s : sweepsHost) totalSweeps += s;
        row.flops = jacobiFlops<T>(n, totalSweeps);
        char extra[200];
        std::snprintf(extra, sizeof extra, ", sweeps mean %.2f max %d, not converged %lld, %.3g M matrices/s",
                      totalSweeps / double(count), *std::max_element(sweepsHost.begin(), sweepsHost.end()),
                      static_cast<long long>(std::count(statusHost.begin(), statusHost.end(), 1)),
                      count / (row.time.medianMs * 1e3));
        row.note += extra;
        if (lapackMs > 0) {
            std::snprintf(extra, sizeof extra, ", %.1fx vs LAPACK 1T", lapackMs / row.time.medianMs);
            row.note += extra;
        }
        add(row, f);
    };

    const int autoWidth = cuda::registerGroupsLanes(n, n, sizeof(T), count);
    jacobiRow("block-per-matrix (seed mapping 1)", autoWidth == 0, [&] {
        cuda::launchJacobiSvd(a.data(), u.data(), sigma.data(), v.data(), status.data(), sweeps.data(), offDevice.data(), n,
                              n, count, tolerance, maxSweeps, stream);
    });
    for (int width = 1; width <= 32; width *= 2) {
        if (!cuda::registerGroupsFits(n, n, width, sizeof(T))) continue;
        if (!config.explore && width != autoWidth) continue;
        const std::string name = "register-groups " + std::to_string(width) + " lanes x " +
                                 std::to_string((n + width - 1) / width) + " rows";
        jacobiRow(name, width == autoWidth, [&] {
            cuda::launchJacobiSvdRegisters(a.data(), u.data(), sigma.data(), v.data(), status.data(), sweeps.data(),
                                           offDevice.data(), n, n, count, tolerance, maxSweeps, width, stream);
        });
    }
    {
        cuda::BlockPerPairSvd<T> pairs(n, n, count, stream);
        jacobiRow("block-per-pair (seed mapping 2)", false, [&] {
            pairs.run(a.data(), u.data(), sigma.data(), v.data(), status.data(), sweeps.data(), offDevice.data(), count,
                      tolerance, maxSweeps);
        });
    }
    if constexpr (!std::is_same_v<T, R>) {
        if (n <= kMaxEmbeddedSvdColumns) {
            cuda::RealEmbeddingSvd<T> embedding(n, n, count, stream);
            const std::string inner = cuda::autoJacobiSvdVariant(2 * n, 2 * n, sizeof(R), count);
            jacobiRow("real 2n x 2n embedding (seed) + " + inner, false, [&] {
                embedding.run(a.data(), u.data(), sigma.data(), v.data(), status.data(), sweeps.data(), offDevice.data(),
                              count, tolerance, maxSweeps);
            });
        }
    }
}

// The issue's targets, read off this run's rows ("not run" where a row was filtered out).
std::string targetsSection(const Run& run) {
    const auto& rows = run.report.rows();
    auto find = [&](const std::string& benchmark, auto predicate) -> int {
        for (std::size_t i = 0; i < rows.size(); ++i)
            if (run.facts[i].benchmark == benchmark && predicate(rows[i], run.facts[i])) return static_cast<int>(i);
        return -1;
    };
    auto autoRow = [&](const std::string& b) { return find(b, [](const Row&, const RowFacts& f) { return f.isAuto; }); };
    auto vendorRow = [&](const std::string& b) { return find(b, [](const Row& r, const RowFacts&) { return r.isBaseline; }); };
    auto lapackRow = [&](const std::string& b) { return find(b, [](const Row&, const RowFacts& f) { return f.isLapack; }); };
    std::ostringstream md;
    char line[400];
    md << "\n## Targets (this run; Spyglass = the Auto variant)\n\n| target | measured | met |\n|---|---|---|\n";
    auto ratioTarget = [&](const std::string& label, const std::string& benchmark, double need, bool lapack) {
        const int ours = autoRow(benchmark), base = lapack ? lapackRow(benchmark) : vendorRow(benchmark);
        if (ours < 0 || base < 0) {
            md << "| " << label << " | not run | - |\n";
            return;
        }
        const double ratio = rows[base].time.medianMs / rows[ours].time.medianMs;
        std::snprintf(line, sizeof line, "| %s | %.3f ms vs %.3f ms = %.2fx (%s) | %s |\n", label.c_str(),
                      rows[ours].time.medianMs, rows[base].time.medianMs, ratio, rows[ours].variant.c_str(),
                      ratio >= need ? "yes" : "NO");
        md << line;
    };
    ratioTarget("10^4 x 16x16 f32 >= 3x gesvdjBatched", "svd 16x16 f32 batch 10000", 3.0, false);
    ratioTarget("10^4 x 32x32 c64 >= 2x gesvdjBatched", "svd 32x32 c64 batch 10000", 2.0, false);
    ratioTarget("128 x 16x16 f32 faster than gesvdjBatched", "svd 16x16 f32 batch 128", 1.0, false);
    ratioTarget("128 x 16x16 f32 >= 9x LAPACK 1 thread (" + run.lapackName + ")", "svd 16x16 f32 batch 128", 9.0, true);
    {
        const int ours = autoRow("svd 64x64 f32 batch 10000");
        if (ours < 0) md << "| 10^4 x 64x64 f32 < 100 ms | not run | - |\n";
        else {
            std::snprintf(line, sizeof line, "| 10^4 x 64x64 f32 < 100 ms | %.2f ms (%s) | %s |\n", rows[ours].time.medianMs,
                          rows[ours].variant.c_str(), rows[ours].time.medianMs < 100 ? "yes" : "NO");
            md << line;
        }
    }
    // fp32 accuracy over every f32 Auto row: errors / n against 1e-5, sigma against LAPACK within 1e-5.
    double worstFactor = 0, worstSigma = 0;
    bool any = false;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const RowFacts& f = run.facts[i];
        if (!f.isAuto || f.type != "f32") continue;
        any = true;
        worstFactor = std::max({worstFactor, f.reconstruction / f.n, f.uOrth / f.n, f.vOrth / f.n});
        worstSigma = std::max(worstSigma, f.sigmaError);
    }
    if (any) {
        std::snprintf(line, sizeof line,
                      "| f32 accuracy: reconstruction, orthogonality <= 1e-5 n; sigma within 1e-5 of %s | worst error/n %.2e, "
                      "sigma %.2e | %s |\n",
                      run.lapackName.empty() ? "the reference" : "LAPACK", worstFactor, worstSigma,
                      worstFactor <= 1e-5 && worstSigma <= 1e-5 ? "yes" : "NO");
        md << line;
    }
    return md.str();
}

std::vector<std::string> splitList(const char* text) {
    std::vector<std::string> items;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        if (!item.empty()) items.push_back(item);
    return items;
}

} // namespace

int main(int argc, char** argv) {
    Config config;
    std::string stem = "bench/results/batched_svd";
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            const bool hasValue = i + 1 < argc;
            if (arg == "--quick") config.quick = true;
            else if (arg == "--explore") config.explore = true;
            else if (arg == "--no-lapack") config.lapack = false;
            else if (arg == "--out" && hasValue) stem = argv[++i];
            else if (arg == "--lapack-sample" && hasValue) config.lapackSample = std::max(1LL, std::atoll(argv[++i]));
            else if (arg == "--sizes" && hasValue) {
                config.sizes.clear();
                for (const auto& s : splitList(argv[++i])) config.sizes.push_back(std::stoi(s));
            } else if (arg == "--batches" && hasValue) {
                config.batches.clear();
                for (const auto& s : splitList(argv[++i])) config.batches.push_back(std::stoll(s));
            } else if (arg == "--types" && hasValue) {
                config.types = splitList(argv[++i]);
            } else {
                std::fprintf(stderr,
                             "usage: %s [--quick] [--explore] [--sizes 8,16,...] [--batches 128,10000] [--types f32,c64] "
                             "[--no-lapack] [--lapack-sample N] [--out STEM]\n",
                             argv[0]);
                return 2;
            }
        }
        for (int n : config.sizes)
            if (n < 2 || n > kMaxSvdColumns) throw InputError("bench_batched_svd: --sizes takes 2..64, got " + std::to_string(n));
        for (const auto& t : config.types)
            if (t != "f32" && t != "c64") throw InputError("bench_batched_svd: --types takes f32 and c64, got " + t);

        const DeviceInfo device = cudaDeviceInfo();
        if (!device.present) {
            std::fprintf(stderr, "bench_batched_svd: no CUDA device (%s)\n", device.reason.c_str());
            return 1;
        }
        cuda::CudaStream stream;
        Run run{Report("Method C: batched one-sided Jacobi SVD vs cuSOLVER gesvdjBatched and CPU LAPACK", device.name), {}, {}};
#ifdef SPYGLASS_HAVE_LAPACK
        if (config.lapack) run.lapackName = bench::lapackSingleThreaded();
#endif
        std::printf("device %s; LAPACK: %s; tolerance m*eps, max sweeps 30 for Jacobi and gesvdj; error column = "
                    "||A-USV^H||/||A|| of a 64-matrix sample\n",
                    device.name.c_str(), run.lapackName.empty() ? "not linked" : run.lapackName.c_str());
        for (const auto& type : config.types)
            for (int n : config.sizes)
                for (std::int64_t count : config.batches) {
                    if (type == "f32") runSize<float>(run, config, n, count, stream.get());
                    else runSize<std::complex<float>>(run, config, n, count, stream.get());
                }
        const std::string targets = targetsSection(run);
        std::printf("%s", targets.c_str());
        std::string markdown = run.report.toMarkdown();
        markdown += "\n- LAPACK: " + (run.lapackName.empty() ? std::string("not linked in this build") : run.lapackName) + "\n";
        markdown += targets;
        writeFileAtomically(stem + ".md", markdown);
        writeFileAtomically(stem + ".json", run.report.toJson());
        std::printf("wrote %s.md and %s.json\n", stem.c_str(), stem.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_batched_svd: %s\n", e.what());
        return 1;
    }
    return 0;
}
