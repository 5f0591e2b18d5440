#pragma once
// The LU parts of bench_bitflag (included by bench_bitflag.cu only):
//   large:  blocked LU with partial pivoting of the bit-flag matrix (expand + panels + cuBLAS trsm/gemm),
//           with either leaf kernel (one-block, cluster), vs cuSOLVER getrf on the dense column-major
//           copy of the same matrix; every factorization is checked by ||PA - LU||_F / ||A||_F computed
//           in double on the device;
//   batch:  the batched LU on small matrices, all layouts (the seed's block per matrix, a warp per
//           matrix, register rows without and with partial pivoting) vs cuBLAS getrfBatched (with
//           partial pivoting, the baseline, and without: the seed's algorithm), on diagonally dominant
//           matrices and on matrices that need row exchanges;
//   seed:   the one-block shared-memory LU of one matrix vs the CPU reference.
#include "spyglass/cuda/bitflag_device_api.h"
#include "spyglass/cuda/eventtimer.h"
#include "spyglass/benchmark.h"
#include "spyglass/bitflag.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace bitflag_bench {

using namespace spyglass;

// Random integer n x n that needs row exchanges: density d in [-9, 9] plus +-10..19 on a random
// permutation (no empty row or column, large entries off the diagonal).
template <typename T> CooMatrix<T> pivotingCoo(Index n, double density, unsigned seed) {
    std::mt19937 rng(seed);
    std::geometric_distribution<int> gap(density);
    std::uniform_int_distribution<int> value(1, 9), big(10, 19), sign(0, 1);
    std::vector<Index> where(static_cast<std::size_t>(n));
    for (Index i = 0; i < n; ++i) where[std::size_t(i)] = i;
    std::shuffle(where.begin(), where.end(), rng);
    CooMatrix<T> coo;
    coo.rows = coo.cols = n;
    for (Index i = 0; i < n; ++i) {
        for (long long j = gap(rng); j < n; j += 1 + gap(rng)) {
            if (Index(j) == where[std::size_t(i)]) continue;
            coo.rowIndex.push_back(i);
            coo.colIndex.push_back(Index(j));
            coo.values.push_back(T((sign(rng) ? 1 : -1) * value(rng)));
        }
        coo.rowIndex.push_back(i);
        coo.colIndex.push_back(where[std::size_t(i)]);
        coo.values.push_back(T((sign(rng) ? 1 : -1) * big(rng)));
    }
    return coo;
}

template <typename T> __global__ void splitFactorsKernel(const T* factors, bool rowMajor, Index n, double* lower, double* upper) {
    const Index i = Index(blockIdx.y), j = Index(blockIdx.x) * blockDim.x + Index(threadIdx.x);
    if (j >= n) return;
    const std::size_t k = std::size_t(i) * n + j;
    const double v = factors[rowMajor ? k : std::size_t(j) * n + i];
    lower[k] = j < i ? v : j == i ? 1.0 : 0.0;
    upper[k] = j >= i ? v : 0.0;
}

// ||P A - L U||_F / ||A||_F in double on the device; factors n x n row- or column-major with L below
// the diagonal (unit) and U on and above; row i of P A is row rowOrder[i] of A (row-major, host).
template <typename T>
double deviceResidual(const std::vector<T>& a, const T* factors, bool rowMajor, const std::vector<int>& rowOrder, Index n) {
    const std::size_t size = std::size_t(n) * std::size_t(n);
    std::vector<double> pa(size);
    for (Index i = 0; i < n; ++i)
        for (Index j = 0; j < n; ++j) pa[std::size_t(i) * n + j] = a[std::size_t(rowOrder[std::size_t(i)]) * n + j];
    cuda::DeviceBuffer<double> dpa, lower(size), upper(size);
    dpa.upload(pa);
    splitFactorsKernel<<<dim3(unsigned((n + 255) / 256), unsigned(n)), 256>>>(factors, rowMajor, n, lower.data(), upper.data());
    SPYGLASS_CUDA_CHECK_LAUNCH();
    cublasHandle_t handle = nullptr;
    SPYGLASS_CUDA_CHECK(cublasCreate(&handle));
    double normA = 0, normD = 0;
    const double one = 1, minusOne = -1;
    SPYGLASS_CUDA_CHECK(cublasDnrm2(handle, int(size), dpa.data(), 1, &normA));
    // Row-major arrays are the column-major transposes: (PA - LU)^T = (PA)^T - U^T L^T.
    SPYGLASS_CUDA_CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &minusOne, upper.data(), n, lower.data(), n, &one,
                                    dpa.data(), n));
    SPYGLASS_CUDA_CHECK(cublasDnrm2(handle, int(size), dpa.data(), 1, &normD));
    cublasDestroy(handle);
    return normA > 0 ? normD / normA : normD;
}

