// Method D on valued matrices (hybrid_valued.h): encode/decode round trip, the CPU SpMV against the CSR
// reference on hand-made and real matrices, the container form (round trip, old binary files, damage).
#include "binarymatrixrows.h"
#include "plantedbinary.h"
#include "testmatrices.h"

#include "spyglass/container.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/matrixmarket.h"
#include "spyglass/segdia_spmv.h"

#include <QDir>
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace spyglass;

namespace {

using plantedtesting::region;

// The five shapes (a rectangle, a triangle of each corner, a band) on a 61 x 67 matrix, sizes not
// multiples of anything.
std::vector<DenseRegion> handMadeRegions() {
    return {region(RegionShape::Rectangle, 2, 13, 40, 59),
            region(RegionShape::Triangle, 15, 26, 0, 9, TriangleCorner::LowerLeft),
            region(RegionShape::Triangle, 15, 24, 12, 25, TriangleCorner::UpperRight),
            region(RegionShape::Triangle, 28, 40, 30, 37, TriangleCorner::UpperLeft),
            region(RegionShape::Triangle, 28, 35, 45, 66, TriangleCorner::LowerRight),
            region(RegionShape::Band, 42, 60, 5, 30, TriangleCorner::LowerLeft, -2, 3)};
}

// Integer values in [-4, 4] \ {0} (exact sums), each region cell filled with probability `fill`,
// `scattered` entries elsewhere, plus explicit zeros outside the regions (which must survive).
CsrMatrix<double> handMadeMatrix(Index rows, Index cols, const std::vector<DenseRegion>& regions, double fill, int scattered,
                                 unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    CooMatrix<double> coo;
    coo.rows = rows;
    coo.cols = cols;
    auto value = [&] {
        const int v = int(rng() % 8) - 4;
        return double(v >= 0 ? v + 1 : v);
    };
    for (const DenseRegion& r : regions)
        for (Index i = r.rowBegin; i < r.rowEnd; ++i)
            for (Index j = r.span(i).begin; j < r.span(i).end; ++j)
                if (unit(rng) < fill) {
                    coo.rowIndex.push_back(i);
                    coo.colIndex.push_back(j);
                    coo.values.push_back(value());
                }
    for (int k = 0; k < scattered; ++k) {
        const Index i = Index(rng() % rows), j = Index(rng() % cols);
        if (plantedtesting::insideAnyRegion(regions, i, j)) continue;
        coo.rowIndex.push_back(i);
        coo.colIndex.push_back(j);
        coo.values.push_back(k % 7 == 0 ? 0.0 : value());
    }
    return cooToCsr(coo);
}

// The matrix with the stored zeros inside the regions dropped: what the dense blocks can give back.
CsrMatrix<double> withoutZerosInside(const CsrMatrix<double>& m, const std::vector<DenseRegion>& regions) {
    CsrMatrix<double> out;
    out.rows = m.rows;
    out.cols = m.cols;
    out.rowPtr.push_back(0);
    for (Index i = 0; i < m.rows; ++i) {
        for (Count k = m.rowPtr[i]; k < m.rowPtr[i + 1]; ++k) {
            bool inside = false;
            for (const DenseRegion& r : regions) {
                const ColumnSpan s = r.span(i);
                inside = inside || (m.colIndex[k] >= s.begin && m.colIndex[k] < s.end);
            }
            if (inside && m.values[k] == 0.0) continue;
            out.colIndex.push_back(m.colIndex[k]);
            out.values.push_back(m.values[k]);
        }
        out.rowPtr.push_back(Count(out.colIndex.size()));
    }
    return out;
}

template <typename T>
bool sameCsr(const CsrMatrix<T>& a, const CsrMatrix<T>& b) {
    return a.rows == b.rows && a.cols == b.cols && a.rowPtr == b.rowPtr && a.colIndex == b.colIndex && a.values == b.values;
}

std::vector<DenseRegion> regionsOf(const HybridValuedMatrix<double>& h) {
    std::vector<DenseRegion> out;
    for (const auto& b : h.blocks) out.push_back(b.region);
    return out;
}

// |y - y_ref| <= (row length + 2) * eps(T) * sum |a_ij x_j| per row: the bound of any summation order
// plus the final rounding, from T's precision.
template <typename T>
QString spmvMismatch(const CsrMatrix<double>& a, const std::vector<T>& x, const std::vector<T>& y) {
    if (y.size() != std::size_t(a.rows)) return QStringLiteral("y has %1 entries, expected %2").arg(y.size()).arg(a.rows);
    const double eps = std::numeric_limits<T>::epsilon();
    for (Index i = 0; i < a.rows; ++i) {
        double exact = 0, magnitude = 0;
        for (Count k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k) {
            const double term = double(T(a.values[k])) * double(x[a.colIndex[k]]);
            exact += term;
            magnitude += std::fabs(term);
        }
        if (!std::isfinite(magnitude)) {  // Inf or NaN among the terms: the same non-finite result in any order
            if (!(double(y[i]) == exact || (std::isnan(exact) && std::isnan(double(y[i])))))
                return QStringLiteral("row %1: %2 vs reference %3").arg(i).arg(double(y[i])).arg(exact);
            continue;
        }
        const double bound = double(a.rowPtr[i + 1] - a.rowPtr[i] + 2) * eps * magnitude;
        if (!(std::fabs(double(y[i]) - exact) <= bound) && !(std::isnan(exact) && std::isnan(double(y[i]))))
            return QStringLiteral("row %1: %2 vs reference %3 (bound %4)").arg(i).arg(double(y[i]), 0, 'g', 17).arg(exact, 0, 'g', 17).arg(bound);
    }
    return {};
}

template <typename T>
std::vector<T> randomX(Index n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<T> x(static_cast<std::size_t>(n));
    for (auto& v : x) v = T(dist(rng));
    return x;
}

// Rewrites file length and CRC so that the structure checks behind them are reached.
std::string repairFraming(std::string bytes) {
    auto putU32 = [&](std::size_t at, std::uint32_t v) {
        for (int i = 0; i < 4; ++i) bytes[at + i] = char((v >> (8 * i)) & 0xFF);
    };
    for (int i = 0; i < 8; ++i) bytes[40 + i] = char((std::uint64_t(bytes.size()) >> (8 * i)) & 0xFF);
    std::uint32_t crc = 0xFFFFFFFFu;
    for (std::size_t k = 0; k + container::kTrailerBytes < bytes.size(); ++k) {
        crc ^= static_cast<unsigned char>(bytes[k]);
        for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    putU32(bytes.size() - container::kTrailerBytes, ~crc);
    return bytes;
}

// Whether two serialised containers hold the same sections (ids and payloads, in order).
bool samePayloads(const std::string& a, const std::string& b) {
    const Container ca = parseContainer(a, "<a>", allContainerSectionIds()), cb = parseContainer(b, "<b>", allContainerSectionIds());
    if (ca.sections.size() != cb.sections.size()) return false;
    for (std::size_t k = 0; k < ca.sections.size(); ++k)
        if (ca.sections[k].id != cb.sections[k].id || ca.sections[k].bytes() != cb.sections[k].bytes()) return false;
    return true;
}

// The byte offset of section `id`'s payload in a serialised container.
std::size_t payloadOffset(const std::string& bytes, std::uint32_t id) {
    const Container c = parseContainer(bytes, "<test>", allContainerSectionIds());
    for (const ContainerSection& s : c.sections)
        if (s.id == id) return std::size_t(s.offset);
    return 0;
}

} // namespace

class TestHybridValued : public QObject {
    Q_OBJECT

private slots:
    void roundTripExactOnEveryShape();
    void spmvMatchesCsrReferenceOnHandMadeMatrix();
    void floatSpmvWithinRounding();
    void edgeShapes();
    void sparseRegionIsNotKept();
    void badInputIsRefusedNamingThePlace();
    void detectionFindsHalfFullBlocksAtTheBenchmarkScale();
    void realMatricesRoundTripAndSpmv_data();
    void realMatricesRoundTripAndSpmv();
    void containerRoundTripF64F32AndInteger();
    void containerDecodesToTheMatrix();
    void binaryContainerStillReads();
    void damagedContainersAreRefused();
    void mutatedContainersNeverCrash();
};

void TestHybridValued::roundTripExactOnEveryShape() {
    const auto regions = handMadeRegions();
    const CsrMatrix<double> a = handMadeMatrix(61, 67, regions, 0.85, 150, 7);
    const HybridValuedMatrix<double> h = encodeHybridValued(a, regions, {true});
    QCOMPARE(h.blocks.size(), regions.size());
    QVERIFY(!h.csrFallback);
    validateHybridValued(h);
    Count cells = 0;
    for (const auto& b : h.blocks) {
        QCOMPARE(Count(b.values.size()), b.region.cells());
        cells += b.region.cells();
    }
    QVERIFY(h.explicitZeros() > 0);  // 85 % fill: absent cells are stored as zeros
    QCOMPARE(h.nnz(), withoutZerosInside(a, regions).nnz());
    QVERIFY(sameCsr(decodeHybridValued(h), withoutZerosInside(a, regions)));
    // Row-major over the shape: the first value of block 0 is the matrix's (2, 40), the last its (12, 58).
    auto at = [&](Index i, Index j) {
        for (Count k = a.rowPtr[i]; k < a.rowPtr[i + 1]; ++k)
            if (a.colIndex[k] == j) return a.values[k];
        return 0.0;
    };
    QCOMPARE(h.blocks[0].values.front(), at(2, 40));
    QCOMPARE(h.blocks[0].values.back(), at(12, 58));
    QCOMPARE(h.blocks[0].values[19], at(3, 40));
}

void TestHybridValued::spmvMatchesCsrReferenceOnHandMadeMatrix() {
    const auto regions = handMadeRegions();
    const CsrMatrix<double> a = handMadeMatrix(61, 67, regions, 0.7, 300, 11);
    const HybridValuedMatrix<double> h = encodeHybridValued(a, regions, {true});
    // Integer values and integer x: every sum is exact, so the two must agree bit for bit.
    std::vector<double> x(67);
    for (int j = 0; j < 67; ++j) x[j] = double(j % 5) - 2.0;
    const std::vector<double> y = hybridValuedSpmvReference(h, x);
    const std::vector<double> expected = spmvReference(a, x);
    QCOMPARE(y, expected);
    QVERIFY_THROWS_EXCEPTION(InputError, hybridValuedSpmvReference(h, std::vector<double>(66)));
}

void TestHybridValued::floatSpmvWithinRounding() {
    const auto regions = handMadeRegions();
    CsrMatrix<double> a = handMadeMatrix(61, 67, regions, 0.9, 200, 13);
    std::mt19937 rng(3);
    for (double& v : a.values)
        if (v != 0.0) v = double(float(v * (1.0 + (rng() % 1000) / 997.0)));
    const HybridValuedMatrix<float> h = encodeHybridValued(convertValues<float>(a), regions, {true});
    const auto x = randomX<float>(67, 5);
    const QString mismatch = spmvMismatch(a, x, hybridValuedSpmvReference(h, x));
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
}

void TestHybridValued::edgeShapes() {
    for (const auto& [rows, cols] : std::vector<std::pair<Index, Index>>{{0, 5}, {5, 0}, {1, 1}, {0, 0}}) {
        CsrMatrix<double> a;
        a.rows = rows, a.cols = cols;
        a.rowPtr.assign(std::size_t(rows) + 1, 0);
        const HybridValuedMatrix<double> h = encodeHybridValued(a, {});
        QVERIFY(h.csrFallback);
        QVERIFY(sameCsr(decodeHybridValued(h), a));
        QCOMPARE(hybridValuedSpmvReference(h, std::vector<double>(std::size_t(cols), 1.0)).size(), std::size_t(rows));
    }
    // 1 x 1 with a region over the single entry; rows with nothing in them between regions.
    CsrMatrix<double> one;
    one.rows = one.cols = 1;
    one.rowPtr = {0, 1};
    one.colIndex = {0};
    one.values = {2.5};
    const auto h = encodeHybridValued(one, {region(RegionShape::Rectangle, 0, 1, 0, 1)}, {true});
    QCOMPARE(h.blocks.size(), std::size_t(1));
    QCOMPARE(h.residual.nnz(), Count(0));
    QCOMPARE(hybridValuedSpmvReference(h, std::vector<double>{4.0}), std::vector<double>{10.0});
    QVERIFY(sameCsr(decodeHybridValued(h), one));
}

void TestHybridValued::sparseRegionIsNotKept() {
    // A 20 x 20 rectangle with 30 % of its cells: dense values (8 bytes a cell) cost more than CSR
    // (12 bytes an entry), so the encoder keeps the matrix as CSR and says why.
    const auto r = region(RegionShape::Rectangle, 0, 20, 0, 20);
    const CsrMatrix<double> a = handMadeMatrix(30, 30, {r}, 0.3, 10, 3);
    const auto h = encodeHybridValued(a, {r});
    QVERIFY(h.csrFallback);
    QVERIFY(h.blocks.empty());
    QVERIFY(QString::fromStdString(h.fallbackReason).contains(QLatin1String("cheaper")));
    QVERIFY(sameCsr(decodeHybridValued(h), a));
    // At 95 % the block pays (about 8 x 400 bytes against 12 x 380).
    const CsrMatrix<double> dense = handMadeMatrix(30, 30, {r}, 0.95, 10, 3);
    const auto kept = encodeHybridValued(dense, {r});
    QCOMPARE(kept.blocks.size(), std::size_t(1));
    QVERIFY(kept.encodedBytes() < valuedCsrBytes(30, dense.nnz(), 8));
}

void TestHybridValued::badInputIsRefusedNamingThePlace() {
    const auto regions = handMadeRegions();
    const CsrMatrix<double> a = handMadeMatrix(61, 67, regions, 0.8, 50, 1);
    auto overlapping = regions;
    overlapping.push_back(region(RegionShape::Rectangle, 10, 14, 50, 52));
    try {
        (void)encodeHybridValued(a, overlapping, {true});
        QFAIL("overlapping regions were accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("overlap")), e.what());
    }
    CsrMatrix<double> unsorted = a;
    Index row = 0;
    while (unsorted.rowPtr[row + 1] - unsorted.rowPtr[row] < 2) ++row;
    std::swap(unsorted.colIndex[unsorted.rowPtr[row]], unsorted.colIndex[unsorted.rowPtr[row] + 1]);
    QVERIFY_THROWS_EXCEPTION(InputError, encodeHybridValued(unsorted, regions, {true}));
    // A residual entry inside a block (a damaged encoding) is named.
    HybridValuedMatrix<double> h = encodeHybridValued(a, regions, {true});
    h.residual.colIndex.insert(h.residual.colIndex.begin() + h.residual.rowPtr[3], 45);
    h.residual.values.insert(h.residual.values.begin() + h.residual.rowPtr[3], 1.0);
    for (Index i = 4; i <= h.rows; ++i) ++h.residual.rowPtr[i];
    std::sort(h.residual.colIndex.begin() + h.residual.rowPtr[3], h.residual.colIndex.begin() + h.residual.rowPtr[4]);
    try {
        validateHybridValued(h);
        QFAIL("a residual entry inside a block was accepted");
    } catch (const InputError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("inside block 0")), e.what());
    }
}

