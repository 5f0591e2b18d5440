// Method B on the GPU: every CUDA SpMV (segmented DIA, HDIA, plain DIA, cuSPARSE CSR) matches the CPU
// reference in fp32 and fp64, within the bound derived from precision and row length. Skips without a device.
#include "segdia_testing.h"

#include "spyglass/backend.h"
#if defined(SPYGLASS_TESTS_HAVE_CUDA)
#include "spyglass/cuda/segdia_device_api.h"
#endif
#include "spyglass/error.h"
#include "spyglass/segdia_generators.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"

#include <QtTest>

using namespace spyglass;
using namespace segdia_testing;

namespace {

template <typename T>
void checkAllFormats(const CooMatrix<double>& coo64, const QString& what) {
    const auto coo = convertValues<T>(coo64);
    const auto csr = cooToCsr(coo);
    const auto x = randomVector<T>(static_cast<std::size_t>(coo.cols), 23);
    const auto want = spmvReference(csr, x);
    const auto bound = rowErrorBounds(csr, x);
    const auto expect = [&](const std::vector<T>& got, const char* format) {
        const std::string problem = compareRows(got, want, bound);
        QVERIFY2(problem.empty(), qPrintable(what + " " + format + (sizeof(T) == 4 ? " f32: " : " f64: ") +
                                             QString::fromStdString(problem)));
    };
    for (Index threshold : {Index(1), Index(37), Index(512), Index(4096)}) {
        // The CSR remainder forced off (the seed's pure DIA), by the byte rule, and forced on for every
        // nonzero (no DIA part: the sub-warp path alone, widths from the rows' mean length).
        expect(spmv(buildSegmentedDia(coo, {threshold, true, SegmentedDiaRemainder::Off}), x, {SpmvBackend::Cuda}), "segdia off");
        expect(spmv(buildSegmentedDia(coo, {threshold, true, SegmentedDiaRemainder::Auto}), x, {SpmvBackend::Cuda}), "segdia auto");
        expect(spmv(buildSegmentedDia(coo, {threshold, true, SegmentedDiaRemainder::All}), x, {SpmvBackend::Cuda}), "segdia all");
        expect(spmv(buildHdia(coo, threshold), x, {SpmvBackend::Cuda}), "hdia");
    }
    try {
        expect(spmv(buildDia(coo, 50'000'000), x, {SpmvBackend::Cuda}), "dia");
    } catch (const OutOfMemoryError&) {
        // plain DIA of a scattered matrix does not fit: its known weakness, nothing to compare
    }
    expect(spmv(csr, x, {SpmvBackend::Cusparse}), "cusparse");
}

} // namespace

