// Method B on the GPU: every CUDA SpMV (segmented DIA, HDIA, plain DIA, cuSPARSE CSR) matches the CPU
// reference in fp32 and fp64, within the bound derived from precision and row length. Skips without a device.
#include "segdia_testing.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/matrixgenerators_dia.h"
#include "spyglass/segmenteddia.h"
#include "spyglass/spmv.h"

#include <QtTest>

using namespace spyglass;
using namespace segdia_testing;

namespace {

template <typename T>
void checkAllFormats(const CooMatrix<double>& coo64, const QString& what) {
    const auto coo = castCoo<T>(coo64);
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
        const auto seg = buildSegmentedDia(coo, {threshold, true});
        expect(spmvCuda(seg, x), "segdia");
        expect(spmvCuda(buildHdia(coo, threshold), x), "hdia");
    }
    try {
        expect(spmvCuda(buildDia(coo, 50'000'000), x), "dia");
    } catch (const OutOfMemoryError&) {
        // plain DIA of a scattered matrix does not fit: its known weakness, nothing to compare
    }
    expect(spmvCusparse(csr, x), "cusparse");
}

} // namespace

class TestCudaSegmentedDia : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (!cudaDeviceInfo().present) QSKIP(cudaDeviceInfo().reason.c_str());
    }

    void cudaSpmvMatchesReferenceOnSharedMatrices() {
        for (const QString& name : realMatrixFiles()) {
            const auto matrix = readMatrixMarket(QDir(matricesDir()).filePath(name).toStdString());
            const auto coo = canonicalCoo<double>(matrix);
            checkAllFormats<float>(coo, name);
            checkAllFormats<double>(coo, name);
        }
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
        QCOMPARE(spmvCuda(seg, x), spmvReference(seg, x));
    }

    void emptyShapesWork() {
        CooMatrix<float> none;
        none.rows = 5;
        none.cols = 3;
        QCOMPARE(spmvCuda(buildSegmentedDia(none), std::vector<float>(3, 1.0f)), std::vector<float>(5, 0.0f));
        QCOMPARE(spmvCusparse(cooToCsr(none), std::vector<float>(3, 1.0f)), std::vector<float>(5, 0.0f));
        none.rows = 0;
        QVERIFY(spmvCuda(buildSegmentedDia(none), std::vector<float>(3, 1.0f)).empty());
    }
};

QTEST_GUILESS_MAIN(TestCudaSegmentedDia)
#include "tst_cuda_segdia.moc"