// bench_hybrid_valued's case scaled down at the same ratios: blocks 4 thumbnail pixels wide (2048 at
// 512 cells a pixel there, 256 at 64 here), 55-65 % full, among scattered entries. The default
// detection must find every block, with its box, and the valued encoding must keep them all.
void TestHybridValued::detectionFindsHalfFullBlocksAtTheBenchmarkScale() {
    BlockyMatrixSpec spec = binarymatrixrows::squareBlockySpec(131072, 16, 0, 0, 256, 100000);
    spec.fillMin = 0.55;
    spec.fillMax = 0.65;
    spec.seed = 5;
    GeneratedBinary g = generateBlockyBinary(spec);
    CsrMatrix<float> a;
    a.rows = g.pattern.rows, a.cols = g.pattern.cols, a.rowPtr = g.pattern.rowPtr, a.colIndex = g.pattern.colIndex;
    a.values.assign(a.colIndex.size(), 0.5f);
    DetectionResult detected;
    const HybridValuedMatrix<float> h = detectAndEncodeHybridValued(a, {}, &detected);
    QCOMPARE(detected.cellsPerPixel, Index(64));
    QCOMPARE(h.blocks.size(), std::size_t(16));
    // Each planted block is found inside its box, missing at most a few edge lines (a random edge row
    // of a 55 % block can fall under the 50 % fill threshold and is trimmed, as it should be).
    for (const DenseRegion& planted : g.planted) {
        bool found = false;
        for (const auto& b : h.blocks) {
            const DenseRegion& r = b.region;
            found = found || (r.rowBegin >= planted.rowBegin && r.rowEnd <= planted.rowEnd && r.colBegin >= planted.colBegin &&
                              r.colEnd <= planted.colEnd && r.cells() >= planted.cells() * 95 / 100);
        }
        QVERIFY2(found, planted.describe().c_str());
    }
}