class TestCudaSegmentedDia : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (!cudaDeviceInfo().present) QSKIP(cudaDeviceInfo().reason.c_str());
    }

    void cudaSpmvMatchesReferenceOnSharedMatrices() {
        int tested = 0;
        for (const QString& name : realMatrixFiles()) {
            const auto matrix = readMatrixMarket(QDir(matricesDir()).filePath(name).toStdString());
            const auto coo = canonicalCoo<double>(matrix);
            checkAllFormats<float>(coo, name);
            checkAllFormats<double>(coo, name);
            ++tested;
        }
        qInfo("%d shared real matrices: every CUDA format matches the reference", tested);
        QVERIFY2(tested >= kSharedRealMatrices, qPrintable(QStringLiteral("tested %1 shared real matrices in %2, expected at least %3")
                                                               .arg(tested).arg(matricesDir()).arg(kSharedRealMatrices)));
    }

    void cudaSpmvMatchesReferenceOnGeneratedMatrices() {
        checkAllFormats<float>(generators::laplacian2d(301, 257), "laplacian2d");
        checkAllFormats<double>(generators::laplacian3d(41, 37, 29), "laplacian3d");
        checkAllFormats<float>(generators::stencil27(33, 31, 29), "stencil27");
        checkAllFormats<double>(generators::cfdLike(47, 43, 41, 8, 64, 3), "cfdLike");
        checkAllFormats<float>(generators::cfdLike(47, 43, 41, 8, 64, 3), "cfdLike");
        checkAllFormats<double>(generators::randomBanded(1001, 777, 15, 0.6, 200, 9), "randomBanded");
    }

    void integerStencilIsExactOnTheDevice() {
        const auto coo = generators::laplacian2d(513, 511);
        std::vector<double> x(static_cast<std::size_t>(coo.cols));
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(int(i % 11) - 5);
        const auto seg = buildSegmentedDia(coo);
        QCOMPARE(spmv(seg, x, {SpmvBackend::Cuda}), spmvReference(seg, x));
        const auto all = buildSegmentedDia(coo, {1000, true, SegmentedDiaRemainder::All});  // rows 1000 .. 1999 etc.: not multiples of 4
        QCOMPARE(spmv(all, x, {SpmvBackend::Cuda}), spmvReference(seg, x));
    }

    void remainderOnRealBandedMatricesMatchesTheReference() {
        // The two matrices the remainder was made for, tiled past one segment so that segments start
        // mid-tile (1856 and 1024 rows against 1000-row segments: the scalar path) and at 1024 (vector).
        for (const char* file : {"watt_2.mtx", "n1024-l1.mtx"}) {
            const auto block = canonicalCoo<double>(readMatrixMarket(QDir(matricesDir()).filePath(file).toStdString()));
            const auto tiled = generators::tiledAlongDiagonal(block, 5);
            for (Index threshold : {Index(1000), Index(1024)}) {
                const auto f32 = buildSegmentedDia(convertValues<float>(tiled), {threshold, true, SegmentedDiaRemainder::Auto});
                QVERIFY2(!f32.remainderValues.empty(), file);
                const auto x32 = randomVector<float>(static_cast<std::size_t>(tiled.cols), 5);
                const auto csr32 = cooToCsr(convertValues<float>(tiled));
                const std::string p32 = compareRows(spmv(f32, x32, {SpmvBackend::Cuda}), spmvReference(f32, x32), rowErrorBounds(csr32, x32));
                QVERIFY2(p32.empty(), qPrintable(QString(file) + " f32: " + QString::fromStdString(p32)));
                const auto f64 = buildSegmentedDia(tiled, {threshold, true, SegmentedDiaRemainder::Auto});
                const auto x64 = randomVector<double>(static_cast<std::size_t>(tiled.cols), 6);
                const auto csr64 = cooToCsr(tiled);
                const std::string p64 = compareRows(spmv(f64, x64, {SpmvBackend::Cuda}), spmvReference(f64, x64), rowErrorBounds(csr64, x64));
                QVERIFY2(p64.empty(), qPrintable(QString(file) + " f64: " + QString::fromStdString(p64)));
            }
        }
    }

    void remainderKernelsAgreeOnEveryKindOfRow() {
        // Rows of segments with and without diagonals, empty rows, rows longer than one row block, with
        // the band kept (Auto) and with every nonzero in the remainder (All), in each remainder kernel.
        const auto coo64 = mixedRemainderMatrix();
        const auto check = [&](auto zero) {
            using T = decltype(zero);
            const auto coo = convertValues<T>(coo64);
            const auto csr = cooToCsr(coo);
            const auto x = randomVector<T>(static_cast<std::size_t>(coo.cols), 41);
            const auto want = spmvReference(csr, x);
            const auto bound = rowErrorBounds(csr, x);
            for (SegmentedDiaRemainder policy : {SegmentedDiaRemainder::Auto, SegmentedDiaRemainder::All}) {
                const auto m = buildSegmentedDia(coo, {256, true, policy});
                QVERIFY(!m.remainderValues.empty());
                for (auto kernel : {SegmentedDiaRemainderKernel::Automatic, SegmentedDiaRemainderKernel::RowBlocks,
                                    SegmentedDiaRemainderKernel::Owners, SegmentedDiaRemainderKernel::SubWarps}) {
                    for (auto loads : {SegmentedDiaLoads::Vector16, SegmentedDiaLoads::Scalar}) {
                        SpmvOptions options{SpmvBackend::Cuda};
                        options.variant.loads = loads;
                        options.variant.remainder = kernel;
                        const std::string problem = compareRows(spmv(m, x, options), want, bound);
                        QVERIFY2(problem.empty(), qPrintable(QStringLiteral("%1 bytes, policy %2, %3, loads %4: %5")
                                                                 .arg(sizeof(T)).arg(toString(policy)).arg(toString(kernel))
                                                                 .arg(int(loads)).arg(QString::fromStdString(problem))));
                    }
                }
            }
        };
        check(0.0f);
        if (QTest::currentTestFailed()) return;
        check(0.0);
    }

    // The vector kernel reads x as aligned 16-byte vectors, shifted by each diagonal's offset mod the
    // lanes (loadVectorOfX): diagonals at every shift, columns past a multiple of 4 (the last vectors
    // would leave x: lane-by-lane loads there), and x itself off 16-byte alignment (lane by lane
    // throughout, through the device API), against the reference, with vector and scalar loads.
    void vectorLoadsOfXAgreeAtEveryShiftAndEdge() {
        const auto check = [&](auto zero) {
            using T = decltype(zero);
            CooMatrix<T> coo;
            coo.rows = 1024;
            coo.cols = 1027;
            const auto v = randomVector<T>(std::size_t(coo.rows) * 16, 77);
            std::size_t next = 0;
            for (Index offset : {-7, -6, -5, -3, -2, -1, 0, 1, 2, 3, 5, 6, 1021})
                for (Index i = 0; i < coo.rows; ++i)
                    if (i + offset >= 0 && i + offset < coo.cols) {
                        coo.rowIndex.push_back(i);
                        coo.colIndex.push_back(i + offset);
                        coo.values.push_back(v[next++]);
                    }
            const auto csr = cooToCsr(coo);
            const auto m = buildSegmentedDia(coo, {256, true, SegmentedDiaRemainder::Off});
            const auto x = randomVector<T>(std::size_t(coo.cols), 78);
            const auto want = spmvReference(csr, x);
            const auto bound = rowErrorBounds(csr, x);
            const auto expect = [&](const std::vector<T>& got, const QString& what) {
                const std::string problem = compareRows(got, want, bound);
                QVERIFY2(problem.empty(), qPrintable(QStringLiteral("%1 bytes, %2: %3").arg(sizeof(T)).arg(what)
                                                         .arg(QString::fromStdString(problem))));
            };
            for (auto loads : {SegmentedDiaLoads::Vector16, SegmentedDiaLoads::Scalar}) {
                SpmvOptions options{SpmvBackend::Cuda};
                options.variant.loads = loads;
                expect(spmv(m, x, options), QStringLiteral("loads %1").arg(int(loads)));
            }
#if defined(SPYGLASS_TESTS_HAVE_CUDA)
            const cuda::DeviceSegmentedDia<T> device(m);
            for (std::size_t lead : {0, 1}) {  // x at the buffer's start (aligned), then one element on
                std::vector<T> padded(lead, T{});
                padded.insert(padded.end(), x.begin(), x.end());
                cuda::DeviceBuffer<T> xDevice, yDevice(std::size_t(coo.rows));
                xDevice.upload(padded);
                for (auto loads : {SegmentedDiaLoads::Vector16, SegmentedDiaLoads::Scalar}) {
                    SegmentedDiaVariant variant;
                    variant.loads = loads;
                    device.multiply(xDevice.data() + lead, yDevice.data(), nullptr, variant);
                    expect(yDevice.toHost(), QStringLiteral("device API, x %1 element(s) past the buffer's start, loads %2")
                                                 .arg(lead).arg(int(loads)));
                }
            }
#endif
        };
        check(0.0f);
        if (QTest::currentTestFailed()) return;
        check(0.0);
    }

    void emptyShapesWork() {
        CooMatrix<float> none;
        none.rows = 5;
        none.cols = 3;
        QCOMPARE(spmv(buildSegmentedDia(none), std::vector<float>(3, 1.0f), {SpmvBackend::Cuda}), std::vector<float>(5, 0.0f));
        QCOMPARE(spmv(cooToCsr(none), std::vector<float>(3, 1.0f), {SpmvBackend::Cusparse}), std::vector<float>(5, 0.0f));
        none.rows = 0;
        QVERIFY(spmv(buildSegmentedDia(none), std::vector<float>(3, 1.0f), {SpmvBackend::Cuda}).empty());
    }
};

QTEST_GUILESS_MAIN(TestCudaSegmentedDia)
#include "tst_cuda_segdia.moc"