// Componentwise backward error of LU factors, worst over a batch: the largest
// |P A - L U|_ij / (gamma_n (|L| |U|)_ij) with gamma_n = n u / (1 - n u), u = eps(float) / 2. Gaussian
// elimination in floating point gives factors with |P A - L U| <= gamma_n |L| |U| whatever the order
// of its operations (Higham, Accuracy and Stability, Thm 9.3), so a correct fp32 LU scores <= 1; a
// wrong entry, pivot or row order scores far above. Computed in double, matrices spread over threads.
// a: the matrices column-major (matrix b at b n^2); factors: row-major, L strictly below the diagonal
// (unit diagonal implied), U on and above; order: row i of P A_b is row order[b n + i] of A_b (null:
// no pivoting).
inline double luBackwardErrorRatio(const float* a, const float* factors, const int* order, Index n, Count batch) {
    const double u = std::numeric_limits<float>::epsilon() / 2;
    const double gamma = double(n) * u / (1 - double(n) * u);
    const std::size_t size = std::size_t(n) * std::size_t(n);
    const auto worstOf = [&](Count first, Count last) {
        double worst = 0;
        for (Count b = first; b < last; ++b) {
            const float* f = factors + std::size_t(b) * size;
            const float* m = a + std::size_t(b) * size;
            for (Index i = 0; i < n; ++i) {
                const Index row = order ? Index(order[std::size_t(b) * n + i]) : i;
                for (Index j = 0; j < n; ++j) {
                    double product = 0, magnitude = 0;
                    const Index inner = std::min(i, j);
                    for (Index k = 0; k < inner; ++k) {
                        const double term = double(f[std::size_t(i) * n + k]) * double(f[std::size_t(k) * n + j]);
                        product += term;
                        magnitude += std::abs(term);
                    }
                    // k = min(i, j): L's unit diagonal times U(i, j), or L(i, j) times U's diagonal.
                    const double last = j >= i ? double(f[std::size_t(i) * n + j])
                                               : double(f[std::size_t(i) * n + j]) * double(f[std::size_t(j) * n + j]);
                    product += last;
                    magnitude += std::abs(last);
                    const double residual = std::abs(double(m[std::size_t(j) * n + row]) - product);
                    const double ratio = residual == 0 ? 0 : magnitude == 0 ? std::numeric_limits<double>::infinity()
                                                                            : residual / (gamma * magnitude);
                    if (!(ratio <= worst)) worst = ratio;  // keeps a NaN
                }
            }
        }
        return worst;
    };
    const Count threads = std::max<Count>(1, std::min<Count>(Count(std::thread::hardware_concurrency()), batch));
    std::vector<double> worst(static_cast<std::size_t>(threads), 0.0);
    std::vector<std::thread> pool;
    for (Count t = 0; t < threads; ++t)
        pool.emplace_back([&, t] { worst[std::size_t(t)] = worstOf(batch * t / threads, batch * (t + 1) / threads); });
    for (std::thread& thread : pool) thread.join();
    double result = 0;
    for (const double w : worst)
        if (!(w <= result)) result = w;
    return result;
}

// The bound of the large LU's normwise residual ||P A - L U||_F / ||A||_F: n eps(T), the usual
// backward-error bound of partial pivoting with a modest growth factor (measured residuals lie 20-50x
// below it; a wrong swap or update gives O(1)).
template <typename T> double largeLuResidualBound(Index n) { return double(n) * std::numeric_limits<T>::epsilon(); }