void TestHybridValued::realMatricesRoundTripAndSpmv_data() {
    QTest::addColumn<QString>("path");
    const QStringList files = QDir(testMatricesDir()).entryList({QStringLiteral("*.mtx")}, QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 20);
    for (const QString& f : files) QTest::newRow(qPrintable(f)) << QDir(testMatricesDir()).filePath(f);
}

// Every shared matrix, binary or not: complex ones are refused with a clear error; every other one
// round-trips through detection + encoding (and through a forced region over its middle, so that
// each matrix exercises the dense path) and its SpMV agrees with the CSR reference within rounding.
void TestHybridValued::realMatricesRoundTripAndSpmv() {
    QFETCH(QString, path);
    const Matrix m = readMatrixMarket(path.toStdString());
    if (m.isComplex()) {
        QVERIFY_THROWS_EXCEPTION(InputError, toCsr<double>(m));
        return;
    }
    const CsrMatrix<double> a = toCsr<double>(m);
    DetectionResult detected;
    const HybridValuedMatrix<double> h = detectAndEncodeHybridValued(a, {}, &detected);
    validateHybridValued(h);
    QVERIFY(sameCsr(decodeHybridValued(h), withoutZerosInside(a, regionsOf(h))));
    const auto x = randomX<double>(a.cols, 17);
    QString mismatch = spmvMismatch(a, x, hybridValuedSpmvReference(h, x));
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    if (a.rows < 4 || a.cols < 4) return;  // room for two regions that do not overlap
    // Small forced regions (at most 200 x 200: dense storage grows with the box, not the entries).
    const Index rh = std::min<Index>(200, std::max<Index>(1, a.rows / 3)), w = std::min<Index>(200, std::max<Index>(1, a.cols / 3));
    const Index th = std::min<Index>(100, std::max<Index>(1, a.rows / 5)), tw = std::min<Index>(100, std::max<Index>(1, a.cols / 5));
    const std::vector<DenseRegion> middle = {region(RegionShape::Rectangle, a.rows / 4, a.rows / 4 + rh, a.cols / 4, a.cols / 4 + w),
                                             region(RegionShape::Triangle, 0, th, 0, tw, TriangleCorner::UpperLeft)};
    const HybridValuedMatrix<double> forced = encodeHybridValued(a, middle, {true});
    QCOMPARE(forced.blocks.size(), std::size_t(2));
    QVERIFY(sameCsr(decodeHybridValued(forced), withoutZerosInside(a, middle)));
    mismatch = spmvMismatch(a, x, hybridValuedSpmvReference(forced, x));
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    const auto xf = randomX<float>(a.cols, 19);
    mismatch = spmvMismatch(convertValues<double>(convertValues<float>(a)), xf,
                            hybridValuedSpmvReference(encodeHybridValued(convertValues<float>(a), middle, {true}), xf));
    QVERIFY2(mismatch.isEmpty(), qPrintable(mismatch));
    // The container keeps it exactly.
    const auto back = parseHybridValuedContainer(serializeContainer(hybridValuedToContainer(forced)));
    QVERIFY(sameCsr(decodeHybridValued(back), decodeHybridValued(forced)));
}

