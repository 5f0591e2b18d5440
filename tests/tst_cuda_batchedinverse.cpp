// Method E on the GPU: every Spyglass kernel against the CPU reference for orders 1..32 and all four
// types (status codes identical, residuals within the bound, inverses within the conditioning), the
// cuBLAS baselines, chunking under a memory cap, the streamed end-to-end path (CUDA graph) bit for bit
// against the one-chunk run, the tiled kernels' pivots against the thread-per-matrix kernel's bit for
// bit. Skips without a device.
#include "batchedinverse_testing.h"
#include "cudatesting.h"
#include "spyglass/backend.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/batchedinverse_generators.h"
#include "spyglass/batchedinverse_streamed.h"
#include "spyglass/error.h"
#if defined(SPYGLASS_TESTS_HAVE_CUDA)
#include "spyglass/cuda/batchedinverse_device_api.h"
#include "spyglass/cuda/devicebuffer.h"
#include "spyglass/cuda/eventtimer.h"
#endif

#include <QElapsedTimer>
#include <QThread>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <type_traits>

using namespace spyglass;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

namespace {

template <typename T> using RealOf = decltype(std::abs(T()));

double residualBound(int n) { return 4.0 * n; }

template <typename T> double oneNorm(const T* m, int n) {
    double best = 0;
    for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += std::abs(m[j * n + i]);
        best = std::max(best, s);
    }
    return best;
}

template <typename T> double oneNormDiff(const T* a, const T* b, int n) {
    double best = 0;
    for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += std::abs(a[j * n + i] - b[j * n + i]);
        best = std::max(best, s);
    }
    return best;
}

// A random batch with a rank-deficient matrix (rows zero) at 3 and a NaN at 10 when it is long
// enough; a random batch (n >= 2) also gets a small nonzero pivot just below the tiny-pivot bound at
// 5 (flagged by every backend) and one just above it at 7 (inverted by every backend).
template <typename T> std::vector<T> testBatch(int n, std::int64_t count, std::uint64_t seed, BatchKind kind = BatchKind::Random) {
    BatchSpec spec = inversetest::batchSpec(kind, n, count, seed);
    spec.condition = 1e6;
    std::vector<T> batch = generateBatch<T>(spec);
    const std::size_t size = static_cast<std::size_t>(n) * n;
    if (count > 3)
        for (int j = 0; j < n; ++j)
            for (int i = n / 2; i < n; ++i) batch[3 * size + j * n + i] = T(0);  // rank n/2
    if (count > 10) batch[10 * size + size / 2] = T(std::numeric_limits<double>::quiet_NaN());
    if (kind == BatchKind::Random && n >= 2 && count > 7) {
        std::mt19937_64 rng(seed);
        inversetest::isolateTinyPivot(batch.data() + 5 * size, n, 0.5, rng);
        inversetest::isolateTinyPivot(batch.data() + 7 * size, n, 2.0, rng);
    }
    return batch;
}

template <typename T> QString compareWithReference(const std::vector<T>& batch, int n, std::int64_t count,
                                                   const InverseOptions& options) {
    const std::size_t size = static_cast<std::size_t>(n) * n;
    std::vector<T> expected(batch.size()), got(batch.size(), T(12345));  // poison: every entry must be written
    std::vector<int> expectedInfo(count);
    invertBatchedReference(batch.data(), expected.data(), expectedInfo.data(), n, count);
    const InverseRunInfo run = invertBatched(batch.data(), got.data(), n, count, options);
    const double eps = std::numeric_limits<RealOf<T>>::epsilon();
    for (std::int64_t b = 0; b < count; ++b) {
        const bool vendor = options.backend == InverseBackend::Cublas;
        // cuBLAS's verdict comes from its LU pivots (partial pivoting), ours from full pivots: the
        // step numbers differ, so compare "failed or not" for it.
        const bool infoMatches = vendor ? (run.info[b] != 0) == (expectedInfo[b] != 0) : run.info[b] == expectedInfo[b];
        if (!infoMatches)
            return QString("matrix %1: info %2, reference %3").arg(b).arg(run.info[b]).arg(expectedInfo[b]);
        const T* x = got.data() + b * size;
        if (run.info[b] != 0) {
            for (std::size_t e = 0; e < size; ++e)
                if (!std::isnan(std::abs(x[e]))) return QString("matrix %1 failed but entry %2 is not NaN").arg(b).arg(e);
            continue;
        }
        const double residual = inverseResiduals(batch.data() + b * size, x, nullptr, n, 1).front();
        if (!(residual <= residualBound(n) * (vendor ? 4 : 1)))
            return QString("matrix %1: residual %2").arg(b).arg(residual);
        // Two backward-stable inverses differ by about residual * condition * eps.
        const T* ref = expected.data() + b * size;
        const double kappa = oneNorm(batch.data() + b * size, n) * oneNorm(ref, n);
        const double relative = oneNormDiff(x, ref, n) / oneNorm(ref, n);
        const double allowed = 2 * residualBound(n) * (vendor ? 4 : 1) * kappa * eps;
        if (!(relative <= allowed))
            return QString("matrix %1: relative difference %2 > %3").arg(b).arg(relative).arg(allowed);
        // Neither bound above catches a uniformly scaled inverse (0.5 A^-1) in f32 at cond 1e6: the
        // error against a long-double inverse does. On up to ~256 matrices (head, spread, last).
        const std::int64_t stride = std::max<std::int64_t>(1, count / 256);
        if (b % stride == 0 || b == count - 1) {
            const double ratio = inversetest::forwardErrorRatio(batch.data() + b * size, x, n);
            const double bound = vendor ? inversetest::kVendorForwardErrorBound : inversetest::kForwardErrorBound;
            if (!(ratio <= bound)) return QString("matrix %1: forward error %2 cond*eps > %3").arg(b).arg(ratio).arg(bound);
        }
    }
    return {};
}