template <typename T> constexpr const char* precisionName() { return sizeof(T) == 4 ? "fp32" : "fp64"; }

// One blocked-LU row of the large LU: panel and leaf widths, the leaf kernel and, for the cluster leaf,
// its blocks (0: automatic).
struct LargeLuConfig {
    Index panel = 128, leaf = 32;
    cuda::BlockedLuLeaf kernel = cuda::BlockedLuLeaf::OneBlock;
    int clusterBlocks = 0;
};

// "PANEL/LEAF" (one-block leaf), "PANEL/LEAF/cluster" (cluster leaf, automatic size),
// "PANEL/LEAF/clusterN" (N blocks) or "PANEL/LEAF/auto" (the leaf chosen per leaf, as the library's
// default); PANEL 0: by the rows left, as the library's default; the leaf defaults to 32.
inline LargeLuConfig parseLargeLuConfig(const std::string& text) {
    LargeLuConfig config;
    const std::size_t slash = text.find('/');
    config.panel = Index(std::stoi(text.substr(0, slash)));
    if (slash == std::string::npos) return config;
    const std::size_t second = text.find('/', slash + 1);
    config.leaf = Index(std::stoi(text.substr(slash + 1, second == std::string::npos ? std::string::npos : second - slash - 1)));
    if (second == std::string::npos) return config;
    const std::string kernel = text.substr(second + 1);
    if (kernel == "auto") {
        config.kernel = cuda::BlockedLuLeaf::Auto;
        return config;
    }
    if (kernel.rfind("cluster", 0) != 0) throw std::invalid_argument("leaf kernel '" + kernel + "': expected auto, cluster or clusterN");
    config.kernel = cuda::BlockedLuLeaf::Cluster;
    if (kernel.size() > 7) config.clusterBlocks = std::stoi(kernel.substr(7));
    return config;
}

inline std::string largeLuVariant(const LargeLuConfig& config) {
    char variant[112];
    char panel[24];
    if (config.panel > 0) std::snprintf(panel, sizeof panel, "panel %d", int(config.panel));
    else std::snprintf(panel, sizeof panel, "panel by rows left");
    if (config.kernel == cuda::BlockedLuLeaf::Auto)
        std::snprintf(variant, sizeof variant, "bit-flag blocked LU, %s, leaf by rows left <= %d", panel, int(config.leaf));
    else if (config.kernel == cuda::BlockedLuLeaf::Cluster && config.clusterBlocks > 0)
        std::snprintf(variant, sizeof variant, "bit-flag blocked LU, %s, cluster leaf <= %d, %d blocks", panel,
                      int(config.leaf), config.clusterBlocks);
    else
        std::snprintf(variant, sizeof variant, "bit-flag blocked LU, %s, %s <= %d", panel,
                      config.kernel == cuda::BlockedLuLeaf::Cluster ? "cluster leaf" : "one-block leaf", int(config.leaf));
    return variant;
}

