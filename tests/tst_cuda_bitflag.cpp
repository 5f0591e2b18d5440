// Method A on CUDA: every kernel (batch get, CSR get baseline, add/sub, multiply, shared-memory LU)
// against the CPU reference. Integer-valued inputs, so every comparison is exact.
#include "bitflag_sharedmatrices.h"
#include "bitflag_testing.h"
#include "testmatrices.h"

#include "spyglass/backend.h"
#include "spyglass/bitflag.h"
#include "spyglass/bitflag_baselines.h"
#include "spyglass/bitflag_spmv.h"
#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/segdia_spmv.h"

#include <QtTest>

#include <algorithm>

#include <cmath>
#include <limits>
#include <optional>

using namespace spyglass;
using namespace bitflag_testing;

namespace {

const std::vector<std::pair<Index, Index>> kShapes = {{1, 1}, {7, 31}, {9, 32}, {5, 33}, {11, 63}, {13, 64}, {3, 65},
                                                      {65, 3}, {17, 129}, {301, 1000}, {0, 7}, {6, 0}};

const std::vector<Index> kRegisterOrders = {1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 64};

double maxAbsOf(const std::vector<double>& d) {
    double m = 0;
    for (const double x : d) m = std::max(m, std::abs(x));
    return m;
}

// The bound for two LUs of the same matrix computed by the same algorithm: every entry of L and U
// is a sum of at most n rounded terms, each bounded by the growth of the elimination (max|U| against
// max|A|), so they may differ by n x epsilon x that size.
template <typename T>
double factorTolerance(Index n, double size) {
    return double(std::max<Index>(n, 1)) * double(std::numeric_limits<T>::epsilon()) * std::max(size, 1.0);
}

// A random integer matrix that needs pivoting: the randomPivotingDense kind, or with a zero diagonal,
// drawn again until the reference factors it (a random sparse matrix may be singular).
template <typename T>
std::vector<double> pivotingMatrix(Index n, double density, bool zeroDiagonal, std::mt19937& rng) {
    for (;;) {
        std::vector<double> d = randomPivotingDense(n, density, rng);
        if (zeroDiagonal && n > 1)
            for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + i] = 0;
        try {
            bitFlagLuPivoted(encodeBitFlag(cooOf<T>(d, n, n)));
            return d;
        } catch (const BitFlagPivotError&) {
        }
    }
}

// Compares a pivoted batch with bitFlagLuPivoted matrix by matrix: the row order exactly, L and U within
// factorTolerance. Returns the largest difference seen.
template <typename T>
double comparePivotedBatch(const std::vector<BitFlagMatrix<T>>& batch, const std::vector<BitFlagPivotedLu<T>>& got,
                           const QString& label) {
    double worst = 0;
    if (got.size() != batch.size()) qFatal("batch size differs");
    for (std::size_t b = 0; b < batch.size(); ++b) {
        const BitFlagPivotedLu<T> want = bitFlagLuPivoted(batch[b]);
        const QString where = label + QString(" matrix %1").arg(b);
        if (got[b].rowOrder != want.rowOrder) {
            qWarning("%s: row order differs", qPrintable(where));
            return INFINITY;
        }
        validateBitFlag(got[b].lower);
        validateBitFlag(got[b].upper);
        const Index n = batch[b].rows;
        const std::vector<double> wantU = denseOf(want.upper), wantL = denseOf(want.lower);
        const double dl = maxDifference(denseOf(got[b].lower), wantL), du = maxDifference(denseOf(got[b].upper), wantU);
        if (dl > factorTolerance<T>(n, maxAbsOf(wantL)) ||
            du > factorTolerance<T>(n, std::max(maxAbsOf(wantU), maxAbsOf(denseOf(batch[b]))))) {
            qWarning("%s: factors differ by %g (L), %g (U)", qPrintable(where), dl, du);
            return INFINITY;
        }
        worst = std::max({worst, dl, du});
    }
    return worst;
}

// The blocked LU with the cluster leaf (options.leaf), panel / leaf widths and the cluster's blocks
// (0: automatic).
BitFlagRunOptions clusterLeafOptions(Index panel = 128, Index leaf = 32, Index blocks = 0) {
    BitFlagRunOptions options = cudaOptions();
    options.panelWidth = panel;
    options.leafWidth = leaf;
    options.leaf = BitFlagLuLeaf::Cluster;
    options.leafClusterBlocks = blocks;
    return options;
}

// Empty where the device runs the cluster leaf; else the message of its refusal, which must be a
// BackendUnavailableError (not a crash, not another error).
QString clusterLeafRefusal() {
    try {
        bitFlagLuPivoted(encodeBitFlag(cooOf<double>({2, 1, 1, 3}, 2, 2)), clusterLeafOptions());
        return {};
    } catch (const BackendUnavailableError& e) {
        return QString(e.what());
    }
}

// max over `samples` random rows i of ||(P A)(i, :) - L(i, :) U||_2 / ||A||_F: the normwise LU residual
// restricted to those rows (the whole product is O(n^3)); a wrong swap or update shows in O(1) of them.
template <typename T>
double sampledLuResidual(const std::vector<double>& a, const BitFlagPivotedLu<T>& lu, Index n, int samples, std::mt19937& rng) {
    const std::vector<double> lower = denseOf(lu.lower), upper = denseOf(lu.upper);
    double normA = 0;
    for (const double v : a) normA += v * v;
    normA = std::sqrt(normA);
    std::uniform_int_distribution<Index> pick(0, n - 1);
    double worst = 0;
    std::vector<double> row(static_cast<std::size_t>(n));
    for (int s = 0; s < samples; ++s) {
        const Index i = pick(rng);
        const Index from = lu.rowOrder[std::size_t(i)];
        for (Index j = 0; j < n; ++j) row[std::size_t(j)] = a[std::size_t(from) * std::size_t(n) + std::size_t(j)];
        for (Index k = 0; k <= i; ++k) {
            const double l = k == i ? 1.0 : lower[std::size_t(i) * std::size_t(n) + std::size_t(k)];
            if (l == 0) continue;
            for (Index j = k; j < n; ++j) row[std::size_t(j)] -= l * upper[std::size_t(k) * std::size_t(n) + std::size_t(j)];
        }
        double r = 0;
        for (const double v : row) r += v * v;
        worst = std::max(worst, std::sqrt(r) / normA);
    }
    return worst;
}

// Rows that P A moved.
Index movedRows(const std::vector<Index>& rowOrder) {
    Index moved = 0;
    for (std::size_t i = 0; i < rowOrder.size(); ++i) moved += rowOrder[i] != Index(i);
    return moved;
}

// The CUDA a + b is a valid encoding (validateBitFlag throws otherwise) with the reference's entries.
template <typename T> bool cudaSumMatchesReference(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b) {
    const BitFlagMatrix<T> sum = bitFlagAdd(a, b, cudaOptions());
    validateBitFlag(sum);
    return sameCsr(decodeBitFlag(sum), decodeBitFlag(bitFlagAdd(a, b)));
}

