// Method C benchmark: Spyglass's batched one-sided Jacobi mappings against both batched cuSOLVER
// paths, gesvdjBatched (the vendor's batched Jacobi, m = n <= 32) and gesvdaStridedBatched
// (approximate, through A^H A: the fastest vendor path, PyTorch's driver='gesvda'), and against
// single-threaded CPU LAPACK (sgesvd / cgesvd, the stand-in for the seed's MKL), on the same matrices
// in one process. GPU rows: the library call or kernel alone (CUDA events, median after warm-up;
// handles, workspaces and buffers made before the timer); LAPACK: steady_clock over the same matrices
// one after the other. Ratios are printed against both vendor rows; the targets compare with the
// faster of the two.
//
// Every row's accuracy is checked on a 64-matrix sample (batchedsvd_bench_checks.h: singular values
// against LAPACK's, orthogonality, reconstruction, gesvda's h_R_nrmF against the residual measured
// here) and held to a bound; the program exits 1 when any row is above its bound or was not checked.
//
//   bench_batchedsvd [--quick] [--explore] [--targets-only] [--sizes 8,16,..] [--batches 128,10000]
//                     [--types f32,c64] [--no-lapack] [--lapack-sample N] [--out STEM]
// --explore adds every register-groups width that fits (2..32 lanes per pair) to choose Auto's.
// --targets-only runs just the cases the targets table needs (16x16 f32 x 128 and 10^4, 32x32 c64 and
// 64x64 f32 x 10^4). STEM.md (the table, the vendor paths, the targets and notes) and STEM.json are
// written.
#include "batchedsvd_bench_checks.h"
#include "bench_support.h"
#include "spyglass/cuda/batchedsvd_device_api.h"
#include "spyglass/cuda/cudacheck.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"
#include "batchedsvd_lapack.h"
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
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace spyglass;
using spyglass::bench::Report;
using spyglass::bench::Row;
using spyglass::bench::SvdErrorModel;
using spyglass::bench::SvdRowAccuracy;