// T: fp32 (the issue's target) or fp64 (what the application and the command line factor in).
template <typename T>
void luLarge(bench::Report& report, const std::vector<Index>& sizes, const std::vector<LargeLuConfig>& configs,
                    const std::function<void(bench::Report&, const bench::Row&)>& emit,
                    const std::function<bench::Row(const std::string&, const std::string&, bool, const bench::TimingSummary&,
                                                   double, double, const std::string&)>& row) {
    cuda::EventTimer timer;
    // The cluster leaf needs thread-block clusters: on a device without them its rows are not planned.
    const bool clusters = cuda::BlockedLu<T>::clusterLeafMaxBlocks() > 0;
    if (!clusters)
        for (const LargeLuConfig& config : configs)
            if (config.kernel == cuda::BlockedLuLeaf::Cluster)
                std::fprintf(stderr, "bench_bitflag: %s: skipped, the device has no thread-block clusters\n",
                             largeLuVariant(config).c_str());
    for (const Index n : sizes) {
        const double density = 0.05;
        const CooMatrix<T> coo = pivotingCoo<T>(n, density, unsigned(n) + 5);
        const BitFlagMatrix<T> a = encodeBitFlag(coo);
        const std::size_t size = std::size_t(n) * std::size_t(n);
        std::vector<T> rowMajor(size, T(0)), colMajor(size, T(0));
        double maxAbs = 0;
        for (std::size_t e = 0; e < coo.values.size(); ++e) {
            rowMajor[std::size_t(coo.rowIndex[e]) * n + coo.colIndex[e]] = coo.values[e];
            colMajor[std::size_t(coo.colIndex[e]) * n + coo.rowIndex[e]] = coo.values[e];
            maxAbs = std::max(maxAbs, double(std::abs(coo.values[e])));
        }
        char name[96];
        std::snprintf(name, sizeof name, "LU %dx%d density %.0f%% (dense factors), %s", n, n, density * 100, precisionName<T>());
        const double flops = 2.0 / 3.0 * double(n) * n * n;
        const double bytes = 2.0 * double(size) * sizeof(T);
        {
            cuda::DeviceBuffer<T> original, work(size);
            original.upload(colMajor);
            cuda::CusolverDenseLu<T> solver(int(n), work.data());
            const auto t = bench::measure([&] {
                SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(work.data(), original.data(), size * sizeof(T), cudaMemcpyDeviceToDevice));
                timer.start();
                solver.factor(work.data());
                return double(timer.stopMilliseconds());
            }, 2, n >= 8192 ? 5 : 7);
            const int info = solver.info();
            std::vector<int> ipiv(static_cast<std::size_t>(n)), order(static_cast<std::size_t>(n));
            solver.pivots().download(ipiv.data(), ipiv.size());
            SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
            for (Index i = 0; i < n; ++i) order[std::size_t(i)] = i;
            for (Index k = 0; k < n; ++k) std::swap(order[std::size_t(k)], order[std::size_t(ipiv[std::size_t(k)] - 1)]);
            const double residual = deviceResidual(rowMajor, work.data(), false, order, n);
            bench::Row r = row(name, "cuSOLVER getrf (dense, column-major)", true, t, bytes, residual,
                               "timed: getrf; error = ||PA-LU||/||A||, bound n eps; info " + std::to_string(info));
            r.flops = flops;
            // The matrix is nonsingular: info != 0 is a wrong result too.
            r.setCheck(info == 0 ? residual : std::numeric_limits<double>::infinity(), largeLuResidualBound<T>(n));
            emit(report, r);
        }
        const cuda::DeviceBitFlag<T> da(a);
        const double threshold = defaultPivotTolerance<T>(n) * maxAbs;
        // The one-block leaf's row order per panel/leaf, for the cluster leaf's note: at equal leaf widths
        // both pick the same rows (the one-block leaf narrows where its rows do not fit one block).
        std::map<std::pair<Index, Index>, std::vector<int>> oneBlockOrder;
        for (const LargeLuConfig& config : configs) {
            if (config.kernel == cuda::BlockedLuLeaf::Cluster && !clusters) continue;
            cuda::BlockedLu<T> lu;
            T pivot = 0;
            int failed = -1;
            const auto t = bench::measure([&] {
                timer.start();
                lu.factor(da, BitFlagOrder::RowMajor, threshold, config.panel, config.leaf, config.kernel, config.clusterBlocks);
                failed = lu.failedStep(&pivot);
                return double(timer.stopMilliseconds());
            }, 2, n >= 8192 ? 5 : 7);
            std::vector<int> swaps(static_cast<std::size_t>(n)), order(static_cast<std::size_t>(n));
            lu.pivots().download(swaps.data(), swaps.size());
            SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
            for (Index i = 0; i < n; ++i) order[std::size_t(i)] = i;
            for (Index k = 0; k < n; ++k) std::swap(order[std::size_t(k)], order[std::size_t(swaps[std::size_t(k)])]);
            const double residual = deviceResidual(rowMajor, lu.dense().data(), true, order, n);
            std::string compared;
            const auto key = std::make_pair(config.panel, config.leaf);
            if (config.kernel == cuda::BlockedLuLeaf::OneBlock) oneBlockOrder[key] = order;
            else if (oneBlockOrder.count(key))
                compared = oneBlockOrder[key] == order ? "; row order = the one-block leaf's" : "; row order differs from the one-block leaf's";
            bench::Row r = row(name, largeLuVariant(config), false, t, bytes, residual,
                               "timed: expand bit flags + LU + pivot status readback; error = ||PA-LU||/||A||, bound n eps" +
                                   std::string(failed >= 0 ? "; BAD PIVOT at step " + std::to_string(failed) : "") + compared);
            r.flops = flops;
            // A bad pivot on this nonsingular matrix is a wrong result whatever the residual says.
            r.setCheck(failed < 0 ? residual : std::numeric_limits<double>::infinity(), largeLuResidualBound<T>(n));
            emit(report, r);
        }
    }
}

