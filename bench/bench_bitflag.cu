// Method A benchmark: bit-flag storage against CSR on the same data in one run.
//   random access: 10^7 random (i,j) queries, bit-flag popcount with and without prefix counts vs a
//                  CSR binary-search kernel (rows of >= 256 nonzeros);
//   add:           bit-flag add (count, scan, fill) vs cuSPARSE csrgeam2;
//   multiply:      bit-flag multiply (symbolic, scan, numeric) vs cuSPARSE generic SpGEMM;
//   LU:            the seed's one-block shared-memory LU vs the CPU reference.
// Densities 1 % to 50 %, fp32, integer values (so both sides must agree exactly).
//   bench_bitflag [--quick] [--out STEM]   (STEM.md and STEM.json are written)
#include "cuda/bitflag_device.h"
#include "cuda/event_timer.h"
#include "spyglass/backend.h"
#include "spyglass/benchmark.h"
#include "spyglass/bitflag.h"
#include "spyglass/convert.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>

using namespace spyglass;

namespace {

// Each row gets its nonzeros by geometric gaps, values integers in [1, 9] with a random sign.
CooMatrix<float> randomCoo(Index rows, Index cols, double density, unsigned seed) {
    std::mt19937 rng(seed);
    std::geometric_distribution<int> gap(density);
    std::uniform_int_distribution<int> value(1, 9), sign(0, 1);
    CooMatrix<float> coo;
    coo.rows = rows;
    coo.cols = cols;
    for (Index i = 0; i < rows; ++i)
        for (long long j = gap(rng); j < cols; j += 1 + gap(rng)) {
            coo.rowIndex.push_back(i);
            coo.colIndex.push_back(Index(j));
            coo.values.push_back(float((sign(rng) ? 1 : -1) * value(rng)));
        }
    return coo;
}

std::string mb(double bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
    return text;
}

bench::Row row(const std::string& benchmark, const std::string& variant, bool baseline, const bench::TimingSummary& t,
               double bytes, double error, const std::string& note) {
    bench::Row r;
    r.benchmark = benchmark;
    r.variant = variant;
    r.isBaseline = baseline;
    r.time = t;
    r.bytes = bytes;
    r.error = error;
    r.note = note;
    return r;
}

void emit(bench::Report& report, const bench::Row& r) {
    report.print(r);
    report.add(r);
}

void randomAccess(bench::Report& report, bool quick) {
    const Index rows = quick ? 512 : 2048, cols = quick ? 8192 : 32768;
    const Count queries = quick ? 1000000 : 10000000;
    std::mt19937 rng(99);
    std::vector<Index> qi(queries), qj(queries);
    std::uniform_int_distribution<Index> ri(0, rows - 1), rj(0, cols - 1);
    for (Count q = 0; q < queries; ++q) {
        qi[q] = ri(rng);
        qj[q] = rj(rng);
    }
    cuda::DeviceBuffer<Index> dqi, dqj;
    dqi.upload(qi);
    dqj.upload(qj);
    cuda::DeviceBuffer<float> outCsr(queries), outFlag(queries);
    for (double density : {0.01, 0.05, 0.2, 0.5}) {
        const CooMatrix<float> coo = randomCoo(rows, cols, density, 7);
        const CsrMatrix<float> csr = cooToCsr(coo);
        BitFlagOptions options;
        options.prefixCounts = true;
        const BitFlagMatrix<float> m = encodeBitFlag(coo, options);
        const BitFlagStats stats = computeBitFlagStats(m);
        cuda::DeviceBitFlag<float> dm(m);
        cuda::DeviceCsr32 dcsr(csr);
        cuda::DeviceBuffer<Count> rowPtr;
        rowPtr.upload(csr.rowPtr);
        char name[128];
        std::snprintf(name, sizeof name, "get %lld queries %dx%d density %.0f%% (%.0f nnz/row)", (long long)queries, rows,
                      cols, density * 100, double(csr.nnz()) / rows);
        cuda::EventTimer timer;
        const auto csrTime = bench::measure([&] {
            timer.start();
            cuda::launchCsrGet(rows, rowPtr.data(), dcsr.colIndex.data(), dcsr.values.data(), dqi.data(), dqj.data(),
                               outCsr.data(), queries, nullptr);
            return double(timer.stopMilliseconds());
        });
        const std::vector<float> want = outCsr.toHost();
        emit(report, row(name, "CSR binary search", true, csrTime, double(queries) * 12, 0, "CSR " + mb(double(stats.csrBytes))));
        for (bool prefix : {true, false}) {
            const auto t = bench::measure([&] {
                timer.start();
                cuda::launchBitFlagGet(dm.view(), BitFlagOrder::RowMajor, prefix, dqi.data(), dqj.data(), outFlag.data(),
                                       queries, nullptr);
                return double(timer.stopMilliseconds());
            });
            const std::vector<float> got = outFlag.toHost();
            Count mismatches = 0;
            for (Count q = 0; q < queries; ++q) mismatches += got[q] != want[q];
            const double bytes = prefix ? double(stats.bitFlagBytes) : double(stats.bitFlagBytes - stats.prefixBytes);
            emit(report, row(name, prefix ? "bit-flag popcount + prefix counts" : "bit-flag popcount, no prefix", false, t,
                             double(queries) * 12, double(mismatches), "bit-flag " + mb(bytes) + ", mismatches in error"));
        }
    }
}

void addAndMultiply(bench::Report& report, bool quick) {
    cuda::EventTimer timer;
    cuda::DeviceBuffer<unsigned char> scratch;
    const Index addN = quick ? 1024 : 4096, mulN = quick ? 512 : 1024;
    for (double density : {0.01, 0.05, 0.2, 0.5}) {
        {
            const CooMatrix<float> ca = randomCoo(addN, addN, density, 1), cb = randomCoo(addN, addN, density, 2);
            const BitFlagMatrix<float> a = encodeBitFlag(ca), b = encodeBitFlag(cb);
            cuda::DeviceBitFlag<float> da(a), db(b), dc;
            cuda::DeviceCsr32 sa(cooToCsr(ca)), sb(cooToCsr(cb)), sc;
            char name[128];
            std::snprintf(name, sizeof name, "add %dx%d density %.0f%%", addN, addN, density * 100);
            const auto tv = bench::measure([&] {
                timer.start();
                cuda::cusparseCsrAdd(sa, sb, sc);
                return double(timer.stopMilliseconds());
            }, 2, 10);
            const double csrBytes = double(sa.nnz + sb.nnz + sc.nnz) * 8 + 3.0 * (addN + 1) * 4;
            emit(report, row(name, "cuSPARSE csrgeam2", true, tv, csrBytes, 0, "CSR in+out " + mb(csrBytes)));
            const auto tb = bench::measure([&] {
                timer.start();
                cuda::bitFlagAddDevice(da, db, 1.0f, dc, scratch, nullptr);
                return double(timer.stopMilliseconds());
            }, 2, 10);
            const bool same = decodeBitFlag(dc.download(BitFlagOrder::RowMajor, false)).values == sc.download().values;
            const double flagBytes = double(da.bytes(true) + db.bytes(true) + dc.bytes(true));
            emit(report, row(name, "bit-flag add", false, tb, flagBytes, same ? 0 : 1,
                             "bit-flag in+out " + mb(flagBytes) + (same ? ", equal to cuSPARSE" : ", DIFFERS from cuSPARSE")));
        }
        {
            const CooMatrix<float> ca = randomCoo(mulN, mulN, density, 3), cb = randomCoo(mulN, mulN, density, 4);
            BitFlagOptions colMajor;
            colMajor.order = BitFlagOrder::ColumnMajor;
            const BitFlagMatrix<float> a = encodeBitFlag(ca), b = encodeBitFlag(cb, colMajor);
            cuda::DeviceBitFlag<float> da(a), db(b), dc;
            cuda::DeviceCsr32 sa(cooToCsr(ca)), sb(cooToCsr(cb)), sc;
            char name[128];
            std::snprintf(name, sizeof name, "multiply %dx%d density %.0f%%", mulN, mulN, density * 100);
            const auto tv = bench::measure([&] {
                timer.start();
                cuda::cusparseCsrMultiply(sa, sb, sc);
                return double(timer.stopMilliseconds());
            }, 2, 10);
            const double csrBytes = double(sa.nnz + sb.nnz + sc.nnz) * 8 + 3.0 * (mulN + 1) * 4;
            emit(report, row(name, "cuSPARSE SpGEMM", true, tv, csrBytes, 0, "CSR in+out " + mb(csrBytes)));
            const auto tb = bench::measure([&] {
                timer.start();
                cuda::bitFlagMultiplyDevice(da, db, dc, scratch, nullptr);
                return double(timer.stopMilliseconds());
            }, 2, 10);
            const CsrMatrix<float> got = decodeBitFlag(dc.download(BitFlagOrder::RowMajor, false)), want = sc.download();
            const bool same = got.colIndex == want.colIndex && got.values == want.values;
            const double flagBytes = double(da.bytes(true) + db.bytes(true) + dc.bytes(true));
            emit(report, row(name, "bit-flag multiply", false, tb, flagBytes, same ? 0 : 1,
                             "bit-flag in+out " + mb(flagBytes) + (same ? ", equal to cuSPARSE" : ", DIFFERS from cuSPARSE")));
        }
    }
}

void lu(bench::Report& report) {
    cuda::EventTimer timer;
    for (Index n : {32, 64, 96}) {
        std::mt19937 rng(n);
        // Diagonally dominant, so no pivot is small: the method has no pivoting.
        CooMatrix<float> coo = randomCoo(n, n, 0.3, unsigned(n));
        for (Index i = 0; i < n; ++i) {
            coo.rowIndex.push_back(i);
            coo.colIndex.push_back(i);
            coo.values.push_back(float(10 * n));
        }
        const BitFlagMatrix<float> a = encodeBitFlag(coo);
        char name[64];
        std::snprintf(name, sizeof name, "LU %dx%d density 30%%", n, n);
        const auto tc = bench::measure([&] {
            const auto start = std::chrono::steady_clock::now();
            bitFlagLu(a);
            return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        }, 1, 5);
        emit(report, row(name, "CPU reference (dense Doolittle)", true, tc, double(n) * n * 4, 0, "incl. packing L, U"));
        cuda::DeviceBitFlag<float> da(a);
        cuda::DeviceBuffer<float> dense;
        float pivot = 0;
        const auto tg = bench::measure([&] {
            timer.start();
            cuda::bitFlagLuDevice(da, BitFlagOrder::RowMajor, defaultPivotTolerance<float>(n) * 10 * n, dense, &pivot);
            return double(timer.stopMilliseconds());
        });
        emit(report, row(name, "bit-flag shared-memory LU, 1 block", false, tg, double(n) * n * 4, 0,
                         "kernel + pivot flag readback; L, U packed on host"));
    }
}

} // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::string out = "bench/results/bitflag";
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--quick")) quick = true;
        else if (!std::strcmp(argv[i], "--out") && i + 1 < argc) out = argv[++i];
        else {
            std::fprintf(stderr, "usage: %s [--quick] [--out STEM]\n", argv[0]);
            return 2;
        }
    }
    try {
        const DeviceInfo device = cudaDeviceInfo();
        if (!device.present) {
            std::fprintf(stderr, "bench_bitflag: no CUDA device: %s\n", device.reason.c_str());
            return 1;
        }
        bench::Report report("Bit-flag storage (method A) against CSR and cuSPARSE", device.name);
        randomAccess(report, quick);
        addAndMultiply(report, quick);
        lu(report);
        report.write(out);
        std::printf("wrote %s.md and %s.json\n", out.c_str(), out.c_str());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bench_bitflag: %s\n", e.what());
        return 1;
    }
    return 0;
}
