// Method D's SpMV job (the Dense regions tab's "SpMV on the GPU" page) on both encodings: a binary
// one checked for equality with pattern-CSR SpMV, a valued one within each row's rounding bound; the
// bytes of each storage add up; bad requests are refused. The CUDA and cuSPARSE backends run where a
// device is present (on the H100) and report "did not run" with the reason where not.
#include "bandedvalued.h"
#include "core/hybridspmvjob.h"

#include "spyglass/backend.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"

#include <QSignalSpy>
#include <QtTest>

#include <limits>


using namespace spyglass;
using namespace spyglass::app;

namespace {

// The banded test matrix in tenths: inexact in binary, so the backends' sums round differently and the
// bound, not equality, decides.
CsrMatrix<double> bandPlusScattered(Index n, Index half, double fill, int scattered, unsigned seed) {
    CsrMatrix<double> a = cooToCsr(bandedtesting::bandPlusScattered(n, half, fill, scattered, seed));
    for (double& v : a.values) v *= 0.1;
    return a;
}

DenseRegion mainBand(Index n, Index half) { return bandedtesting::mainBand(n, n, half); }

QVector<HybridSpmvKernel> everyBackend() {
    return {HybridSpmvKernel::CpuHybrid, HybridSpmvKernel::CudaHybrid, HybridSpmvKernel::CusparseCsr};
}

// Every run that could run agrees; GPU runs did not run exactly when there is no device.
void checkRuns(const HybridSpmvResult& result, int repeats) {
    QCOMPARE(result.runs.size(), 3);
    const bool gpu = cudaDeviceInfo().present;
    for (const HybridSpmvRun& run : result.runs) {
        if (run.backend != HybridSpmvKernel::CpuHybrid && !gpu) {
            QVERIFY2(!run.error.isEmpty(), qPrintable(run.name));
            continue;
        }
        QVERIFY2(run.error.isEmpty(), qPrintable(run.name + QStringLiteral(": ") + run.error));
        QVERIFY2(run.matches, qPrintable(QStringLiteral("%1: max |error| %2, %3 of the bound")
                                             .arg(run.name).arg(run.maxAbsError).arg(run.errorOverBound)));
        QCOMPARE(run.timing.repeats, repeats);
        QVERIFY(run.timing.medianMs >= 0 && run.timing.minMs <= run.timing.medianMs && run.timing.medianMs <= run.timing.maxMs);
        QCOMPARE(run.timing.uploadMs >= 0, run.backend != HybridSpmvKernel::CpuHybrid);
    }
}

} // namespace

class TestHybridSpmvJob : public QObject {
    Q_OBJECT

private slots:
    void binaryEncodingEqualsPatternCsr() {
        const CsrMatrix<double> a = bandPlusScattered(700, 4, 0.9, 300, 3);
        const BinaryPattern pattern = patternOfCsr(a);
        HybridSpmvRequest request;
        request.pattern = std::make_shared<const BinaryPattern>(pattern);
        request.hybrid = std::make_shared<const HybridBinaryMatrix>(encodeHybrid(pattern, {mainBand(700, 4)}));
        QVERIFY(!request.hybrid->csrFallback);
        request.backends = everyBackend();
        request.warmup = 1;
        request.repeats = 3;
        const HybridSpmvResult result = runHybridSpmv(request);
        checkRuns(result, 3);
        QVERIFY(!result.bytes.valued);
        QCOMPARE(result.runs[0].maxAbsError, 0.0);  // integer x: exact
        QCOMPARE(result.bytes.hybrid, result.bytes.regionHeaders + result.bytes.zeroRowPointers + result.bytes.zeroOffsets +
                                          result.bytes.residual);
        QCOMPARE(result.bytes.denseValues, 0);
    }

