// The complex paths of the Segmented DIA and Dense regions tabs' compute (app::buildSegmentedDiaLayout,
// app::runHybridDetection + app::runHybridSpmv) and of `spyglass-cli spmv` (app::computeSpmv), on
// complex matrices of the test set (young1c, a complex acoustics stencil; arrowc, a complex arrow):
// each product agrees with y = A x computed straight from the file's entries (complexoracle.h), not
// by the code under test; the valued hybrid kernel, the diagonal formats and cuSPARSE CSR multiply
// complex values on a GPU (checked where one is present, else each GPU row says there is no device);
// the containers, which hold real values, refuse complex ones naming why; and the oracle check itself
// flags a conjugated product.
#include "complexoracle.h"
#include "testmatrices.h"

#include "core/containerexport.h"
#include "core/hybriddetectionjob.h"
#include "core/hybridexport.h"
#include "core/hybridspmvjob.h"
#include "core/segdiajob.h"
#include "core/spmvrun.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace spyglass::app;
using complexoracle::directProduct;
using complexoracle::worstRelativeError;

namespace {

std::shared_ptr<const Matrix> readShared(const char* name) {
    return std::make_shared<const Matrix>(readMatrixMarket(sharedMatrix(name).toStdString()));
}

void addComplexMatrices() {
    QTest::addColumn<QString>("name");
    QTest::newRow("young1c") << QStringLiteral("young1c.mtx");
    QTest::newRow("arrowc") << QStringLiteral("arrowc.mtx");
}

// The product agrees with the oracle to 1e-12 (c128), and the same check flags conj(A) x.
void checkAgainstOracle(const Matrix& m, const std::vector<std::complex<double>>& x, const std::vector<std::complex<double>>& y,
                        const QString& what, double tolerance = 1e-12) {
    const double worst = worstRelativeError(y, directProduct(m, x));
    qInfo("%s: worst relative error vs the file's own product %.3g", qPrintable(what), worst);
    QVERIFY2(worst <= tolerance, qPrintable(QStringLiteral("%1: %2").arg(what).arg(worst)));
    const double conjugated = worstRelativeError(y, directProduct(m, x, true));
    QVERIFY2(conjugated > 1e-3, qPrintable(QStringLiteral("%1: a conjugated product would pass (%2)").arg(what).arg(conjugated)));
}

} // namespace

class TestComplexSpmvJobs : public QObject {
    Q_OBJECT
private slots:
    void segmentedDiaTabMultipliesComplexInC128_data() { addComplexMatrices(); }
    void segmentedDiaTabMultipliesComplexInC128() {
        QFETCH(QString, name);
        REQUIRE_TEST_DATA(sharedMatrix(qPrintable(name)));
        const auto matrix = readShared(qPrintable(name));
        QVERIFY(matrix->isComplex());
        for (bool merge : {true, false}) {  // segmented DIA and HDIA
            SegmentedDiaRequest request;
            request.matrix = matrix;
            request.threshold = 64;  // several segments on these small matrices
            request.merge = merge;
            request.spmvBackends = {SpmvBackend::Reference, SpmvBackend::Cuda, SpmvBackend::Cusparse};
            const SegmentedDiaLayout layout = buildSegmentedDiaLayout(request);
            QVERIFY(layout.isComplex());
            // The picture's layout is the complex one's structure.
            QCOMPARE(layout.format->segmentFirstRow, layout.complexFormat->segmentFirstRow);
            QCOMPARE(layout.format->offsets, layout.complexFormat->offsets);
            QCOMPARE(layout.stats.nonzeros, Count(matrix->expandedEntries()));
            QCOMPARE(layout.spmv.size(), 3);
            const SpmvRun& cpu = layout.spmv[0];
            QVERIFY2(cpu.error.isEmpty(), qPrintable(cpu.error));
            QVERIFY2(cpu.maxRelativeError <= 1e-14, qPrintable(QString::number(cpu.maxRelativeError)));  // against complex CSR
            checkAgainstOracle(*matrix, layout.complexX, cpu.complexY, name + (merge ? " segmented DIA" : " HDIA"));
            if (QTest::currentTestFailed()) return;
            // The GPU backends multiply c128 too where there is a device (else they say why not).
            for (int gpu : {1, 2}) {
                const SpmvRun& run = layout.spmv[gpu];
                if (!cudaDeviceInfo().present) {
                    QVERIFY2(!run.error.isEmpty() && run.complexY.empty(), qPrintable(run.error));
                    continue;
                }
                QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
                checkAgainstOracle(*matrix, layout.complexX, run.complexY, name + " " + run.name);
                if (QTest::currentTestFailed()) return;
            }
        }
    }