void TestHybridValued::containerRoundTripF64F32AndInteger() {
    const auto regions = handMadeRegions();
    const CsrMatrix<double> a = handMadeMatrix(61, 67, regions, 0.8, 120, 21);
    const auto h = encodeHybridValued(a, regions, {true});
    Field field = Field::Real;
    const auto back = parseHybridValuedContainer(serializeContainer(hybridValuedToContainer(h, Field::Integer, "note")),
                                                 "<test>", &field);
    QCOMPARE(field, Field::Integer);
    QCOMPARE(back.blocks.size(), h.blocks.size());
    for (std::size_t b = 0; b < h.blocks.size(); ++b) {
        QCOMPARE(back.blocks[b].values, h.blocks[b].values);
        QCOMPARE(back.blocks[b].region.ones, h.blocks[b].region.ones);
        QCOMPARE(back.blocks[b].region.describe(), h.blocks[b].region.describe());
    }
    QVERIFY(sameCsr(back.residual, h.residual));
    // f32 storage: 4 bytes a value, widened exactly on reading.
    CsrMatrix<float> af = convertValues<float>(a);
    af.values[0] = 0.1f;
    const auto hf = encodeHybridValued(af, regions, {true});
    const std::string f32 = serializeContainer(hybridValuedToContainer(hf));
    const auto backf = parseHybridValuedContainer(f32);
    QVERIFY(sameCsr(convertValues<float>(decodeHybridValued(backf)), decodeHybridValued(hf)));
    QVERIFY(f32.size() < serializeContainer(hybridValuedToContainer(h)).size());
    // A value that is not whole cannot be written as an integer matrix.
    QVERIFY_THROWS_EXCEPTION(InputError, hybridValuedToContainer(hf, Field::Integer));
    QVERIFY_THROWS_EXCEPTION(InputError, hybridValuedToContainer(h, Field::Pattern));
}

