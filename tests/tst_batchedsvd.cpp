// Method C on the CPU reference: the Brent-Luk ordering, valid factorisations for all four types
// and odd, tall and edge shapes, exact and known singular values, rank deficiency, NaN flags,
// non-convergence reporting and named errors.
#include "batchedsvd_testing.h"
#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <QtTest>

#include <cstring>
#include <set>

using namespace spyglass;
using namespace svdtest;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

namespace {

template <typename T> void runRandomShapes() {
    const int shapes[][2] = {{1, 1}, {2, 1}, {5, 3}, {7, 7}, {16, 16}, {17, 13}, {33, 32}, {40, 1}, {24, 24}};
    std::uint64_t seed = 11;
    for (const auto& shape : shapes) {
        const int m = shape[0], n = shape[1];
        const int count = n >= 24 ? 3 : 9;
        for (SvdBatchKind kind : {SvdBatchKind::Random, SvdBatchKind::RankDeficient, SvdBatchKind::Graded,
                                  SvdBatchKind::SonarSnapshots}) {
            const std::vector<T> a = generateSvdBatch<T>(kind, m, n, count, ++seed);
            const auto d = decompose(a, m, n, count);
            QCOMPARE(d.run.notConvergedCount(), std::int64_t(0));
            const QString problem = checkFactorisation(a, d, m, n, count);
            QVERIFY2(problem.isEmpty(), qPrintable(QString(toString(kind)) + " " + problem));
            for (std::int64_t b = 0; b < count; ++b) QVERIFY(d.run.offOrthogonality[b] <= d.run.tolerance);
        }
    }
}

// Singular values of A = P diag(s) Q^H with s known: absolute error within the rounding of A
// (about n eps s_max for a backward-stable SVD), whatever the grading of s.
template <typename T> void runKnownSingularValues() {
    std::mt19937_64 rng(21);
    const double decades = std::is_same_v<SvdReal<T>, float> ? 5.0 : 12.0;
    for (int n : {3, 8, 15}) {
        const int m = n + 2;
        std::vector<double> s(n);
        for (int k = 0; k < n; ++k) s[k] = 3.0 * std::pow(10.0, -decades * k / (n - 1));
        std::shuffle(s.begin(), s.end(), rng);  // the input order must not matter
        const std::vector<T> a = withSingularValues<T>(m, s, rng);
        const auto d = decompose(a, m, n, 1);
        std::sort(s.rbegin(), s.rend());
        const double bound = 8.0 * n * epsOf<T>() * s[0];
        for (int k = 0; k < n; ++k)
            QVERIFY2(std::abs(d.sigma[k] - s[k]) <= bound,
                     qPrintable(QString("n=%1 sigma[%2] = %3, expected %4").arg(n).arg(k).arg(d.sigma[k]).arg(s[k])));
        QVERIFY(checkFactorisation(a, d, m, n, 1).isEmpty());
    }
}

template <typename T> void runDiagonalExact() {
    // Integer diagonal with signs, a zero and a repeat: the columns are orthogonal already, so the
    // singular values are |d| exactly, one sweep suffices and the zero column gets a completed U.
    const std::vector<double> diagonal = {-3, 7, 0, 2, -7, 5, 1};
    const int n = static_cast<int>(diagonal.size()), m = n + 1;
    std::vector<T> a(static_cast<std::size_t>(m) * n, fromComplex<T>(0));
    for (int k = 0; k < n; ++k) a[static_cast<std::size_t>(k) * m + k] = fromComplex<T>(diagonal[k]);
    const auto d = decompose(a, m, n, 1);
    std::vector<double> expected;
    for (double x : diagonal) expected.push_back(std::fabs(x));
    std::sort(expected.rbegin(), expected.rend());
    for (int k = 0; k < n; ++k) QCOMPARE(double(d.sigma[k]), expected[k]);
    QCOMPARE(d.run.sweeps[0], 1);
    QCOMPARE(d.run.status[0], SvdStatus::Converged);
    QVERIFY(checkFactorisation(a, d, m, n, 1).isEmpty());
}

template <typename T> void runRankDeficient() {
    const int m = 13, n = 11, count = 6;  // rank n/2 = 5
    const std::vector<T> a = generateSvdBatch<T>(SvdBatchKind::RankDeficient, m, n, count, 99);
    const auto d = decompose(a, m, n, count);
    for (int b = 0; b < count; ++b) {
        const auto* s = d.sigma.data() + b * n;
        const double noise = 8.0 * n * epsOf<T>() * s[0];
        QVERIFY2(s[4] > 1e3 * noise, qPrintable(QString("matrix %1: sigma[4] = %2 looks zero").arg(b).arg(s[4])));
        for (int k = 5; k < n; ++k)
            QVERIFY2(s[k] <= noise, qPrintable(QString("matrix %1: sigma[%2] = %3 > %4").arg(b).arg(k).arg(s[k]).arg(noise)));
    }
    QVERIFY(checkFactorisation(a, d, m, n, count).isEmpty());
}

template <typename T> void runNonFinite() {
    const int m = 6, n = 5, count = 7;
    std::vector<T> a = generateSvdBatch<T>(SvdBatchKind::Random, m, n, count, 5);
    const std::size_t size = static_cast<std::size_t>(m) * n;
    a[2 * size + 7] = fromComplex<T>(std::numeric_limits<double>::quiet_NaN());
    a[6 * size + size - 1] = fromComplex<T>(std::numeric_limits<double>::infinity());
    const auto d = decompose(a, m, n, count);
    QCOMPARE(d.run.nonFiniteCount(), std::int64_t(2));
    for (int b : {2, 6}) {
        QCOMPARE(d.run.status[b], SvdStatus::NonFiniteInput);
        QVERIFY(std::all_of(d.sigma.begin() + b * n, d.sigma.begin() + (b + 1) * n, [](auto x) { return std::isnan(x); }));
        QVERIFY(std::all_of(d.u.begin() + b * size, d.u.begin() + (b + 1) * size, [](const T& x) { return std::isnan(std::abs(x)); }));
        QVERIFY(std::all_of(d.v.begin() + b * n * n, d.v.begin() + (b + 1) * n * n, [](const T& x) { return std::isnan(std::abs(x)); }));
    }
    for (int b : {0, 1, 3, 4, 5}) QCOMPARE(d.run.status[b], SvdStatus::Converged);
    QVERIFY(checkFactorisation(a, d, m, n, count).isEmpty());  // skips the flagged matrices
}

template <typename T> void runSweepHistory() {
    const int m = 12, n = 10, count = 7;
    std::vector<T> a = generateSvdBatch<T>(SvdBatchKind::Graded, m, n, count, 31);
    a[3 * static_cast<std::size_t>(m) * n + 4] = fromComplex<T>(std::numeric_limits<double>::quiet_NaN());
    SvdOptions options;
    options.historyMatrices = 5;
    const auto d = decompose(a, m, n, count, options);
    QCOMPARE(d.run.sweepHistory.size(), std::size_t(5));
    for (int b = 0; b < 5; ++b) {
        const std::vector<double>& h = d.run.sweepHistory[b];
        if (b == 3) {  // the NaN matrix runs no sweep
            QVERIFY(h.empty());
            continue;
        }
        QCOMPARE(int(h.size()), d.run.sweeps[b]);
        QVERIFY(h.size() >= 2);
        QCOMPARE(h.back(), d.run.offOrthogonality[b]);
        QVERIFY(h.back() <= d.run.tolerance);
        // Every sweep but the last found a pair above the tolerance, or the iteration would have stopped.
        for (std::size_t s = 0; s + 1 < h.size(); ++s) QVERIFY2(h[s] > d.run.tolerance, qPrintable(QString("matrix %1 sweep %2").arg(b).arg(s)));
    }
    // Recording changes nothing else, bit for bit.
    const auto plain = decompose(a, m, n, count);
    QVERIFY(plain.run.sweepHistory.empty());
    QCOMPARE(plain.run.sweeps, d.run.sweeps);
    QCOMPARE(plain.run.status, d.run.status);
    QVERIFY(std::memcmp(plain.sigma.data(), d.sigma.data(), plain.sigma.size() * sizeof(plain.sigma[0])) == 0);
    QVERIFY(std::memcmp(plain.u.data(), d.u.data(), plain.u.size() * sizeof(T)) == 0);
    QVERIFY(std::memcmp(plain.v.data(), d.v.data(), plain.v.size() * sizeof(T)) == 0);
    // More history than matrices: one per matrix.
    options.historyMatrices = 100;
    QCOMPARE(decompose(a, m, n, count, options).run.sweepHistory.size(), std::size_t(count));
}

// Sonar-like snapshots: d = sonarSourceCount(n) sources well above the noise floor, so the d-th
// singular value stands clear of the (d+1)-th in every matrix.
template <typename T> void runSonarSnapshots() {
    for (int n : {3, 9, 16, 64}) {
        const int m = std::max(64, n), count = 20;
        const int d = sonarSourceCount(n);
        const std::vector<T> a = generateSvdBatch<T>(SvdBatchKind::SonarSnapshots, m, n, count, 17 + n);
        const auto dec = decompose(a, m, n, count);
        QVERIFY(checkFactorisation(a, dec, m, n, count).isEmpty());
        for (int b = 0; b < count; ++b) {
            const auto* s = dec.sigma.data() + static_cast<std::size_t>(b) * n;
            if (d < n)
                QVERIFY2(s[d - 1] > 2.0 * s[d], qPrintable(QString("n=%1 matrix %2: sigma[%3] = %4, sigma[%5] = %6")
                                                               .arg(n).arg(b).arg(d - 1).arg(s[d - 1]).arg(d).arg(s[d])));
            // Noise of power 0.01 per entry has its largest singular value near 0.1 (sqrt(m) + sqrt(n)):
            // the first noise value stays below twice that, the weakest source above it.
            const double edge = 0.1 * (std::sqrt(double(m)) + std::sqrt(double(n)));
            if (d < n) QVERIFY2(s[d] < 2 * edge, qPrintable(QString("n=%1: noise sigma %2").arg(n).arg(s[d])));
            QVERIFY2(s[d - 1] > 2 * edge, qPrintable(QString("n=%1: weakest source sigma %2").arg(n).arg(s[d - 1])));
        }
    }
}

} // namespace

