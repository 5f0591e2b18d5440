// Method C on the GPU: every Jacobi mapping (SvdVariant) against the CPU reference for many n (odd,
// even, up to 64), tall shapes and all four types (same statuses, singular values within rounding,
// valid factorisations), the real embedding of complex matrices (n <= 32) and the cuSOLVER baseline
// gesvdjBatched (n <= 32) the same way, cuSOLVER gesvdaStridedBatched within the bounds of an
// approximate method (and its h_R_nrmF against the residual measured here), NaN flags,
// non-convergence, exact zero singular values, chunking under a memory cap. Skips without a device.
#include "batchedsvd_testing.h"
#include "cudatesting.h"
#include "spyglass/backend.h"
#include "spyglass/error.h"

#include <QtTest>

#include <optional>

using namespace spyglass;
using namespace svdtest;
using cfloat = std::complex<float>;
using cdouble = std::complex<double>;

namespace {

// A random batch with a NaN at matrix 3 and an exact zero column at matrix 5 (when long enough).
template <typename T> std::vector<T> testBatch(SvdBatchKind kind, int m, int n, std::int64_t count, std::uint64_t seed) {
    std::vector<T> a = generateSvdBatch<T>(kind, m, n, count, seed);
    const std::size_t size = static_cast<std::size_t>(m) * n;
    if (count > 3) a[3 * size + size / 2] = fromComplex<T>(std::numeric_limits<double>::quiet_NaN());
    if (count > 5)
        for (int i = 0; i < m; ++i) a[5 * size + static_cast<std::size_t>(n / 2) * m + i] = fromComplex<T>(0);
    return a;
}

// The GPU mappings that follow the reference's iteration (same statuses, sweeps within 2).
const SvdVariant kIteratingVariants[] = {SvdVariant::Auto, SvdVariant::BlockPerMatrix, SvdVariant::RegisterGroups,
                                         SvdVariant::RegisterResident, SvdVariant::BlockPerPair};

template <typename T>
QString compareWithReference(SvdBackend backend, SvdVariant variant, const std::vector<T>& a, const Decomposition<T>& expected,
                             SvdBatchKind kind, int m, int n, std::int64_t count) {
    SvdOptions options;
    options.backend = backend;
    options.variant = variant;
    const auto got = decompose(a, m, n, count, options);
    const QString where = QString("%1 %2 %3 %4x%5: ").arg(toString(backend), toString(variant), toString(kind)).arg(m).arg(n);
    const bool vendor = backend == SvdBackend::Cusolver;
    // The embedding iterates on the real 2m x 2n matrix: its bounds are those of that shape.
    const bool embedded = variant == SvdVariant::RealEmbedding;
    const int rotatedColumns = embedded ? 2 * n : n;
    if (!vendor && (got.run.variant.empty() || (variant != SvdVariant::Auto &&
                                                 got.run.variant.find(toString(variant)) == std::string::npos)))
        return where + "reports the variant as '" + QString::fromStdString(got.run.variant) + "'";
    for (std::int64_t b = 0; b < count; ++b) {
        // cuSOLVER stops by its own (Frobenius) criterion: compare only the NaN flags with it.
        const bool differs = vendor ? (got.run.status[b] == SvdStatus::NonFiniteInput) !=
                                          (expected.run.status[b] == SvdStatus::NonFiniteInput)
                                    : got.run.status[b] != expected.run.status[b];
        if (differs)
                return where + QString("matrix %1 status %2, reference %3").arg(b).arg(toString(got.run.status[b]),
                                                                                      toString(expected.run.status[b]));
    }
    for (std::int64_t b = 0; b < count; ++b) {
        const auto* sg = got.sigma.data() + b * n;
        const auto* sr = expected.sigma.data() + b * n;
        if (expected.run.status[b] == SvdStatus::NonFiniteInput) {
            if (!std::all_of(sg, sg + n, [](auto x) { return std::isnan(x); })) return where + QString("matrix %1 not NaN").arg(b);
            continue;
        }
        const double bound = 8.0 * rotatedColumns * epsOf<T>() * sr[0];  // both within rounding of the true values
        for (int k = 0; k < n; ++k)
            if (!(std::abs(double(sg[k]) - double(sr[k])) <= bound))
                return where + QString("matrix %1 sigma[%2] %3, reference %4").arg(b).arg(k).arg(sg[k]).arg(sr[k]);
        if (backend == SvdBackend::Cuda) {
            if (!(got.run.offOrthogonality[b] <= got.run.tolerance)) return where + QString("matrix %1 off > tol").arg(b);
            if (!embedded && std::abs(got.run.sweeps[b] - expected.run.sweeps[b]) > 2)
                return where + QString("matrix %1: %2 sweeps, reference %3").arg(b).arg(got.run.sweeps[b]).arg(expected.run.sweeps[b]);
        }
    }
    if (vendor) {  // its U and V orthogonality follow its own stopping rule: reported, not bounded
        const SvdAccuracy acc = svdAccuracy(a.data(), got.u.data(), got.sigma.data(), got.v.data(), m, n, count, &got.run.status);
        qInfo("%s reconstruction %.3g, |U^H U - I| %.3g, |V^H V - I| %.3g", qPrintable(where), acc.reconstruction,
              acc.uOrthogonality, acc.vOrthogonality);
        return acc.reconstruction <= factorisationBound<T>(n, 30) ? QString() : where + "reconstruction too large";
    }
    const QString problem = embedded ? checkFactorisation(a, got, m, n, count, 2 * m, 2 * n) : checkFactorisation(a, got, m, n, count);
    return problem.isEmpty() ? QString() : where + problem;
}

// Every shape of interest (odd, even, tall, up to the limit of the backend or variant), three kinds,
// with a NaN and an exact zero column in each batch; the reference is computed once per batch.
template <typename T> void runAllShapes(SvdBackend backend, const std::vector<SvdVariant>& variants) {
    std::uint64_t seed = 100;
    for (int n : {1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 48, 63, 64}) {
        for (int extraRows : {0, 5}) {
            const int m = n + extraRows;
            for (SvdBatchKind kind : {SvdBatchKind::Random, SvdBatchKind::RankDeficient, SvdBatchKind::Graded}) {
                const std::int64_t count = n > 32 ? 9 : 23;
                const std::vector<T> a = testBatch<T>(kind, m, n, count, ++seed);
                std::optional<Decomposition<T>> expected;
                for (SvdVariant variant : variants) {
                    const bool fits = backend == SvdBackend::Cusolver ? m <= kMaxCusolverSvdSize
                                    : variant == SvdVariant::RealEmbedding ? n <= kMaxEmbeddedSvdColumns
                                    : variant == SvdVariant::RegisterResident
                                        ? std::is_same_v<T, SvdReal<T>> && registerResidentPairs(m, n) > 0
                                        : true;
                    if (!fits) continue;
                    if (!expected) expected = decompose(a, m, n, count);
                    const QString problem = compareWithReference<T>(backend, variant, a, *expected, kind, m, n, count);
                    QVERIFY2(problem.isEmpty(), qPrintable(problem));
                }
            }
        }
    }
}

const std::vector<SvdVariant> kCudaVariants(std::begin(kIteratingVariants), std::end(kIteratingVariants));

// gesvda diagonalises the Gram matrix A^H A, whose eigenvalues sigma^2 it gets to an absolute
// delta of a few (m + n) eps sigma_max^2 (forming A^H A, then the eigensolver). So the squares of its
// singular values, not the values, are within delta of the reference's: that allows an error of
// delta / sigma_k, up to sqrt(delta) for sigma = 0. The bound's 8 covers rounding and the reference's
// own error (n eps sigma_max); a swapped, missing or wrong value is off by O(sigma_max^2).
template <typename T> double gesvdaGramBound(int m, int n) { return 8.0 * (m + n) * epsOf<T>(); }

template <typename T> bool hasZeroColumn(const T* a, int m, int n) {
    for (int j = 0; j < n; ++j)
        if (std::all_of(a + static_cast<std::size_t>(j) * m, a + static_cast<std::size_t>(j + 1) * m, [](T x) { return x == T(0); }))
            return true;
    return false;
}

// Singular values (squared) against the reference, statuses, V unitary, and h_R_nrmF equal to
// ||A - U S V^H||_F measured here in double; U's orthogonality is logged, not bounded (it degrades as
// (sigma_max / sigma_k)^2, documented by NVIDIA). The residual itself is bounded by what the sigma
// bound allows: sqrt(n delta) relative to ||A||_F (every sigma off by up to sqrt(delta)).
template <typename T>
QString checkGesvda(const std::vector<T>& a, const Decomposition<T>& got, const Decomposition<T>& expected, int m, int n,
                    std::int64_t count, const QString& where) {
    const double delta = gesvdaGramBound<T>(m, n);
    const std::size_t mn = static_cast<std::size_t>(m) * n, nn = static_cast<std::size_t>(n) * n;
    if (got.run.vendorResidual.size() != static_cast<std::size_t>(count))
        return where + QString("%1 residuals for %2 matrices").arg(got.run.vendorResidual.size()).arg(count);
    double worstU = 0, worstResidual = 0;
    int flaggedRankDeficient = 0, vendorResidualOff = 0;
    for (std::int64_t b = 0; b < count; ++b) {
        const auto* sg = got.sigma.data() + b * n;
        const auto* sr = expected.sigma.data() + b * n;
        const QString at = where + QString("matrix %1: ").arg(b);
        if (expected.run.status[b] == SvdStatus::NonFiniteInput) {
            if (got.run.status[b] != SvdStatus::NonFiniteInput) return at + "NaN input not flagged";
            if (!std::all_of(sg, sg + n, [](auto x) { return std::isnan(x); })) return at + "sigma of NaN input not NaN";
            continue;
        }
        if (got.run.status[b] != SvdStatus::Converged) {
            // gesvda works on A^H A: on the H100 (CUDA 13.0) it reports a nonzero info or a non-finite
            // h_R_nrmF for a matrix with an exactly zero column or one that is rank deficient below the
            // Gram matrix's resolution (sigma_min^2 <= delta sigma_max^2). Flagging those is the
            // wrapper's job; any other matrix must converge.
            const bool rankDeficient = double(sr[n - 1]) * sr[n - 1] <= delta * double(sr[0]) * sr[0];
            if (got.run.status[b] == SvdStatus::NotConverged && (rankDeficient || hasZeroColumn(a.data() + b * mn, m, n))) {
                ++flaggedRankDeficient;
                continue;
            }
            return at + QString("status %1 (cuSOLVER info nonzero or residual not finite)").arg(toString(got.run.status[b]));
        }
        const double scale2 = double(sr[0]) * double(sr[0]);
        for (int k = 0; k < n; ++k) {
            const double g = sg[k], r = sr[k];
            if (!(std::abs(g * g - r * r) <= delta * scale2) || (k > 0 && sg[k] > sg[k - 1]) || sg[k] < 0)
                return at + QString("sigma[%1] %2, reference %3 (|s^2 - r^2| bound %4 sigma_max^2)").arg(k).arg(g).arg(r).arg(delta);
        }
        const SvdAccuracy acc = svdAccuracy(a.data() + b * mn, got.u.data() + b * mn, got.sigma.data() + b * n,
                                            got.v.data() + b * nn, m, n, 1);
        double normA2 = 0;
        for (std::size_t i = 0; i < mn; ++i) {
            const double x = std::abs(a[b * mn + i]);
            normA2 += x * x;
        }
        const double normA = std::sqrt(normA2);
        const double hostResidual = acc.reconstruction * normA;  // absolute, like h_R_nrmF
        const double vendor = got.run.vendorResidual[b];
        // The same quantity computed twice (cuSOLVER in its precision, here in double): apart by rounding.
        if (!(std::abs(vendor - hostResidual) <= 0.1 * hostResidual + 4.0 * (m + n) * epsOf<T>() * normA)) {
            // In single precision cuSOLVER's h_R_nrmF does not always describe the factors it returns
            // (H100, CUDA 13.0: 0.0164 reported for a 2x2 f32 matrix whose U S V^H matches A to 1.7e-8;
            // not reproducible run to run). The factors themselves are held to the bounds below.
            if (sizeof(SvdReal<T>) == sizeof(float)) {
                ++vendorResidualOff;
            } else {
                return at + QString("h_R_nrmF %1, but ||A - U S V^H||_F here %2 (relative %3)").arg(vendor).arg(hostResidual).arg(acc.reconstruction);
            }
        }
        if (!(acc.reconstruction <= std::sqrt(n * delta)))
            return at + QString("||A-USV^H||/||A|| %1 > %2").arg(acc.reconstruction).arg(std::sqrt(n * delta));
        if (!(acc.vOrthogonality <= factorisationBound<T>(n, 30)))
            return at + QString("|V^H V - I| %1 > %2").arg(acc.vOrthogonality).arg(factorisationBound<T>(n, 30));
        worstU = std::max(worstU, acc.uOrthogonality);
        worstResidual = std::max(worstResidual, acc.reconstruction);
    }
    qInfo("%s worst ||A-USV^H||/||A|| %.3g, worst |U^H U - I| %.3g (not bounded), %d rank-deficient matrices flagged, %d h_R_nrmF off",
          qPrintable(where), worstResidual, worstU, flaggedRankDeficient, vendorResidualOff);
    return {};
}

template <typename T> void runGesvdaShapes() {
    std::uint64_t seed = 500;
    // From n = 2: at n = 1 cuSOLVER's h_R_nrmF came back 0.59 for an exact 1x1 decomposition on the
    // H100 (CUDA 13.0), a vendor defect this suite cannot hold the wrapper to.
    for (int n : {2, 7, 16, 17, 32, 33, 64}) {
        for (int extraRows : {0, 5}) {
            const int m = n + extraRows;
            for (SvdBatchKind kind : {SvdBatchKind::Random, SvdBatchKind::RankDeficient, SvdBatchKind::Graded}) {
                const std::int64_t count = n > 32 ? 9 : 23;
                const std::vector<T> a = testBatch<T>(kind, m, n, count, ++seed);
                const auto expected = decompose(a, m, n, count);
                SvdOptions options;
                options.backend = SvdBackend::CusolverGesvda;
                const auto got = decompose(a, m, n, count, options);
                const QString where = QString("gesvda %1 %2x%3 %4: ").arg(toString(kind)).arg(m).arg(n).arg(sizeof(T));
                if (got.run.variant.find("gesvdaStridedBatched") == std::string::npos)
                    QFAIL(qPrintable(where + "reports the variant as " + QString::fromStdString(got.run.variant)));
                const QString problem = checkGesvda(a, got, expected, m, n, count, where);
                QVERIFY2(problem.isEmpty(), qPrintable(problem));
            }
        }
    }
}

// The decomposition under a 1 MiB device memory cap, which makes the run go in chunks.
template <typename T> Decomposition<T> decomposeCapped(const std::vector<T>& a, int m, int n, std::int64_t count, const SvdOptions& options) {
    setDeviceMemoryCap(1 << 20);
    Decomposition<T> chunked = decompose(a, m, n, count, options);
    setDeviceMemoryCap(0);
    return chunked;
}

} // namespace