void TestHybridValued::containerDecodesToTheMatrix() {
    const auto regions = handMadeRegions();
    const CsrMatrix<double> a = handMadeMatrix(61, 67, regions, 0.8, 120, 23);
    const auto h = encodeHybridValued(a, regions, {true});
    ContainerEncoding encoding = ContainerEncoding::BitFlag;
    const Matrix m = parseContainerMatrix(serializeContainer(hybridValuedToContainer(h)), "<test>", &encoding);
    QCOMPARE(encoding, ContainerEncoding::HybridBinary);
    QCOMPARE(m.field, Field::Real);
    QVERIFY(sameCsr(toCsr<double>(m), withoutZerosInside(a, regions)));
}

void TestHybridValued::binaryContainerStillReads() {
    // The seed's binary form is unchanged: a binary file reads as before, and each reader refuses the
    // other form by name instead of misreading it.
    GeneratedBinary g = seedExampleBinary();
    HybridEncodeOptions options;
    options.forceRegions = true;
    const HybridBinaryMatrix binary = encodeHybrid(g.pattern, g.planted, options);
    const std::string binaryBytes = serializeContainer(hybridToContainer(binary));
    QVERIFY(decodeHybrid(parseHybridContainer(binaryBytes)) == g.pattern);
    QVERIFY(!isValuedHybridContainer(parseKnownContainer(binaryBytes, "<test>")));
    QCOMPARE(parseContainerMatrix(binaryBytes).field, Field::Pattern);
    try {
        (void)parseHybridValuedContainer(binaryBytes);
        QFAIL("a binary file was read as valued");
    } catch (const ContainerFormatError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("binary pattern")), e.what());
    }
    const auto regions = handMadeRegions();
    const auto valued = encodeHybridValued(handMadeMatrix(61, 67, regions, 0.8, 40, 2), regions, {true});
    const std::string valuedBytes = serializeContainer(hybridValuedToContainer(valued));
    QVERIFY(isValuedHybridContainer(parseKnownContainer(valuedBytes, "<test>")));
    try {
        (void)parseHybridContainer(valuedBytes);
        QFAIL("a valued file was read as binary");
    } catch (const ContainerFormatError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("valued form")), e.what());
    }
}

