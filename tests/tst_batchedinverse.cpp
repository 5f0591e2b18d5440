// Method E on the CPU: the reference full-pivot Gauss-Jordan inverse, its status codes, the
// residual measure and the batch generators.
#include "batchedinverse_testing.h"
#include "spyglass/batchedinverse.h"
#include "spyglass/batchedinverse_status.h"
#include "spyglass/batchedinverse_generators.h"
#include "spyglass/batchedinverse_streamed.h"
#include "spyglass/error.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numeric>
#include <random>

using namespace spyglass;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

namespace {

template <typename T> bool isNaNScalar(const T& x) {
    if constexpr (std::is_floating_point_v<T>) return std::isnan(x);
    else return std::isnan(x.real()) && std::isnan(x.imag());
}

// A signed (or, for complex, unit-phase) permutation with power-of-two scales: every step of
// Gauss-Jordan is exact on it, and so is its inverse D^-1 P^T, so results must match bit for bit.
template <typename T> void scaledPermutation(int n, std::mt19937_64& rng, std::vector<T>& a, std::vector<T>& inverse) {
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    a.assign(static_cast<std::size_t>(n) * n, T(0));
    inverse = a;
    std::uniform_int_distribution<int> exponent(-6, 6), phase(0, 3);
    for (int j = 0; j < n; ++j) {
        const int i = perm[j];  // A(i,j) = s, so A^-1(j,i) = 1/s
        const double scale = std::ldexp(1.0, exponent(rng));
        T s;
        if constexpr (std::is_floating_point_v<T>) s = T(phase(rng) % 2 ? -scale : scale);
        else {
            const int k = phase(rng);
            s = T(k == 0 ? scale : k == 2 ? -scale : 0, k == 1 ? scale : k == 3 ? -scale : 0);
        }
        a[static_cast<std::size_t>(j) * n + i] = s;
        inverse[static_cast<std::size_t>(i) * n + j] = T(1) / s;
    }
}

template <typename T> void runExactPermutations() {
    std::mt19937_64 rng(11);
    for (int n : {1, 2, 3, 5, 8, 13, 32}) {
        const int count = 9;
        std::vector<T> batch, expected;
        for (int b = 0; b < count; ++b) {
            std::vector<T> a, inv;
            scaledPermutation(n, rng, a, inv);
            batch.insert(batch.end(), a.begin(), a.end());
            expected.insert(expected.end(), inv.begin(), inv.end());
        }
        std::vector<T> out(batch.size());
        const InverseRunInfo run = invertBatched(batch.data(), out.data(), n, count);
        QCOMPARE(run.failedCount(), std::int64_t(0));
        QVERIFY2(out == expected, qPrintable(QString("n=%1").arg(n)));
    }
}

// Residual bound for a backward-stable inverse: a modest multiple of n (see the docs).
double residualBound(int n) { return 4.0 * n; }

template <typename T> void runResidualBound(BatchKind kind, double condition) {
    for (int n = 1; n <= 32; n += (n < 9 ? 1 : 4)) {
        BatchSpec spec;
        spec.kind = kind;
        spec.n = n;
        spec.count = 37;  // not a multiple of any block size
        spec.seed = 1000 + n;
        spec.condition = condition;
        spec.snrDb = 5.0;
        const std::vector<T> batch = generateBatch<T>(spec);
        std::vector<T> out(batch.size());
        const InverseRunInfo run = invertBatched(batch.data(), out.data(), n, spec.count);
        QCOMPARE(run.failedCount(), std::int64_t(0));
        const double worst = maxInverseResidual(batch.data(), out.data(), run.info.data(), n, spec.count);
        QVERIFY2(worst <= residualBound(n),
                 qPrintable(QString("%1 n=%2 residual %3 > %4").arg(toString(kind)).arg(n).arg(worst).arg(residualBound(n))));
        // The residual is blind to a uniformly scaled inverse once cond * eps is near 1/n (0.5 A^-1
        // in f32 at cond 1e6 passes 4n); the error against a long-double inverse is not.
        const std::size_t size = static_cast<std::size_t>(n) * n;
        for (int b = 0; b < spec.count; ++b) {
            const double ratio = inversetest::forwardErrorRatio(batch.data() + b * size, out.data() + b * size, n);
            QVERIFY2(ratio <= inversetest::kForwardErrorBound,
                     qPrintable(QString("%1 n=%2 matrix %3: forward error %4 cond*eps > %5")
                                    .arg(toString(kind)).arg(n).arg(b).arg(ratio).arg(inversetest::kForwardErrorBound)));
        }
    }
}

// A matrix of rank r: r random rows, the others exactly zero, rows and columns shuffled. After r
// full-pivot steps the remaining block is exactly zero, so step r+1 must fail.
template <typename T> std::vector<T> rankDeficient(int n, int r, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<int> rows(n);
    std::iota(rows.begin(), rows.end(), 0);
    std::shuffle(rows.begin(), rows.end(), rng);
    std::vector<T> a(static_cast<std::size_t>(n) * n, T(0));
    for (int l = 0; l < r; ++l)
        for (int j = 0; j < n; ++j) a[static_cast<std::size_t>(j) * n + rows[l]] = T(u(rng));
    return a;
}

template <typename T> void runSingularFlags() {
    const int n = 7, count = 41;
    std::vector<T> batch = inversetest::randomBatch<T>(n, count, 5);
    const std::size_t size = static_cast<std::size_t>(n) * n;
    std::mt19937_64 rng(3);
    std::vector<int> expected(count, 0);
    for (int b : {0, 6, 17, 40}) {  // first, middle and last matrices, and one with rank 0
        const int rank = b == 17 ? 0 : 1 + b % (n - 1);
        const std::vector<T> a = rankDeficient<T>(n, rank, rng);
        std::copy(a.begin(), a.end(), batch.begin() + b * size);
        expected[b] = rank + 1;
    }
    std::vector<T> out(batch.size());
    const InverseRunInfo run = invertBatched(batch.data(), out.data(), n, count);
    QCOMPARE(run.info, expected);
    QCOMPARE(run.failedCount(), std::int64_t(4));
    std::vector<T> single(size);
    for (int b = 0; b < count; ++b) {
        const T* got = out.data() + b * size;
        if (expected[b] != 0) {
            QVERIFY(std::all_of(got, got + size, [](const T& x) { return isNaNScalar(x); }));
            continue;
        }
        // Neighbours of failed matrices come out exactly as when inverted alone.
        invertBatched(batch.data() + b * size, single.data(), n, 1);
        QVERIFY(std::equal(single.begin(), single.end(), got));
    }
    const auto residuals = inverseResiduals(batch.data(), out.data(), run.info.data(), n, count);
    QVERIFY(std::isnan(residuals[0]) && std::isnan(residuals[40]));
    QVERIFY(residuals[1] <= residualBound(n));
}

template <typename T> void runNonFiniteFlags() {
    const int n = 5, count = 9;
    std::vector<T> batch = inversetest::randomBatch<T>(n, count, 1);
    const std::size_t size = static_cast<std::size_t>(n) * n;
    batch[2 * size + 7] = T(std::numeric_limits<double>::quiet_NaN());
    batch[5 * size + 24] = T(std::numeric_limits<double>::infinity());
    std::vector<T> out(batch.size());
    const InverseRunInfo run = invertBatched(batch.data(), out.data(), n, count);
    for (int b = 0; b < count; ++b) QCOMPARE(run.info[b], (b == 2 || b == 5) ? kInverseNonFiniteInput : 0);
    QCOMPARE(run.nonFiniteCount(), std::int64_t(2));
    QVERIFY(maxInverseResidual(batch.data(), out.data(), run.info.data(), n, count) <= residualBound(n));
}

// Block-isolated tiny pivots (batchedinverse_testing.h): 0 and far below, just below and just above
// the bound eps * max|a_ij|, far above. The reference meets the pivot as its last step.
template <typename T> void runSmallNonzeroPivots() {
    std::mt19937_64 rng(21);
    for (int n : {2, 5, 7, 8, 13, 32})
        for (double factor : {0.0, 1e-3, 0.5, 2.0, 1e3}) {
            std::vector<T> batch = inversetest::randomBatch<T>(n, 3, 40 + n);
            const std::size_t size = static_cast<std::size_t>(n) * n;
            const auto delta = inversetest::isolateTinyPivot(batch.data() + size, n, factor, rng);
            std::vector<T> out(batch.size());
            const InverseRunInfo run = invertBatched(batch.data(), out.data(), n, 3);
            const QString where = QString("n=%1 factor %2").arg(n).arg(factor);
            QVERIFY2(run.info[0] == 0 && run.info[2] == 0, qPrintable(where));
            QVERIFY2(run.info[1] == (factor < 1 ? n : 0), qPrintable(where + QString(": info %1").arg(run.info[1])));
            if (factor > 1) {
                // Nothing rounds on the isolated entry: its inverse is exactly 1/delta.
                const T* a = batch.data() + size;
                const T* x = out.data() + size;
                int r = 0, c = 0;
                for (int e = 0; e < n * n; ++e)
                    if (a[e] == T(delta)) r = e % n, c = e / n;
                QVERIFY2(x[static_cast<std::size_t>(r) * n + c] == T(1) / T(delta), qPrintable(where));
            }
        }
}

// The Cublas backend's verdicts: the rule applied to the pivots of a partial-pivot LU (what cuBLAS
// getrf leaves) must flag exactly the matrices the reference flags when the tiny pivot is isolated,
// turn the non-finite ones into kInverseNonFiniteInput, keep a zero pivot's code, NaN-fill them all
// and leave the others untouched.
template <typename T> void runVendorStatusRule() {
    std::mt19937_64 rng(8);
    for (int n : {5, 7, 8, 13, 32}) {
        const std::vector<double> factors = {0.0, 1e-3, 0.5, 2.0, 1e3};
        const int count = 12;
        std::vector<T> batch = inversetest::randomBatch<T>(n, count, 300 + n);
        const std::size_t size = static_cast<std::size_t>(n) * n;
        for (std::size_t f = 0; f < factors.size(); ++f)
            inversetest::isolateTinyPivot(batch.data() + (2 * f + 1) * size, n, factors[f], rng);
        for (int j = 0; j < n; ++j) batch[10 * size + static_cast<std::size_t>(j) * n + 2] = T(0);  // a zero row
        batch[11 * size + 3] = T(std::numeric_limits<double>::infinity());
        std::vector<T> expected(batch.size());
        std::vector<int> expectedInfo(count);
        invertBatchedReference(batch.data(), expected.data(), expectedInfo.data(), n, count);

        // What cuBLAS hands back: its zero-pivot info, finite numbers everywhere (here: 7).
        std::vector<T> pivots(static_cast<std::size_t>(count) * n), out(batch.size(), T(7));
        std::vector<int> info(count);
        for (int b = 0; b < count; ++b) info[b] = inversetest::luPivots(batch.data() + b * size, n, pivots.data() + b * n);
        const std::vector<int> vendorInfo = info;
        const std::int64_t changed = applyInverseStatusRule(batch.data(), pivots.data(), out.data(), n, count, info.data());
        std::int64_t newlyFlagged = 0;
        for (int b = 0; b < count; ++b) {
            const QString where = QString("n=%1 matrix %2").arg(n).arg(b);
            QVERIFY2((info[b] != 0) == (expectedInfo[b] != 0),
                     qPrintable(where + QString(": info %1, reference %2").arg(info[b]).arg(expectedInfo[b])));
            if (b == 11) QCOMPARE(info[b], kInverseNonFiniteInput);
            else if (vendorInfo[b] != 0) QCOMPARE(info[b], vendorInfo[b]);
            newlyFlagged += vendorInfo[b] == 0 && info[b] != 0;
            const T* x = out.data() + b * size;
            if (info[b] != 0) QVERIFY2(std::all_of(x, x + size, [](const T& v) { return isNaNScalar(v); }), qPrintable(where));
            else QVERIFY2(std::all_of(x, x + size, [](const T& v) { return v == T(7); }), qPrintable(where));
        }
        QCOMPARE(changed, newlyFlagged);
        // The nearly singular members (factor 1e-3 and 0.5) have nonzero pivots: only the rule flags them.
        QVERIFY2(vendorInfo[3] == 0 && vendorInfo[5] == 0 && info[3] != 0 && info[5] != 0, qPrintable(QString("n=%1").arg(n)));
    }
}

// Calls f with a zero of each scalar type the batched inverse supports (real, then complex), so that
// one check covers them all.
template <typename F> void forEveryScalar(F f) {
    f(float{});
    f(double{});
    f(cfloat{});
    f(cdouble{});
}

} // namespace