template <typename T> void everyKernelAllOrders(const char* typeName) {
    for (int n = 1; n <= 32; ++n)
        for (InverseKernel kernel : inverseKernelsOf(InverseBackend::Cuda)) {
            if (!inverseKernelSupports(kernel, n)) continue;
            InverseOptions options;
            options.backend = InverseBackend::Cuda;
            options.kernel = kernel;
            const std::int64_t count = 67 + n;  // never a multiple of the block's matrices
            const std::vector<T> batch = testBatch<T>(n, count, 100 * n + static_cast<int>(kernel));
            const QString problem = compareWithReference(batch, n, count, options);
            QVERIFY2(problem.isEmpty(),
                     qPrintable(QString("%1 n=%2 %3: %4").arg(typeName).arg(n).arg(toString(kernel)).arg(problem)));
        }
}

template <typename T> void cublasAgrees(const char* typeName) {
    for (int n : {1, 2, 3, 4, 8, 13, 16, 32})
        for (InverseKernel kernel : inverseKernelsOf(InverseBackend::Cublas)) {
            InverseOptions options;
            options.backend = InverseBackend::Cublas;
            options.kernel = kernel;
            const std::vector<T> batch = testBatch<T>(n, 45, 7 * n);
            const QString problem = compareWithReference(batch, n, 45, options);
            QVERIFY2(problem.isEmpty(),
                     qPrintable(QString("%1 n=%2 %3: %4").arg(typeName).arg(n).arg(toString(kernel)).arg(problem)));
        }
}

// Exactly and nearly singular members among random ones, orders 5..32: every backend (the reference,
// each CUDA kernel, cuBLAS getrf+getri and matinv) must flag the same matrices. The decisive members
// are those whose verdict does not hang on rounding: zero rows and columns, and isolated pivots at
// 0, 1e-3 and 0.5 times the bound (flagged) and 2 and 1e3 times it (inverted). Dense members that
// are singular only in exact arithmetic (a row the sum of two others, a rank n-1 product) leave a
// pivot of rounding size, flagged or not depending on each algorithm's rounding: counted and printed.
template <typename T> QString sameSingularVerdicts(int n) {
    const std::int64_t count = 400;
    std::vector<T> batch = inversetest::randomBatch<T>(n, count, 500 + n);
    const std::size_t size = static_cast<std::size_t>(n) * n;
    std::mt19937_64 rng(n);
    std::vector<int> decisive(count, 0);  // 1: must be flagged, -1: must not, 0: random (must not) or rounding-level
    std::vector<bool> roundingLevel(count, false);
    auto at = [&](std::int64_t b, int i, int j) -> T& { return batch[b * size + static_cast<std::size_t>(j) * n + i]; };
    const std::vector<double> factors = {0.0, 1e-3, 0.5, 2.0, 1e3};
    for (std::int64_t b = 0; b < count; ++b) decisive[b] = -1;
    for (std::int64_t b = 10; b < count; b += 37) {
        switch ((b / 37) % 8) {
        case 0: for (int j = 0; j < n; ++j) at(b, static_cast<int>(b % n), j) = T(0); decisive[b] = 1; break;
        case 1: for (int i = 0; i < n; ++i) at(b, i, static_cast<int>(b % n)) = T(0); decisive[b] = 1; break;
        case 2: case 3: case 4: case 5: {
            const double factor = factors[(b / 37 + b / 111) % factors.size()];
            inversetest::isolateTinyPivot(batch.data() + b * size, n, factor, rng);
            decisive[b] = factor < 1 ? 1 : -1;
            break;
        }
        case 6: for (int j = 0; j < n; ++j) at(b, 2, j) = at(b, 0, j) + at(b, 1, j); decisive[b] = 0; roundingLevel[b] = true; break;
        case 7: {
            std::vector<T> p(static_cast<std::size_t>(n) * (n - 1)), q(p.size());
            std::uniform_real_distribution<double> u(-1, 1);
            for (T& v : p) v = T(u(rng));
            for (T& v : q) v = T(u(rng));
            for (int i = 0; i < n; ++i)
                for (int j = 0; j < n; ++j) {
                    T s(0);
                    for (int k = 0; k < n - 1; ++k) s += p[static_cast<std::size_t>(k) * n + i] * q[static_cast<std::size_t>(j) * (n - 1) + k];
                    at(b, i, j) = s;
                }
            decisive[b] = 0;
            roundingLevel[b] = true;
            break;
        }
        }
    }
    std::vector<T> expected(batch.size()), got(batch.size());
    std::vector<int> expectedInfo(count);
    invertBatchedReference(batch.data(), expected.data(), expectedInfo.data(), n, count);
    std::vector<std::pair<InverseBackend, InverseKernel>> backends;
    for (InverseKernel kernel : inverseKernelsOf(InverseBackend::Cuda))
        if (inverseKernelSupports(kernel, n)) backends.push_back({InverseBackend::Cuda, kernel});
    for (InverseKernel kernel : inverseKernelsOf(InverseBackend::Cublas)) backends.push_back({InverseBackend::Cublas, kernel});
    int referenceRounding = 0;
    for (std::int64_t b = 0; b < count; ++b) referenceRounding += roundingLevel[b] && expectedInfo[b] != 0;
    QString rounding = QString("n=%1 rounding-level singular members flagged: reference %2").arg(n).arg(referenceRounding);
    for (const auto& [backend, kernel] : backends) {
        InverseOptions options;
        options.backend = backend;
        options.kernel = kernel;
        const InverseRunInfo run = invertBatched(batch.data(), got.data(), n, count, options);
        int roundingFlagged = 0;
        for (std::int64_t b = 0; b < count; ++b) {
            const bool flagged = run.info[b] != 0;
            if (roundingLevel[b]) {
                roundingFlagged += flagged;
                continue;
            }
            if (flagged != (decisive[b] == 1) || flagged != (expectedInfo[b] != 0))
                return QString("n=%1 %2: matrix %3 info %4, reference %5, expected %6")
                    .arg(n).arg(toString(kernel)).arg(b).arg(run.info[b]).arg(expectedInfo[b])
                    .arg(decisive[b] == 1 ? "flagged" : "inverted");
        }
        rounding += QString(", %1 %2").arg(toString(kernel)).arg(roundingFlagged);
    }
    const auto roundingCount = std::count(roundingLevel.begin(), roundingLevel.end(), true);
    qInfo("%s (of %d)", qPrintable(rounding), static_cast<int>(roundingCount));
    return {};
}