void TestHybridValued::damagedContainersAreRefused() {
    const auto regions = handMadeRegions();
    const auto h = encodeHybridValued(handMadeMatrix(61, 67, regions, 0.8, 60, 9), regions, {true});
    const std::string good = serializeContainer(hybridValuedToContainer(h));
    (void)parseHybridValuedContainer(good);
    auto refusedWith = [&](std::string bytes, const char* expected) {
        try {
            (void)parseHybridValuedContainer(repairFraming(std::move(bytes)));
        } catch (const ContainerFormatError& e) {
            return QString::fromUtf8(e.what()).contains(QLatin1String(expected)) ? QString() : QString::fromUtf8(e.what());
        }
        return QStringLiteral("accepted");
    };
    const std::size_t summary = payloadOffset(good, container::kHybridSummary);
    const std::size_t records = payloadOffset(good, container::kHybridRegions);
    const std::size_t values = payloadOffset(good, container::kHybridRegionValues);
    std::string bad = good;
    bad[summary + 8] = 7;  // value type 7 (no fallback reason: it follows flags and length)
    QCOMPARE(refusedWith(bad, "value type 7"), QString());
    bad = good;
    bad[records + 28] ^= 1;  // zero count of region 0 off by one
    QCOMPARE(refusedWith(bad, "zero cells"), QString());
    bad = good;
    bad[records + 8] += 1;  // region 0 one row taller: the values no longer add up
    QVERIFY(!refusedWith(bad, "").startsWith(QLatin1String("accepted")));
    // A non-zero cell turned into a zero: the zero count no longer matches. The first non-zero cell
    // of region 0 (the regions are 80 % full, so there is one), not whichever cell the seed made.
    const auto& firstValues = h.blocks[0].values;
    const auto nonZero = std::find_if(firstValues.begin(), firstValues.end(), [](double v) { return v != 0.0; });
    QVERIFY(nonZero != firstValues.end());
    bad = good;
    const std::size_t cell = values + 8 * static_cast<std::size_t>(nonZero - firstValues.begin());
    for (int b = 0; b < 8; ++b) bad[cell + b] = 0;
    QCOMPARE(refusedWith(bad, "zero cells"), QString());
    bad = good;
    bad[records + 8] = char(0xFF), bad[records + 9] = char(0xFF), bad[records + 10] = char(0xFF), bad[records + 11] = 0x7F;
    QCOMPARE(refusedWith(bad, "outside"), QString());  // rowEnd 2^31-1: outside the matrix, refused before counting
}

