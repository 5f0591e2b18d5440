// The format comparison engine on the CPU reference: every format has a row in a fixed order, the
// rows that cannot run say why (slot and byte limits, not binary, no detector), every row that ran
// agrees with the CSR reference, the pick is the fastest agreeing row with its reason, and cancel and
// progress behave.
#include "bandedvalued.h"
#include "complexoracle.h"
#include "spyglass/error.h"
#include "spyglass/formatcomparison.h"
#include "spyglass/segdia_generators.h"
#include "spyglass/segdia_spmv.h"
#include "spyglass/convert.h"
#include "spyglass/matrixmarket.h"
#include "testmatrices.h"

#include <QtTest>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>

using namespace spyglass;

namespace {

Matrix fileOf(const CooMatrix<double>& coo) { return fromCsr(cooToCsr(coo)); }

std::vector<double> randomX(Index n) {
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> x(static_cast<std::size_t>(n));
    for (double& v : x) v = u(rng);
    return x;
}

using complexoracle::directProduct;
using complexoracle::randomComplexX;

FormatComparisonOptions cpuOptions() {
    FormatComparisonOptions o;
    o.useGpu = false;
    o.cpuWarmup = 0;
    o.cpuRepeats = 3;
    return o;
}

// A detector that reports the main band (offsets -half..half) as one region, whatever it is given.
std::function<std::vector<DenseRegion>(const BinaryPattern&)> mainBandDetector(Index half, int* calls = nullptr) {
    return [half, calls](const BinaryPattern& p) {
        if (calls) ++*calls;
        return std::vector<DenseRegion>{bandedtesting::mainBand(p.rows, p.cols, half)};
    };
}

const FormatRow& rowOf(const FormatComparison& c, SpmvFormat format) {
    for (const FormatRow& row : c.results)
        if (row.format == format) return row;
    throw std::logic_error("no row");
}

FormatRow measuredRow(SpmvFormat format, const char* name, double ms, bool agrees, std::size_t bytes) {
    FormatRow row;
    row.format = format;
    row.name = name;
    row.applicable = true;
    row.agrees = agrees;
    row.spmv.medianMs = ms;
    row.bytes = bytes;
    return row;
}

} // namespace

class TestFormatComparison : public QObject {
    Q_OBJECT

private slots:
    void everyFormatRunsOnTheCpuAndAgrees() {
        const Matrix m = fileOf(generators::randomBanded(3000, 3000, 9, 0.9, 40, 3));
        FormatComparisonOptions o = cpuOptions();
        o.findDenseRegions = mainBandDetector(4);
        const FormatComparison c = compareSpmvFormats(m, randomX(3000), o);
        QVERIFY(!c.onGpu);
        QVERIFY(QString::fromStdString(c.device).contains("GPU not used"));
        QCOMPARE(c.precision, std::string("f64"));
        QCOMPARE(c.results.size(), allSpmvFormats().size());
        QVERIFY(c.copyBandwidthGBs > 0);
        for (std::size_t i = 0; i < c.results.size(); ++i) {
            const FormatRow& row = c.results[i];
            QCOMPARE(row.format, allSpmvFormats()[i]);
            QCOMPARE(row.backend, std::string("CPU reference"));
            if (row.format == SpmvFormat::HybridBinary) {
                QVERIFY(!row.applicable);
                QVERIFY(row.reason.rfind("not binary", 0) == 0);
                continue;
            }
            QVERIFY2(row.applicable, row.reason.c_str());
            QVERIFY2(row.agrees && row.errorRatio <= 1, row.name.c_str());
            QVERIFY(row.bytes > 0 && row.bytesMoved > double(row.bytes));
            QCOMPARE(row.spmv.repeats, 3);
            // The CPU reference is timed by the engine's steady clock, with no cold call to keep apart.
            QCOMPARE(row.spmv.clock, TimingClock::SteadyClock);
            QVERIFY(row.spmv.coldMs < 0 && row.spmv.minMs <= row.spmv.medianMs && row.spmv.medianMs <= row.spmv.maxMs);
            QVERIFY(row.speedupOverCsr > 0 && row.bytesOverCsr > 0);
        }
        // 40 scattered entries: plain DIA pads each to a whole diagonal, segmented DIA does not.
        QVERIFY(rowOf(c, SpmvFormat::Dia).padding > rowOf(c, SpmvFormat::SegmentedDia).padding);
        QVERIFY(c.pick >= 0);
        for (const FormatRow& row : c.results)
            if (row.applicable) QVERIFY(c.picked()->spmv.medianMs <= row.spmv.medianMs);
        QVERIFY(c.pickReason.rfind(c.picked()->name + ":", 0) == 0);
    }