// The streamed path (chunks, a CUDA graph) against invertBatched's one-chunk run with the same kernel:
// the same bits and the same statuses. Besides testBatch's failures (rank-deficient at 3, NaN at 10),
// the first matrix of the last chunk is zeroed and the last matrix gets an Inf, so that failures sit
// in later chunks too. The graph runs twice: a relaunch must not read anything the first run left.
// Zero-copy runs (the kernel on the page-locked staging itself) are held to the same bits.
template <typename T>
QString streamedMatchesUnchunked(int n, std::int64_t count, int chunks, InverseKernel kernel, StreamedTransfer transfer) {
    std::vector<T> batch = testBatch<T>(n, count, 4000 + 7 * count + n);
    const std::size_t size = static_cast<std::size_t>(n) * n;
    StreamedBatchedInverse<T> streamed(n, count, chunks, kernel, transfer);
    const std::int64_t lastFirst = (streamed.chunks() - 1) * streamed.chunkSize();
    if (lastFirst > 0) std::fill_n(batch.begin() + lastFirst * size, size, T(0));
    if (count > 1) batch[(count - 1) * size] = T(std::numeric_limits<double>::infinity());
    InverseOptions options;
    options.backend = InverseBackend::Cuda;
    // Zero-copy Auto is LaneEntries, not invertBatched's Auto, and a zero-copy TMA request runs the
    // pipelined kernel (host memory): the reference runs the kernel used.
    options.kernel = streamed.zeroCopy() ? streamed.kernelUsed() : kernel;
    if (streamed.zeroCopy() && streamed.kernelUsed() == InverseKernel::ThreadPerMatrixTma)
        return QString("zero-copy reports the TMA kernel, which does not run on host memory");
    std::vector<T> expected(batch.size());
    const InverseRunInfo whole = invertBatched(batch.data(), expected.data(), n, count, options);
    if (whole.chunks != 1) return QString("the reference run was split into %1 chunks").arg(whole.chunks);
    if (streamed.kernelUsed() != whole.kernelUsed)
        return QString("kernel %1, unchunked %2").arg(toString(streamed.kernelUsed())).arg(toString(whole.kernelUsed));
    if (streamed.zeroCopy() != (transfer == StreamedTransfer::ZeroCopy ||
                                (transfer == StreamedTransfer::Automatic && chunks == 0 &&
                                 streamedInverseZeroCopyFits(n, sizeof(T), count) &&
                                 (kernel == InverseKernel::Auto || kernel == InverseKernel::LaneEntries))))
        return QString("zero-copy %1, not as the rule says").arg(streamed.zeroCopy());
    std::copy(batch.begin(), batch.end(), streamed.input());
    for (int launch = 1; launch <= 2; ++launch) {
        streamed.run();
        for (std::int64_t b = 0; b < count; ++b) {
            if (streamed.info()[b] != whole.info[b])
                return QString("launch %1, matrix %2: info %3, unchunked %4").arg(launch).arg(b).arg(streamed.info()[b]).arg(whole.info[b]);
            if (std::memcmp(streamed.output() + b * size, expected.data() + b * size, size * sizeof(T)) != 0)
                return QString("launch %1, matrix %2: the inverse differs from the unchunked one").arg(launch).arg(b);
        }
    }
    // The staging form: other host arrays in and out, the same bits.
    std::vector<T> out(batch.size());
    std::vector<int> info(static_cast<std::size_t>(count), 12345);
    streamed.run(batch.data(), out.data(), info.data());
    if (info != whole.info) return "run(input, output, info): statuses differ";
    if (std::memcmp(out.data(), expected.data(), out.size() * sizeof(T)) != 0) return "run(input, output, info): inverses differ";
    return {};
}
// Small-integer entries in -3..3: ties between candidate pivots in almost every step, and some
// singular matrices; a NaN at 10 when the batch is long enough.
template <typename T> std::vector<T> tieRichBatch(int n, std::int64_t count, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> entry(-3, 3);
    std::vector<T> batch(static_cast<std::size_t>(n) * n * static_cast<std::size_t>(count));
    for (T& x : batch) {
        if constexpr (std::is_floating_point_v<T>) x = T(entry(rng));
        else {
            const int re = entry(rng);
            x = T(re, entry(rng));
        }
    }
    if (count > 10) batch[10 * static_cast<std::size_t>(n) * n] = T(std::numeric_limits<double>::quiet_NaN());
    return batch;
}