    void valuedEncodingAgreesWithinRounding() {
        const CsrMatrix<double> a = bandPlusScattered(900, 3, 0.95, 400, 5);
        HybridSpmvRequest request;
        request.valued = std::make_shared<const HybridValuedMatrix<double>>(encodeHybridValued(a, {mainBand(900, 3)}));
        QCOMPARE(request.valued->blocks.size(), std::size_t(1));
        request.backends = everyBackend();
        request.warmup = 1;
        request.repeats = 4;
        const HybridSpmvResult result = runHybridSpmv(request);
        checkRuns(result, 4);
        QCOMPARE(result.rows, qint64(900));
        QCOMPARE(result.nnz, qint64(a.nnz()));
        const HybridBytes& b = result.bytes;
        QVERIFY(b.valued);
        QCOMPARE(b.denseValues, qint64(sizeof(double)) * request.valued->blocks[0].region.cells());
        QCOMPARE(b.hybrid, b.regionHeaders + b.denseValues + b.residual);
        QVERIFY(b.regionHeaders > 0 && b.residual > 0);
        QCOMPARE(b.csr, qint64(valuedCsrBytes(900, a.nnz(), sizeof(double))));
        QVERIFY2(b.hybrid < b.csr, "a 95 %-full band stored densely takes fewer bytes than CSR");
        QCOMPARE(b.zeroOffsets + b.zeroRowPointers, 0);
    }

    // A row meeting an inf gives inf (or NaN, where x is 0) in the reference and in the kernel alike:
    // that is agreement, and the other rows are still checked against their bounds.
    void anInfiniteValueAgreesWithTheReference() {
        CsrMatrix<double> a = bandPlusScattered(400, 2, 0.9, 40, 12);
        a.values[a.values.size() / 2] = std::numeric_limits<double>::infinity();
        HybridSpmvRequest request;
        request.valued = std::make_shared<const HybridValuedMatrix<double>>(encodeHybridValued(a, {mainBand(400, 2)}));
        request.backends = {HybridSpmvKernel::CpuHybrid};
        request.warmup = 0;
        request.repeats = 1;
        const HybridSpmvRun run = runHybridSpmv(request).runs.first();
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        QVERIFY2(run.matches, qPrintable(QStringLiteral("%1 of the bound").arg(run.errorOverBound)));
    }

    void badRequestsAreRefused() {
        HybridSpmvRequest none;
        none.backends = {HybridSpmvKernel::CpuHybrid};
        QVERIFY_THROWS_EXCEPTION(InputError, runHybridSpmv(none));
        const CsrMatrix<double> a = bandPlusScattered(50, 1, 1.0, 0, 1);
        HybridSpmvRequest both = none;
        both.valued = std::make_shared<const HybridValuedMatrix<double>>(encodeHybridValued(a, {}));
        BinaryPattern pattern;
        pattern.rows = pattern.cols = 50;
        pattern.rowPtr.assign(51, 0);
        both.pattern = std::make_shared<const BinaryPattern>(pattern);
        both.hybrid = std::make_shared<const HybridBinaryMatrix>(encodeHybrid(pattern, {}));
        QVERIFY_THROWS_EXCEPTION(InputError, runHybridSpmv(both));
    }

    void jobDeliversTheValuedRunOffTheCallingThread() {
        const CsrMatrix<double> a = bandPlusScattered(300, 2, 0.9, 50, 8);
        HybridSpmvRequest request;
        request.valued = std::make_shared<const HybridValuedMatrix<double>>(encodeHybridValued(a, {mainBand(300, 2)}));
        request.backends = {HybridSpmvKernel::CpuHybrid};
        request.warmup = 0;
        request.repeats = 2;
        HybridSpmvJob job;
        QSignalSpy finished(&job, &HybridSpmvJob::finished);
        QSignalSpy failed(&job, &HybridSpmvJob::failed);
        QVERIFY(job.start(request));
        QVERIFY(finished.wait(30000));
        QCOMPARE(failed.count(), 0);
        const auto result = finished.at(0).at(0).value<HybridSpmvResult>();
        QCOMPARE(result.runs.size(), 1);
        QVERIFY(result.runs[0].matches);
    }
};

QTEST_GUILESS_MAIN(TestHybridSpmvJob)
#include "tst_hybridspmvjob.moc"
