// spyglass-cli spmv on complex matrices (young1c, arrowc), as a user runs it: every format on the CPU
// reference writes y as a Matrix Market complex array that agrees with y = A x computed straight from
// the file's entries (complexoracle.h) to 1e-12 in c128, 1e-5 in c64; the same check flags a
// conjugated product. On a GPU, --backend cuda (dia, hdia, segdia, the valued hybrid) and cusparse
// (csr) agree the same way, and without one they fail naming the missing device; partitioned runs
// refuse a complex matrix by name with exit code 2.
#include "clisuite.h"
#include "complexoracle.h"
#include "testmatrices.h"

#include "spyglass/backend.h"
#include "spyglass/matrixmarket.h"

#include <QFile>
#include <QtTest>

#include <random>

using namespace spyglass;
using complexoracle::directProduct;
using complexoracle::worstRelativeError;

namespace {

using Result = clitesting::CliResult<QString>;

} // namespace

class TestCliSpmvComplex : public clitesting::CliSuite {
    Q_OBJECT

    Result run(const QStringList& args) { return clitesting::runProgram<QString>(m_cli, args, clitesting::headlessEnvironment(), 300000); }

    // A complex x with both parts random, written as "re im" pairs (what --x FILE reads for a complex matrix).
    std::vector<std::complex<double>> writeX(const QString& file, Index cols) {
        std::mt19937 rng(17);
        std::uniform_real_distribution<double> u(-1, 1);
        std::vector<std::complex<double>> x(static_cast<std::size_t>(cols));
        QString text;
        for (auto& v : x) {
            const double re = u(rng);
            v = {re, u(rng)};
            text += QStringLiteral("%1 %2\n").arg(v.real(), 0, 'g', 17).arg(v.imag(), 0, 'g', 17);
        }
        QFile out(file);
        if (out.open(QIODevice::WriteOnly)) out.write(text.toUtf8());
        return x;
    }

    // y read back through the library's Matrix Market reader: a rows x 1 complex array.
    std::vector<std::complex<double>> readY(const QString& file, Index rows) {
        const Matrix y = readMatrixMarket(file.toStdString());
        if (!y.isComplex() || y.rows != rows || y.cols != 1 || y.layout != Layout::Array) return {};
        std::vector<std::complex<double>> values(static_cast<std::size_t>(rows));
        for (std::size_t k = 0; k < y.real.size(); ++k) values[std::size_t(y.rowIndex[k])] = {y.real[k], y.imag[k]};
        return values;
    }

private slots:
    void complexSpmvMatchesTheFilesOwnProduct_data() {
        QTest::addColumn<QString>("name");
        QTest::newRow("young1c") << QStringLiteral("young1c.mtx");
        QTest::newRow("arrowc") << QStringLiteral("arrowc.mtx");
    }
    void complexSpmvMatchesTheFilesOwnProduct() {
        QFETCH(QString, name);
        const QString file = sharedMatrix(qPrintable(name));
        REQUIRE_TEST_DATA(file);
        const Matrix m = readMatrixMarket(file.toStdString());
        const QString xFile = m_dir.filePath(name + QStringLiteral(".x.txt"));
        const std::vector<std::complex<double>> x = writeX(xFile, m.cols);
        const auto want = directProduct(m, x), conjugated = directProduct(m, x, true);
        for (const char* format : {"csr", "dia", "hdia", "segdia", "hybrid"}) {
            for (const char* type : {"c128", "c64"}) {
                const QString out = m_dir.filePath(QStringLiteral("%1.%2.%3.y.mtx").arg(name, format, type));
                const Result r = run({"spmv", file, "--format", format, "--type", type, "--threshold", "64", "--x", xFile, "-o", out});
                QVERIFY2(r.exitCode == 0, qPrintable(r.err));
                QFile text(out);
                QVERIFY(text.open(QIODevice::ReadOnly));
                QVERIFY(text.readLine().startsWith("%%MatrixMarket matrix array complex general"));
                const std::vector<std::complex<double>> y = readY(out, m.rows);
                QCOMPARE(y.size(), std::size_t(m.rows));
                const double worst = worstRelativeError(y, want);
                const double tolerance = QByteArray(type) == "c128" ? 1e-12 : 1e-5;
                qInfo("%s --format %s --type %s: worst relative error vs the file's own product %.3g", qPrintable(name), format, type, worst);
                QVERIFY2(worst <= tolerance, qPrintable(QStringLiteral("%1 %2 %3: %4").arg(name, format, type).arg(worst)));
                QVERIFY2(worstRelativeError(y, conjugated) > 1e-3, "a conjugated product would pass the check");
            }
        }
        // The default x (ones) runs too, onto stdout.
        const Result ones = run({"spmv", file});
        QCOMPARE(ones.exitCode, 0);
        QVERIFY(ones.out.startsWith(QStringLiteral("%%MatrixMarket matrix array complex general\n%1 1\n").arg(m.rows)));
    }