// The tiled kernels (pipelined, staged) find their pivots by another search than the thread-per-matrix
// kernel (row maxima, then the column in the pivot row) but must take the same ones, ties included.
// For real types the arithmetic is the same too, so statuses and inverses must be equal bit for bit;
// complex products may be contracted into fused multiply-adds differently in each kernel, so there only
// the statuses are compared (on singular tie-rich matrices another pivot changes the failing step).
template <typename T> QString tiledKernelsAgreeBitForBit(int n, const std::vector<T>& batch) {
    const std::size_t size = static_cast<std::size_t>(n) * n;
    const auto count = static_cast<std::int64_t>(batch.size() / size);
    auto run = [&](InverseKernel kernel, std::vector<T>& out) {
        InverseOptions options;
        options.backend = InverseBackend::Cuda;
        options.kernel = kernel;
        out.assign(batch.size(), T(12345));
        return invertBatched(batch.data(), out.data(), n, count, options);
    };
    std::vector<T> expected, got;
    const InverseRunInfo reference = run(InverseKernel::ThreadPerMatrix, expected);
    for (InverseKernel kernel :
         {InverseKernel::ThreadPerMatrixPipelined, InverseKernel::ThreadPerMatrixStaged, InverseKernel::ThreadPerMatrixTma}) {
        const InverseRunInfo tiled = run(kernel, got);
        for (std::int64_t b = 0; b < count; ++b) {
            if (tiled.info[b] != reference.info[b])
                return QString("%1 matrix %2: info %3, thread-per-matrix %4").arg(toString(kernel)).arg(b).arg(tiled.info[b]).arg(reference.info[b]);
            if (reference.info[b] != 0 || !std::is_floating_point_v<T>) continue;  // failed: both all NaN
            if (std::memcmp(got.data() + b * size, expected.data() + b * size, size * sizeof(T)) != 0)
                return QString("%1 matrix %2: inverse differs from thread-per-matrix").arg(toString(kernel)).arg(b);
        }
    }
    return {};
}
} // namespace

