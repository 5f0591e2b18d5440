// A GPU that is too small, simulated with the memory cap (what SPYGLASS_GPU_MEMORY_CAP and
// --gpu-memory-cap set), through every GPU entry point: each library call of the five methods, the
// jobs behind the window's panels, and spyglass-cli as a separate process. Each must fail with an
// OutOfMemoryError whose message starts "GPU out of memory", leave no device memory behind, and leave
// the device usable: the same call without the cap then gives the exact reference answer.
// Skips without a device.
#include "bitflag_testing.h"
#include "clitesting.h"
#include "cudatesting.h"
#include "matrixentries.h"
#include "testmatrices.h"
#include "core/batchedinversejob.h"
#include "core/errortext.h"
#include "core/gpumemorycap.h"
#include "core/segdiajob.h"
#include "spyglass/backend.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/batchedsvd.h"
#include "spyglass/bitflag.h"
#include "spyglass/bitflag_baselines.h"
#include "spyglass/convert.h"
#include "spyglass/devicememory.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/matrix.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"

#include <QtTest>

#include <QFile>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <random>
#include <string>

using namespace spyglass;

namespace {

constexpr char kGpuOutOfMemory[] = "GPU out of memory: ";

// One byte: no buffer fits, so the first device allocation of any entry point is refused.
constexpr std::size_t kTinyCap = 1;

// Runs work under the tiny cap. Returns an empty string when it threw a "GPU out of memory"
// OutOfMemoryError and released every device byte it had taken; otherwise what went wrong.
template <typename Work>
QString gpuOutOfMemoryProblem(Work&& work) {
    const std::size_t before = deviceMemoryInUse();
    QString problem;
    setDeviceMemoryCap(kTinyCap);
    try {
        work();
        problem = QStringLiteral("ran to the end under a %1-byte cap").arg(kTinyCap);
    } catch (const OutOfMemoryError& error) {
        // What the window and spyglass-cli show (errorText), and what they show it for.
        if (!app::errorText(error).startsWith(QLatin1String(kGpuOutOfMemory)))
            problem = QStringLiteral("message does not start with '%1': %2").arg(kGpuOutOfMemory, app::errorText(error));
    } catch (const std::exception& error) {
        problem = QStringLiteral("threw something else: %1").arg(error.what());
    }
    setDeviceMemoryCap(0);
    if (problem.isEmpty() && deviceMemoryInUse() != before)
        problem = QStringLiteral("device bytes in use %1 before, %2 after").arg(before).arg(deviceMemoryInUse());
    return problem;
}

// A 2000 x 2000 pentadiagonal matrix with integer values: every product below is exact in fp64.
CooMatrix<double> bandedCoo() {
    CooMatrix<double> coo;
    coo.rows = coo.cols = 2000;
    for (Index i = 0; i < coo.rows; ++i)
        for (Index d = -2; d <= 2; ++d)
            if (i + d >= 0 && i + d < coo.cols) {
                coo.rowIndex.push_back(i);
                coo.colIndex.push_back(i + d);
                coo.values.push_back(double((i + 3 * d) % 7 - 3));
            }
    return coo;
}

Matrix matrixOf(const CooMatrix<double>& coo) {
    return matrixentries::realEntries(coo.rows, coo.cols, coo.rowIndex, coo.colIndex, coo.values);
}

std::vector<double> integerVector(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> value(-4, 4);
    std::vector<double> x(n);
    for (double& v : x) v = value(rng);
    return x;
}

// Well-conditioned batch (diagonally dominant), so every matrix inverts.
std::vector<double> dominantBatch(int n, int count) {
    std::mt19937 rng(11);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<double> a(std::size_t(n) * n * count);
    for (int b = 0; b < count; ++b)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) a[(std::size_t(b) * n + i) * n + j] = u(rng) + (i == j ? 2.0 * n : 0.0);
    return a;
}

} // namespace

class TestCudaMemoryCap : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_cli;

    using CliResult = clitesting::CliResult<>;

    CliResult runCli(const QStringList& args, const QString& capVariable = QString()) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QString::fromLatin1(app::kGpuMemoryCapVariable));
        if (!capVariable.isEmpty()) env.insert(QString::fromLatin1(app::kGpuMemoryCapVariable), capVariable);
        return clitesting::runProgram(m_cli, args, env);
    }

    QString writeFile(const QString& name, const std::string& text) { return clitesting::writeBytes(m_dir.filePath(name), text); }