    void segmentedDiaContainerRefusesComplexNamingWhy() {
        const QString path = sharedMatrix("young1c.mtx");
        REQUIRE_TEST_DATA(path);
        SegmentedDiaRequest request;
        request.matrix = readShared("young1c.mtx");
        const SegmentedDiaLayout layout = buildSegmentedDiaLayout(request);
        try {
            segmentedDiaFieldFor(*request.matrix, *layout.format, "young1c.mtx");
            QFAIL("a complex matrix got a segmented-DIA container field");
        } catch (const InputError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.contains(QStringLiteral("young1c.mtx")) && what.contains(QStringLiteral("complex")) &&
                         what.contains(QStringLiteral("holds real")),
                     e.what());
        }
    }

    void denseRegionsTabEncodesComplexAndItsSpmvAgrees_data() { addComplexMatrices(); }
    void denseRegionsTabEncodesComplexAndItsSpmvAgrees() {
        QFETCH(QString, name);
        REQUIRE_TEST_DATA(sharedMatrix(qPrintable(name)));
        const auto matrix = readShared(qPrintable(name));
        HybridDetectionRequest detect;
        detect.matrix = matrix;
        detect.source = name;
        detect.keepPicture = false;
        detect.minFill = 0.3;
        const HybridDetectionResult detected = runHybridDetection(detect);
        QVERIFY(detected.complexValued && !detected.valued && !detected.hybrid);
        QCOMPARE(detected.field, Field::Complex);
        QVERIFY(detected.hasEncoding() && !detected.canExport());
        qInfo("%s: %d regions kept%s", qPrintable(name), int(detected.regions.size()),
              detected.csrFallback ? qPrintable(QStringLiteral(" (CSR fallback: %1)").arg(detected.fallbackReason)) : "");

        HybridSpmvRequest spmv;
        spmv.complexValued = detected.complexValued;
        spmv.backends = {HybridSpmvKernel::CpuHybrid, HybridSpmvKernel::CudaHybrid, HybridSpmvKernel::CusparseCsr};
        spmv.warmup = 0;
        spmv.repeats = 2;
        const HybridSpmvResult result = runHybridSpmv(spmv);
        QCOMPARE(result.runs.size(), 3);
        const HybridSpmvRun& cpu = result.runs[0];
        QVERIFY2(cpu.error.isEmpty(), qPrintable(cpu.error));
        QVERIFY2(cpu.matches && cpu.errorOverBound <= 1.0, qPrintable(QString::number(cpu.errorOverBound)));
        checkAgainstOracle(*matrix, result.complexX, cpu.complexY, name + " valued hybrid");
        // The CUDA hybrid kernel and cuSPARSE's complex CSR multiply c128 where there is a device, timed
        // by CUDA events like the real rows and checked against complex CSR within each row's rounding
        // bound and against the file's own product; without one each row says so.
        for (int gpu : {1, 2}) {
            const HybridSpmvRun& run = result.runs[gpu];
            if (!cudaDeviceInfo().present) {
                QVERIFY2(run.error.contains(QStringLiteral("CUDA")) && run.complexY.empty(), qPrintable(run.name + ": " + run.error));
                continue;
            }
            QVERIFY2(run.error.isEmpty(), qPrintable(run.name + ": " + run.error));
            QVERIFY2(run.matches && run.errorOverBound <= 1.0,
                     qPrintable(QStringLiteral("%1: %2 of the rounding bound").arg(run.name).arg(run.errorOverBound)));
            QCOMPARE(run.timing.clock, TimingClock::CudaEvents);
            QCOMPARE(run.timing.repeats, spmv.repeats);
            QVERIFY(run.timing.uploadMs >= 0 && run.bytesMoved > 0);
            checkAgainstOracle(*matrix, result.complexX, run.complexY, name + " " + run.name);
            if (QTest::currentTestFailed()) return;
        }
        QVERIFY(result.bytes.valued && result.bytes.complexValues);
        QCOMPARE(result.bytes.hybrid, detected.hybridBytes);

        // The hybrid container holds real values or a pattern: the export says so, and writes nothing.
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("complex.spy"));
        try {
            writeHybridContainerExport(out, detected, "test");
            QFAIL("a complex encoding was exported");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("complex values")), e.what());
        }
        QVERIFY(!QFileInfo::exists(out));
    }

    void spmvRunMultipliesComplexInEveryFormatOnTheCpu_data() { addComplexMatrices(); }
    void spmvRunMultipliesComplexInEveryFormatOnTheCpu() {
        QFETCH(QString, name);
        REQUIRE_TEST_DATA(sharedMatrix(qPrintable(name)));
        SpmvRunRequest request;
        request.matrix = readShared(qPrintable(name));
        request.source = name;
        request.threshold = 64;
        requireSpmvInput(*request.matrix, name);  // complex is no longer refused
        const auto x = spmvInputVector<std::complex<double>>(QStringLiteral("random"), 3, request.matrix->cols);
        QVERIFY(std::any_of(x.begin(), x.end(), [](const auto& v) { return v.imag() != 0; }));
        const std::pair<SpmvFormat, const char*> formats[] = {{SpmvFormat::Csr, "csr"}, {SpmvFormat::Dia, "dia"}, {SpmvFormat::Hdia, "hdia"},
                                                             {SpmvFormat::SegmentedDia, "segdia"}, {SpmvFormat::Hybrid, "hybrid"}};
        for (const auto& [format, formatName] : formats) {
            request.format = format;
            request.runner = SpmvRunner::Cpu;
            checkAgainstOracle(*request.matrix, x, computeSpmv(request, x), name + " " + formatName + " c128");
            if (QTest::currentTestFailed()) return;
            // c64 within single precision's rounding.
            const auto x64 = spmvInputVector<std::complex<float>>(QStringLiteral("random"), 3, request.matrix->cols);
            const auto y64 = computeSpmv(request, x64);
            checkAgainstOracle(*request.matrix, std::vector<std::complex<double>>(x64.begin(), x64.end()),
                               std::vector<std::complex<double>>(y64.begin(), y64.end()), name + " " + formatName + " c64", 1e-5);
            if (QTest::currentTestFailed()) return;
            // On a GPU runner the diagonal formats, the valued hybrid and cuSPARSE CSR multiply complex
            // values (or report the missing device).
            request.runner = format == SpmvFormat::Csr ? SpmvRunner::Cusparse : SpmvRunner::Cuda;
            try {
                checkAgainstOracle(*request.matrix, x, computeSpmv(request, x), name + " " + formatName + " c128 on the GPU");
                if (QTest::currentTestFailed()) return;
            } catch (const BackendUnavailableError&) {
                // No CUDA device here: the GPU result is checked by tst_cuda_complexspmv where there is one.
            }
        }
    }
};

QTEST_APPLESS_MAIN(TestComplexSpmvJobs)
#include "tst_complexspmvjobs.moc"