namespace {

using bench::typeName;

struct Config {
    bool quick = false, explore = false, lapack = true, targetsOnly = false;
    std::vector<int> sizes{8, 16, 32, 48, 64};
    std::vector<std::int64_t> batches{128, 10000};
    std::vector<std::string> types{"f32", "c64"};
    std::int64_t lapackSample = 256;  // LAPACK is timed on at most this many matrices, then scaled
    std::string commandLine;
};

// The cases the targets table reads (n, type, batch).
const std::set<std::tuple<int, std::string, std::int64_t>> kTargetCases = {
    {16, "f32", 128}, {16, "f32", 10000}, {32, "c64", 10000}, {64, "f32", 10000}};

enum class Vendor { None, Gesvdj, Gesvda };

// What the targets section and the final verdict need beyond the report rows.
struct RowFacts {
    std::string benchmark, type;
    int n = 0;
    std::int64_t count = 0;
    bool isAuto = false, isLapack = false;
    Vendor vendor = Vendor::None;
    SvdRowAccuracy accuracy;
    bool checked = false;  // set once the accuracy check ran
};

struct Run {
    Report report;
    std::vector<RowFacts> facts;  // parallel to report.rows()
    std::string lapackName;
    std::vector<std::string> vendorPaths;  // per benchmark: which vendor paths ran, and why not
};

template <typename T> struct HostSample {
    std::vector<T> u, v;
    std::vector<SvdReal<T>> sigma;
};

template <typename T>
HostSample<T> downloadSample(int n, std::int64_t sample, const cuda::DeviceBuffer<T>& u,
                             const cuda::DeviceBuffer<SvdReal<T>>& sigma, const cuda::DeviceBuffer<T>& v,
                             cudaStream_t stream) {
    const std::size_t nn = static_cast<std::size_t>(n) * n;
    HostSample<T> h{std::vector<T>(sample * nn), std::vector<T>(sample * nn), std::vector<SvdReal<T>>(sample * n)};
    u.download(h.u.data(), h.u.size(), stream);
    v.download(h.v.data(), h.v.size(), stream);
    sigma.download(h.sigma.data(), h.sigma.size(), stream);
    SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return h;
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
    const double bytes = (2.0 * nn + n) * count * sizeof(T) + n * count * sizeof(R);
    auto facts = [&] {
        RowFacts f;
        f.benchmark = benchmark;
        f.type = typeName<T>();
        f.n = n;
        f.count = count;
        return f;
    };
    auto add = [&](Row row, const RowFacts& f) {
        // The accuracy check is the row's check in the table: its error column is the worst measure
        // over its bound (<= 1 passes; infinite when the singular values came out unsorted or
        // negative), the reconstruction error in the note. A row whose check did not run keeps its
        // bound unchecked, which the report's verdict fails.
        if (f.checked) row.setCheck(f.accuracy.passed() ? f.accuracy.boundUse : std::numeric_limits<double>::infinity(), 1.0);
        else row.errorBound = 1.0;
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
        f.accuracy = bench::checkSvdRow(host.data(), lu.data(), ls.data(), lv.data(), n, n, sample, referenceSigma.data(),
                                        SvdErrorModel::BackwardStable);
        f.checked = true;
        Row row;
        row.benchmark = benchmark;
        row.variant = "CPU LAPACK gesvd, 1 thread";
        row.note = bench::svdAccuracyNote(f.accuracy, "reference", SvdErrorModel::BackwardStable);
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
        row.error = f.accuracy.reconstruction;
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
    auto checkDeviceRow = [&](RowFacts& f, SvdErrorModel model, const double* vendorResidual) {
        const HostSample<T> h = downloadSample(n, sample, u, sigma, v, stream);
        f.accuracy = bench::checkSvdRow(host.data(), h.u.data(), h.sigma.data(), h.v.data(), n, n, sample,
                                        referenceSigma.data(), model, vendorResidual);
        f.checked = true;
        return bench::svdAccuracyNote(f.accuracy, referenceName, model);
    };
    auto countNonZero = [&](const char* routine) {
        std::vector<int> info(count);
        status.download(info.data(), count, stream);
        SPYGLASS_CUDA_CHECK(cudaStreamSynchronize(stream));
        return cuda::checkCusolverSvdInfo(info.data(), count, routine);
    };

    // Both vendor paths first; the faster becomes the row the others are compared with.
    struct VendorRow {
        bool ran = false;
        Row row;
        RowFacts facts;
    };
    VendorRow gesvdj, gesvda;
    // A vendor routine's facts and timing (`run` times one call); the check and notes follow per routine.
    auto timeVendor = [&](VendorRow& out, Vendor vendor, const char* variant, const std::function<double()>& run) {
        out.facts = facts();
        out.facts.vendor = vendor;
        out.row.benchmark = benchmark;
        out.row.variant = variant;
        out.row.time = bench::measure(run, warmup, repeats);
        out.row.bytes = bytes;
    };
    std::string gesvdjPath, gesvdaPath;
    if (n <= kMaxCusolverSvdSize) {
        cuda::CusolverBatchedSvd<T> vendor(n, n, static_cast<int>(count), tolerance, maxSweeps, stream);
        auto run = [&] {
            // gesvdj overwrites A: refresh it outside the timed interval
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(work.data(), a.data(), a.bytes(), cudaMemcpyDeviceToDevice, stream));
            timer.start();
            vendor.run(work.data(), u.data(), sigma.data(), v.data(), status.data());
            return double(timer.stopMilliseconds());
        };
        timeVendor(gesvdj, Vendor::Gesvdj, "cuSOLVER gesvdjBatched", run);
        gesvdj.row.note = checkDeviceRow(gesvdj.facts, SvdErrorModel::BackwardStable, nullptr);
        gesvdj.row.note += ", not converged (info > 0) " + std::to_string(countNonZero("gesvdjBatched"));
        gesvdj.row.error = gesvdj.facts.accuracy.reconstruction;
        gesvdj.ran = true;
        gesvdjPath = "gesvdjBatched ran";
    } else {
        gesvdjPath = "gesvdjBatched: no batched Jacobi path (cuSOLVER's batched Jacobi takes m, n <= 32)";
    }
    try {
        cuda::CusolverGesvdaSvd<T> vendor(n, n, static_cast<int>(count), stream);
        auto run = [&] {  // gesvda reads A only: nothing to refresh
            timer.start();
            vendor.run(a.data(), u.data(), sigma.data(), v.data(), status.data());
            return double(timer.stopMilliseconds());
        };
        timeVendor(gesvda, Vendor::Gesvda, "cuSOLVER gesvdaStridedBatched", run);
        // The checked call a careful user makes: the same call with h_R_nrmF (timed on its own, for the note).
        std::vector<double> residual(count);
        const bench::TimingSummary checkedTime = bench::measure(
            [&] {
                timer.start();
                vendor.run(a.data(), u.data(), sigma.data(), v.data(), status.data(), residual.data());
                return double(timer.stopMilliseconds());
            },
            1, 3);
        gesvda.row.note = checkDeviceRow(gesvda.facts, SvdErrorModel::Gram, residual.data());
        char extra[160];
        std::snprintf(extra, sizeof extra, ", not converged (info > 0) %lld, with h_R_nrmF requested %.4f ms",
                      static_cast<long long>(countNonZero("gesvdaStridedBatched")), checkedTime.medianMs);
        gesvda.row.note += extra;
        gesvda.row.error = gesvda.facts.accuracy.reconstruction;
        gesvda.ran = true;
        gesvdaPath = "gesvdaStridedBatched ran";
    } catch (const std::exception& e) {
        // A vendor path that refuses the shape is a finding to record, not a crash of the benchmark.
        gesvdaPath = std::string("gesvdaStridedBatched did not run: ") + e.what();
        std::printf("%-40s %s\n", benchmark.c_str(), gesvdaPath.c_str());
        SPYGLASS_CUDA_CHECK(cudaGetLastError());  // a sticky device error would end the run here, named
    }
    if (!gesvdj.ran) std::printf("%-40s %s\n", benchmark.c_str(), gesvdjPath.c_str());
    out.vendorPaths.push_back(benchmark + ": " + gesvdjPath + "; " + gesvdaPath);
    {
        VendorRow* faster = gesvdj.ran && (!gesvda.ran || gesvdj.row.time.medianMs <= gesvda.row.time.medianMs) ? &gesvdj
                          : gesvda.ran ? &gesvda : nullptr;
        VendorRow* slower = faster == &gesvdj ? &gesvda : &gesvdj;
        if (slower->ran) add(slower->row, slower->facts);
        if (faster) {
            faster->row.isBaseline = true;
            faster->row.note = "faster vendor path; " + faster->row.note;
            add(faster->row, faster->facts);
        }
    }

    // One Jacobi mapping: time, accuracy, sweeps, matrices per second, ratios to both vendor paths and LAPACK.
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
        row.bytes = bytes;
        row.note = checkDeviceRow(f, SvdErrorModel::BackwardStable, nullptr);
        row.error = f.accuracy.reconstruction;
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
        for (const VendorRow* vendor : {&gesvdj, &gesvda}) {
            if (!vendor->ran) continue;
            std::snprintf(extra, sizeof extra, ", %.2fx vs %s", vendor->row.time.medianMs / row.time.medianMs,
                          vendor == &gesvdj ? "gesvdj" : "gesvda");
            row.note += extra;
        }
        if (lapackMs > 0) {
            std::snprintf(extra, sizeof extra, ", %.1fx vs LAPACK 1T", lapackMs / row.time.medianMs);
            row.note += extra;
        }
        add(row, f);
    };