    void gpuBackendsMultiplyComplexOrNameTheMissingDevice() {
        const QString file = sharedMatrix("young1c.mtx");
        REQUIRE_TEST_DATA(file);
        const Matrix m = readMatrixMarket(file.toStdString());
        const QString xFile = m_dir.filePath(QStringLiteral("young1c.gpu.x.txt"));
        const std::vector<std::complex<double>> x = writeX(xFile, m.cols);
        const auto want = directProduct(m, x), conjugated = directProduct(m, x, true);
        const bool device = cudaDeviceInfo().present;
        const QList<QStringList> gpuRuns = {{"--backend", "cuda", "--format", "segdia"}, {"--backend", "cuda", "--format", "hdia"},
                                            {"--backend", "cuda", "--format", "dia"},    {"--backend", "cuda", "--format", "hybrid"},
                                            {"--backend", "cusparse", "--format", "csr"}};
        for (const QStringList& gpu : gpuRuns) {
            for (const char* type : {"c128", "c64"}) {
                const QString out = m_dir.filePath(QStringLiteral("young1c.%1.%2.%3.y.mtx").arg(gpu[1], gpu[3], type));
                const Result r = run(QStringList{"spmv", file, "--type", type, "--threshold", "64", "--x", xFile, "-o", out} + gpu);
                if (!device) {
                    QCOMPARE(r.exitCode, 1);
                    QVERIFY2(r.err.contains(QStringLiteral("CUDA")), qPrintable(r.err));
                    continue;
                }
                QVERIFY2(r.exitCode == 0, qPrintable(r.err));
                const std::vector<std::complex<double>> y = readY(out, m.rows);
                QCOMPARE(y.size(), std::size_t(m.rows));
                const double tolerance = QByteArray(type) == "c128" ? 1e-12 : 1e-5;
                const double worst = worstRelativeError(y, want);
                QVERIFY2(worst <= tolerance, qPrintable(QStringLiteral("%1 %2 %3: %4").arg(gpu.join(' '), type).arg(worst)));
                QVERIFY2(worstRelativeError(y, conjugated) > 1e-3, "a conjugated product would pass the check");
            }
        }
        // --time measures the complex kernels beside cuSPARSE CSR in the same values (on stderr): the
        // default format and the valued hybrid, in c64 and c128.
        for (const char* format : {"segdia", "hybrid"}) {
            for (const char* type : {"c64", "c128"}) {
                const Result timed = run({"spmv", file, "--backend", "cuda", "--format", format, "--type", type, "--time", "--repeats", "3"});
                QVERIFY2(timed.exitCode == (device ? 0 : 1), qPrintable(QStringLiteral("%1 %2: %3").arg(format, type, timed.err)));
                if (device) QVERIFY2(timed.err.contains(QStringLiteral("cuSPARSE CSR")), qPrintable(timed.err));
            }
        }
    }

    void partitionedRefusesComplexByName() {
        const QString file = sharedMatrix("young1c.mtx");
        REQUIRE_TEST_DATA(file);
        const Result partitioned = run({"spmv", file, "--format", "csr", "--partitions", "2"});
        QCOMPARE(partitioned.exitCode, 2);
        QVERIFY2(partitioned.err.contains(QStringLiteral("complex")), qPrintable(partitioned.err));
        // c64 and c128 are for complex matrices.
        const Result real = run({"spmv", sharedMatrix("west0479.mtx"), "--type", "c128"});
        QCOMPARE(real.exitCode, 2);
        QVERIFY2(real.err.contains(QStringLiteral("is for complex matrices")), qPrintable(real.err));
        // A complex x file holds "re im" pairs: a short one is refused by name.
        const QString shortX = m_dir.filePath(QStringLiteral("short.txt"));
        QFile out(shortX);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write("1 0\n2 0\n");
        out.close();
        const Result bad = run({"spmv", file, "--x", shortX});
        QCOMPARE(bad.exitCode, 1);
        QVERIFY2(bad.err.contains(QStringLiteral("short.txt")), qPrintable(bad.err));
    }
};

QTEST_GUILESS_MAIN(TestCliSpmvComplex)
#include "tst_cli_spmv_complex.moc"
#include "moc_clisuite.cpp"