    void singlePrecisionAgreesWithinItsOwnBound() {
        const Matrix m = fileOf(generators::laplacian2d(60, 50));
        std::vector<float> x(3000);
        for (std::size_t j = 0; j < x.size(); ++j) x[j] = float(std::sin(double(j)));
        const FormatComparison c = compareSpmvFormats(m, x, cpuOptions());
        QCOMPARE(c.precision, std::string("f32"));
        for (const FormatRow& row : c.results)
            if (row.applicable) QVERIFY2(row.agrees, row.name.c_str());
        QCOMPARE(rowOf(c, SpmvFormat::Dia).padding, double(5 * 3000) / double(c.nonzeros));
    }

    void limitsGiveReasonsInsteadOfAllocations() {
        const Matrix m = fileOf(generators::randomBanded(2000, 2000, 7, 1.0, 0, 5));
        FormatComparisonOptions o = cpuOptions();
        FormatComparison c = compareSpmvFormats(m, randomX(2000), o);
        const Count diaSlots = Count(std::llround(rowOf(c, SpmvFormat::Dia).padding * double(c.nonzeros)));
        // The pre-count of diaSlots is the builder's: the limit at exactly that many lets DIA run, one less not.
        o.maxDiaSlots = diaSlots;
        QVERIFY(rowOf(compareSpmvFormats(m, randomX(2000), o), SpmvFormat::Dia).applicable);
        o.maxDiaSlots = diaSlots - 1;
        o.maxBitFlagBytes = 1000;
        c = compareSpmvFormats(m, randomX(2000), o);
        const FormatRow& dia = rowOf(c, SpmvFormat::Dia);
        QVERIFY(!dia.applicable);
        QVERIFY2(dia.reason.find("over its limit") != std::string::npos, dia.reason.c_str());
        const FormatRow& bits = rowOf(c, SpmvFormat::BitFlag);
        QVERIFY(!bits.applicable);
        QVERIFY2(bits.reason.find("bit flags would take") != std::string::npos, bits.reason.c_str());
        QVERIFY(rowOf(c, SpmvFormat::SegmentedDia).applicable);  // the remainder keeps it bounded: no limit
        // Padding: one scattered far diagonal entry per 10 rows makes plain DIA pad past 32 per nonzero.
        CooMatrix<double> scattered = generators::randomBanded(2000, 2000, 1, 1.0, 0, 5);
        for (Index r = 0; r < 2000; r += 10) {
            scattered.rowIndex.push_back(r);
            scattered.colIndex.push_back((r * 7 + 1000) % 2000);
            scattered.values.push_back(1.0);
        }
        const FormatComparison scatteredComparison = compareSpmvFormats(fileOf(scattered), randomX(2000), cpuOptions());
        const FormatRow& padded = rowOf(scatteredComparison, SpmvFormat::Dia);
        QVERIFY(!padded.applicable);
        QVERIFY2(padded.reason.find("slots per nonzero") != std::string::npos, padded.reason.c_str());
    }