void TestHybridValued::mutatedContainersNeverCrash() {
    const auto regions = handMadeRegions();
    const auto h = encodeHybridValued(handMadeMatrix(61, 67, regions, 0.8, 60, 4), regions, {true});
    const std::string good = serializeContainer(hybridValuedToContainer(h));
    std::mt19937 rng(99);
    int accepted = 0, refused = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        std::string bytes = good;
        for (int flips = 1 + int(rng() % 3); flips > 0; --flips)
            bytes[container::kHeaderBytes + rng() % (bytes.size() - container::kHeaderBytes - container::kTrailerBytes)] = char(rng());
        const std::string repaired = repairFraming(bytes);
        HybridValuedMatrix<double> m;
        Field field = Field::Complex;
        try {
            m = parseHybridValuedContainer(repaired, "<mutated>", &field);
        } catch (const InputError&) {
            ++refused;
            continue;
        }
        // Accepted: the parser must have read every field as written, so the serialiser (a separate
        // piece of code, the one that made `good`) writes the same section payloads back. A parser
        // that misread, clamped or dropped a damaged field and still passed validation fails here.
        // (Section flags are left out: a flipped flag bit the framing tolerates is not the payload's.)
        QVERIFY2(samePayloads(serializeContainer(hybridValuedToContainer(m, field)), repaired),
                 qPrintable(QStringLiteral("trial %1: an accepted file does not write back to itself").arg(trial)));
        ++accepted;
    }
    // Both happen: value bytes may take any value, record and index bytes are checked.
    QVERIFY2(accepted > 0 && refused > 0, qPrintable(QStringLiteral("%1 accepted, %2 refused").arg(accepted).arg(refused)));
}

QTEST_GUILESS_MAIN(TestHybridValued)
#include "tst_hybrid_valued.moc"