    const int autoWidth = cuda::registerGroupsLanes(n, n, sizeof(T), count);
    const bool residentAuto = cuda::autoPicksRegisterResident(n, n, sizeof(T), count);
    jacobiRow("block-per-matrix (seed mapping 1)", !residentAuto && autoWidth == 0, [&] {
        cuda::launchJacobiSvd(a.data(), u.data(), sigma.data(), v.data(), status.data(), sweeps.data(), offDevice.data(), n,
                              n, count, tolerance, maxSweeps, stream);
    });
    for (int width = 1; width <= 32; width *= 2) {
        if (!cuda::registerGroupsFits(n, n, width, sizeof(T))) continue;
        if (!config.explore && width != autoWidth) continue;
        const std::string name = "register-groups " + std::to_string(width) + " lanes x " +
                                 std::to_string((n + width - 1) / width) + " rows";
        jacobiRow(name, !residentAuto && width == autoWidth, [&] {
            cuda::launchJacobiSvdRegisters(a.data(), u.data(), sigma.data(), v.data(), status.data(), sweeps.data(),
                                           offDevice.data(), n, n, count, tolerance, maxSweeps, width, stream);
        });
    }
    if (cuda::registerResidentFits(n, n, sizeof(T), !std::is_same_v<T, R>))
        jacobiRow(cuda::registerResidentDescription(n, n), residentAuto, [&] {
            cuda::launchJacobiSvdResident(a.data(), u.data(), sigma.data(), v.data(), status.data(), sweeps.data(),
                                          offDevice.data(), n, n, count, tolerance, maxSweeps, stream);
        });
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

// The issue's targets, read off this run's rows ("not run" where a case was filtered out). Speed
// targets compare the Auto row with the faster vendor path; both vendor ratios are shown.
std::string targetsSection(const Run& run) {
    const auto& rows = run.report.rows();
    auto find = [&](const std::string& benchmark, auto predicate) -> int {
        for (std::size_t i = 0; i < rows.size(); ++i)
            if (run.facts[i].benchmark == benchmark && predicate(run.facts[i])) return static_cast<int>(i);
        return -1;
    };
    auto autoRow = [&](const std::string& b) { return find(b, [](const RowFacts& f) { return f.isAuto; }); };
    auto lapackRow = [&](const std::string& b) { return find(b, [](const RowFacts& f) { return f.isLapack; }); };
    auto vendorRow = [&](const std::string& b, Vendor v) { return find(b, [v](const RowFacts& f) { return f.vendor == v; }); };
    std::ostringstream md;
    char line[600];
    md << "\n## Targets (this run; Spyglass = the Auto variant; vendor = the faster of gesvdjBatched and "
          "gesvdaStridedBatched)\n\n| target | measured | met |\n|---|---|---|\n";
    // "gesvdj 5.767 ms (14.10x), gesvda 1.160 ms (2.84x)" and the faster one's time.
    auto vendorTimes = [&](const std::string& benchmark, double ours, double& fasterMs) {
        std::string text;
        fasterMs = 0;
        for (Vendor v : {Vendor::Gesvdj, Vendor::Gesvda}) {
            const int i = vendorRow(benchmark, v);
            const char* name = v == Vendor::Gesvdj ? "gesvdjBatched" : "gesvdaStridedBatched";
            if (!text.empty()) text += ", ";
            if (i < 0) {
                text += std::string(name) + (v == Vendor::Gesvdj ? " no batched Jacobi path" : " did not run");
                continue;
            }
            const double ms = rows[i].time.medianMs;
            std::snprintf(line, sizeof line, "%s %.3f ms (%.2fx)", name, ms, ms / ours);
            text += line;
            if (fasterMs == 0 || ms < fasterMs) fasterMs = ms;
        }
        return text;
    };
    auto vendorTarget = [&](const std::string& label, const std::string& benchmark, double need) {
        const int ours = autoRow(benchmark);
        if (ours < 0) {
            md << "| " << label << " | not run | - |\n";
            return;
        }
        const double oursMs = rows[ours].time.medianMs;
        double fasterMs = 0;
        const std::string vendors = vendorTimes(benchmark, oursMs, fasterMs);
        if (fasterMs == 0) {
            md << "| " << label << " | no vendor row ran: " << vendors << " | NO |\n";
            return;
        }
        const double ratio = fasterMs / oursMs;
        std::snprintf(line, sizeof line, "| %s | %.3f ms (%s) vs %s: %.2fx the faster | %s |\n", label.c_str(), oursMs,
                      rows[ours].variant.c_str(), vendors.c_str(), ratio, ratio >= need ? "yes" : "NO");
        md << line;
    };
    vendorTarget("10^4 x 16x16 f32 >= 3x the vendor", "svd 16x16 f32 batch 10000", 3.0);
    vendorTarget("10^4 x 32x32 c64 >= 2x the vendor", "svd 32x32 c64 batch 10000", 2.0);
    vendorTarget("10^4 x 32x32 c64 >= 5x the vendor (issue 31)", "svd 32x32 c64 batch 10000", 5.0);
    vendorTarget("128 x 16x16 f32 faster than the vendor", "svd 16x16 f32 batch 128", 1.0);
    {
        const std::string benchmark = "svd 16x16 f32 batch 128";
        const std::string label = "128 x 16x16 f32 >= 9x LAPACK 1 thread (" + run.lapackName + ")";
        const int ours = autoRow(benchmark), base = lapackRow(benchmark);
        if (ours < 0 || base < 0) {
            md << "| " << label << " | not run | - |\n";
        } else {
            const double ratio = rows[base].time.medianMs / rows[ours].time.medianMs;
            std::snprintf(line, sizeof line, "| %s | %.3f ms vs %.3f ms = %.2fx (%s) | %s |\n", label.c_str(),
                          rows[ours].time.medianMs, rows[base].time.medianMs, ratio, rows[ours].variant.c_str(),
                          ratio >= 9.0 ? "yes" : "NO");
            md << line;
        }
    }
    {
        const std::string benchmark = "svd 64x64 f32 batch 10000";
        const int ours = autoRow(benchmark);
        if (ours < 0) {
            md << "| 10^4 x 64x64 f32 < 100 ms | not run | - |\n";
        } else {
            const double oursMs = rows[ours].time.medianMs;
            double fasterMs = 0;
            const std::string vendors = vendorTimes(benchmark, oursMs, fasterMs);
            std::snprintf(line, sizeof line, "| 10^4 x 64x64 f32 < 100 ms | %.2f ms (%s); vendor: %s | %s |\n", oursMs,
                          rows[ours].variant.c_str(), vendors.c_str(), oursMs < 100 ? "yes" : "NO");
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
        const SvdRowAccuracy& a = f.accuracy;
        worstFactor = std::max({worstFactor, a.reconstruction / f.n, a.uOrthogonality / f.n, a.vOrthogonality / f.n});
        worstSigma = std::max(worstSigma, a.sigmaError);
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

// Every row checked and within its bounds; else the rows that are not, one per line.
std::vector<std::string> accuracyFailures(const Run& run) {
    std::vector<std::string> failures;
    const auto& rows = run.report.rows();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const RowFacts& f = run.facts[i];
        if (!f.checked) failures.push_back(rows[i].benchmark + " / " + rows[i].variant + ": accuracy check did not run");
        else if (!f.accuracy.passed()) failures.push_back(rows[i].benchmark + " / " + rows[i].variant + ": " + f.accuracy.failure);
    }
    return failures;
}

std::string notesSection(const Run& run, const Config& config, const std::vector<std::string>& failures) {
    std::ostringstream md;
    const char* coretype = std::getenv("OPENBLAS_CORETYPE");
    md << "\n## Vendor paths\n\n";
    for (const auto& path : run.vendorPaths) md << "- " << path << "\n";
    md << "\n## Notes\n\n";
    md << "- Command: `" << config.commandLine << "`" << (coretype ? std::string(" with OPENBLAS_CORETYPE=") + coretype : "")
       << ". LAPACK: " << (run.lapackName.empty() ? std::string("not linked in this build") : run.lapackName) << ".\n";
    md << "- GPU rows: " << (config.quick ? 7 : 15)
       << " timed repeats after 3 warm-ups, CUDA events around the kernel or library call alone (block-per-pair: its "
          "per-sweep host reads included); handles, workspaces and buffers are made before the timer; gesvdj's input is "
          "restored outside the timer (it overwrites A). gesvdaStridedBatched is timed as PyTorch calls it (h_R_nrmF = "
          "NULL); the checked call with h_R_nrmF is timed on its own (its row's note) and supplies the residual check. "
          "LAPACK rows: one matrix after the other on one thread, "
       << (config.quick ? 3 : 5) << " repeats after 1 warm-up; for batches above " << config.lapackSample
       << " timed on the first " << config.lapackSample << " and scaled.\n";
    md << "- Tolerance m*eps and at most 30 sweeps for every Jacobi row and for gesvdj (its own stopping test differs); "
          "gesvda has no tolerance. Error column: the worst measure over its bound (check column: <= 1 passes); recon (in the note): max ||A-USV^H||_F/||A||_F over the first 64 matrices; sigma: max "
          "|sigma - sigma_LAPACK| / sigma_max over the same 64 (LAPACK's own row against the CPU reference).\n";
    md << "- Bounds (bench/batchedsvd_bench_checks.h), per matrix of the sample: backward-stable rows (Jacobi, LAPACK, gesvdj) "
          "sigma within 8 n eps sigma_max, reconstruction and both orthogonalities within 1e-5 n; gesvda (Gram model) "
          "|sigma^2 - ref^2| within 8 (m+n) eps sigma_max^2, V within 1e-5 n, reconstruction within sqrt(n 8 (m+n) eps), "
          "h_R_nrmF equal to the residual measured here within 10 %, U reported only. The program exits 1 if a row is "
          "above its bound or was not checked.\n";
    md << "- [auto] marks the mapping SvdVariant::Auto picks for that shape and batch; --explore adds every register-groups "
          "width that fits.\n";
    md << "- Accuracy verdict: "
       << (failures.empty() ? "every row checked and within its bounds." : std::to_string(failures.size()) + " row(s) FAILED:")
       << "\n";
    for (const auto& f : failures) md << "  - " << f << "\n";
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
    for (int i = 0; i < argc; ++i) config.commandLine += (i ? " " : "") + std::string(i ? argv[i] : "bench_batchedsvd");
    return bench::exitCodeOf("bench_batchedsvd", [&] {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            const bool hasValue = i + 1 < argc;
            if (arg == "--quick") config.quick = true;
            else if (arg == "--explore") config.explore = true;
            else if (arg == "--targets-only") config.targetsOnly = true;
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
                             "usage: %s [--quick] [--explore] [--targets-only] [--sizes 8,16,...] [--batches 128,10000] "
                             "[--types f32,c64] [--no-lapack] [--lapack-sample N] [--out STEM]\n",
                             argv[0]);
                return 2;
            }
        }
        for (int n : config.sizes)
            if (n < 2 || n > kMaxSvdColumns) throw InputError("bench_batchedsvd: --sizes takes 2..64, got " + std::to_string(n));
        for (const auto& t : config.types)
            if (t != "f32" && t != "c64") throw InputError("bench_batchedsvd: --types takes f32 and c64, got " + t);
        for (std::int64_t b : config.batches)
            if (b < 1 || b > (1 << 24)) throw InputError("bench_batchedsvd: --batches takes 1..2^24, got " + std::to_string(b));

        const DeviceInfo device = cudaDeviceInfo();
        if (!device.present) {
            std::fprintf(stderr, "bench_batchedsvd: no CUDA device (%s)\n", device.reason.c_str());
            return 1;
        }
        cuda::CudaStream stream;
        Run run{Report("Method C: batched one-sided Jacobi SVD vs cuSOLVER gesvdjBatched and gesvdaStridedBatched and "
                       "CPU LAPACK",
                       device.name),
                {}, {}, {}};
#ifdef SPYGLASS_HAVE_LAPACK
        if (config.lapack) run.lapackName = bench::lapackSingleThreaded();
#endif
        std::printf("device %s; LAPACK: %s; tolerance m*eps, max sweeps 30 for Jacobi and gesvdj; error column = "
                    "||A-USV^H||/||A|| of a 64-matrix sample\n",
                    device.name.c_str(), run.lapackName.empty() ? "not linked" : run.lapackName.c_str());
        for (const auto& type : config.types)
            for (int n : config.sizes)
                for (std::int64_t count : config.batches) {
                    if (config.targetsOnly && !kTargetCases.count({n, type, count})) continue;
                    if (type == "f32") runSize<float>(run, config, n, count, stream.get());
                    else runSize<std::complex<float>>(run, config, n, count, stream.get());
                }
        const std::vector<std::string> failures = accuracyFailures(run);
        const std::string targets = targetsSection(run);
        const std::string notes = notesSection(run, config, failures);
        std::printf("%s%s", targets.c_str(), notes.c_str());
        writeFileAtomically(stem + ".md", run.report.toMarkdown() + targets + notes);
        writeFileAtomically(stem + ".json", run.report.toJson());
        std::printf("wrote %s.md and %s.json\n", stem.c_str(), stem.c_str());
        if (run.report.rows().empty()) {
            std::fprintf(stderr, "bench_batchedsvd: no row ran (check --sizes, --batches, --types)\n");
            return 1;
        }
        const int verdict = run.report.printVerdict();
        if (!failures.empty()) {
            std::fprintf(stderr, "bench_batchedsvd: %zu row(s) above their accuracy bound or unchecked\n", failures.size());
            return 1;
        }
        return verdict;
    });
}