    void hybridNeedsABinaryMatrixAndADetector() {
        CooMatrix<double> ones = generators::randomBanded(500, 500, 5, 0.8, 30, 9);
        for (double& v : ones.values) v = 1.0;
        const Matrix m = fileOf(ones);
        QVERIFY(m.isBinary());
        FormatComparisonOptions o = cpuOptions();
        FormatComparison c = compareSpmvFormats(m, randomX(500), o);
        QVERIFY(c.binary);
        QVERIFY(rowOf(c, SpmvFormat::HybridBinary).reason.find("no dense-region detector") != std::string::npos);
        int calls = 0;
        o.findDenseRegions = mainBandDetector(3, &calls);  // the encoder keeps the band only if it pays
        c = compareSpmvFormats(m, randomX(500), o);
        QCOMPARE(calls, 1);
        const FormatRow& hybrid = rowOf(c, SpmvFormat::HybridBinary);
        QVERIFY2(hybrid.applicable, hybrid.reason.c_str());
        QVERIFY(hybrid.agrees);
        const FormatRow& valued = rowOf(c, SpmvFormat::HybridValued);  // a binary matrix needs no values
        QVERIFY(!valued.applicable);
        QVERIFY2(valued.reason.rfind("binary", 0) == 0, valued.reason.c_str());
    }

    // Method D on a valued matrix: the detected band's values are stored densely, the scattered
    // entries stay CSR, and the product agrees with CSR's within its bound.
    void valuedHybridRunsOnValuedMatricesWithTheirRegions() {
        const Matrix m = fileOf(bandedtesting::bandPlusScattered(2000, 3, 0.95, 60, 11));
        QVERIFY(!m.isBinary());
        FormatComparisonOptions o = cpuOptions();
        FormatComparison c = compareSpmvFormats(m, randomX(2000), o);
        QVERIFY(rowOf(c, SpmvFormat::HybridValued).reason.find("no dense-region detector") != std::string::npos);
        int calls = 0;
        o.findDenseRegions = mainBandDetector(3, &calls);
        c = compareSpmvFormats(m, randomX(2000), o);
        QCOMPARE(calls, 1);  // once, for the valued row: the binary row stops at "not binary"
        const FormatRow& valued = rowOf(c, SpmvFormat::HybridValued);
        QVERIFY2(valued.applicable, valued.reason.c_str());
        QVERIFY2(valued.agrees && valued.errorRatio <= 1, valued.note.c_str());
        QVERIFY2(valued.note.rfind("1 regions", 0) == 0, valued.note.c_str());
        // 95 % fill: the band's values stored densely take fewer bytes than its CSR entries.
        QVERIFY2(valued.bytesOverCsr < 1.0, qPrintable(QString::number(valued.bytesOverCsr)));
        QVERIFY(!rowOf(c, SpmvFormat::HybridBinary).applicable);
    }

    void pickIsTheFastestAgreeingRowWithItsReason() {
        FormatComparison c;
        c.results.push_back(measuredRow(SpmvFormat::Csr, "cuSPARSE CSR", 2.0, true, 1400));
        c.results.push_back(measuredRow(SpmvFormat::Dia, "plain DIA", 0.5, false, 900));  // faster but wrong
        c.results.push_back(measuredRow(SpmvFormat::SegmentedDia, "segmented DIA", 1.0, true, 1000));
        c.results.back().speedupOverCsr = 2.0;
        c.results.back().copyFraction = 0.93;
        c.results.back().bytesOverCsr = 1000.0 / 1400.0;
        FormatRow notRun;
        notRun.format = SpmvFormat::BitFlag;
        notRun.spmv.medianMs = 0;  // never measured: must not win
        c.results.push_back(notRun);
        pickFastestAgreeingRow(c);
        QCOMPARE(c.pick, 2);
        QCOMPARE(c.pickReason, std::string("segmented DIA: 2.00x cuSPARSE CSR at 93 % of copy bandwidth, 1.4x fewer bytes"));
        c.results[2].spmv.medianMs = 3.0;  // slower than CSR now: CSR wins and the runner-up is named
        c.results[2].speedupOverCsr = 2.0 / 3.0;
        c.results[0].copyFraction = 0.5;
        pickFastestAgreeingRow(c);
        QCOMPARE(c.pick, 0);
        QCOMPARE(c.pickReason, std::string("cuSPARSE CSR: the fastest measured, at 50 % of copy bandwidth (next: segmented DIA at 0.67x)"));
        c.results[2].agrees = false;
        pickFastestAgreeingRow(c);
        QCOMPARE(c.pick, 0);
        QCOMPARE(c.pickReason, std::string("cuSPARSE CSR: the only format whose result agrees, at 50 % of copy bandwidth"));
        c.results[0].agrees = false;
        pickFastestAgreeingRow(c);
        QCOMPARE(c.pick, -1);
        QVERIFY(c.picked() == nullptr);
    }