class TestCudaBatchedSvd : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        CUDATESTING_REQUIRE_DEVICE();
    }
    void cudaVariantsMatchReferenceForAllShapesFloat() { runAllShapes<float>(SvdBackend::Cuda, kCudaVariants); }
    void cudaVariantsMatchReferenceForAllShapesDouble() { runAllShapes<double>(SvdBackend::Cuda, kCudaVariants); }
    void cudaVariantsMatchReferenceForAllShapesComplex64() { runAllShapes<cfloat>(SvdBackend::Cuda, kCudaVariants); }
    void cudaVariantsMatchReferenceForAllShapesComplex128() { runAllShapes<cdouble>(SvdBackend::Cuda, kCudaVariants); }
    void realEmbeddingMatchesReferenceUpTo32Columns() {
        runAllShapes<cfloat>(SvdBackend::Cuda, {SvdVariant::RealEmbedding});
        runAllShapes<cdouble>(SvdBackend::Cuda, {SvdVariant::RealEmbedding});
    }
    void cusolverMatchesReferenceUpTo32() {
        runAllShapes<float>(SvdBackend::Cusolver, {SvdVariant::Auto});
        runAllShapes<cfloat>(SvdBackend::Cusolver, {SvdVariant::Auto});
    }
    void cusolverGesvdaMatchesReferenceWithinItsBounds() {
        runGesvdaShapes<float>();
        runGesvdaShapes<cfloat>();
        runGesvdaShapes<double>();
        runGesvdaShapes<cdouble>();
    }
    void cusolverGesvdaChunkedKeepsSetupOutOfTheComputeTime() {
        // Under a cap the batch runs in chunks, the last one usually shorter (10007 is prime): its
        // workspace is made outside the timed region and counted as set-up; the results still meet
        // gesvda's bounds.
        const int m = 16, n = 16, count = 10007;
        const std::vector<float> a = testBatch<float>(SvdBatchKind::Random, m, n, count, 79);
        SvdOptions options;
        options.backend = SvdBackend::CusolverGesvda;
        const auto chunked = decomposeCapped(a, m, n, count, options);
        QVERIFY(chunked.run.chunks > 1);
        QVERIFY(chunked.run.setupMs > 0);
        QVERIFY(chunked.run.computeMs > 0);
        QVERIFY(chunked.run.totalMs >= chunked.run.setupMs + chunked.run.computeMs);
        const auto expected = decompose(a, m, n, count);
        const QString problem = checkGesvda(a, chunked, expected, m, n, count, QStringLiteral("gesvda chunked: "));
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
        qInfo("gesvda 10007 x 16x16 f32 in %d chunks: set-up %.3f ms, compute %.3f ms, total %.3f ms", chunked.run.chunks,
              chunked.run.setupMs, chunked.run.computeMs, chunked.run.totalMs);
    }
    void autoPicksRegisterGroupsAt32() {
        const std::vector<cfloat> a = generateSvdBatch<cfloat>(SvdBatchKind::Random, 32, 32, 3, 5);
        SvdOptions options;
        options.backend = SvdBackend::Cuda;
        const auto d = decompose(a, 32, 32, 3, options);
        QVERIFY2(d.run.variant.find("register-groups") != std::string::npos, d.run.variant.c_str());
        qInfo("auto at 32x32 c64: %s", d.run.variant.c_str());
    }
    // The register-resident kernel hands a matrix with a zero singular value to the register groups
    // (U's completion); every other matrix of the batch keeps its own result. Shapes it takes, f32
    // and f64, each batch with its exact zero column and NaN (testBatch), against the reference.
    void registerResidentHandsOverZeroColumns() {
        for (const auto& [m, n] : {std::pair{16, 16}, std::pair{7, 5}, std::pair{8, 8}, std::pair{2, 1}}) {
            const std::vector<float> a = testBatch<float>(SvdBatchKind::Random, m, n, 41, 500 + n);
            const auto expected = decompose(a, m, n, 41);
            const QString problem = compareWithReference<float>(SvdBackend::Cuda, SvdVariant::RegisterResident, a, expected,
                                                                SvdBatchKind::Random, m, n, 41);
            QVERIFY2(problem.isEmpty(), qPrintable(problem));
            const std::vector<double> b = testBatch<double>(SvdBatchKind::Graded, m, n, 41, 600 + n);
            const QString problemDouble = compareWithReference<double>(SvdBackend::Cuda, SvdVariant::RegisterResident, b,
                                                                       decompose(b, m, n, 41), SvdBatchKind::Graded, m, n, 41);
            QVERIFY2(problemDouble.isEmpty(), qPrintable(problemDouble));
        }
    }
    void diagonalWithZeroGivesExactSigmaAndCompletedU() {
        const std::vector<double> diagonal = {-3, 7, 0, 2, -7, 0, 1};
        const int n = static_cast<int>(diagonal.size()), m = n + 2;
        std::vector<float> a(static_cast<std::size_t>(m) * n, 0.f);
        for (int k = 0; k < n; ++k) a[static_cast<std::size_t>(k) * m + k] = float(diagonal[k]);
        for (SvdVariant variant : kIteratingVariants) {
            if (variant == SvdVariant::RegisterResident && registerResidentPairs(m, n) == 0) continue;  // 9 x 7 is too tall for it
            SvdOptions options;
            options.backend = SvdBackend::Cuda;
            options.variant = variant;
            const auto d = decompose(a, m, n, 1, options);
            const std::vector<float> expected = {7, 7, 3, 2, 1, 0, 0};
            for (int k = 0; k < n; ++k) QCOMPARE(d.sigma[k], expected[k]);
            QCOMPARE(d.run.sweeps[0], 1);
            QVERIFY2(checkFactorisation(a, d, m, n, 1).isEmpty(), qPrintable(checkFactorisation(a, d, m, n, 1)));
        }
    }
    void oneSweepIsReportedAsNotConverged() {
        const int m = 16, n = 16, count = 33;
        const std::vector<float> a = generateSvdBatch<float>(SvdBatchKind::Random, m, n, count, 8);
        for (SvdVariant variant : kIteratingVariants) {
            SvdOptions options;
            options.backend = SvdBackend::Cuda;
            options.variant = variant;
            options.maxSweeps = 1;
            const auto d = decompose(a, m, n, count, options);
            verifyStoppedAfterOneSweep(d, count);
        }
    }
    void largeBatchUnderAMemoryCapIsChunkedAndIdentical() {
        const int m = 16, n = 16, count = 10000;
        const std::vector<float> a = testBatch<float>(SvdBatchKind::Random, m, n, count, 77);
        for (SvdVariant variant : {SvdVariant::Auto, SvdVariant::BlockPerPair}) {
            SvdOptions options;
            options.backend = SvdBackend::Cuda;
            options.variant = variant;
            const auto whole = decompose(a, m, n, count, options);
            QCOMPARE(whole.run.chunks, 1);
            const auto chunked = decomposeCapped(a, m, n, count, options);
            QVERIFY(chunked.run.chunks > 1);
            QCOMPARE(chunked.run.status, whole.run.status);
            // The same kernel on the same matrices: bit-identical (NaN == NaN for the flagged one).
            QVERIFY(sameOrBothNaN(chunked.sigma, whole.sigma));
            QCOMPARE(whole.run.nonFiniteCount(), std::int64_t(1));
            QVERIFY2(checkFactorisation(a, whole, m, n, count).isEmpty(), qPrintable(checkFactorisation(a, whole, m, n, count)));
        }
    }
    void complexBatchChunkedThroughTheEmbeddingIsIdentical() {
        const int m = 12, n = 10, count = 3000;
        const std::vector<cfloat> a = testBatch<cfloat>(SvdBatchKind::Random, m, n, count, 78);
        SvdOptions options;
        options.backend = SvdBackend::Cuda;
        options.variant = SvdVariant::RealEmbedding;
        const auto whole = decompose(a, m, n, count, options);
        const auto chunked = decomposeCapped(a, m, n, count, options);
        QVERIFY(chunked.run.chunks > 1);
        QCOMPARE(chunked.run.status, whole.run.status);
        QVERIFY(sameOrBothNaN(chunked.sigma, whole.sigma));
        const QString problem = checkFactorisation(a, whole, m, n, count, 2 * m, 2 * n);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
    void tooManyRowsForSharedMemoryIsANamedError() {
        std::vector<cdouble> a(1024 * 64), u(1024 * 64), v(64 * 64);
        std::vector<double> s(64);
        SvdOptions options;
        options.backend = SvdBackend::Cuda;
        QVERIFY_THROWS_EXCEPTION(InputError, svdBatched(a.data(), u.data(), s.data(), v.data(), 1024, 64, 1, options));
    }
};

QTEST_GUILESS_MAIN(TestCudaBatchedSvd)
#include "tst_cuda_batchedsvd.moc"