// Row i of P A after LAPACK-style swaps (at step k rows k and swap[k] exchanged, 0-based).
inline void orderFromSwaps(const int* swaps, int n, int* order) {
    for (int i = 0; i < n; ++i) order[i] = i;
    for (int k = 0; k < n; ++k) std::swap(order[k], order[swaps[k]]);
}

// One batch: cuBLAS getrfBatched with partial pivoting (the baseline) and, on diagonally dominant data,
// without; ours from the same matrices in bit-flag form. needsPivoting: the matrices carry a large
// entry per row on a random permutation, so partial pivoting exchanges rows (the no-pivot variants
// would meet small pivots and are not run); otherwise diagonally dominant (diagonal 10 n), no pivot
// is small and partial pivoting keeps every row, so all variants compute the same factors.
inline void luBatchedCase(bench::Report& report, Index n, int batch, bool needsPivoting,
                          const std::function<void(bench::Report&, const bench::Row&)>& emit,
                          const std::function<bench::Row(const std::string&, const std::string&, bool, const bench::TimingSummary&,
                                                         double, double, const std::string&)>& row) {
    cuda::EventTimer timer;
    std::mt19937 rng(unsigned(n) * 7 + unsigned(batch) + (needsPivoting ? 1u : 0u));
    std::uniform_real_distribution<double> u(0, 1);
    std::uniform_int_distribution<int> value(1, 9), big(10, 19), sign(0, 1);
    CooMatrix<float> stacked;
    stacked.rows = Index(Count(batch) * n);
    stacked.cols = n;
    const std::size_t size = std::size_t(n) * std::size_t(n);
    std::vector<float> colMajor(size * std::size_t(batch), 0.0f);
    std::vector<Index> where(static_cast<std::size_t>(n));
    for (int b = 0; b < batch; ++b) {
        for (Index i = 0; i < n; ++i) where[std::size_t(i)] = i;
        if (needsPivoting) std::shuffle(where.begin(), where.end(), rng);
        for (Index i = 0; i < n; ++i)
            for (Index j = 0; j < n; ++j) {
                float v = 0;
                if (j == where[std::size_t(i)]) v = needsPivoting ? float((sign(rng) ? 1 : -1) * big(rng)) : float(10 * n);
                else if (u(rng) < 0.3) v = float((sign(rng) ? 1 : -1) * value(rng));
                if (v == 0) continue;
                stacked.rowIndex.push_back(Index(Count(b) * n + i));
                stacked.colIndex.push_back(j);
                stacked.values.push_back(v);
                colMajor[std::size_t(b) * size + std::size_t(j) * n + i] = v;
            }
    }
    const BitFlagMatrix<float> host = encodeBitFlag(stacked);
    const cuda::DeviceBitFlag<float> device(host);
    char name[112];
    std::snprintf(name, sizeof name, "LU batch %d x %dx%d density 30%%%s, fp32", batch, n, n, needsPivoting ? " needs pivoting" : "");
    const double flops = 2.0 / 3.0 * double(n) * n * n * batch;
    const double denseBytes = 2.0 * double(size) * batch * sizeof(float);
    cuda::DeviceBuffer<float> original, work(size * std::size_t(batch));
    original.upload(colMajor);
    cuda::CublasBatchedLu<float> vendor(int(n), batch, work.data());
    std::vector<float> vendorNoPivot, vendorPivot(size * std::size_t(batch));
    std::vector<int> vendorOrder(std::size_t(n) * std::size_t(batch));
    for (const bool pivoting : needsPivoting ? std::vector<bool>{true} : std::vector<bool>{true, false}) {
        const auto t = bench::measure([&] {
            SPYGLASS_CUDA_CHECK(cudaMemcpyAsync(work.data(), original.data(), work.bytes(), cudaMemcpyDeviceToDevice));
            timer.start();
            vendor.factor(pivoting);
            return double(timer.stopMilliseconds());
        }, 3, 20);
        int bad = 0;
        for (const int info : vendor.infos()) bad += info != 0;
        bench::Row r = row(name, pivoting ? "cuBLAS getrfBatched, partial pivoting" : "cuBLAS getrfBatched, no pivoting",
                           pivoting, t, denseBytes, 0,
                           "timed: getrfBatched in place (dense in/out); " + std::to_string(bad) + " matrices with info != 0");
        r.flops = flops;
        // Every matrix of the batch is nonsingular (dominant, or a large entry per row and column):
        // the check is cuBLAS's own status, no matrix with info != 0 (error = their count, bound 0).
        r.setCheck(double(bad), 0.0);
        emit(report, r);
        if (pivoting) {
            work.download(vendorPivot.data(), vendorPivot.size());
            std::vector<int> ipiv(vendorOrder.size());
            vendor.pivots().download(ipiv.data(), ipiv.size());
            SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
            for (int& p : ipiv) --p;
            for (int b = 0; b < batch; ++b) orderFromSwaps(ipiv.data() + std::size_t(b) * n, int(n), vendorOrder.data() + std::size_t(b) * n);
        } else {
            vendorNoPivot.resize(size * std::size_t(batch));
            work.download(vendorNoPivot.data(), vendorNoPivot.size());
        }
    }
    // Largest relative difference of row-major factors to cuBLAS's column-major ones (matrices whose
    // row order differs from cuBLAS's are counted, not compared: a near tie may be broken either way).
    const auto compare = [&](const std::vector<float>& ours, const std::vector<int>* order, const std::vector<float>& theirs,
                             int& orderDiffers) {
        double worst = 0;
        orderDiffers = 0;
        for (int b = 0; b < batch; ++b) {
            if (order && !std::equal(order->begin() + std::ptrdiff_t(b) * n, order->begin() + std::ptrdiff_t(b + 1) * n,
                                     vendorOrder.begin() + std::ptrdiff_t(b) * n)) {
                ++orderDiffers;
                continue;
            }
            for (Index i = 0; i < n; ++i)
                for (Index j = 0; j < n; ++j) {
                    const double x = ours[std::size_t(b) * size + std::size_t(i) * n + j];
                    const double y = theirs[std::size_t(b) * size + std::size_t(j) * n + i];
                    worst = std::max(worst, std::abs(x - y) / std::max(1.0, std::abs(y)));
                }
        }
        return worst;
    };
    const double tolerance = defaultPivotTolerance<float>(n);
    std::vector<float> ours(size * std::size_t(batch));
    std::vector<int> step(static_cast<std::size_t>(batch));
    const auto badPivots = [&] {
        int bad = 0;
        for (const int s : step) bad += s >= 0;
        return bad;
    };
    // Register rows read the flag word, P and the values (no prefix counts); the other layouts read the prefix too.
    const double registerBytesIn = double(device.bytes(false)), sharedBytesIn = double(device.bytes(true));
    const double factorBytes = double(size) * batch * sizeof(float), statusBytes = 2.0 * batch * sizeof(float);
    if (!needsPivoting) {
        struct Layout { cuda::BatchedLuLayout layout; const char* name; };
        for (const Layout layout : {Layout{cuda::BatchedLuLayout::BlockPerMatrix, "bit-flag shared-memory LU, one block per matrix (seed)"},
                                    Layout{cuda::BatchedLuLayout::WarpPerMatrix, "bit-flag shared-memory LU, one warp per matrix"},
                                    Layout{cuda::BatchedLuLayout::RegisterRows, "bit-flag register rows, no pivoting"}}) {
            cuda::DeviceBuffer<float> dense, pivots;
            cuda::DeviceBuffer<int> steps;
            const auto t = bench::measure([&] {
                timer.start();
                cuda::bitFlagLuBatchedDevice(device, n, tolerance, dense, steps, pivots, nullptr, layout.layout);
                return double(timer.stopMilliseconds());
            }, 3, 20);
            dense.download(ours.data(), ours.size());
            steps.download(step.data(), step.size());
            SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
            int differs = 0;
            const double worst = compare(ours, nullptr, vendorNoPivot, differs);
            const bool registers = layout.layout == cuda::BatchedLuLayout::RegisterRows;
            const double bytes = (registers ? registerBytesIn : sharedBytesIn) + factorBytes + statusBytes;
            const double backward = luBackwardErrorRatio(colMajor.data(), ours.data(), nullptr, n, batch);
            char diff[48];
            std::snprintf(diff, sizeof diff, "%.3g", worst);
            bench::Row r = row(name, layout.name, false, t, bytes, backward,
                               "timed: kernel (bit flags in, dense factors out); error = worst |A-LU| / (gamma_n |L||U|), "
                               "bound 1; max rel. diff. to cuBLAS no-pivot " + std::string(diff) + "; " +
                                   std::to_string(badPivots()) + " bad pivots");
            r.flops = flops;
            // Dominant matrices: a bad pivot is a wrong result as well.
            r.setCheck(badPivots() == 0 ? backward : std::numeric_limits<double>::infinity(), 1.0);
            emit(report, r);
        }
    }
    cuda::DeviceBuffer<float> dense, pivots;
    cuda::DeviceBuffer<int> order, steps;
    const auto t = bench::measure([&] {
        timer.start();
        cuda::bitFlagLuPivotedBatchedDevice(device, n, tolerance, dense, order, steps, pivots);
        return double(timer.stopMilliseconds());
    }, 3, 20);
    std::vector<int> ourOrder(std::size_t(n) * std::size_t(batch));
    dense.download(ours.data(), ours.size());
    steps.download(step.data(), step.size());
    order.download(ourOrder.data(), ourOrder.size());
    SPYGLASS_CUDA_CHECK(cudaDeviceSynchronize());
    int differs = 0;
    const double worst = compare(ours, &ourOrder, vendorPivot, differs);
    int exchanged = 0;
    for (int b = 0; b < batch; ++b)
        for (Index i = 0; i < n; ++i) exchanged += ourOrder[std::size_t(b) * n + i] != i;
    const double bytes = registerBytesIn + factorBytes + double(n) * batch * sizeof(int) + statusBytes;
    const double backward = luBackwardErrorRatio(colMajor.data(), ours.data(), ourOrder.data(), n, batch);
    char diff[48];
    std::snprintf(diff, sizeof diff, "%.3g", worst);
    bench::Row r = row(name, "bit-flag register rows, partial pivoting", false, t, bytes, backward,
                       "timed: kernel (bit flags in, dense factors of PA + row order out); error = worst |PA-LU| / "
                       "(gamma_n |L||U|), bound 1; max rel. diff. to cuBLAS pivoted " + std::string(diff) + "; " +
                           std::to_string(differs) + " matrices with another row order than cuBLAS, " +
                           std::to_string(exchanged) + " rows moved, " + std::to_string(badPivots()) + " singular");
    r.flops = flops;
    // Nonsingular matrices: a matrix reported singular is a wrong result as well.
    r.setCheck(badPivots() == 0 ? backward : std::numeric_limits<double>::infinity(), 1.0);
    emit(report, r);
}

inline void luBatched(bench::Report& report, const std::vector<std::pair<Index, int>>& cases,
                      const std::function<void(bench::Report&, const bench::Row&)>& emit,
                      const std::function<bench::Row(const std::string&, const std::string&, bool, const bench::TimingSummary&,
                                                     double, double, const std::string&)>& row) {
    for (const auto& item : cases) {
        luBatchedCase(report, item.first, item.second, false, emit, row);
        luBatchedCase(report, item.first, item.second, true, emit, row);
    }
}

} // namespace bitflag_bench