private slots:
    void initTestCase() {
        CUDATESTING_REQUIRE_DEVICE();
        QVERIFY(m_dir.isValid());
        // Next to the tests in a build tree (build/tests -> build/app), or beside them in a GPU bundle.
        for (const QString& cli : {QCoreApplication::applicationDirPath() + QStringLiteral("/../app/spyglass-cli"),
                                   QCoreApplication::applicationDirPath() + QStringLiteral("/spyglass-cli")})
            if (QFileInfo(cli).isExecutable()) m_cli = cli;
    }
    void cleanup() { setDeviceMemoryCap(0); }

    void segmentedDiaDiaAndCusparseSpmv() {
        const CooMatrix<double> coo = bandedCoo();
        const CsrMatrix<double> csr = cooToCsr(coo);
        const SegmentedDiaMatrix<double> seg = buildSegmentedDia(coo);
        const DiaMatrix<double> dia = buildDia(coo);
        const std::vector<double> x = integerVector(std::size_t(coo.cols), 3);
        const std::vector<double> want = spmvReference(csr, x);
        QString problem = gpuOutOfMemoryProblem([&] { spmv(seg, x, {SpmvBackend::Cuda}); });
        QVERIFY2(problem.isEmpty(), qPrintable("segmented DIA: " + problem));
        QVERIFY(spmv(seg, x, {SpmvBackend::Cuda}) == want);
        problem = gpuOutOfMemoryProblem([&] { spmv(dia, x, {SpmvBackend::Cuda}); });
        QVERIFY2(problem.isEmpty(), qPrintable("DIA: " + problem));
        QVERIFY(spmv(dia, x, {SpmvBackend::Cuda}) == want);
        problem = gpuOutOfMemoryProblem([&] { spmv(csr, x, {SpmvBackend::Cusparse}); });
        QVERIFY2(problem.isEmpty(), qPrintable("cuSPARSE: " + problem));
        QVERIFY(spmv(csr, x, {SpmvBackend::Cusparse}) == want);
    }

    void hybridDenseRegionSpmv() {
        const GeneratedBinary seed = seedExampleBinary();
        HybridEncodeOptions force;
        force.forceRegions = true;
        const HybridBinaryMatrix hybrid = encodeHybrid(seed.pattern, seed.planted, force);
        const std::vector<double> x = integerVector(std::size_t(hybrid.cols), 5);
        const QString problem = gpuOutOfMemoryProblem([&] { hybridSpmv(hybrid, x, {HybridSpmvBackend::Cuda}); });
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        QVERIFY(hybridSpmv(hybrid, x, {HybridSpmvBackend::Cuda}) == hybridSpmvReference(hybrid, x));
    }

    void bitFlagOperationsAndLu() {
        using namespace bitflag_testing;
        std::mt19937 rng(21);
        const Index n = 40;
        const auto da = randomDense(n, n, 0.2, rng), db = randomDense(n, n, 0.2, rng);
        const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(da, n, n));
        const BitFlagMatrix<double> b = encodeBitFlag(cooOf<double>(db, n, n));
        const CsrMatrix<double> csr = cooToCsr(cooOf<double>(da, n, n));
        const std::vector<Index> rows{0, 7, 39, 12}, cols{0, 3, 39, 25};
        QString problem = gpuOutOfMemoryProblem([&] { bitFlagAdd(a, b, cudaOptions()); });
        QVERIFY2(problem.isEmpty(), qPrintable("add: " + problem));
        QVERIFY(denseOf(bitFlagAdd(a, b, cudaOptions())) == denseOf(bitFlagAdd(a, b)));
        problem = gpuOutOfMemoryProblem([&] { bitFlagSub(a, b, cudaOptions()); });
        QVERIFY2(problem.isEmpty(), qPrintable("sub: " + problem));
        // The seed's product takes B column-major (a column's flags are contiguous).
        BitFlagOptions columns;
        columns.order = BitFlagOrder::ColumnMajor;
        const BitFlagMatrix<double> bc = encodeBitFlag(cooOf<double>(db, n, n), columns);
        problem = gpuOutOfMemoryProblem([&] { bitFlagMultiply(a, bc, cudaOptions()); });
        QVERIFY2(problem.isEmpty(), qPrintable("multiply: " + problem));
        QVERIFY(denseOf(bitFlagMultiply(a, bc, cudaOptions())) == denseProduct(da, db, n, n, n));
        problem = gpuOutOfMemoryProblem([&] { bitFlagGetBatch(a, rows, cols, cudaOptions()); });
        QVERIFY2(problem.isEmpty(), qPrintable("get: " + problem));
        problem = gpuOutOfMemoryProblem([&] { csrGetBatch(csr, rows, cols, cudaOptions()); });
        QVERIFY2(problem.isEmpty(), qPrintable("CSR get: " + problem));
        const std::vector<double> got = bitFlagGetBatch(a, rows, cols, cudaOptions());
        for (std::size_t q = 0; q < rows.size(); ++q) QCOMPARE(got[q], da[std::size_t(rows[q]) * n + cols[q]]);

        const ExactLuCase lu = exactLuCase(24, 0.3, rng);
        const BitFlagMatrix<double> square = encodeBitFlag(cooOf<double>(lu.a, 24, 24));
        problem = gpuOutOfMemoryProblem([&] { bitFlagLu(square, cudaOptions()); });
        QVERIFY2(problem.isEmpty(), qPrintable("LU: " + problem));
        const BitFlagLu<double> factors = bitFlagLu(square, cudaOptions());
        QVERIFY(denseOf(factors.lower) == lu.lower);
        QVERIFY(denseOf(factors.upper) == lu.upper);
    }

    void batchedInverseBothGpuBackends() {
        const int n = 6, count = 500;
        const std::vector<double> a = dominantBatch(n, count);
        std::vector<double> out(a.size()), want(a.size());
        std::vector<int> info(count);
        invertBatchedReference(a.data(), want.data(), info.data(), n, count);
        for (InverseBackend backend : {InverseBackend::Cuda, InverseBackend::Cublas}) {
            InverseOptions options;
            options.backend = backend;
            const QString problem = gpuOutOfMemoryProblem([&] { invertBatched(a.data(), out.data(), n, count, options); });
            QVERIFY2(problem.isEmpty(), qPrintable(QString::fromLatin1(toString(backend)) + ": " + problem));
            const InverseRunInfo run = invertBatched(a.data(), out.data(), n, count, options);
            QCOMPARE(run.chunks, 1);
            for (std::size_t k = 0; k < a.size(); ++k)
                QVERIFY2(std::abs(out[k] - want[k]) <= 1e-12 * (1 + std::abs(want[k])), qPrintable(QString::number(k)));
        }
    }

    void batchedSvdBothGpuBackends() {
        const int m = 8, n = 6, count = 300;
        const std::vector<double> a = dominantBatch(n, count);  // 6 x 6 blocks reused as 8 x 6: any values do
        std::vector<double> u(std::size_t(m) * n * count), v(std::size_t(n) * n * count), sigma(std::size_t(n) * count);
        std::vector<double> uRef(u.size()), vRef(v.size()), sigmaRef(sigma.size());
        SvdOptions reference;
        svdBatched(a.data(), uRef.data(), sigmaRef.data(), vRef.data(), m, n, count * n / m, reference);
        for (SvdBackend backend : {SvdBackend::Cuda, SvdBackend::Cusolver}) {
            SvdOptions options;
            options.backend = backend;
            const QString problem =
                gpuOutOfMemoryProblem([&] { svdBatched(a.data(), u.data(), sigma.data(), v.data(), m, n, count * n / m, options); });
            QVERIFY2(problem.isEmpty(), qPrintable(QString::fromLatin1(toString(backend)) + ": " + problem));
            const SvdRunInfo run = svdBatched(a.data(), u.data(), sigma.data(), v.data(), m, n, count * n / m, options);
            QCOMPARE(run.nonFiniteCount(), std::int64_t(0));
            // Singular values are unique: the GPU's agree with the reference to rounding (the bound of
            // tst_cuda_batchedsvd: 8 n eps times the largest).
            for (int b = 0; b < count * n / m; ++b)
                for (int k = 0; k < n; ++k) {
                    const double got = sigma[std::size_t(b) * n + k], want = sigmaRef[std::size_t(b) * n + k];
                    QVERIFY2(std::abs(got - want) <= 8.0 * n * 2.3e-16 * sigmaRef[std::size_t(b) * n],
                             qPrintable(QString("matrix %1 sigma[%2] %3, reference %4").arg(b).arg(k).arg(got).arg(want)));
                }
        }
    }

    // The window's batch-inverse panel runs this job: the failure arrives as the failed() signal with a
    // readable message, and the next run (cap lifted) succeeds.
    void batchInverseJobReportsGpuOutOfMemoryAndRunsAgain() {
        qRegisterMetaType<spyglass::app::BatchedInverseResult>();
        app::BatchedInverseJob job;
        QSignalSpy failed(&job, &app::BatchedInverseJob::failed);
        QSignalSpy finished(&job, &app::BatchedInverseJob::finished);
        app::BatchedInverseRequest request;
        request.n = 8;
        request.batch = 256;
        request.precision = app::InversePrecision::F64;
        request.backend = InverseBackend::Cuda;
        const std::size_t before = deviceMemoryInUse();
        setDeviceMemoryCap(kTinyCap);
        QVERIFY(job.start(request));
        QVERIFY(failed.wait(60000));
        setDeviceMemoryCap(0);
        const QString message = failed.first().first().toString();
        QVERIFY2(message.startsWith(QLatin1String(kGpuOutOfMemory)), qPrintable(message));
        QVERIFY2(message.contains(QLatin1String("memory cap of 1 bytes")), qPrintable(message));
        QCOMPARE(deviceMemoryInUse(), before);
        QVERIFY(job.start(request));
        QVERIFY(finished.wait(60000));
        QCOMPARE(failed.size(), 1);
        const auto result = finished.first().first().value<app::BatchedInverseResult>();
        QCOMPARE(result.batch, qint64(256));
        QVERIFY(result.maxResidual < 100);
    }

    // The segmented-DIA panel's SpMV check: the GPU rows report the error, the CPU row still runs.
    void segmentedDiaJobKeepsTheLayoutAndNamesTheFailedBackends() {
        const CooMatrix<double> coo = bandedCoo();
        auto matrix = std::make_shared<const Matrix>(matrixOf(coo));
        app::SegmentedDiaRequest request;
        request.matrix = matrix;
        request.spmvBackends = {SpmvBackend::Reference, SpmvBackend::Cuda, SpmvBackend::Cusparse};
        setDeviceMemoryCap(kTinyCap);
        app::SegmentedDiaLayout layout;
        try {
            layout = app::buildSegmentedDiaLayout(request);
        } catch (...) {
            setDeviceMemoryCap(0);
            throw;
        }
        setDeviceMemoryCap(0);
        QVERIFY(layout.format);
        QCOMPARE(layout.spmv.size(), 3);
        QVERIFY2(layout.spmv[0].error.isEmpty(), qPrintable(layout.spmv[0].error));
        QCOMPARE(layout.spmv[0].maxRelativeError, 0.0);
        for (int k : {1, 2}) QVERIFY2(layout.spmv[k].error.startsWith(QLatin1String(kGpuOutOfMemory)), qPrintable(layout.spmv[k].error));
        const app::SegmentedDiaLayout again = app::buildSegmentedDiaLayout(request);
        for (const app::SpmvRun& run : again.spmv) QVERIFY2(run.error.isEmpty(), qPrintable(run.name + ": " + run.error));
    }

    void cliReportsGpuOutOfMemoryForEveryGpuCommand() {
        if (m_cli.isEmpty()) QSKIP("spyglass-cli is not next to the tests");
        // Small enough for the one-block LU kernel (n <= bitFlagLuMaxOrder(Single) on Cuda), diagonally dominant.
        std::string band = "%%MatrixMarket matrix coordinate real general\n60 60 178\n";
        for (int i = 1; i <= 60; ++i)
            for (int j = i - 1; j <= i + 1; ++j)
                if (j >= 1 && j <= 60) band += std::to_string(i) + " " + std::to_string(j) + " " + (i == j ? "4" : "-1") + "\n";
        const QString a = writeFile(QStringLiteral("band.mtx"), band);
        const QList<QStringList> commands = {
            {"spmv", a, "--backend", "cuda"},
            {"spmv", a, "--format", "csr", "--backend", "cusparse"},
            {"invert", "--n", "8", "--batch", "64", "--backend", "cuda"},
            {"invert", "--n", "8", "--batch", "64", "--backend", "cublas"},
            {"svd", "--n", "6", "--batch", "64", "--backend", "cuda"},
            {"svd", "--n", "6", "--batch", "64", "--backend", "cusolver"},
            {"matop", "add", a, a, "--backend", "cuda"},
            {"matop", "mul", a, a, "--backend", "cuda"},
            {"lu", a, "--backend", "cuda"},
        };
        for (int c = 0; c < commands.size(); ++c) {
            const QStringList& command = commands[c];
            const QString line = command.join(' ');
            // Both ways a user sets the cap: the option (here before the command name), the variable.
            const CliResult capped = c % 2 ? runCli(command, QStringLiteral("1"))
                                           : runCli(QStringList{"--gpu-memory-cap", "1"} + command);
            QVERIFY2(capped.exitCode == 1, qPrintable(line + ": exit " + QString::number(capped.exitCode) + " " + capped.status + " " + capped.err));
            QVERIFY2(capped.err.contains("GPU out of memory"), qPrintable(line + ": " + capped.err));
            QVERIFY2(capped.err.contains("GPU memory cap: 1 bytes"), qPrintable(line + ": " + capped.err));
            const CliResult free = runCli(command);
            QVERIFY2(free.exitCode == 0, qPrintable(line + ": exit " + QString::number(free.exitCode) + " " + free.status + " " + free.err));
        }
    }
};

QTEST_GUILESS_MAIN(TestCudaMemoryCap)
#include "tst_cuda_memorycap.moc"