class TestBatchedInverse : public QObject {
    Q_OBJECT
private slots:
    void scaledPermutationsInvertExactlyInAllTypes() {
        forEveryScalar([](auto zero) { runExactPermutations<decltype(zero)>(); });
    }

    void unimodularIntegerMatrixGivesItsIntegerInverse() {
        // A = L U with unit triangular integer factors: det 1, integer inverse U^-1 L^-1.
        const int n = 4;
        const double l[4][4] = {{1, 0, 0, 0}, {2, 1, 0, 0}, {-1, 3, 1, 0}, {0, 1, -2, 1}};
        const double u[4][4] = {{1, 2, 0, -1}, {0, 1, 1, 2}, {0, 0, 1, 3}, {0, 0, 0, 1}};
        std::vector<double> a(16), x(16);
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                double s = 0;
                for (int k = 0; k < n; ++k) s += l[i][k] * u[k][j];
                a[j * n + i] = s;
            }
        const InverseRunInfo run = invertBatched(a.data(), x.data(), n, 1);
        QCOMPARE(run.info.front(), 0);
        // Check A X = I in exact integer arithmetic on the rounded inverse.
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                const double rounded = std::round(x[j * n + i]);
                QVERIFY(std::fabs(x[j * n + i] - rounded) < 64 * n * std::numeric_limits<double>::epsilon() * 100);
            }
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
                long long s = 0;
                for (int k = 0; k < n; ++k) s += llround(a[k * n + i]) * llround(x[j * n + k]);
                QCOMPARE(s, (long long)(i == j));
            }
    }

    void randomBatchesMeetTheResidualBound() {
        forEveryScalar([](auto zero) { runResidualBound<decltype(zero)>(BatchKind::Random, 1); });
    }

    void lteChannelMatricesMeetTheResidualBound() {
        runResidualBound<cfloat>(BatchKind::LteChannel, 1);
        runResidualBound<cdouble>(BatchKind::LteChannel, 1);
        runResidualBound<float>(BatchKind::LteChannel, 1);
    }

    void illConditionedUpTo1e6MeetTheResidualBound() {
        forEveryScalar([](auto zero) { runResidualBound<decltype(zero)>(BatchKind::IllConditioned, 1e6); });
    }

    void rankDeficientMatricesReportTheFailingPivotStep() {
        forEveryScalar([](auto zero) { runSingularFlags<decltype(zero)>(); });
    }

    void tinyPivotRelativeToTheNormIsNumericallySingular() {
        // diag(1, 1e-30): invertible in exact arithmetic, but the second pivot is far below eps.
        std::vector<double> a = {1, 0, 0, 1e-30}, x(4);
        QCOMPARE(invertBatched(a.data(), x.data(), 2, 1).info.front(), 2);
        // Scaling the whole matrix does not change the verdict: the bound is relative.
        std::vector<double> tiny = {1e-200, 0, 0, 1e-200}, y(4);
        QCOMPARE(invertBatched(tiny.data(), y.data(), 2, 1).info.front(), 0);
        QCOMPARE(y[0], 1e200);
    }

    void smallNonzeroPivotBelowTheBoundIsFlaggedAboveItIsNot() {
        forEveryScalar([](auto zero) { runSmallNonzeroPivots<decltype(zero)>(); });
    }

    void vendorStatusRuleFlagsWhatTheReferenceFlags() {
        forEveryScalar([](auto zero) { runVendorStatusRule<decltype(zero)>(); });
    }

    void nonFiniteInputIsFlaggedAndNeighboursAreInverted() {
        forEveryScalar([](auto zero) { runNonFiniteFlags<decltype(zero)>(); });
    }

    void residualExposesAWrongInverse() {
        const std::vector<double> batch = inversetest::randomBatch<double>(6, 3, 1);
        std::vector<double> out(batch.size());
        const InverseRunInfo run = invertBatched(batch.data(), out.data(), 6, 3);
        QVERIFY(maxInverseResidual(batch.data(), out.data(), run.info.data(), 6, 3) <= residualBound(6));
        out[36 + 10] *= 1 + 1e-9;  // one entry off by far more than rounding
        QVERIFY(maxInverseResidual(batch.data(), out.data(), run.info.data(), 6, 3) > 1e3);
    }

    void emptyBatchAndOrderOneWork() {
        std::vector<float> none;
        QCOMPARE(invertBatched(none.data(), none.data(), 3, 0).info.size(), std::size_t(0));
        std::vector<float> a = {4.0f, -0.5f, 0.0f}, x(3);
        const InverseRunInfo run = invertBatched(a.data(), x.data(), 1, 3);
        QCOMPARE(x[0], 0.25f);
        QCOMPARE(x[1], -2.0f);
        QCOMPARE(run.info, (std::vector<int>{0, 0, 1}));
    }

    void badRequestsThrowNamedErrors() {
        std::vector<double> a(64, 1.0), x(64);
        QVERIFY_THROWS_EXCEPTION(InputError, invertBatched(a.data(), x.data(), 0, 1));
        QVERIFY_THROWS_EXCEPTION(InputError, invertBatched(a.data(), x.data(), 2, -1));
        QVERIFY_THROWS_EXCEPTION(InputError, invertBatched(a.data(), a.data() + 2, 2, 2));  // overlap
        InverseOptions gpu;
        gpu.backend = InverseBackend::Cuda;
        std::vector<double> big(33 * 33, 1.0), bigOut(33 * 33);
        QVERIFY_THROWS_EXCEPTION(InputError, invertBatched(big.data(), bigOut.data(), 33, 1, gpu));
        gpu.kernel = InverseKernel::ThreadPerMatrix;
        std::vector<double> nine(81, 1.0), nineOut(81);
        QVERIFY_THROWS_EXCEPTION(InputError, invertBatched(nine.data(), nineOut.data(), 9, 1, gpu));
        gpu.kernel = InverseKernel::CublasMatinv;
        QVERIFY_THROWS_EXCEPTION(InputError, invertBatched(a.data(), x.data(), 2, 1, gpu));
        // The reference has no order limit.
        BatchSpec spec;
        spec.n = 40;
        const std::vector<double> forty = generateBatch<double>(spec);
        std::vector<double> fortyOut(forty.size());
        QCOMPARE(invertBatched(forty.data(), fortyOut.data(), 40, 1).info.front(), 0);
    }

    void gpuBackendWithoutDeviceIsUnavailable() {
        if (cudaDeviceInfoPresent()) QSKIP("a GPU is present; tst_cuda_batchedinverse covers it");
        std::vector<float> a = {2.0f}, x(1);
        InverseOptions options;
        options.backend = InverseBackend::Cuda;
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, invertBatched(a.data(), x.data(), 1, 1, options));
        options.backend = InverseBackend::Cublas;
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, invertBatched(a.data(), x.data(), 1, 1, options));
    }

    // The streamed end-to-end object's default chunks (documented in its header and in
    // docs/method-e-batchedinverse.md): at least 128 KiB and 64 matrices each, at most 8.
    void streamedInverseChunkRuleKeepsChunksLargeEnough() {
        QCOMPARE(streamedInverseChunkCount(8, sizeof(cfloat), 1200), 4);   // the LTE slot: 4 of 300
        QCOMPARE(streamedInverseChunkCount(8, sizeof(float), 1200), 2);    // 2 of 600
        QCOMPARE(streamedInverseChunkCount(8, sizeof(cfloat), 255), 1);    // smaller than one chunk
        QCOMPARE(streamedInverseChunkCount(2, sizeof(float), 10000), 1);   // 160 KB in all
        QCOMPARE(streamedInverseChunkCount(32, sizeof(cdouble), 100), 1);  // 16 KiB matrices: 64 at least
        QCOMPARE(streamedInverseChunkCount(32, sizeof(cdouble), 1000), 8);
        QCOMPARE(streamedInverseChunkCount(8, sizeof(cfloat), 1000000), kStreamedInverseMaxChunks);
    }

    // Zero-copy: small batches of orders up to 8, by count and by bytes.
    void streamedInverseZeroCopyOnlyForSmallBatches() {
        QVERIFY(streamedInverseZeroCopyFits(8, sizeof(cfloat), 1200));    // the LTE slot, 614 KB
        QVERIFY(streamedInverseZeroCopyFits(8, sizeof(cfloat), 2048));    // 1 MiB exactly
        QVERIFY(!streamedInverseZeroCopyFits(8, sizeof(cfloat), 2049));
        QVERIFY(streamedInverseZeroCopyFits(2, sizeof(float), 4096));
        QVERIFY(!streamedInverseZeroCopyFits(2, sizeof(float), 10000));   // 160 KB, but 10000 matrices
        QVERIFY(!streamedInverseZeroCopyFits(9, sizeof(float), 10));      // LaneEntries stops at 8
        QVERIFY(!streamedInverseZeroCopyFits(8, sizeof(cfloat), 0));
    }

    // Bad arguments are InputError before any device is looked for (so with or without a GPU, with
    // or without CUDA in the build); good ones without a device are BackendUnavailableError.
    void streamedInverseRefusesBadRequests() {
        QVERIFY_THROWS_EXCEPTION(InputError, StreamedBatchedInverse<float>(0, 10));
        QVERIFY_THROWS_EXCEPTION(InputError, StreamedBatchedInverse<float>(33, 10));
        QVERIFY_THROWS_EXCEPTION(InputError, StreamedBatchedInverse<float>(8, 0));
        QVERIFY_THROWS_EXCEPTION(InputError, StreamedBatchedInverse<float>(8, 10, -1));
        QVERIFY_THROWS_EXCEPTION(InputError, StreamedBatchedInverse<float>(8, 10, 65));
        QVERIFY_THROWS_EXCEPTION(InputError, StreamedBatchedInverse<float>(8, 10, 0, InverseKernel::CublasMatinv));
        QVERIFY_THROWS_EXCEPTION(InputError, StreamedBatchedInverse<float>(9, 10, 0, InverseKernel::ThreadPerMatrix));
        QVERIFY_THROWS_EXCEPTION(InputError, StreamedBatchedInverse<float>(9, 10, 0, InverseKernel::LaneEntries));
        QVERIFY_THROWS_EXCEPTION(InputError, StreamedBatchedInverse<float>(8, 10, 2, InverseKernel::Auto, StreamedTransfer::ZeroCopy));
        if (cudaDeviceInfoPresent()) return;  // tst_cuda_batchedinverse builds real ones
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, StreamedBatchedInverse<cfloat>(8, 1200));
    }

    void generatorsAreDeterministicAndHaveTheirStructure() {
        BatchSpec spec = inversetest::batchSpec(BatchKind::LteChannel, 8, 5, 9);
        const auto lte = generateBatch<cdouble>(spec);
        QCOMPARE(generateBatch<cdouble>(spec), lte);
        spec.seed = 10;
        QVERIFY(generateBatch<cdouble>(spec) != lte);
        for (int b = 0; b < 5; ++b)
            for (int i = 0; i < 8; ++i) {
                QVERIFY(lte[b * 64 + i * 8 + i].real() > 0);  // sigma^2 > 0 on a PSD matrix
                for (int j = 0; j < 8; ++j) {
                    const cdouble aij = lte[b * 64 + j * 8 + i], aji = lte[b * 64 + i * 8 + j];
                    QVERIFY(std::abs(aij - std::conj(aji)) <= 1e-14 * (1 + std::abs(aij)));
                }
            }
        // The 1-norm condition number lies within a factor n of the requested 2-norm one.
        spec.kind = BatchKind::IllConditioned;
        spec.condition = 1e5;
        spec.count = 4;
        const auto ill = generateBatch<double>(spec);
        std::vector<double> inv(ill.size());
        const InverseRunInfo run = invertBatched(ill.data(), inv.data(), 8, 4);
        for (int b = 0; b < 4; ++b) {
            auto norm1 = [](const double* m) {
                double best = 0;
                for (int j = 0; j < 8; ++j) {
                    double s = 0;
                    for (int i = 0; i < 8; ++i) s += std::fabs(m[j * 8 + i]);
                    best = std::max(best, s);
                }
                return best;
            };
            QCOMPARE(run.info[b], 0);
            const double cond1 = norm1(&ill[b * 64]) * norm1(&inv[b * 64]);
            QVERIFY2(cond1 >= 1e5 / 8 && cond1 <= 1e5 * 8, qPrintable(QString::number(cond1)));
        }
        spec.condition = 0.5;
        QVERIFY_THROWS_EXCEPTION(InputError, generateBatch<float>(spec));
    }

private:
    static bool cudaDeviceInfoPresent();
};

#include "spyglass/backend.h"
bool TestBatchedInverse::cudaDeviceInfoPresent() { return spyglass::cudaDeviceInfo().present; }

QTEST_GUILESS_MAIN(TestBatchedInverse)
#include "tst_batchedinverse.moc"