class TestBatchedSvd : public QObject {
    Q_OBJECT
private slots:
    void brentLukOrderingReproducesTheSeedsTableForSix() {
        // seeds/002, M = 6, 1-based: (1,2)(3,4)(5,6) / (1,4)(2,6)(3,5) / (1,6)(4,5)(2,3) /
        // (1,5)(6,3)(4,2) / (1,3)(5,2)(6,4); stored 0-based with i < j.
        const std::vector<std::uint8_t> seed = {0, 1, 2, 3, 4, 5, 0, 3, 1, 5, 2, 4, 0, 5, 3, 4, 1, 2,
                                                0, 4, 2, 5, 1, 3, 0, 2, 1, 4, 3, 5};
        QCOMPARE(BrentLukOrdering(6).pairs(), seed);
    }
    void brentLukStepsAreDisjointAndCoverEveryPairOnce() {
        for (int n = 1; n <= 65; ++n) {
            const BrentLukOrdering order(n);
            QCOMPARE(order.paddedColumns(), n + n % 2);
            std::set<std::pair<int, int>> seen;
            for (int step = 0; step < order.steps(); ++step) {
                std::set<int> used;
                for (int p = 0; p < order.pairsPerStep(); ++p) {
                    const int i = order.pairs()[2 * (step * order.pairsPerStep() + p)];
                    const int j = order.pairs()[2 * (step * order.pairsPerStep() + p) + 1];
                    QVERIFY(i < j && j < order.paddedColumns());
                    QVERIFY2(used.insert(i).second && used.insert(j).second, qPrintable(QString("n=%1 step %2").arg(n).arg(step)));
                    QVERIFY(seen.insert({i, j}).second);
                }
            }
            const int padded = order.paddedColumns();
            QCOMPARE(int(seen.size()), padded * (padded - 1) / 2);
        }
    }
    void randomRankDeficientAndGradedBatchesFactoriseInAllTypes() {
        runRandomShapes<float>();
        runRandomShapes<double>();
        runRandomShapes<cfloat>();
        runRandomShapes<cdouble>();
    }
    void knownGradedSingularValuesAreFoundWithinRounding() {
        runKnownSingularValues<float>();
        runKnownSingularValues<double>();
        runKnownSingularValues<cfloat>();
        runKnownSingularValues<cdouble>();
    }
    void diagonalMatrixGivesAbsoluteDiagonalExactlyInOneSweep() {
        runDiagonalExact<float>();
        runDiagonalExact<double>();
        runDiagonalExact<cfloat>();
        runDiagonalExact<cdouble>();
    }
    void rankDeficientMatricesHaveNegligibleTrailingSingularValues() {
        runRankDeficient<float>();
        runRankDeficient<double>();
        runRankDeficient<cfloat>();
        runRankDeficient<cdouble>();
    }
    void nonFiniteInputIsFlaggedAndNeighboursDecompose() {
        runNonFinite<float>();
        runNonFinite<cdouble>();
    }
    void zeroMatrixGivesZeroSigmaAndOrthonormalFactors() {
        const int m = 5, n = 4;
        const std::vector<double> a(static_cast<std::size_t>(m) * n, 0.0);
        const auto d = decompose(a, m, n, 1);
        for (double s : d.sigma) QCOMPARE(s, 0.0);
        QVERIFY(checkFactorisation(a, d, m, n, 1).isEmpty());
    }
    void oneSweepOnRandomMatricesIsReportedAsNotConverged() {
        const int m = 16, n = 16, count = 5;
        const std::vector<float> a = generateSvdBatch<float>(SvdBatchKind::Random, m, n, count, 8);
        SvdOptions options;
        options.maxSweeps = 1;
        const auto d = decompose(a, m, n, count, options);
        verifyStoppedAfterOneSweep(d, count);
        // Stopped early it is still an exact factorisation, only U is not yet orthogonal.
        const SvdAccuracy acc = svdAccuracy(a.data(), d.u.data(), d.sigma.data(), d.v.data(), m, n, count);
        QVERIFY(acc.reconstruction <= factorisationBound<float>(n, 1));
        QVERIFY(acc.vOrthogonality <= factorisationBound<float>(n, 1));
        QVERIFY(acc.uOrthogonality > uOrthogonalityBound<float>(m, d.run.tolerance));
        // With the default sweep limit the same matrices converge.
        const auto full = decompose(a, m, n, count);
        QCOMPARE(full.run.notConvergedCount(), std::int64_t(0));
        for (int b = 0; b < count; ++b) QVERIFY(full.run.sweeps[b] > 1);
    }
    void accuracyCheckExposesAWrongDecomposition() {
        const int m = 6, n = 4;
        const std::vector<double> a = generateSvdBatch<double>(SvdBatchKind::Random, m, n, 1, 3);
        auto d = decompose(a, m, n, 1);
        QVERIFY(checkFactorisation(a, d, m, n, 1).isEmpty());
        d.sigma[1] *= 1.0 + 1e-9;
        QVERIFY(!checkFactorisation(a, d, m, n, 1).isEmpty());
    }
    void emptyBatchIsFine() {
        const auto d = decompose(std::vector<float>{}, 4, 3, 0);
        QVERIFY(d.run.status.empty());
    }
    void badRequestsThrowNamedErrors() {
        std::vector<float> a(64 * 65), u(64 * 65), s(65), v(65 * 65);
        auto call = [&](int m, int n, SvdOptions o = {}) { svdBatched(a.data(), u.data(), s.data(), v.data(), m, n, 1, o); };
        QVERIFY_THROWS_EXCEPTION(InputError, call(3, 4));
        QVERIFY_THROWS_EXCEPTION(InputError, call(65, 65));
        QVERIFY_THROWS_EXCEPTION(InputError, call(3, 0));
        SvdOptions o;
        o.tolerance = -1;
        QVERIFY_THROWS_EXCEPTION(InputError, call(4, 4, o));
        o = {};
        o.maxSweeps = 0;
        QVERIFY_THROWS_EXCEPTION(InputError, call(4, 4, o));
        o = {};
        o.backend = SvdBackend::Cusolver;
        QVERIFY_THROWS_EXCEPTION(InputError, call(33, 30, o));
        try {
            call(2, 3);
            QFAIL("a 2 x 3 request (m < n) was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("m >= n"), e.what());
            QVERIFY2(QString(e.what()).contains("2 x 3"), e.what());
        }
        try {  // gesvdjBatched's limit names the backend that has none
            call(33, 30, o);
            QFAIL("a 33 x 30 gesvdjBatched request was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("m, n <= 32") && QString(e.what()).contains("cusolver-gesvda"), e.what());
        }
        QCOMPARE(QString(toString(SvdBackend::CusolverGesvda)), QString("cusolver-gesvda"));
        o.backend = SvdBackend::CusolverGesvda;  // no 32 limit, but a variant is still the cuda backend's alone
        o.variant = SvdVariant::BlockPerMatrix;
        QVERIFY_THROWS_EXCEPTION(InputError, call(40, 40, o));
        QVERIFY_THROWS_EXCEPTION(InputError, svdBatched<float>(nullptr, u.data(), s.data(), v.data(), 4, 4, 1));
    }
    void variantsOutsideTheirDomainAreNamedErrors() {
        // Validation comes before any device work, so these hold with or without a GPU.
        std::vector<float> a(16, 1.f), u(16), s(4), v(16);
        SvdOptions o;
        o.variant = SvdVariant::RegisterGroups;  // the CPU reference has no variants
        try {
            svdBatched(a.data(), u.data(), s.data(), v.data(), 4, 4, 1, o);
            QFAIL("a variant with the cpu backend was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("register-groups") && QString(e.what()).contains("cuda"), e.what());
        }
        o.backend = SvdBackend::Cuda;
        o.variant = SvdVariant::RealEmbedding;  // real input has nothing to embed
        try {
            svdBatched(a.data(), u.data(), s.data(), v.data(), 4, 4, 1, o);
            QFAIL("the real embedding of a real matrix was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("complex"), e.what());
        }
        std::vector<cfloat> ca(33 * 33), cu(33 * 33), cv(33 * 33);
        std::vector<float> cs(33);
        // The register-resident kernel: real types only, n <= 16, m <= n rounded up to 2H.
        o.variant = SvdVariant::RegisterResident;
        try {
            svdBatched(ca.data(), cu.data(), cs.data(), cv.data(), 4, 4, 1, o);
            QFAIL("a complex matrix was accepted by the register-resident variant");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("register-resident") && QString(e.what()).contains("real"), e.what());
        }
        std::vector<float> tall(9 * 7), tallU(9 * 7), tallS(7), tallV(49);
        try {  // 9 rows need 5 lanes of 2; 7 columns give 4 pairs
            svdBatched(tall.data(), tallU.data(), tallS.data(), tallV.data(), 9, 7, 1, o);
            QFAIL("a 9 x 7 matrix was accepted by the register-resident variant");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("9 x 7"), e.what());
        }
        QCOMPARE(registerResidentPairs(16, 16), 8);
        QCOMPARE(registerResidentPairs(8, 5), 4);
        QCOMPARE(registerResidentPairs(2, 1), 1);
        QCOMPARE(registerResidentPairs(17, 16), 0);
        QCOMPARE(registerResidentPairs(18, 18), 0);
        o.variant = SvdVariant::RealEmbedding;
        try {  // 2n = 66 columns would exceed the kernel's 64
            svdBatched(ca.data(), cu.data(), cs.data(), cv.data(), 33, 33, 1, o);
            QFAIL("a 33-column real embedding was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("33 x 33") && QString(e.what()).contains("n <= 32"), e.what());
        }
        QCOMPARE(QString(toString(SvdVariant::BlockPerPair)), QString("block-per-pair"));
    }
    void gpuBackendsWithoutDeviceAreUnavailable() {
        if (cudaDeviceInfo().present) QSKIP("a GPU is present; tst_cuda_batchedsvd covers it");
        std::vector<float> a(16, 1.f), u(16), s(4), v(16);
        for (SvdBackend backend : {SvdBackend::Cuda, SvdBackend::Cusolver, SvdBackend::CusolverGesvda}) {
            SvdOptions o;
            o.backend = backend;
            QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, svdBatched(a.data(), u.data(), s.data(), v.data(), 4, 4, 1, o));
        }
        // gesvda passes validation beyond gesvdjBatched's 32 (so it gets as far as asking for the GPU).
        std::vector<float> big(64 * 64), bigU(64 * 64), bigS(64), bigV(64 * 64);
        SvdOptions o;
        o.backend = SvdBackend::CusolverGesvda;
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError,
                                 svdBatched(big.data(), bigU.data(), bigS.data(), bigV.data(), 64, 64, 1, o));
    }
    void sweepHistoryRecordsEverySweepAndEndsAtTheReportedOffNorm() {
        runSweepHistory<float>();
        runSweepHistory<double>();
        runSweepHistory<cfloat>();
        runSweepHistory<cdouble>();
        std::vector<float> a(16, 1.f), u(16), s(4), v(16);
        SvdOptions o;
        o.historyMatrices = -1;
        QVERIFY_THROWS_EXCEPTION(InputError, svdBatched(a.data(), u.data(), s.data(), v.data(), 4, 4, 1, o));
    }
    void sonarSnapshotsShowOneStrongSingularValuePerSource() {
        QCOMPARE(sonarSourceCount(3), 1);
        QCOMPARE(sonarSourceCount(9), 2);
        QCOMPARE(sonarSourceCount(64), 4);
        runSonarSnapshots<float>();
        runSonarSnapshots<double>();
        runSonarSnapshots<cfloat>();
        runSonarSnapshots<cdouble>();
    }
    void generatorsAreDeterministic() {
        const auto a = generateSvdBatch<cfloat>(SvdBatchKind::Graded, 5, 4, 3, 7);
        QCOMPARE(a, (generateSvdBatch<cfloat>(SvdBatchKind::Graded, 5, 4, 3, 7)));
        QVERIFY(a != (generateSvdBatch<cfloat>(SvdBatchKind::Graded, 5, 4, 3, 8)));
    }
};

QTEST_GUILESS_MAIN(TestBatchedSvd)
#include "tst_batchedsvd.moc"