// The same for a - b.
template <typename T> bool cudaDifferenceMatchesReference(const BitFlagMatrix<T>& a, const BitFlagMatrix<T>& b) {
    const BitFlagMatrix<T> difference = bitFlagSub(a, b, cudaOptions());
    validateBitFlag(difference);
    return sameCsr(decodeBitFlag(difference), decodeBitFlag(bitFlagSub(a, b)));
}

// count cases with known factors, made by make (exactLuCase, exactPivotedLuCase), and their n x n
// encodings in T: a batch the batched LU tests factor and compare with what they know.
template <typename T, typename Case> struct KnownBatch {
    std::vector<Case> cases;
    std::vector<BitFlagMatrix<T>> batch;
};

template <typename T, typename Make> auto knownBatch(int count, Index n, Make make, const BitFlagOptions& options = {}) {
    KnownBatch<T, decltype(make())> known;
    for (int b = 0; b < count; ++b) {
        known.cases.push_back(make());
        known.batch.push_back(encodeBitFlag(cooOf<T>(known.cases.back().a, n, n), options));
    }
    return known;
}

} // namespace

class TestCudaBitFlag : public QObject {
    Q_OBJECT

private slots:
    void init() {
        if (!cudaDeviceInfo().present) QSKIP(cudaDeviceInfo().reason.c_str());
    }