    void cancelStopsAndProgressRisesToOne() {
        const Matrix m = fileOf(generators::laplacian2d(40, 40));
        FormatComparisonOptions o = cpuOptions();
        std::vector<double> seen;
        std::vector<std::string> steps;
        o.progress = [&](double f, const std::string& step) {
            seen.push_back(f);
            steps.push_back(step);
        };
        compareSpmvFormats(m, randomX(1600), o);
        QVERIFY(std::is_sorted(seen.begin(), seen.end()));
        QCOMPARE(seen.back(), 1.0);
        QVERIFY(std::find(steps.begin(), steps.end(), std::string("bit-flag")) != steps.end());
        std::atomic<bool> cancel{false};
        o.cancel = &cancel;
        o.progress = [&](double, const std::string& step) {
            if (step == "HDIA") cancel = true;  // mid-way: the next step throws
        };
        QVERIFY_THROWS_EXCEPTION(CancelledError, compareSpmvFormats(m, randomX(1600), o));
    }

    // The agreement check flags a wrong product: A with two columns' entries swapped. With x all ones
    // such a product still sums the same values in every row, which is why compare uses a random x.
    void agreementCheckFlagsAWrongProductThatOnesCannotSee() {
        const CsrMatrix<double> a = cooToCsr(generators::laplacian2d(40, 30));
        CsrMatrix<double> wrong = a;
        for (Count k = 0; k < wrong.nnz(); ++k) {  // columns 0 and 1 exchanged: the same values, wrong places
            Index& c = wrong.colIndex[std::size_t(k)];
            c = c == 0 ? 1 : c == 1 ? 0 : c;
        }
        const std::vector<double> ones(std::size_t(a.cols), 1.0);
        std::mt19937 rng(9);
        std::uniform_real_distribution<double> dist(-1, 1);
        std::vector<double> random(std::size_t(a.cols));
        for (double& v : random) v = dist(rng);
        QVERIFY(spmvErrorRatio(a, random, spmvReference(a, random)) <= 1.0);  // the right product agrees
        QVERIFY(spmvErrorRatio(a, ones, spmvReference(wrong, ones)) <= 1.0);  // ones cannot see the swap
        const double ratio = spmvErrorRatio(a, random, spmvReference(wrong, random));
        QVERIFY2(ratio > 1e6, qPrintable(QString::number(ratio)));            // a random x can
        QCOMPARE(spmvErrorRatio(a, random, std::vector<double>(3, 0.0)), std::numeric_limits<double>::infinity());
    }

    void complexMatricesRunInComplexValuesInEveryFormatThatHoldsThem() {
        // young1c (acoustics, a complex 5-point stencil): the diagonal formats and the valued hybrid
        // multiply complex values; bit flags and the binary hybrid say why they cannot.
        const QString path = sharedMatrix("young1c.mtx");
        REQUIRE_TEST_DATA(path);
        const Matrix m = readMatrixMarket(path.toStdString());
        QVERIFY(m.isComplex());
        FormatComparisonOptions o = cpuOptions();
        o.findDenseRegions = mainBandDetector(1);
        const std::vector<std::complex<double>> x = randomComplexX<std::complex<double>>(m.cols);
        const FormatComparison c = compareSpmvFormats(m, x, o);
        QCOMPARE(c.precision, std::string("c128"));
        QVERIFY(!c.onGpu);
        QVERIFY2(c.device.find("GPU not used") != std::string::npos, c.device.c_str());
        for (SpmvFormat f : {SpmvFormat::Csr, SpmvFormat::Dia, SpmvFormat::Hdia, SpmvFormat::SegmentedDia,
                             SpmvFormat::SegmentedDiaNoRemainder, SpmvFormat::HybridValued}) {
            const FormatRow& row = rowOf(c, f);
            QVERIFY2(row.applicable, row.reason.c_str());
            QVERIFY2(row.agrees && row.errorRatio <= 1, row.name.c_str());
        }
        QVERIFY(!rowOf(c, SpmvFormat::BitFlag).applicable);
        QVERIFY(rowOf(c, SpmvFormat::BitFlag).reason.find("real values only") != std::string::npos);
        QVERIFY(!rowOf(c, SpmvFormat::HybridBinary).applicable);
        QVERIFY(rowOf(c, SpmvFormat::HybridValued).note.find("1 regions") != std::string::npos);
        // Each complex row's bytes hold 16-byte values: twice the f64 row's value arrays.
        QVERIFY(rowOf(c, SpmvFormat::Dia).bytes >= 16 * std::size_t(m.real.size()));
        // c64 agrees within its own (single-precision) bound.
        const FormatComparison single = compareSpmvFormats(m, randomComplexX<std::complex<float>>(m.cols), o);
        QCOMPARE(single.precision, std::string("c64"));
        QVERIFY(rowOf(single, SpmvFormat::SegmentedDia).agrees);
    }