class TestCudaBatchedInverse : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        CUDATESTING_REQUIRE_DEVICE();
    }
    void cudaKernelsMatchReferenceFloat() { everyKernelAllOrders<float>("f32"); }
    void cudaKernelsMatchReferenceDouble() { everyKernelAllOrders<double>("f64"); }
    void cudaKernelsMatchReferenceComplexFloat() { everyKernelAllOrders<cfloat>("c64"); }
    void cudaKernelsMatchReferenceComplexDouble() { everyKernelAllOrders<cdouble>("c128"); }

    void cudaKernelsMatchReferenceOnLteAndIllConditioned() {
        for (BatchKind kind : {BatchKind::LteChannel, BatchKind::IllConditioned})
            for (InverseKernel kernel : inverseKernelsOf(InverseBackend::Cuda))
                for (int n : {2, 4, 8, 16}) {
                    if (!inverseKernelSupports(kernel, n)) continue;
                    InverseOptions options;
                    options.backend = InverseBackend::Cuda;
                    options.kernel = kernel;
                    const auto c = testBatch<cfloat>(n, 1200, 3, kind);
                    QString problem = compareWithReference(c, n, 1200, options);
                    QVERIFY2(problem.isEmpty(), qPrintable(QString("c64 %1 n=%2 %3: %4").arg(toString(kind)).arg(n).arg(toString(kernel)).arg(problem)));
                    const auto d = testBatch<double>(n, 500, 4, kind);
                    problem = compareWithReference(d, n, 500, options);
                    QVERIFY2(problem.isEmpty(), qPrintable(QString("f64 %1 n=%2 %3: %4").arg(toString(kind)).arg(n).arg(toString(kernel)).arg(problem)));
                }
    }

    void cublasBaselinesAgreeWithReference() {
        cublasAgrees<float>("f32");
        cublasAgrees<double>("f64");
        cublasAgrees<cfloat>("c64");
        cublasAgrees<cdouble>("c128");
    }

    void everyBackendFlagsTheSameSingularMatrices() {
        for (int n : {5, 7, 8, 13, 32}) {
            QString problem = sameSingularVerdicts<float>(n);
            QVERIFY2(problem.isEmpty(), qPrintable("f32 " + problem));
            problem = sameSingularVerdicts<double>(n);
            QVERIFY2(problem.isEmpty(), qPrintable("f64 " + problem));
            problem = sameSingularVerdicts<cfloat>(n);
            QVERIFY2(problem.isEmpty(), qPrintable("c64 " + problem));
            problem = sameSingularVerdicts<cdouble>(n);
            QVERIFY2(problem.isEmpty(), qPrintable("c128 " + problem));
        }
    }

    void seedKernelWithAnyMatricesPerBlockMatchesReference() {
        for (int perBlock : {1, 3, 7, 32})
            for (int n : {2, 5, 8, 17}) {
                InverseOptions options;
                options.backend = InverseBackend::Cuda;
                options.kernel = InverseKernel::SeedSharedMemory;
                options.matricesPerBlock = perBlock;
                const auto batch = testBatch<float>(n, 50, perBlock * 31 + n);
                const QString problem = compareWithReference(batch, n, 50, options);
                QVERIFY2(problem.isEmpty(), qPrintable(QString("K=%1 n=%2: %3").arg(perBlock).arg(n).arg(problem)));
            }
    }

    void threadPerMatrixWithSmallerBlocksMatchesReference() {
        for (int perBlock : {32, 64})
            for (int n : {1, 3, 4, 7, 8}) {
                InverseOptions options;
                options.backend = InverseBackend::Cuda;
                options.kernel = InverseKernel::ThreadPerMatrix;
                options.matricesPerBlock = perBlock;
                const auto f = testBatch<float>(n, 131, perBlock + n);
                QString problem = compareWithReference(f, n, 131, options);
                QVERIFY2(problem.isEmpty(), qPrintable(QString("f32 B=%1 n=%2: %3").arg(perBlock).arg(n).arg(problem)));
                const auto c = testBatch<cdouble>(n, 131, perBlock + n);
                problem = compareWithReference(c, n, 131, options);
                QVERIFY2(problem.isEmpty(), qPrintable(QString("c128 B=%1 n=%2: %3").arg(perBlock).arg(n).arg(problem)));
            }
    }

    void tiledKernelsPivotAsThreadPerMatrixBitForBit() {
        for (int n = 1; n <= 8; ++n) {
            QString problem = tiledKernelsAgreeBitForBit(n, tieRichBatch<float>(n, 3001, 40 + n));
            QVERIFY2(problem.isEmpty(), qPrintable(QString("f32 ties n=%1: %2").arg(n).arg(problem)));
            problem = tiledKernelsAgreeBitForBit(n, testBatch<float>(n, 3001, 50 + n));
            QVERIFY2(problem.isEmpty(), qPrintable(QString("f32 random n=%1: %2").arg(n).arg(problem)));
            problem = tiledKernelsAgreeBitForBit(n, tieRichBatch<double>(n, 3001, 60 + n));
            QVERIFY2(problem.isEmpty(), qPrintable(QString("f64 ties n=%1: %2").arg(n).arg(problem)));
            problem = tiledKernelsAgreeBitForBit(n, tieRichBatch<cfloat>(n, 3001, 70 + n));
            QVERIFY2(problem.isEmpty(), qPrintable(QString("c64 ties n=%1: %2").arg(n).arg(problem)));
            problem = tiledKernelsAgreeBitForBit(n, tieRichBatch<cdouble>(n, 3001, 80 + n));
            QVERIFY2(problem.isEmpty(), qPrintable(QString("c128 ties n=%1: %2").arg(n).arg(problem)));
        }
    }

    // Both tiled kernels: the pipelined one (two buffers) and the staged one (one).
    void pipelinedWithSmallerBlocksMatchesReference() {
        for (InverseKernel kernel : {InverseKernel::ThreadPerMatrixPipelined, InverseKernel::ThreadPerMatrixStaged})
        for (int perBlock : {32, 64})
            for (int n : {1, 2, 3, 4, 7, 8}) {
                InverseOptions options;
                options.backend = InverseBackend::Cuda;
                options.kernel = kernel;
                options.matricesPerBlock = perBlock;
                const auto f = testBatch<float>(n, 131, 5 * perBlock + n);
                QString problem = compareWithReference(f, n, 131, options);
                QVERIFY2(problem.isEmpty(), qPrintable(QString("f32 B=%1 n=%2: %3").arg(perBlock).arg(n).arg(problem)));
                const auto c = testBatch<cdouble>(n, 131, 5 * perBlock + n);
                problem = compareWithReference(c, n, 131, options);
                QVERIFY2(problem.isEmpty(), qPrintable(QString("c128 B=%1 n=%2: %3").arg(perBlock).arg(n).arg(problem)));
            }
    }

    // Auto follows the measured crossovers (docs/method-e-batchedinverse.md): the TMA kernel for
    // matrices of 256 and 512 bytes (8x8 f32, f64, c64; 4x4 c128) from 200000 matrices, the tiled
    // kernels below that and for 128-byte matrices (4x4 c64).
    void autoTakesTheTmaKernelForLargeBatchesOf256To512ByteMatrices() {
        auto kernelFor = [](auto zero, int n, std::int64_t count) {
            using T = decltype(zero);
            const std::size_t size = static_cast<std::size_t>(n) * n;
            std::vector<T> a(size * static_cast<std::size_t>(count), T(0)), x(a.size());
            for (std::int64_t b = 0; b < count; ++b)
                for (int i = 0; i < n; ++i) a[static_cast<std::size_t>(b) * size + static_cast<std::size_t>(i) * (n + 1)] = T(2);
            InverseOptions options;
            options.backend = InverseBackend::Cuda;
            const InverseRunInfo run = invertBatched(a.data(), x.data(), n, count, options);
            for (std::int64_t b = 0; b < count; b += count - 1)  // the first and last: 0.5 on the diagonal
                if (run.info[b] != 0 || x[static_cast<std::size_t>(b) * size] != T(0.5f)) return InverseKernel::Auto;
            return run.kernelUsed;
        };
        QCOMPARE(kernelFor(0.0f, 8, 1200), InverseKernel::ThreadPerMatrixPipelined);
        QCOMPARE(kernelFor(0.0f, 8, 199999), InverseKernel::ThreadPerMatrixPipelined);
        QCOMPARE(kernelFor(0.0f, 8, 200000), InverseKernel::ThreadPerMatrixTma);
        QCOMPARE(kernelFor(cfloat(), 8, 199999), InverseKernel::ThreadPerMatrixStaged);
        QCOMPARE(kernelFor(cfloat(), 8, 200000), InverseKernel::ThreadPerMatrixTma);
        QCOMPARE(kernelFor(0.0, 8, 200000), InverseKernel::ThreadPerMatrixTma);
        QCOMPARE(kernelFor(cdouble(), 4, 199999), InverseKernel::ThreadPerMatrixPipelined);
        QCOMPARE(kernelFor(cdouble(), 4, 200000), InverseKernel::ThreadPerMatrixTma);
        QCOMPARE(kernelFor(cfloat(), 4, 200000), InverseKernel::ThreadPerMatrixPipelined);
    }

    // The tiled kernels' blocks are persistent: with more tiles than resident blocks each block
    // walks several tiles through its buffers (about 4 per block for 8x8 f32 on an H100), and the
    // last tile is partial; the staged kernel reuses its one buffer for the next tile's input only
    // after the results have left it. 5x5 f32 moves in 4-byte chunks, 8x8 f32 in 16-byte ones.
    void pipelinedKernelWalksManyTilesPerBlock() {
        for (InverseKernel kernel :
             {InverseKernel::ThreadPerMatrixPipelined, InverseKernel::ThreadPerMatrixStaged, InverseKernel::ThreadPerMatrixTma})
        for (int perBlock : {0, 32})
            for (int n : {5, 8}) {
                const std::int64_t count = 200003;
                InverseOptions options;
                options.backend = InverseBackend::Cuda;
                options.kernel = kernel;
                options.matricesPerBlock = perBlock;
                const auto batch = testBatch<float>(n, count, 900 + n + perBlock);
                const QString problem = compareWithReference(batch, n, count, options);
                QVERIFY2(problem.isEmpty(),
                         qPrintable(QString("%1 B=%2 n=%3: %4").arg(toString(kernel)).arg(perBlock).arg(n).arg(problem)));
            }
    }

    void batchLargerThanTheMemoryCapIsSplitIntoChunks() {
        const int n = 8;
        const std::int64_t count = 10001;
        const auto batch = testBatch<double>(n, count, 77);
        InverseOptions options;
        options.backend = InverseBackend::Cuda;
        std::vector<double> whole(batch.size()), split(batch.size());
        const InverseRunInfo one = invertBatched(batch.data(), whole.data(), n, count, options);
        QCOMPARE(one.chunks, 1);
        setDeviceMemoryCap(1000 * (2 * 64 * sizeof(double) + sizeof(int)));  // about 1000 matrices
        InverseRunInfo many;
        try {
            many = invertBatched(batch.data(), split.data(), n, count, options);
        } catch (...) {
            setDeviceMemoryCap(0);
            throw;
        }
        setDeviceMemoryCap(0);
        QVERIFY2(many.chunks >= 10, qPrintable(QString::number(many.chunks)));
        QCOMPARE(many.info, one.info);
        QVERIFY(std::equal(whole.begin(), whole.end(), split.begin(), [](double a, double b) {
            return a == b || (std::isnan(a) && std::isnan(b));
        }));
        // Not even one matrix fits: a clear out-of-memory error, not a crash.
        setDeviceMemoryCap(64);
        QVERIFY_THROWS_EXCEPTION(OutOfMemoryError, invertBatched(batch.data(), split.data(), n, count, options));
        setDeviceMemoryCap(0);
    }

    // Chunk counts: the default (1200 c64: 4 of 300; 1200 f32: 2 of 600; 50: one chunk, the batch is
    // smaller than a chunk), 1201 in 4 (301+301+301+298), 3 matrices asked in 4 (3 of 1), 7 chunks
    // of 5x5 f32 (100-byte matrices: an offset view into one buffer would be misaligned for the
    // pipelined kernel), and the lane-group kernel at 16x16.
    void streamedEndToEndMatchesUnchunkedBitForBit() {
        struct Case {
            const char* type;
            int n;
            std::int64_t count;
            int chunks;
            InverseKernel kernel;
            StreamedTransfer transfer = StreamedTransfer::Automatic;
        };
        const Case cases[] = {
            {"c64", 8, 1200, 0, InverseKernel::Auto},  {"c64", 8, 1201, 4, InverseKernel::Auto},
            {"c64", 8, 50, 0, InverseKernel::Auto},    {"c64", 8, 3, 4, InverseKernel::Auto},
            {"f32", 8, 1200, 0, InverseKernel::Auto},  {"f32", 5, 1001, 7, InverseKernel::Auto},
            {"c64", 16, 700, 3, InverseKernel::Auto},  {"f64", 8, 999, 4, InverseKernel::SeedSharedMemory},
            {"c128", 4, 513, 2, InverseKernel::ThreadPerMatrix},
            // Automatic with copies: past the zero-copy size (8x8 c64: 2048 matrices), and an
            // explicit kernel other than LaneEntries.
            {"c64", 8, 2500, 0, InverseKernel::Auto},  {"c64", 8, 1200, 0, InverseKernel::ThreadPerMatrixPipelined},
            // Zero-copy forced, with kernels that were written for device memory: cp.async from
            // mapped host memory, the seed's shared-memory tiles, rows per lane at 16x16.
            {"c64", 8, 1200, 0, InverseKernel::Auto, StreamedTransfer::ZeroCopy},
            {"f32", 8, 777, 1, InverseKernel::ThreadPerMatrixPipelined, StreamedTransfer::ZeroCopy},
            // The TMA kernel: host memory runs the pipelined one instead; chunks of device memory
            // (tensor maps of offset buffers, a partial last tile) in a CUDA graph.
            {"f32", 8, 777, 1, InverseKernel::ThreadPerMatrixTma, StreamedTransfer::ZeroCopy},
            {"f32", 8, 5001, 3, InverseKernel::ThreadPerMatrixTma, StreamedTransfer::Copies},
            {"c64", 4, 3001, 2, InverseKernel::ThreadPerMatrixTma, StreamedTransfer::Copies},
            {"f64", 3, 1000, 0, InverseKernel::SeedSharedMemory, StreamedTransfer::ZeroCopy},
            {"c128", 16, 100, 0, InverseKernel::Auto, StreamedTransfer::ZeroCopy},
            {"c64", 5, 300, 0, InverseKernel::LaneEntries, StreamedTransfer::Copies},
        };
        for (const Case& c : cases) {
            const std::string type = c.type;
            const QString problem =
                type == "c64"   ? streamedMatchesUnchunked<cfloat>(c.n, c.count, c.chunks, c.kernel, c.transfer)
                : type == "f32" ? streamedMatchesUnchunked<float>(c.n, c.count, c.chunks, c.kernel, c.transfer)
                : type == "f64" ? streamedMatchesUnchunked<double>(c.n, c.count, c.chunks, c.kernel, c.transfer)
                                : streamedMatchesUnchunked<cdouble>(c.n, c.count, c.chunks, c.kernel, c.transfer);
            QVERIFY2(problem.isEmpty(), qPrintable(QString("%1 n=%2 count=%3 chunks=%4 %5 transfer %6: %7")
                                                       .arg(c.type).arg(c.n).arg(c.count).arg(c.chunks)
                                                       .arg(toString(c.kernel)).arg(int(c.transfer)).arg(problem)));
        }
        // The LTE slot goes zero-copy by itself; asked for copies, it takes the chunk rule's 4.
        StreamedBatchedInverse<cfloat> lte(8, 1200);
        QVERIFY(lte.zeroCopy());
        QCOMPARE(lte.chunks(), 1);
        QCOMPARE(lte.kernelUsed(), InverseKernel::LaneEntries);
        StreamedBatchedInverse<cfloat> lteCopies(8, 1200, 0, InverseKernel::Auto, StreamedTransfer::Copies);
        QVERIFY(!lteCopies.zeroCopy());
        QCOMPARE(lteCopies.chunks(), 4);
        QCOMPARE(lteCopies.chunkSize(), std::int64_t(300));
        StreamedBatchedInverse<cfloat> tiny(8, 3, 4);
        QCOMPARE(tiny.chunks(), 3);
    }

    // The benchmark's paired-lanes kernel (two lanes a matrix, batchedinverse_pairedlanes.cu) takes the
    // TMA kernel's pivots, swaps and arithmetic: the same inverses and statuses bit for bit, on tie-rich
    // and random matrices, NaN, infinite and singular ones, and a partial last tile (16 matrices a
    // warp's tile). With the elimination skipped it copies the batch and reports every matrix as done.
    void pairedLanesKernelInvertsAsTheTmaKernelBitForBit() {
#if defined(SPYGLASS_TESTS_HAVE_CUDA)
        if (!cuda::tmaInverseRunsOnCurrentDevice(8, sizeof(float))) QSKIP("the TMA kernel does not run on this GPU");
        const int n = 8;
        const std::size_t size = 64;
        const std::int64_t count = 20011;  // 1250 tiles of 16 and a partial one of 11
        std::vector<float> batch = tieRichBatch<float>(n, count, 9090);  // matrix 10 holds a NaN
        const std::vector<float> random = testBatch<float>(n, count, 9191);
        for (std::int64_t b = 1; b < count; b += 2) std::copy_n(random.begin() + b * size, size, batch.begin() + b * size);
        std::fill_n(batch.begin() + 20 * size, size, 0.0f);                  // singular at step 1
        std::copy_n(batch.begin() + 22 * size, 8, batch.begin() + 22 * size + 40);  // columns 0 and 5 equal: singular
        batch[24 * size + 63] = std::numeric_limits<float>::infinity();
        const std::size_t elements = batch.size();
        cuda::DeviceBuffer<float> in(elements), out(elements);
        cuda::DeviceBuffer<int> info(static_cast<std::size_t>(count));
        cuda::CudaStream stream;
        in.upload(batch);
        auto runWith = [&](auto launch, std::vector<float>& x, std::vector<int>& status) {
            QCOMPARE(cudaMemsetAsync(out.data(), 0x7f, elements * sizeof(float), stream.get()), cudaSuccess);
            QCOMPARE(cudaMemsetAsync(info.data(), 0x55, static_cast<std::size_t>(count) * sizeof(int), stream.get()), cudaSuccess);
            launch();
            x.resize(elements);
            status.resize(static_cast<std::size_t>(count));
            out.download(x.data(), elements, stream.get());
            info.download(status.data(), status.size(), stream.get());
            QCOMPARE(cudaStreamSynchronize(stream.get()), cudaSuccess);
        };
        std::vector<float> expected, got;
        std::vector<int> expectedInfo, gotInfo;
        runWith([&] { cuda::launchTmaInverse(in.data(), out.data(), info.data(), n, count, stream.get()); }, expected, expectedInfo);
        runWith([&] { cuda::launchPairedLanesInverse(in.data(), out.data(), info.data(), count, true, stream.get()); }, got, gotInfo);
        QCOMPARE(expectedInfo[10], kInverseNonFiniteInput);
        QCOMPARE(expectedInfo[20], 1);
        QVERIFY(expectedInfo[22] > 0);
        QCOMPARE(expectedInfo[24], kInverseNonFiniteInput);
        for (std::int64_t b = 0; b < count; ++b) {
            const auto i = static_cast<std::size_t>(b);
            QVERIFY2(gotInfo[i] == expectedInfo[i],
                     qPrintable(QString("matrix %1: status %2, the TMA kernel's %3").arg(b).arg(gotInfo[i]).arg(expectedInfo[i])));
            QVERIFY2(std::memcmp(got.data() + i * size, expected.data() + i * size, size * sizeof(float)) == 0,
                     qPrintable(QString("matrix %1: the inverse differs from the TMA kernel's").arg(b)));
        }
        runWith([&] { cuda::launchPairedLanesInverse(in.data(), out.data(), info.data(), count, false, stream.get()); }, got, gotInfo);
        QVERIFY2(std::memcmp(got.data(), batch.data(), elements * sizeof(float)) == 0, "the data path's output is not its input");
        QVERIFY(std::all_of(gotInfo.begin(), gotInfo.end(), [](int status) { return status == 0; }));
#else
        QSKIP("built without the CUDA backend");
#endif
    }

    // The TMA kernel's ticket slots pass on once their launches have finished: a program that
    // inverts on many streams (a GUI job each) keeps the tickets after 64 of them instead of falling
    // back to fixed shares for good, and every launch on a passed-on slot is still right. A slot that a
    // captured graph holds passes on only when the graph is gone: until then its replays use it.
    void tmaTicketSlotsPassOnOnceTheirLaunchesFinish() {
#if defined(SPYGLASS_TESTS_HAVE_CUDA)
        if (!cuda::tmaInverseRunsOnCurrentDevice(8, sizeof(float))) QSKIP("the TMA kernel does not run on this GPU");
        const int n = 8;
        const std::int64_t count = 60000;  // more tiles than the grid's warps: the later ones go by ticket
        const std::size_t elements = static_cast<std::size_t>(n) * n * count;
        const std::vector<float> batch = testBatch<float>(n, count, 4242);
        cuda::DeviceBuffer<float> in(elements), out(elements);
        cuda::DeviceBuffer<int> info(static_cast<std::size_t>(count));
        in.upload(batch);
        std::vector<float> first(elements), again(elements);
        std::vector<int> firstInfo(static_cast<std::size_t>(count)), againInfo(firstInfo.size());
        auto runOn = [&](cudaStream_t stream, std::vector<float>& x, std::vector<int>& status) {
            cuda::launchTmaInverse(in.data(), out.data(), info.data(), n, count, stream);
            out.download(x.data(), elements, stream);
            info.download(status.data(), status.size(), stream);
            QCOMPARE(cudaStreamSynchronize(stream), cudaSuccess);
        };
        // Three times as many live streams as slots, one launch each after the last has finished.
        std::vector<std::unique_ptr<cuda::CudaStream>> streams;
        for (int s = 0; s < 3 * 64; ++s) {
            streams.push_back(std::make_unique<cuda::CudaStream>());
            std::vector<float>& x = s == 0 ? first : again;
            std::vector<int>& status = s == 0 ? firstInfo : againInfo;
            runOn(streams.back()->get(), x, status);
            if (s > 0 && (s % 16 == 0 || s >= 3 * 64 - 2)) {
                QVERIFY2(std::memcmp(x.data(), first.data(), elements * sizeof(float)) == 0 && status == firstInfo,
                         qPrintable(QString("launch %1 differs from the first").arg(s)));
            }
        }
        // The launches agree with a library run of the same kernel, checked against the reference.
        InverseOptions options;
        options.backend = InverseBackend::Cuda;
        options.kernel = InverseKernel::ThreadPerMatrixTma;
        QCOMPARE(compareWithReference(batch, n, count, options), QString());
        std::vector<float> expected(elements);
        const InverseRunInfo run = invertBatched(batch.data(), expected.data(), n, count, options);
        QVERIFY(std::memcmp(expected.data(), first.data(), elements * sizeof(float)) == 0 && run.info == firstInfo);
        cuda::CudaStream fresh;
        QVERIFY2(cuda::tmaTicketSlotFor(fresh.get()) >= 0, "a new stream found no ticket slot after 192 finished launches");

        // A launch captured into a graph keeps its slot.
        cuda::CudaStream captureStream;
        QCOMPARE(cudaStreamBeginCapture(captureStream.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
        cuda::launchTmaInverse(in.data(), out.data(), info.data(), n, count, captureStream.get());
        const int held = cuda::tmaLastTicketSlot();
        cudaGraph_t graph = nullptr;
        QCOMPARE(cudaStreamEndCapture(captureStream.get(), &graph), cudaSuccess);
        cudaGraphExec_t exec = nullptr;
        QCOMPARE(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
        QVERIFY(held >= 0);
        QVERIFY(cuda::tmaTicketSlotFor(captureStream.get()) != held);  // not even for its own stream
        std::vector<std::unique_ptr<cuda::CudaStream>> others;
        for (int s = 0; s < 2 * 64; ++s) {
            others.push_back(std::make_unique<cuda::CudaStream>());
            const int slot = cuda::tmaTicketSlotFor(others.back()->get());
            QVERIFY2(slot >= 0 && slot != held, qPrintable(QString("stream %1 got slot %2 (the graph's: %3)").arg(s).arg(slot).arg(held)));
        }
        std::fill(again.begin(), again.end(), 0.0f);
        QCOMPARE(cudaMemsetAsync(out.data(), 0, elements * sizeof(float), streams[0]->get()), cudaSuccess);
        QCOMPARE(cudaGraphLaunch(exec, streams[0]->get()), cudaSuccess);
        out.download(again.data(), elements, streams[0]->get());
        info.download(againInfo.data(), againInfo.size(), streams[0]->get());
        QCOMPARE(cudaStreamSynchronize(streams[0]->get()), cudaSuccess);
        QVERIFY2(std::memcmp(again.data(), first.data(), elements * sizeof(float)) == 0 && againInfo == firstInfo,
                 "the graph's replay differs from the direct launches");
        // Gone with the graph (CUDA runs the graph's user object's destructor on a thread of its own,
        // soon after): the slot is free again.
        const int heldByGraphs = cuda::tmaTicketSlotsHeldByGraphs();
        QVERIFY(heldByGraphs >= 1);
        cudaGraphExecDestroy(exec);
        cudaGraphDestroy(graph);
        QElapsedTimer waited;
        waited.start();
        while (cuda::tmaTicketSlotsHeldByGraphs() == heldByGraphs && waited.elapsed() < 5000) QThread::msleep(1);
        const bool back = cuda::tmaTicketSlotsHeldByGraphs() == heldByGraphs - 1;
        QVERIFY2(back, qPrintable(QString("slot %1 did not come back after its graph was destroyed").arg(held)));
#else
        QSKIP("built without the CUDA backend");
#endif
    }

    void streamedEndToEndThatDoesNotFitThrowsOutOfMemory() {
        struct CapLifted {
            ~CapLifted() { setDeviceMemoryCap(0); }  // also when the check fails and returns
        } lifted;
        setDeviceMemoryCap(4096);
        QVERIFY_THROWS_EXCEPTION(OutOfMemoryError,
                                 StreamedBatchedInverse<cfloat>(8, 1200, 0, InverseKernel::Auto, StreamedTransfer::Copies));
        // Zero-copy keeps no batch on the device (one matrix of scratch for its warm-up): under the
        // same cap it runs.
        StreamedBatchedInverse<cfloat> zeroCopy(8, 1200);
        QVERIFY(zeroCopy.zeroCopy());
    }
};

QTEST_GUILESS_MAIN(TestCudaBatchedInverse)
#include "tst_cuda_batchedinverse.moc"