    void cudaBatchGetMatchesReference() {
        std::mt19937 rng(1);
        for (const auto& [rows, cols] : kShapes) {
            if (rows == 0 || cols == 0) continue;
            const std::vector<double> d = randomDense(rows, cols, 0.3, rng);
            std::vector<Index> qi(10007), qj(10007);
            std::uniform_int_distribution<Index> ri(0, rows - 1), rj(0, cols - 1);
            for (std::size_t q = 0; q < qi.size(); ++q) {
                qi[q] = ri(rng);
                qj[q] = rj(rng);
            }
            for (const BitFlagOptions& options : everyBitFlagLayout()) {
                const BitFlagMatrix<float> m = encodeBitFlag(cooOf<float>(d, rows, cols), options);
                const std::vector<float> got = bitFlagGetBatch(m, qi, qj, cudaOptions());
                for (std::size_t q = 0; q < qi.size(); ++q) QCOMPARE(got[q], bitFlagGet(m, qi[q], qj[q]));
            }
            const CsrMatrix<double> csr = cooToCsr(cooOf<double>(d, rows, cols));
            const std::vector<double> got = csrGetBatch(csr, qi, qj, cudaOptions());
            for (std::size_t q = 0; q < qi.size(); ++q) QCOMPARE(got[q], d[std::size_t(qi[q]) * cols + qj[q]]);
        }
        const BitFlagMatrix<float> m = encodeBitFlag(cooOf<float>({1, 2}, 1, 2));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagGetBatch(m, {0}, {2}, cudaOptions()));
    }

    void cudaBatchSetMatchesReference() {
        std::mt19937 rng(2);
        for (const auto& [rows, cols] : kShapes) {
            if (rows == 0 || cols == 0) continue;
            const std::vector<double> d = randomDense(rows, cols, 0.3, rng);
            for (const BitFlagOptions& options : everyBitFlagLayout()) {
                const BitFlagMatrix<double> m = encodeBitFlag(cooOf<double>(d, rows, cols), options);
                if (m.nonzeros == 0) continue;
                // Random stored entries, many of them repeated: the device must keep the last
                // value of each, as the sequential reference does.
                const CsrMatrix<double> csr = decodeBitFlag(m);
                std::vector<Index> qi, qj;
                std::vector<double> v;
                std::uniform_int_distribution<Count> pick(0, csr.nnz() - 1);
                for (int q = 0; q < 20000; ++q) {
                    const Count k = pick(rng);
                    const Index i = Index(std::upper_bound(csr.rowPtr.begin(), csr.rowPtr.end(), k) - csr.rowPtr.begin() - 1);
                    qi.push_back(i);
                    qj.push_back(csr.colIndex[std::size_t(k)]);
                    v.push_back(double(q + 1));
                }
                BitFlagMatrix<double> want = m;
                bitFlagSetBatch(want, qi, qj, v);
                const BitFlagMatrix<double> got = setBatchOnCuda(m, qi, qj, v);
                QVERIFY(got.values == want.values);
                QVERIFY(got.lineStart == want.lineStart);
            }
        }
        // A clear flag anywhere: refused naming the first such query, nothing returned.
        const BitFlagMatrix<float> m = encodeBitFlag(cooOf<float>({1, 0, 0, 2}, 2, 2));
        try {
            setBatchOnCuda<float>(m, {0, 1, 0, 1}, {0, 1, 1, 0}, {5, 6, 7, 8});
            QFAIL("a write at a clear flag was accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains(QLatin1String("query 2: (0, 1) has no flag")), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(InputError, setBatchOnCuda<float>(m, {0}, {2}, {1}));
    }

    void cudaKernelsMatchTheReferenceOnRealMatrices() {
        // The real matrices of the test set (fp64 values, not integers): get and add must be exact,
        // multiply within gamma_k (|A| |A|)_ij of the reference (summation order differs), the pivoted
        // LU's backward error within a small multiple of the reference's.
        const QDir dir(testMatricesDir());
        int tested = 0, singular = 0;
        std::mt19937 rng(9);
        for (const QString& name : dir.entryList({"*.mtx"}, QDir::Files, QDir::Name)) {
            Matrix file;
            try {
                file = readMatrixMarket(dir.filePath(name).toStdString());
            } catch (const InputError&) {
                continue;  // the parser's malformed cases
            }
            if (file.isComplex() || file.rows == 0 || file.cols == 0) continue;
            if (double(file.rows) * double(file.cols) / 8 > 64.0 * 1024 * 1024) continue;  // flags > 64 MiB
            const CsrMatrix<double> csr = toCsr<double>(file);
            BitFlagOptions prefix;
            prefix.prefixCounts = true;
            const BitFlagMatrix<double> a = encodeBitFlag(csr, prefix);

            std::vector<Index> qi(4096), qj(4096);
            std::uniform_int_distribution<Index> ri(0, a.rows - 1), rj(0, a.cols - 1);
            for (std::size_t q = 0; q < qi.size(); ++q) qi[q] = ri(rng), qj[q] = rj(rng);
            const std::vector<double> got = bitFlagGetBatch(a, qi, qj, cudaOptions());
            for (std::size_t q = 0; q < qi.size(); ++q) QCOMPARE(got[q], bitFlagGet(a, qi[q], qj[q]));
            QVERIFY2(sameCsr(decodeBitFlag(bitFlagAdd(a, a, cudaOptions())), decodeBitFlag(bitFlagAdd(a, a))), qPrintable(name));

            // Multiply's bound and LU need finite values (the set holds a matrix with an inf: get and
            // add carry it through exactly, LU refuses it).
            const bool finite = std::all_of(csr.values.begin(), csr.values.end(), [](double v) { return std::isfinite(v); });
            if (finite && a.rows == a.cols && a.rows <= 1100) {
                BitFlagOptions columns;
                columns.order = BitFlagOrder::ColumnMajor;
                const BitFlagMatrix<double> b = encodeBitFlag(csr, columns);
                const CsrMatrix<double> cg = decodeBitFlag(bitFlagMultiply(a, b, cudaOptions()));
                const CsrMatrix<double> cr = decodeBitFlag(bitFlagMultiply(a, b));
                CsrMatrix<double> absA = csr;
                for (double& v : absA.values) v = std::abs(v);
                BitFlagOptions absColumns = columns;
                absColumns.keepExplicitZeros = true;
                const BitFlagMatrix<double> mag = bitFlagMultiply(encodeBitFlag(absA), encodeBitFlag(absA, absColumns));
                QVERIFY2(cg.rowPtr == cr.rowPtr && cg.colIndex == cr.colIndex, qPrintable(name));
                const double u = std::numeric_limits<double>::epsilon() / 2, k = double(a.cols);
                const double gamma = 2 * k * u / (1 - k * u);  // both sides' rounding
                for (Index i = 0; i < cr.rows; ++i)
                    for (Count e = cr.rowPtr[std::size_t(i)]; e < cr.rowPtr[std::size_t(i) + 1]; ++e) {
                        const Index j = cr.colIndex[std::size_t(e)];
                        const double bound = gamma * bitFlagGet(mag, i, j);
                        QVERIFY2(std::abs(cg.values[std::size_t(e)] - cr.values[std::size_t(e)]) <= bound,
                                 qPrintable(QStringLiteral("%1: C(%2,%3)").arg(name).arg(i).arg(j)));
                    }

                // A matrix the reference finds singular must fail alike on the device: the same error
                // type, at the same elimination step. Otherwise the GPU's factors must be as good.
                std::optional<BitFlagPivotedLu<double>> reference;
                Index referenceStep = -1;
                try {
                    reference = bitFlagLuPivoted(a);
                } catch (const BitFlagPivotError& e) {
                    referenceStep = e.step();
                }
                if (reference) {
                    const double referenceResidual = bitFlagLuResidual(a, *reference);
                    const double residual = bitFlagLuResidual(a, bitFlagLuPivoted(a, cudaOptions()));
                    const double floor = double(a.rows) * std::numeric_limits<double>::epsilon();
                    QVERIFY2(residual <= 4 * std::max(referenceResidual, floor),
                             qPrintable(QStringLiteral("%1: residual %2, reference %3").arg(name).arg(residual).arg(referenceResidual)));
                } else {
                    Index deviceStep = -1;
                    try {
                        bitFlagLuPivoted(a, cudaOptions());
                    } catch (const BitFlagPivotError& e) {
                        deviceStep = e.step();
                    }
                    QVERIFY2(deviceStep == referenceStep,
                             qPrintable(QStringLiteral("%1: the reference LU fails at step %2, the device LU %3")
                                            .arg(name).arg(referenceStep)
                                            .arg(deviceStep < 0 ? QStringLiteral("does not fail") : QString::number(deviceStep))));
                    ++singular;
                }
            }
            ++tested;
        }
        qInfo("%d real matrices: get, add, multiply and LU on the device match the reference (%d singular, failing "
              "at the reference's step)", tested, singular);
        QVERIFY(tested >= 15);
    }

    void cudaSpmvMatchesReference() {
        // Integer values and x: every sum is exact whatever the order, so the kernel (lanes, passes,
        // tree reduction) must give the reference's y bit for bit. The shapes cover every group width
        // (2 .. 32 lanes: 1 word a row up to 79 words), rows denser than their words, and rows of
        // several passes (more words or more nonzeros than lanes).
        std::mt19937 rng(21);
        std::vector<std::pair<Index, Index>> shapes = kShapes;
        shapes.insert(shapes.end(), {{40, 5000}, {2, 2100}, {1000, 64}, {33, 257}, {257, 33}});
        for (const auto& [rows, cols] : shapes)
            for (const double density : {0.0, 0.01, 0.3, 1.0}) {
                const std::vector<double> d = randomDense(rows, cols, density, rng);
                std::vector<double> x = randomDense(1, cols, 0.9, rng);
                QString where = QStringLiteral("%1 x %2 at density %3").arg(rows).arg(cols).arg(density);
                const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(d, rows, cols));
                QVERIFY2(bitFlagSpmv(a, x, cudaOptions()) == bitFlagSpmv(a, x), qPrintable(where + " f64"));
                const BitFlagMatrix<float> af = encodeBitFlag(cooOf<float>(d, rows, cols));
                const std::vector<float> xf(x.begin(), x.end());
                QVERIFY2(bitFlagSpmv(af, xf, cudaOptions()) == bitFlagSpmv(af, xf), qPrintable(where + " f32"));
            }
        BitFlagOptions columns;
        columns.order = BitFlagOrder::ColumnMajor;
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagSpmv(encodeBitFlag(cooOf<double>({1, 2}, 1, 2), columns), {1.0, 1.0}, cudaOptions()));
    }

    void cudaSpmvMatchesCsrOnRealMatrices() {
        // Real values: the kernel sums in another order, so each y_i within 2 n_i eps sum_j |a_ij x_j|.
        int tested = 0;
        std::mt19937 rng(23);
        std::uniform_real_distribution<double> u(-1, 1);
        for (const auto& [name, csr] : bitflag_testing::realSharedMatrices()) {
            if (!std::all_of(csr.values.begin(), csr.values.end(), [](double v) { return std::isfinite(v); })) continue;
            std::vector<double> x(static_cast<std::size_t>(csr.cols));
            for (double& v : x) v = u(rng);
            const std::vector<double> want = spmvReference(csr, x);
            const std::vector<double> got = bitFlagSpmv(encodeBitFlag(csr), x, cudaOptions());
            QCOMPARE(got.size(), want.size());
            for (Index i = 0; i < csr.rows; ++i) {
                double magnitude = 0;
                for (Count k = csr.rowPtr[std::size_t(i)]; k < csr.rowPtr[std::size_t(i) + 1]; ++k)
                    magnitude += std::abs(csr.values[std::size_t(k)] * x[std::size_t(csr.colIndex[std::size_t(k)])]);
                const double n = double(csr.rowPtr[std::size_t(i) + 1] - csr.rowPtr[std::size_t(i)]);
                const double bound = 2 * n * std::numeric_limits<double>::epsilon() * magnitude;
                QVERIFY2(std::abs(got[std::size_t(i)] - want[std::size_t(i)]) <= bound,
                         qPrintable(QStringLiteral("%1: row %2: %3 vs %4").arg(name).arg(i).arg(got[std::size_t(i)]).arg(want[std::size_t(i)])));
            }
            ++tested;
        }
        QVERIFY(tested >= 15);
    }

    void cudaAddAndSubtractMatchReference() {
        std::mt19937 rng(2);
        for (const auto& [rows, cols] : kShapes)
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor})
                for (double density : {0.02, 0.4}) {
                    BitFlagOptions options;
                    options.order = order;
                    const BitFlagMatrix<double> a = encodeBitFlag(cooOf<double>(randomDense(rows, cols, density, rng), rows, cols), options);
                    const BitFlagMatrix<double> b = encodeBitFlag(cooOf<double>(randomDense(rows, cols, density, rng), rows, cols), options);
                    QVERIFY(cudaSumMatchesReference(a, b));
                    QVERIFY(cudaDifferenceMatchesReference(a, b));
                }
    }

    void cudaAddCoversManyTilesWideLinesAndFullChunks() {
        // 2000 lines: 250 tiles of eight, so the look-back crosses many 32-tile windows; 5000 columns: 79
        // words a line, three 32-word chunks; density 0.95: chunks with far more than 32 set bits.
        std::mt19937 rng(12);
        struct Case { Index rows, cols; double density; };
        for (const Case c : {Case{2000, 70, 0.02}, Case{2000, 70, 0.95}, Case{40, 5000, 0.3}, Case{40, 5000, 0.95},
                             Case{257, 129, 0.5}}) {
            const std::vector<double> da = randomDense(c.rows, c.cols, c.density, rng);
            const std::vector<double> db = randomDense(c.rows, c.cols, c.density / 3, rng);
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                BitFlagOptions options;
                options.order = order;
                const BitFlagMatrix<float> a = encodeBitFlag(cooOf<float>(da, c.rows, c.cols), options);
                const BitFlagMatrix<float> b = encodeBitFlag(cooOf<float>(db, c.rows, c.cols), options);
                QVERIFY(cudaSumMatchesReference(a, b));
                QVERIFY(cudaDifferenceMatchesReference(b, a));
            }
        }
    }

    void cudaMultiplyMatchesReference() {
        std::mt19937 rng(3);
        struct Case { Index n, k, m; double density; };
        for (const Case c : {Case{1, 1, 1, 1.0}, Case{7, 31, 5, 0.3}, Case{13, 33, 9, 0.2}, Case{5, 64, 70, 0.1},
                             Case{40, 130, 33, 0.05}, Case{129, 257, 131, 0.1}, Case{300, 500, 301, 0.01},
                             Case{3, 0, 4, 0.5}, Case{0, 5, 3, 0.5}, Case{31, 65, 31, 0.5}}) {
            BitFlagOptions colMajor;
            colMajor.order = BitFlagOrder::ColumnMajor;
            const BitFlagMatrix<float> a = encodeBitFlag(cooOf<float>(randomDense(c.n, c.k, c.density, rng), c.n, c.k));
            const BitFlagMatrix<float> b = encodeBitFlag(cooOf<float>(randomDense(c.k, c.m, c.density, rng), c.k, c.m), colMajor);
            const BitFlagMatrix<float> got = bitFlagMultiply(a, b, cudaOptions());
            validateBitFlag(got);
            QVERIFY2(sameCsr(decodeBitFlag(got), decodeBitFlag(bitFlagMultiply(a, b))),
                     qPrintable(QString("%1x%2x%3").arg(c.n).arg(c.k).arg(c.m)));
        }
    }

    void cudaLuMatchesExactFactors() {
        std::mt19937 rng(4);
        QVERIFY(bitFlagLuMaxOrder<float>(BitFlagLuForm::Single, cudaOptions()) >= 96);
        for (Index n : {1, 2, 5, 33, 64, 77, bitFlagLuMaxOrder<double>(BitFlagLuForm::Single, cudaOptions())}) {
            const ExactLuCase c = exactLuCase(n, 0.15, rng);
            const BitFlagLu<double> lu = bitFlagLu(encodeBitFlag(cooOf<double>(c.a, n, n)), cudaOptions());
            QCOMPARE(denseOf(lu.lower), c.lower);
            QCOMPARE(denseOf(lu.upper), c.upper);
        }
        for (Index n : {31, 96, bitFlagLuMaxOrder<float>(BitFlagLuForm::Single, cudaOptions())}) {
            const ExactLuCase c = exactLuCase(n, 0.1, rng);
            BitFlagOptions colMajor;
            colMajor.order = BitFlagOrder::ColumnMajor;
            const BitFlagLu<float> lu = bitFlagLu(encodeBitFlag(cooOf<float>(c.a, n, n), colMajor), cudaOptions());
            QCOMPARE(denseOf(lu.lower), c.lower);
            QCOMPARE(denseOf(lu.upper), c.upper);
        }
    }

    void cudaLuReportsTheStepOfAZeroPivot() {
        const std::vector<double> d = {2, 4, 1, 1, 2, 3, 5, 1, 7};
        try {
            bitFlagLu(encodeBitFlag(cooOf<double>(d, 3, 3)), cudaOptions());
            QFAIL("zero pivot accepted");
        } catch (const BitFlagPivotError& e) {
            QCOMPARE(e.step(), 1);
        }
        const Index n = bitFlagLuMaxOrder<double>(BitFlagLuForm::Single, cudaOptions()) + 1;
        std::mt19937 rng(5);
        const ExactLuCase c = exactLuCase(n, 0.1, rng);
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLu(encodeBitFlag(cooOf<double>(c.a, n, n)), cudaOptions()));
    }

    void cudaPivotedLuRecoversKnownFactorsAndRowOrder() {
        // The exact cases of bitflag_testing.h: one clear pivot per step, values multiples of 1/4. The
        // row order must come back exactly; L and U to rounding (cuBLAS trsm may solve by inverted blocks),
        // i.e. within n x epsilon of their size.
        std::mt19937 rng(6);
        QVERIFY(bitFlagLuMaxOrder<float>(BitFlagLuForm::Pivoted, cudaOptions()) >= 8192);
        struct Case { Index n, panel, leaf; };
        for (const Case c : {Case{1, 128, 32}, Case{2, 128, 32}, Case{37, 128, 32}, Case{300, 128, 32}, Case{300, 256, 32},
                             Case{129, 16, 5}, Case{100, 7, 3}, Case{70, 1, 1}, Case{200, 64, 16}}) {
            const ExactPivotedLuCase e = exactPivotedLuCase(c.n, 0.2, rng);
            BitFlagRunOptions options = cudaOptions();
            options.panelWidth = c.panel;
            options.leafWidth = c.leaf;
            double scale = 1;
            for (const double u : e.upper) scale = std::max(scale, std::abs(u));
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                BitFlagOptions encode;
                encode.order = order;
                const QString label = QString("n %1 panel %2 leaf %3").arg(c.n).arg(c.panel).arg(c.leaf);
                const BitFlagPivotedLu<double> lu = bitFlagLuPivoted(encodeBitFlag(cooOf<double>(e.a, c.n, c.n), encode), options);
                QVERIFY2(lu.rowOrder == e.rowOrder, qPrintable(label));
                const double tolerance = c.n * std::numeric_limits<double>::epsilon();
                QVERIFY2(maxDifference(denseOf(lu.lower), e.lower) <= tolerance, qPrintable(label));
                QVERIFY2(maxDifference(denseOf(lu.upper), e.upper) <= tolerance * scale, qPrintable(label));
                const BitFlagPivotedLu<float> luf = bitFlagLuPivoted(encodeBitFlag(cooOf<float>(e.a, c.n, c.n), encode), options);
                const double toleranceF = c.n * double(std::numeric_limits<float>::epsilon());
                QVERIFY2(luf.rowOrder == e.rowOrder, qPrintable(label));
                QVERIFY2(maxDifference(denseOf(luf.lower), e.lower) <= toleranceF, qPrintable(label));
                QVERIFY2(maxDifference(denseOf(luf.upper), e.upper) <= toleranceF * scale, qPrintable(label));
            }
        }
    }

    void cudaPivotedLuResidualMatchesReference() {
        // Matrices that need row exchanges: ||PA - LU|| / ||A|| of the GPU's factors at rounding level,
        // like the reference's (both bounded by n x epsilon).
        std::mt19937 rng(7);
        for (Index n : {64, 333}) {
            const std::vector<double> d = randomPivotingDense(n, 0.3, rng);
            BitFlagRunOptions narrow = cudaOptions();
            narrow.panelWidth = 24;
            narrow.leafWidth = 7;
            for (const BitFlagRunOptions& options : {cudaOptions(), narrow}) {
                const BitFlagMatrix<float> a = encodeBitFlag(cooOf<float>(d, n, n));
                const BitFlagPivotedLu<float> gpu = bitFlagLuPivoted(a, options);
                validateBitFlag(gpu.lower);
                validateBitFlag(gpu.upper);
                const double bound = n * double(std::numeric_limits<float>::epsilon());
                const double gpuResidual = bitFlagLuResidual(a, gpu), cpuResidual = bitFlagLuResidual(a, bitFlagLuPivoted(a));
                qInfo("n %d panel %d leaf %d: residual GPU %.3g, reference %.3g (bound %.3g)", n, options.panelWidth,
                      options.leafWidth, gpuResidual, cpuResidual, bound);
                QVERIFY(gpuResidual <= bound);
                QVERIFY(cpuResidual <= bound);
                const BitFlagMatrix<double> ad = encodeBitFlag(cooOf<double>(d, n, n));
                QVERIFY(bitFlagLuResidual(ad, bitFlagLuPivoted(ad, options)) <= n * std::numeric_limits<double>::epsilon());
            }
        }
    }

    void cudaPivotedLuReportsTheSingularStep() {
        // A zero column c: every candidate of step c is exactly zero (the updates only subtract l x 0), at
        // a leaf start, inside a leaf, at a panel boundary.
        std::mt19937 rng(8);
        const Index n = 200;
        for (Index column : {0, 77, 128, 199}) {
            std::vector<double> d = randomPivotingDense(n, 0.3, rng);
            for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + column] = 0;
            try {
                bitFlagLuPivoted(encodeBitFlag(cooOf<float>(d, n, n)), cudaOptions());
                QFAIL("singular matrix accepted");
            } catch (const BitFlagPivotError& e) {
                QCOMPARE(e.step(), column);
                QCOMPARE(e.pivot(), 0.0);
                QVERIFY2(QString(e.what()).contains("singular"), e.what());
            }
        }
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivoted(encodeBitFlag(cooOf<double>({1, 2}, 1, 2)), cudaOptions()));
        BitFlagRunOptions wide = cudaOptions();
        wide.panelWidth = 257;
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivoted(encodeBitFlag(cooOf<double>({1, 0, 0, 1}, 2, 2)), wide));
        wide.panelWidth = -1;  // 0 is the automatic width
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivoted(encodeBitFlag(cooOf<double>({1, 0, 0, 1}, 2, 2)), wide));
    }

    void cudaClusterLeafLuRecoversKnownFactorsAndRowOrder() {
        // The cluster leaf on the exact cases (one clear pivot per step, values multiples of 1/4): the row
        // order exactly the known one and the CPU reference's, L and U within n x epsilon of their size
        // (cuBLAS trsm may solve by inverted blocks). Orders that are no multiple of the panel or of the
        // cluster, orders below one row per block of a 16-block cluster (blocks without rows), narrow
        // panels and leaves, clusters of 2, 3, 8, 16 blocks, the automatic size, and 1 (which runs as 2:
        // the blocks exchange their candidates through distributed shared memory).
        const QString refusal = clusterLeafRefusal();
        if (!refusal.isEmpty()) {
            QVERIFY2(refusal.contains("cluster leaf"), qPrintable(refusal));
            QSKIP(qPrintable(refusal));
        }
        std::mt19937 rng(31);
        struct Case { Index n, panel, leaf, blocks; };
        for (const Case c : {Case{1, 128, 32, 0}, Case{2, 128, 32, 16}, Case{5, 128, 32, 16}, Case{20, 128, 32, 16},
                             Case{37, 128, 32, 0}, Case{70, 1, 1, 3}, Case{100, 7, 3, 3}, Case{129, 16, 5, 16},
                             Case{300, 128, 32, 0}, Case{300, 256, 32, 8}, Case{333, 64, 16, 16}, Case{517, 128, 32, 2},
                             Case{700, 128, 32, 0}, Case{37, 128, 32, 1}, Case{300, 32, 32, 1}}) {
            const ExactPivotedLuCase e = exactPivotedLuCase(c.n, 0.2, rng);
            const BitFlagRunOptions options = clusterLeafOptions(c.panel, c.leaf, c.blocks);
            double scale = 1;
            for (const double u : e.upper) scale = std::max(scale, std::abs(u));
            const QString label = QString("n %1 panel %2 leaf %3 cluster blocks %4").arg(c.n).arg(c.panel).arg(c.leaf).arg(c.blocks);
            const BitFlagMatrix<double> ad = encodeBitFlag(cooOf<double>(e.a, c.n, c.n));
            const BitFlagPivotedLu<double> lu = bitFlagLuPivoted(ad, options);
            QVERIFY2(lu.rowOrder == e.rowOrder, qPrintable(label));
            QVERIFY2(lu.rowOrder == bitFlagLuPivoted(ad).rowOrder, qPrintable(label + " (reference)"));
            const double tolerance = c.n * std::numeric_limits<double>::epsilon();
            QVERIFY2(maxDifference(denseOf(lu.lower), e.lower) <= tolerance, qPrintable(label));
            QVERIFY2(maxDifference(denseOf(lu.upper), e.upper) <= tolerance * scale, qPrintable(label));
            const BitFlagMatrix<float> af = encodeBitFlag(cooOf<float>(e.a, c.n, c.n));
            const BitFlagPivotedLu<float> luf = bitFlagLuPivoted(af, options);
            const double toleranceF = c.n * double(std::numeric_limits<float>::epsilon());
            QVERIFY2(luf.rowOrder == e.rowOrder, qPrintable(label + " fp32"));
            QVERIFY2(luf.rowOrder == bitFlagLuPivoted(af).rowOrder, qPrintable(label + " fp32 (reference)"));
            QVERIFY2(maxDifference(denseOf(luf.lower), e.lower) <= toleranceF, qPrintable(label + " fp32"));
            QVERIFY2(maxDifference(denseOf(luf.upper), e.upper) <= toleranceF * scale, qPrintable(label + " fp32"));
        }
    }

    void cudaClusterLeafLuEqualsOneBlockLeafOnMatricesThatNeedSwaps() {
        // Random matrices whose large entries sit on a random permutation, so nearly every step exchanges
        // rows. The cluster leaf does the one-block leaf's operations in the same order (IEEE division,
        // the same update expression, the same pivot rule), so at leaf widths both run (these orders fit
        // one block's shared memory at 32 columns) the row order and factors are equal entry for entry;
        // the row order is also the CPU reference's in fp64, and ||PA - LU|| / ||A|| <= n epsilon. The
        // one-block leaf holds its first 1024 rows in registers at full width (the rest in shared
        // memory), and every row in shared memory in narrower leaves: 1500 and 2000 take both forms in
        // one factorisation, so these equalities also hold the forms of that leaf to each other.
        const QString refusal = clusterLeafRefusal();
        if (!refusal.isEmpty()) QSKIP(qPrintable(refusal));
        std::mt19937 rng(32);
        struct Widths { Index panel, leaf; };
        for (const Index n : {64, 333, 1000, 1500, 2000}) {
            const std::vector<double> d = randomPivotingDense(n, 0.3, rng);
            const BitFlagMatrix<float> af = encodeBitFlag(cooOf<float>(d, n, n));
            const BitFlagMatrix<double> ad = encodeBitFlag(cooOf<double>(d, n, n));
            const std::vector<Index> referenceOrder = bitFlagLuPivoted(ad).rowOrder;
            QVERIFY2(movedRows(referenceOrder) > n / 2, qPrintable(QString("n %1: the matrix moves %2 rows").arg(n).arg(movedRows(referenceOrder))));
            for (const Widths w : {Widths{128, 32}, Widths{24, 7}}) {
                BitFlagRunOptions oneBlock = cudaOptions();
                oneBlock.panelWidth = w.panel;
                oneBlock.leafWidth = w.leaf;
                oneBlock.leaf = BitFlagLuLeaf::OneBlock;
                const BitFlagPivotedLu<float> wantF = bitFlagLuPivoted(af, oneBlock);
                const BitFlagPivotedLu<double> wantD = bitFlagLuPivoted(ad, oneBlock);
                for (const Index blocks : {0, 3, 16}) {
                    const QString label = QString("n %1 panel %2 leaf %3 cluster blocks %4").arg(n).arg(w.panel).arg(w.leaf).arg(blocks);
                    const BitFlagRunOptions options = clusterLeafOptions(w.panel, w.leaf, blocks);
                    const BitFlagPivotedLu<float> gotF = bitFlagLuPivoted(af, options);
                    validateBitFlag(gotF.lower);
                    validateBitFlag(gotF.upper);
                    QVERIFY2(gotF.rowOrder == wantF.rowOrder, qPrintable(label + " fp32: row order"));
                    QVERIFY2(denseOf(gotF.lower) == denseOf(wantF.lower), qPrintable(label + " fp32: L"));
                    QVERIFY2(denseOf(gotF.upper) == denseOf(wantF.upper), qPrintable(label + " fp32: U"));
                    // The residual is O(n^3) on the CPU: at n = 1000 the equality with the one-block leaf says it.
                    if (n <= 333)
                        QVERIFY2(bitFlagLuResidual(af, gotF) <= n * double(std::numeric_limits<float>::epsilon()), qPrintable(label));
                    const BitFlagPivotedLu<double> gotD = bitFlagLuPivoted(ad, options);
                    QVERIFY2(gotD.rowOrder == referenceOrder, qPrintable(label + " fp64: row order (reference)"));
                    QVERIFY2(gotD.rowOrder == wantD.rowOrder, qPrintable(label + " fp64: row order"));
                    QVERIFY2(denseOf(gotD.lower) == denseOf(wantD.lower), qPrintable(label + " fp64: L"));
                    QVERIFY2(denseOf(gotD.upper) == denseOf(wantD.upper), qPrintable(label + " fp64: U"));
                    if (n <= 333)
                        QVERIFY2(bitFlagLuResidual(ad, gotD) <= n * std::numeric_limits<double>::epsilon(), qPrintable(label));
                }
            }
        }
    }

    // The default leaf (Auto) chooses per leaf: the one-block leaf up to the 1024 rows its register form
    // holds and the cluster leaf on taller leaves (where clusters run). At equal widths the two give the
    // same factors bit for bit, so Auto's factors equal the cluster leaf's at every order (had a leaf
    // beyond the one-block leaf's 2.6 k rows at 32 columns gone to it, it would have narrowed and
    // differed), and the one-block leaf's where it keeps the width (2000). At 4096 the one-block leaf's
    // own factors must differ, or the first equality would say nothing. A 4096 fp32 LU is a few tens of milliseconds on the GPU; the
    // CPU only checks sampled rows of the residual.
    void cudaAutomaticLeafPicksPerLeaf() {
        const QString refusal = clusterLeafRefusal();
        if (!refusal.isEmpty()) QSKIP(qPrintable(refusal));
        std::mt19937 rng(41);
        for (const Index n : {2000, 3000, 4096}) {
            const std::vector<double> d = randomPivotingDense(n, 0.05, rng);
            const BitFlagMatrix<float> a = encodeBitFlag(cooOf<float>(d, n, n));
            BitFlagRunOptions automatic = cudaOptions();
            QCOMPARE(automatic.leaf, BitFlagLuLeaf::Auto);
            QCOMPARE(automatic.panelWidth, Index(0));
            BitFlagRunOptions cluster = cudaOptions(), oneBlock = cudaOptions();
            cluster.leaf = BitFlagLuLeaf::Cluster;
            cluster.leafClusterBlocks = 8;
            oneBlock.leaf = BitFlagLuLeaf::OneBlock;
            const BitFlagPivotedLu<float> got = bitFlagLuPivoted(a, automatic), clusterLu = bitFlagLuPivoted(a, cluster),
                                          oneBlockLu = bitFlagLuPivoted(a, oneBlock);
            const QString label = QString("n %1").arg(n);
            QVERIFY2(got.rowOrder == clusterLu.rowOrder, qPrintable(label + ": row order = the cluster leaf's"));
            QVERIFY2(denseOf(got.lower) == denseOf(clusterLu.lower), qPrintable(label + ": L = the cluster leaf's"));
            QVERIFY2(denseOf(got.upper) == denseOf(clusterLu.upper), qPrintable(label + ": U = the cluster leaf's"));
            const bool oneBlockSame = oneBlockLu.rowOrder == got.rowOrder && denseOf(oneBlockLu.upper) == denseOf(got.upper);
            if (n <= 2000) QVERIFY2(oneBlockSame, qPrintable(label + ": the one-block leaf keeps 32 columns, so its factors too"));
            if (n >= 4096) QVERIFY2(!oneBlockSame, qPrintable(label + ": the one-block leaf narrows on the tall leaves"));
            // Past 2560 rows the automatic panels are 256 wide, then 32: the equalities above share that
            // schedule, so the factors are also checked against A (on sampled rows: the whole is O(n^3)).
            const double residual = sampledLuResidual(d, got, n, 64, rng);
            QVERIFY2(residual <= n * double(std::numeric_limits<float>::epsilon()), qPrintable(label + QString(": residual %1").arg(residual)));
        }
    }

    void cudaClusterLeafLuReportsTheSingularStep() {
        // As the one-block leaf: a zero column c makes every candidate of step c exactly zero; the step is
        // reported at a leaf start, inside a leaf, at a panel boundary, at the end, and in a 16-block
        // cluster whose blocks hold one or two rows.
        const QString refusal = clusterLeafRefusal();
        if (!refusal.isEmpty()) QSKIP(qPrintable(refusal));
        std::mt19937 rng(33);
        struct Case { Index n, column, blocks; };
        for (const Case c : {Case{200, 0, 0}, Case{200, 77, 0}, Case{200, 128, 16}, Case{200, 199, 3}, Case{20, 7, 16}}) {
            std::vector<double> d = randomPivotingDense(c.n, 0.3, rng);
            for (Index i = 0; i < c.n; ++i) d[std::size_t(i) * c.n + c.column] = 0;
            const BitFlagMatrix<float> a = encodeBitFlag(cooOf<float>(d, c.n, c.n));
            int oneBlockStep = -1;
            try {
                bitFlagLuPivoted(a, cudaOptions());
            } catch (const BitFlagPivotError& e) {
                oneBlockStep = e.step();
            }
            QCOMPARE(oneBlockStep, int(c.column));
            try {
                bitFlagLuPivoted(a, clusterLeafOptions(128, 32, c.blocks));
                QFAIL("singular matrix accepted");
            } catch (const BitFlagPivotError& e) {
                QCOMPARE(e.step(), int(c.column));
                QCOMPARE(e.pivot(), 0.0);
                QVERIFY2(QString(e.what()).contains("singular"), e.what());
            }
        }
    }

    void cudaBatchedLuMatchesReference() {
        std::mt19937 rng(9);
        for (Index n : {1, 5, 16, 32, 33, 64, bitFlagLuMaxOrder<double>(BitFlagLuForm::Single, cudaOptions())})
            for (BitFlagOrder order : {BitFlagOrder::RowMajor, BitFlagOrder::ColumnMajor}) {
                BitFlagOptions options;
                options.order = order;
                auto [cases, batch] = knownBatch<double>(37, n, [&] { return exactLuCase(n, 0.2, rng); }, options);
                const std::vector<BitFlagLu<double>> lu = bitFlagLuBatched(batch, cudaOptions());
                QCOMPARE(lu.size(), batch.size());
                for (std::size_t b = 0; b < batch.size(); ++b) {
                    QCOMPARE(denseOf(lu[b].lower), cases[b].lower);
                    QCOMPARE(denseOf(lu[b].upper), cases[b].upper);
                    const BitFlagLu<double> reference = bitFlagLu(batch[b]);
                    QVERIFY(sameCsr(decodeBitFlag(lu[b].upper), decodeBitFlag(reference.upper)));
                }
            }
        const Index n = bitFlagLuMaxOrder<float>(BitFlagLuForm::Single, cudaOptions());
        auto [cases, batch] = knownBatch<float>(300, n, [&] { return exactLuCase(n, 0.1, rng); });
        const std::vector<BitFlagLu<float>> lu = bitFlagLuBatched(batch, cudaOptions());
        for (std::size_t b = 0; b < batch.size(); ++b) QCOMPARE(denseOf(lu[b].upper), cases[b].upper);
    }

    void cudaBatchedLuNamesTheMatrixWithABadPivot() {
        std::mt19937 rng(10);
        std::vector<BitFlagMatrix<double>> batch;
        for (int b = 0; b < 6; ++b) batch.push_back(encodeBitFlag(cooOf<double>(exactLuCase(3, 0.5, rng).a, 3, 3)));
        batch[3] = encodeBitFlag(cooOf<double>({2, 4, 1, 1, 2, 3, 5, 1, 7}, 3, 3));  // step 1's pivot is exactly zero
        try {
            bitFlagLuBatched(batch, cudaOptions());
            QFAIL("zero pivot accepted");
        } catch (const BitFlagPivotError& e) {
            QCOMPARE(e.step(), 1);
            QVERIFY2(QString(e.what()).contains("matrix 3"), e.what());
        }
        batch[3] = encodeBitFlag(cooOf<double>({1, 2, 3, 4}, 2, 2));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuBatched(batch, cudaOptions()));
        QVERIFY(bitFlagLuBatched(std::vector<BitFlagMatrix<double>>{}, cudaOptions()).empty());
    }

    void cudaBatchedLuLayoutsMatchReference() {
        // Every layout, diagonally weighted random matrices (no small pivot without pivoting) at several
        // densities, batches that end inside a block; the no-pivot factors as bitFlagLu's.
        std::mt19937 rng(21);
        for (const Index n : kRegisterOrders)
            for (const double density : {0.1, 0.5, 1.0}) {
                std::vector<BitFlagMatrix<float>> batchF;
                std::vector<BitFlagMatrix<double>> batchD;
                for (int b = 0; b < 45; ++b) {
                    std::vector<double> d = randomDense(n, n, density, rng);
                    for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + i] = (b % 2 ? -1 : 1) * (10.0 * n + b);
                    BitFlagOptions options;
                    options.order = b % 3 ? BitFlagOrder::RowMajor : BitFlagOrder::ColumnMajor;
                    batchF.push_back(encodeBitFlag(cooOf<float>(d, n, n), options));
                    batchD.push_back(encodeBitFlag(cooOf<double>(d, n, n), options));
                }
                for (const BitFlagBatchedLuLayout layout : {BitFlagBatchedLuLayout::Auto, BitFlagBatchedLuLayout::BlockPerMatrix,
                                                           BitFlagBatchedLuLayout::WarpPerMatrix, BitFlagBatchedLuLayout::RegisterRows}) {
                    const QString label = QString("n %1 density %2 %3").arg(n).arg(density).arg(toString(layout));
                    const auto check = [&](const auto& batch, const auto& got) {
                        QCOMPARE(got.size(), batch.size());
                        using T = typename std::decay_t<decltype(batch.front().values)>::value_type;
                        for (std::size_t b = 0; b < batch.size(); ++b) {
                            const BitFlagLu<T> want = bitFlagLu(batch[b]);
                            const std::vector<double> wantU = denseOf(want.upper), wantL = denseOf(want.lower);
                            const double dl = maxDifference(denseOf(got[b].lower), wantL);
                            const double du = maxDifference(denseOf(got[b].upper), wantU);
                            QVERIFY2(dl <= factorTolerance<T>(n, maxAbsOf(wantL)), qPrintable(label));
                            QVERIFY2(du <= factorTolerance<T>(n, std::max(maxAbsOf(wantU), maxAbsOf(denseOf(batch[b])))),
                                     qPrintable(label));
                        }
                    };
                    check(batchF, bitFlagLuBatched(batchF, cudaOptions(layout)));
                    if (layout != BitFlagBatchedLuLayout::RegisterRows || n <= bitFlagLuMaxOrder<double>(BitFlagLuForm::PivotedBatched, cudaOptions()))
                        check(batchD, bitFlagLuBatched(batchD, cudaOptions(layout)));
                    else
                        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuBatched(batchD, cudaOptions(layout)));
                }
            }
    }

    void cudaPivotedBatchedLuMatchesReference() {
        // Integer matrices that need row exchanges (large entries off the diagonal, or a zero diagonal):
        // many equal candidates at step 0, so the tie rule is exercised; the row order must be the
        // reference's exactly and the factors agree to n x epsilon x growth.
        std::mt19937 rng(22);
        QCOMPARE(bitFlagLuMaxOrder<float>(BitFlagLuForm::PivotedBatched, cudaOptions()), Index(64));
        QCOMPARE(bitFlagLuMaxOrder<double>(BitFlagLuForm::PivotedBatched, cudaOptions()), Index(32));
        for (const Index n : kRegisterOrders)
            for (const double density : {0.15, 0.5, 1.0}) {
                std::vector<BitFlagMatrix<float>> batchF;
                std::vector<BitFlagMatrix<double>> batchD;
                for (int b = 0; b < 37; ++b) {
                    BitFlagOptions options;
                    options.order = b % 4 ? BitFlagOrder::RowMajor : BitFlagOrder::ColumnMajor;
                    batchF.push_back(encodeBitFlag(cooOf<float>(pivotingMatrix<float>(n, density, b % 2, rng), n, n), options));
                    if (n <= bitFlagLuMaxOrder<double>(BitFlagLuForm::PivotedBatched, cudaOptions()))
                        batchD.push_back(encodeBitFlag(cooOf<double>(pivotingMatrix<double>(n, density, b % 2, rng), n, n), options));
                }
                const QString label = QString("n %1 density %2").arg(n).arg(density);
                const double worstF = comparePivotedBatch(batchF, bitFlagLuPivotedBatched(batchF, cudaOptions()), label + " fp32");
                QVERIFY2(std::isfinite(worstF), qPrintable(label));
                double worstD = 0;
                if (!batchD.empty()) {
                    worstD = comparePivotedBatch(batchD, bitFlagLuPivotedBatched(batchD, cudaOptions()), label + " fp64");
                    QVERIFY2(std::isfinite(worstD), qPrintable(label));
                } else {
                    QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivotedBatched(std::vector<BitFlagMatrix<double>>{encodeBitFlag(cooOf<double>(
                                                                 randomPivotingDense(n, density, rng), n, n))}, cudaOptions()));
                }
                if (density == 1.0) qInfo("%s: largest factor difference to the reference fp32 %g, fp64 %g", qPrintable(label), worstF, worstD);
            }
        // Known factors and row order (one clear pivot per step).
        for (const Index n : {5, 32, 64}) {
            auto [cases, batch] = knownBatch<float>(20, n, [&] { return exactPivotedLuCase(n, 0.3, rng); });
            const std::vector<BitFlagPivotedLu<float>> lu = bitFlagLuPivotedBatched(batch, cudaOptions());
            for (std::size_t b = 0; b < batch.size(); ++b) {
                QVERIFY(lu[b].rowOrder == cases[b].rowOrder);
                QVERIFY(maxDifference(denseOf(lu[b].lower), cases[b].lower) <= factorTolerance<float>(n, 1));
                QVERIFY(maxDifference(denseOf(lu[b].upper), cases[b].upper) <= factorTolerance<float>(n, maxAbsOf(cases[b].upper)));
                QVERIFY(bitFlagLuResidual(batch[b], lu[b]) <= factorTolerance<float>(n, 1));
            }
        }
    }

    void cudaPivotedBatchedLuNamesTheSingularMatrix() {
        // Matrix 4 of 9 has a zero column c: every candidate of step c is exactly zero. The error names
        // that matrix and step; the matrices before it factor (no earlier one is reported).
        std::mt19937 rng(23);
        for (const Index n : {5, 17, 40})
            for (const Index column : {Index(0), Index(2), n - 1}) {
                std::vector<BitFlagMatrix<float>> batch;
                for (int b = 0; b < 9; ++b) {
                    std::vector<double> d = pivotingMatrix<float>(n, 0.4, false, rng);
                    if (b == 4)
                        for (Index i = 0; i < n; ++i) d[std::size_t(i) * n + column] = 0;
                    batch.push_back(encodeBitFlag(cooOf<float>(d, n, n)));
                }
                try {
                    bitFlagLuPivotedBatched(batch, cudaOptions());
                    QFAIL("singular matrix accepted");
                } catch (const BitFlagPivotError& e) {
                    QCOMPARE(e.step(), column);
                    QCOMPARE(e.pivot(), 0.0);
                    QVERIFY2(QString(e.what()).contains("matrix 4:") && QString(e.what()).contains("singular"), e.what());
                }
                batch.erase(batch.begin() + 4, batch.end());
                QCOMPARE(bitFlagLuPivotedBatched(batch, cudaOptions()).size(), std::size_t(4));
            }
        // The no-pivot register rows name the matrix with a zero pivot as the other layouts do.
        std::vector<BitFlagMatrix<double>> batch;
        for (int b = 0; b < 6; ++b) batch.push_back(encodeBitFlag(cooOf<double>(exactLuCase(3, 0.5, rng).a, 3, 3)));
        batch[3] = encodeBitFlag(cooOf<double>({2, 4, 1, 1, 2, 3, 5, 1, 7}, 3, 3));  // step 1's pivot is exactly zero
        try {
            bitFlagLuBatched(batch, cudaOptions(BitFlagBatchedLuLayout::RegisterRows));
            QFAIL("zero pivot accepted");
        } catch (const BitFlagPivotError& e) {
            QCOMPARE(e.step(), 1);
            QVERIFY2(QString(e.what()).contains("matrix 3"), e.what());
        }
        // ... and the pivoted batch factors it (row 2 is exchanged in at step 1).
        QCOMPARE(bitFlagLuPivotedBatched(batch, cudaOptions())[3].rowOrder, (std::vector<Index>{2, 0, 1}));
        // Shapes and sizes.
        batch[3] = encodeBitFlag(cooOf<double>({1, 2, 3, 4}, 2, 2));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivotedBatched(batch, cudaOptions()));
        QVERIFY(bitFlagLuPivotedBatched(std::vector<BitFlagMatrix<double>>{}, cudaOptions()).empty());
        std::vector<double> heavyDiagonal = randomDense(65, 65, 0.2, rng);
        for (Index i = 0; i < 65; ++i) heavyDiagonal[std::size_t(i) * 65 + i] = 700;
        std::vector<BitFlagMatrix<float>> large(2, encodeBitFlag(cooOf<float>(heavyDiagonal, 65, 65)));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuPivotedBatched(large, cudaOptions()));
        QVERIFY_THROWS_EXCEPTION(InputError, bitFlagLuBatched(large, cudaOptions(BitFlagBatchedLuLayout::RegisterRows)));
        QCOMPARE(bitFlagLuBatched(large, cudaOptions()).size(), std::size_t(2));  // Auto falls back to a warp per matrix
    }
};

QTEST_GUILESS_MAIN(TestCudaBitFlag)
#include "tst_cuda_bitflag.moc"
