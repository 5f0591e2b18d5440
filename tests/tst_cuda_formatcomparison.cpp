// The format comparison on the GPU: every row runs on its device backend (cuSPARSE for CSR, CUDA for
// ours) and agrees with the reference; a GPU too small (the memory cap) turns rows into "GPU out of
// memory" reasons without leaking device memory, and the pick is still the fastest agreeing row.
#include "complexoracle.h"
#include "testmatrices.h"

#include "spyglass/backend.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/devicememory.h"
#include "spyglass/formatcomparison.h"
#include "spyglass/segdia_generators.h"
#include "spyglass/matrixmarket.h"

#include <QtTest>

#include <complex>
#include <random>

using namespace spyglass;

namespace {

template <typename T>
std::vector<T> randomX(Index n) {
    std::mt19937 rng(6);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<T> x(static_cast<std::size_t>(n));
    for (T& v : x) v = T(u(rng));
    return x;
}

void checkRows(const FormatComparison& c, const QString& what) {
    QVERIFY(c.onGpu);
    QVERIFY(c.copyBandwidthGBs > 0);
    int fastest = -1;
    for (std::size_t i = 0; i < c.results.size(); ++i) {
        const FormatRow& row = c.results[i];
        QCOMPARE(row.backend, std::string(row.format == SpmvFormat::Csr ? "cuSPARSE" : "CUDA"));
        if (!row.applicable) {
            QVERIFY2(!row.reason.empty(), qPrintable(what + ": " + QString::fromStdString(row.name)));
            continue;
        }
        QVERIFY2(row.agrees, qPrintable(QStringLiteral("%1: %2 at %3 x its bound").arg(what).arg(QString::fromStdString(row.name)).arg(row.errorRatio)));
        QVERIFY(row.spmv.medianMs > 0 && row.uploadMs > 0 && row.bytes > 0);
        // The engine's measurement: events, the first launch timed apart (never inside the median).
        QCOMPARE(row.spmv.clock, TimingClock::CudaEvents);
        QVERIFY2(row.spmv.coldMs > 0, qPrintable(what + ": no cold call for " + QString::fromStdString(row.name)));
        QVERIFY(row.spmv.cacheFlushed);
        if (fastest < 0 || row.spmv.medianMs < c.results[std::size_t(fastest)].spmv.medianMs) fastest = int(i);
    }
    QCOMPARE(c.pick, fastest);
}

} // namespace

class TestCudaFormatComparison : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (!cudaDeviceInfo().present) QSKIP(cudaDeviceInfo().reason.c_str());
    }

    void everyRowRunsOnTheDeviceAndAgrees() {
        FormatComparisonOptions o;
        o.repeats = 5;
        o.findDenseRegions = [](const BinaryPattern& p) { return detectDenseRegions(p).regions; };
        const Matrix banded = fromCsr(cooToCsr(generators::cfdLike(40, 40, 40, 4, 64, 2)));
        checkRows(compareSpmvFormats(banded, randomX<float>(banded.cols), o), "cfd-like f32");
        checkRows(compareSpmvFormats(banded, randomX<double>(banded.cols), o), "cfd-like f64");
        for (const char* name : {"pushpull.mtx", "watt_2.mtx", "west0479.mtx", "karate.mtx", "lp_afiro.mtx", "bcsstk13.mtx"}) {
            const Matrix m = readMatrixMarket(sharedMatrix(name).toStdString());
            const FormatComparison c = compareSpmvFormats(m, randomX<float>(m.cols), o);
            checkRows(c, QString::fromLatin1(name));
            // Method D runs on every real matrix: the binary encoding or the valued one.
            const FormatRow& hybrid = c.results[m.isBinary() ? 5 : 6];
            QVERIFY2(hybrid.applicable, hybrid.reason.c_str());
            QCOMPARE(hybrid.format, m.isBinary() ? SpmvFormat::HybridBinary : SpmvFormat::HybridValued);
            QVERIFY(c.results[7].applicable);  // bit flags of these sizes fit
        }
    }

    void complexMatricesRankTheFormatsWhoseKernelsTakeComplexValues() {
        // young1c (a complex 5-point stencil): cuSPARSE CSR, our diagonal kernels and the valued hybrid
        // run in c64 and c128 and agree with the complex reference; bit flags say by name why they
        // have no row (they store real values), and the pick is among the rows that ran.
        const QString path = sharedMatrix("young1c.mtx");
        REQUIRE_TEST_DATA(path);
        const Matrix m = readMatrixMarket(path.toStdString());
        FormatComparisonOptions o;
        o.repeats = 5;
        o.findDenseRegions = [](const BinaryPattern& p) { return detectDenseRegions(p).regions; };
        const auto complexX = [&](auto zero) { return complexoracle::randomComplexX<decltype(zero)>(m.cols, 8); };
        for (const FormatComparison& c : {compareSpmvFormats(m, complexX(std::complex<float>{}), o),
                                          compareSpmvFormats(m, complexX(std::complex<double>{}), o)}) {
            const QString what = QStringLiteral("young1c ") + QString::fromStdString(c.precision);
            checkRows(c, what);
            for (const FormatRow& row : c.results) {
                const bool complexKernels = row.format == SpmvFormat::Csr || row.format == SpmvFormat::Dia ||
                                            row.format == SpmvFormat::Hdia || row.format == SpmvFormat::SegmentedDia ||
                                            row.format == SpmvFormat::SegmentedDiaNoRemainder ||
                                            row.format == SpmvFormat::HybridValued;
                QVERIFY2(row.applicable == complexKernels, qPrintable(what + ": " + QString::fromStdString(row.name + ": " + row.reason)));
                if (!complexKernels && row.format != SpmvFormat::HybridBinary)
                    QVERIFY2(row.reason.find("real values") != std::string::npos, qPrintable(what + ": " + QString::fromStdString(row.reason)));
            }
            QVERIFY2(c.pick >= 0, qPrintable(what + ": no row agreed"));
        }
    }

    void aSmallGpuGivesOutOfMemoryReasonsAndLeaksNothing() {
        const Matrix m = fromCsr(cooToCsr(generators::laplacian2d(600, 600)));
        const std::size_t before = deviceMemoryInUse();
        // 360 000 rows, fp64: x and y 5.8 MB; the 5-diagonal DIA kinds ~14.4 MB more fit under 24 MiB,
        // cuSPARSE CSR (~23 MB: 32-bit row pointers and columns, fp64 values) does not.
        setDeviceMemoryCap(std::size_t(24) << 20);
        FormatComparison c;
        try {
            c = compareSpmvFormats(m, randomX<double>(m.cols), {});
        } catch (...) {
            setDeviceMemoryCap(0);
            throw;
        }
        setDeviceMemoryCap(0);
        QCOMPARE(deviceMemoryInUse(), before);
        int outOfMemory = 0;
        for (const FormatRow& row : c.results)
            if (!row.applicable && row.reason.rfind("GPU out of memory: ", 0) == 0) ++outOfMemory;
        QVERIFY2(outOfMemory >= 1, "the cap should stop at least one format");
        QVERIFY(!c.results[0].applicable);  // CSR, the largest here
        QVERIFY(c.pick >= 0);
        checkRows(c, "capped");
    }
};

QTEST_GUILESS_MAIN(TestCudaFormatComparison)
#include "tst_cuda_formatcomparison.moc"