    void complexReferenceMatchesTheFileEntryForEntry() {
        // The oracle every complex row is checked against, against a product computed straight from
        // the file: c.mtx is Hermitian (its mirrored entries conjugated), arrowc.mtx general.
        for (const char* name : {"c.mtx", "arrowc.mtx", "young1c.mtx"}) {
            const QString path = sharedMatrix(name);
            REQUIRE_TEST_DATA(path);
            const Matrix m = readMatrixMarket(path.toStdString());
            const std::vector<std::complex<double>> x = randomComplexX<std::complex<double>>(m.cols, 11);
            const std::vector<std::complex<long double>> want = directProduct(m, x);
            const CsrMatrix<std::complex<double>> csr = cooToCsr(toCoo<std::complex<double>>(expandSymmetry(m)));
            const std::vector<std::complex<double>> got = spmvReference(csr, x);
            QCOMPARE(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i)
                QVERIFY2(std::abs(std::complex<long double>(got[i]) - want[i]) <= 1e-12L * (1 + std::abs(want[i])),
                         qPrintable(QStringLiteral("%1 row %2").arg(name).arg(i)));
            QVERIFY(spmvErrorRatio(csr, x, got) <= 1.0);
        }
    }

    void complexAgreementCheckFlagsAConjugatedProduct() {
        // A kernel that conjugates A (or swaps the parts) gives the right moduli; the check sees it.
        const QString path = sharedMatrix("young1c.mtx");
        REQUIRE_TEST_DATA(path);
        const Matrix m = readMatrixMarket(path.toStdString());
        const CsrMatrix<std::complex<double>> a = cooToCsr(toCoo<std::complex<double>>(m));
        CsrMatrix<std::complex<double>> conjugated = a;
        for (auto& v : conjugated.values) v = std::conj(v);
        const std::vector<std::complex<double>> x = randomComplexX<std::complex<double>>(m.cols);
        QVERIFY(spmvErrorRatio(a, x, spmvReference(a, x)) <= 1.0);
        const double ratio = spmvErrorRatio(a, x, spmvReference(conjugated, x));
        QVERIFY2(ratio > 1e6, qPrintable(QString::number(ratio)));
    }

    void badInputIsNamed() {
        const Matrix m = fileOf(generators::laplacian2d(10, 10));
        QVERIFY_THROWS_EXCEPTION(InputError, compareSpmvFormats(m, randomX(99), cpuOptions()));
        Matrix complexMatrix = m;
        complexMatrix.field = Field::Complex;
        complexMatrix.imag.assign(complexMatrix.real.size(), 0.0);
        // A complex matrix in real values is refused by name: it is compared as c64 or c128.
        QVERIFY_THROWS_EXCEPTION(InputError, compareSpmvFormats(complexMatrix, randomX(100), cpuOptions()));
    }
};

QTEST_APPLESS_MAIN(TestFormatComparison)
#include "tst_formatcomparison.moc"
