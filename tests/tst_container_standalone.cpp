// include-standalone/spyglass_container.hpp, the header-only reader users copy into their own code:
// containers of every encoding and value type made with the library's writers decode to exactly the
// entries the library's decoder gives (matrixFromContainer), the arrays are the ones written, and
// damaged files are refused with the library's message (flipped bytes: the checksum; seeded damage
// with the CRC repaired: the encodings' own checks).
// With SPYGLASS_CONTAINER_SAMPLES=DIR the containers are also written there as NAME.spy beside
// NAME.mtx (the library's decode), for tests/python/test_spyglass_container.py (CTest fixture).
#include "plantedbinary.h"
#include "spyglass_container.hpp"

#include "spyglass/container.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_valued.h"
#include "spyglass/matrixmarket.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <functional>
#include <random>

using namespace spyglass;
using plantedtesting::region;
namespace sc = spyglass_container;

namespace {

// A real matrix with every feature of the formats: a band of diagonals with gaps (padding), a few
// long-range entries (the segmented-DIA remainder), rows of several segments, integer values in
// quarters (exact in f32), no explicit zeros unless `zeros`.
CooMatrix<double> bandedWithScatter(Index rows, Index cols, unsigned seed, bool integer = false, bool zeros = false) {
    std::mt19937 rng(seed);
    CooMatrix<double> coo;
    coo.rows = rows;
    coo.cols = cols;
    for (Index i = 0; i < rows; ++i)
        for (Index j = 0; j < cols; ++j) {
            const bool band = std::abs(i - j) <= 2 && rng() % 10 != 0;
            const bool far = (i * 7 + j * 3) % 29 == 0;
            if (!band && !far) continue;
            double v = double(int(rng() % 17) - 8) / (integer ? 1.0 : 4.0);
            if (v == 0.0 && !zeros) v = 1.0;
            coo.rowIndex.push_back(i);
            coo.colIndex.push_back(j);
            coo.values.push_back(v);
        }
    return coo;
}

CooMatrix<double> ones(CooMatrix<double> coo) {
    coo.values.assign(coo.values.size(), 1.0);
    return coo;
}

// Dense regions of every shape (and triangle corner) in a 90 x 80 matrix, each about 90 % full, plus
// scattered entries outside them; values in quarters when valued.
std::vector<DenseRegion> blockyRegions() {
    return {region(RegionShape::Rectangle, 2, 14, 40, 70),
            region(RegionShape::Triangle, 20, 36, 0, 16, TriangleCorner::LowerLeft),
            region(RegionShape::Triangle, 20, 32, 20, 44, TriangleCorner::UpperRight),
            region(RegionShape::Triangle, 40, 52, 0, 12, TriangleCorner::UpperLeft),
            region(RegionShape::Triangle, 40, 52, 60, 78, TriangleCorner::LowerRight),
            region(RegionShape::Band, 56, 90, 20, 60, TriangleCorner::LowerLeft, -2, 3)};
}

CsrMatrix<double> blocky(bool valued, unsigned seed) {
    std::mt19937 rng(seed);
    CooMatrix<double> coo;
    coo.rows = 90;
    coo.cols = 80;
    const std::vector<DenseRegion> regions = blockyRegions();
    for (Index i = 0; i < coo.rows; ++i)
        for (Index j = 0; j < coo.cols; ++j) {
            bool inside = false;
            for (const DenseRegion& r : regions) {
                const ColumnSpan s = r.span(i);
                inside |= j >= s.begin && j < s.end;
            }
            if (inside ? rng() % 10 == 0 : rng() % 40 != 0) continue;
            coo.rowIndex.push_back(i);
            coo.colIndex.push_back(j);
            coo.values.push_back(valued ? double(int(rng() % 15) - 7 + (rng() % 2 ? 8 : -8)) / 4.0 : 1.0);
        }
    return cooToCsr(coo);
}

struct Sample {
    std::string name;
    std::string bytes;  // the serialized container
};

// Every encoding and value type the library writes.
std::vector<Sample> samples() {
    std::vector<Sample> out;
    const auto add = [&](const std::string& name, const Container& c) { out.push_back({name, serializeContainer(c)}); };
    const CooMatrix<double> banded = bandedWithScatter(77, 70, 3);
    const SegmentedDiaMatrix<double> segdia = buildSegmentedDia(banded, {16, true});
    add("segdia-f64", segmentedDiaToContainer(segdia, Field::Real, "tst_container_standalone"));
    add("segdia-f32", segmentedDiaToContainer(buildSegmentedDia(convertValues<float>(banded), {16, true})));
    add("segdia-f64-hdia", segmentedDiaToContainer(buildSegmentedDia(banded, {10, false})));
    SegmentedDiaOptions pure{16, true};
    pure.remainder = SegmentedDiaRemainder::Off;
    add("segdia-f64-pure-dia", segmentedDiaToContainer(buildSegmentedDia(banded, pure)));
    // The first files' layout (summary version 0, no remainder sections), which readers still accept.
    Container version0 = segmentedDiaToContainer(buildSegmentedDia(banded, pure));
    version0.sections.erase(std::remove_if(version0.sections.begin(), version0.sections.end(),
                                           [](const ContainerSection& s) { return s.id >= container::kSegdiaRemainderStarts; }),
                            version0.sections.end());
    version0.sections.front().payload.replace(20, 4, std::string(4, '\0'));
    add("segdia-f64-version0", version0);
    SegmentedDiaOptions all{16, true};
    all.remainder = SegmentedDiaRemainder::All;
    add("segdia-f32-all-remainder", segmentedDiaToContainer(buildSegmentedDia(convertValues<float>(banded), all)));
    add("segdia-integer", segmentedDiaToContainer(buildSegmentedDia(bandedWithScatter(40, 50, 4, true), {7, true}), Field::Integer));
    add("segdia-pattern", segmentedDiaToContainer(buildSegmentedDia(ones(banded), {16, true}), Field::Pattern));

    const auto bitflag = [](const CooMatrix<double>& coo, BitFlagOrder order, bool prefix) {
        BitFlagOptions options;
        options.order = order;
        options.prefixCounts = prefix;
        options.keepExplicitZeros = true;
        return encodeBitFlag(coo, options);
    };
    const CooMatrix<double> withZeros = bandedWithScatter(45, 140, 5, false, true);  // lines of 140: 64-bit words
    add("bitflag-f64", bitFlagToContainer(bitflag(withZeros, BitFlagOrder::RowMajor, false)));
    add("bitflag-f64-col-major-prefix", bitFlagToContainer(bitflag(withZeros, BitFlagOrder::ColumnMajor, true)));
    add("bitflag-f32-prefix", bitFlagToContainer(encodeBitFlag(convertValues<float>(withZeros),
                                                               BitFlagOptions{BitFlagOrder::RowMajor, true, true})));
    add("bitflag-f32-narrow-col-major", bitFlagToContainer(encodeBitFlag(convertValues<float>(bandedWithScatter(30, 20, 6)),
                                                                         BitFlagOptions{BitFlagOrder::ColumnMajor, false, true})));
    add("bitflag-integer", bitFlagToContainer(bitflag(bandedWithScatter(30, 33, 7, true), BitFlagOrder::RowMajor, true),
                                              Field::Integer));
    add("bitflag-pattern", bitFlagToContainer(bitflag(ones(banded), BitFlagOrder::RowMajor, false), Field::Pattern));

    const CsrMatrix<double> binary = blocky(false, 8);
    add("hybrid-binary", hybridToContainer(encodeHybrid(patternOfCsr(binary), blockyRegions(), {65535, true}), "regions of every shape"));
    add("hybrid-binary-fallback", hybridToContainer(encodeHybrid(patternOfCsr(binary), {})));
    const CsrMatrix<double> valued = blocky(true, 9);
    add("hybrid-valued-f64", hybridValuedToContainer(encodeHybridValued(valued, blockyRegions(), {true})));
    add("hybrid-valued-f32", hybridValuedToContainer(encodeHybridValued(convertValues<float>(valued), blockyRegions(), {true})));
    CsrMatrix<double> whole = valued;
    for (double& v : whole.values) v = std::round(v);
    add("hybrid-valued-integer", hybridValuedToContainer(encodeHybridValued(whole, blockyRegions(), {true}), Field::Integer));
    add("hybrid-valued-fallback", hybridValuedToContainer(encodeHybridValued(valued, {})));

    // Edge shapes: no rows, no columns, nothing stored.
    CooMatrix<double> empty;
    empty.rows = 5;
    empty.cols = 0;
    add("segdia-5x0", segmentedDiaToContainer(buildSegmentedDia(empty, {2, true})));
    empty.rows = 0;
    empty.cols = 4;
    add("bitflag-0x4", bitFlagToContainer(encodeBitFlag(empty)));
    empty.rows = 3;
    add("bitflag-3x4-empty", bitFlagToContainer(encodeBitFlag(empty)));
    return out;
}

// The header's refusal of `bytes` ("" when it accepts them).
QString headerRefusal(const std::string& bytes, const std::string& source) {
    try {
        (void)sc::toCoo(sc::parse(bytes, source));
    } catch (const sc::FormatError& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

// The library's refusal ("" when it accepts them).
QString libraryRefusal(const std::string& bytes, const std::string& source) {
    try {
        (void)parseContainerMatrix(bytes, source);
    } catch (const ContainerFormatError& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

void repairCrc(std::string& bytes) {
    // The header's CRC-32; every good sample reading back proves it equal to zlib's, which the library uses.
    const std::uint32_t crc = sc::detail::crc32(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size() - 8);
    for (int b = 0; b < 4; ++b) bytes[bytes.size() - 8 + b] = char((crc >> (8 * b)) & 0xFF);
}

} // namespace

class TestContainerStandalone : public QObject {
    Q_OBJECT

private slots:
    void decodesEveryEncodingLikeTheLibrary_data();
    void decodesEveryEncodingLikeTheLibrary();
    void arraysAreTheOnesWritten();
    void refusesDamageWithTheLibrarysMessage_data() { decodesEveryEncodingLikeTheLibrary_data(); }
    void refusesDamageWithTheLibrarysMessage();
    void loadReadsFilesAndNamesThem();
    void refusesAnAmplifyingFileBeforeExpanding();
};

void TestContainerStandalone::decodesEveryEncodingLikeTheLibrary_data() {
    QTest::addColumn<int>("index");
    const std::vector<Sample> all = samples();
    for (std::size_t k = 0; k < all.size(); ++k) QTest::newRow(all[k].name.c_str()) << int(k);
}

void TestContainerStandalone::decodesEveryEncodingLikeTheLibrary() {
    QFETCH(int, index);
    const Sample sample = samples()[std::size_t(index)];
    const Matrix expected = parseContainerMatrix(sample.bytes, sample.name);
    const sc::Container c = sc::parse(sample.bytes, sample.name);
    const sc::Coo got = sc::toCoo(c);
    QCOMPARE(got.rows, std::int64_t(expected.rows));
    QCOMPARE(got.cols, std::int64_t(expected.cols));
    QCOMPARE(int(got.field), int(container::fieldCode(expected.field)));
    QCOMPARE(got.rowIndex, std::vector<std::int32_t>(expected.rowIndex.begin(), expected.rowIndex.end()));
    QCOMPARE(got.colIndex, std::vector<std::int32_t>(expected.colIndex.begin(), expected.colIndex.end()));
    if (expected.field == Field::Pattern) QVERIFY(std::all_of(got.values.begin(), got.values.end(), [](double v) { return v == 1.0; }));
    else QVERIFY(got.values.size() == expected.real.size() &&
                 (got.values.empty() ||  // memcmp must not see the null pointer of an empty vector
                  std::memcmp(got.values.data(), expected.real.data(), got.values.size() * sizeof(double)) == 0));

    const QByteArray dir = qgetenv("SPYGLASS_CONTAINER_SAMPLES");
    if (!dir.isEmpty()) {
        QVERIFY(QDir().mkpath(QString::fromLocal8Bit(dir)));
        const std::string base = dir.toStdString() + "/" + sample.name;
        std::ofstream(base + ".spy", std::ios::binary) << sample.bytes;
        writeMatrixMarket(base + ".mtx", expected);
        QCOMPARE(readContainerMatrix(base + ".spy").stored(), expected.stored());
    }
}

void TestContainerStandalone::arraysAreTheOnesWritten() {
    const CooMatrix<double> banded = bandedWithScatter(77, 70, 3);
    const SegmentedDiaMatrix<double> segdia = buildSegmentedDia(banded, {16, true});
    const sc::Container c = sc::parse(serializeContainer(segmentedDiaToContainer(segdia, Field::Real, "note")), "segdia");
    QCOMPARE(c.note, std::string("note"));
    QVERIFY(c.encoding == sc::Encoding::SegmentedDia);
    const sc::SegmentedDia& m = c.segdia;
    QVERIFY(m.version == 1 && m.valueType == sc::ValueType::Float64);
    QCOMPARE(std::int64_t(m.threshold), std::int64_t(segdia.threshold));
    QVERIFY(std::equal(m.segmentRowStarts.begin(), m.segmentRowStarts.end(), segdia.segmentFirstRow.begin(), segdia.segmentFirstRow.end()));
    QVERIFY(std::equal(m.offsetStarts.begin(), m.offsetStarts.end(), segdia.segmentOffsetStart.begin(), segdia.segmentOffsetStart.end()));
    QVERIFY(std::equal(m.offsets.begin(), m.offsets.end(), segdia.offsets.begin(), segdia.offsets.end()));
    QVERIFY(std::equal(m.valueStarts.begin(), m.valueStarts.end(), segdia.segmentValueStart.begin(), segdia.segmentValueStart.end()));
    QVERIFY(m.values == segdia.values);
    QVERIFY(std::equal(m.remainderStarts.begin(), m.remainderStarts.end(), segdia.segmentRemainderStart.begin(),
                       segdia.segmentRemainderStart.end()));
    QVERIFY(std::equal(m.remainderRowStartAt.begin(), m.remainderRowStartAt.end(), segdia.segmentRemainderRowStart.begin(),
                       segdia.segmentRemainderRowStart.end()));
    QVERIFY(std::equal(m.remainderColumns.begin(), m.remainderColumns.end(), segdia.remainderColumns.begin(), segdia.remainderColumns.end()));
    QVERIFY(m.remainderValues == segdia.remainderValues);
    QVERIFY(!m.remainderColumns.empty());

    BitFlagOptions options{BitFlagOrder::ColumnMajor, true, true};
    const BitFlagMatrix<double> bitflag = encodeBitFlag(bandedWithScatter(45, 140, 5, false, true), options);
    const sc::Container b = sc::parse(serializeContainer(bitFlagToContainer(bitflag)), "bitflag");
    QVERIFY(b.bitflag.columnMajor && b.bitflag.withPrefixCounts);
    QCOMPARE(b.bitflag.wordBits, 64u);  // columns of 45 elements: past 32, 64-bit words
    QVERIFY(b.bitflag.flags == bitflag.flags64);
    QVERIFY(std::equal(b.bitflag.lineStarts.begin(), b.bitflag.lineStarts.end(), bitflag.lineStart.begin(), bitflag.lineStart.end()));
    QVERIFY(b.bitflag.values == bitflag.values);
    QVERIFY(b.bitflag.prefixCounts == bitflag.wordPrefix);

    const HybridBinaryMatrix hybrid = encodeHybrid(patternOfCsr(blocky(false, 8)), blockyRegions(), {65535, true});
    const sc::Container h = sc::parse(serializeContainer(hybridToContainer(hybrid)), "hybrid");
    QCOMPARE(h.hybrid.regions.size(), hybrid.blocks.size());
    for (std::size_t k = 0; k < hybrid.blocks.size(); ++k) {
        const DenseRegion& r = hybrid.blocks[k].region;
        const sc::Region& s = h.hybrid.regions[k];
        QCOMPARE(int(s.shape), int(r.shape));
        QCOMPARE(s.zeros, std::uint32_t(hybrid.blocks[k].zeros()));
        for (Index row = r.rowBegin - 1; row <= r.rowEnd; ++row) {
            QCOMPARE(s.span(row).second - s.span(row).first, std::int64_t(r.span(row).size()));
            if (r.span(row).size()) QCOMPARE(s.span(row).first, std::int64_t(r.span(row).begin));
        }
    }
    QVERIFY(std::equal(h.hybrid.residualColumns.begin(), h.hybrid.residualColumns.end(), hybrid.residual.colIndex.begin(),
                       hybrid.residual.colIndex.end()));
}

void TestContainerStandalone::refusesDamageWithTheLibrarysMessage() {
    QFETCH(int, index);
    const Sample sample = samples()[std::size_t(index)];
    const std::string& good = sample.bytes;
    // Flipped bytes, CRC left alone: every one refused, with the library's message (the checksum, or
    // the framing field the flip hit first).
    for (std::size_t at = 0; at < good.size(); at += 1 + good.size() / 97) {
        std::string bad = good;
        bad[at] = char(bad[at] ^ 0x24);
        const QString library = libraryRefusal(bad, "bad.spy"), header = headerRefusal(bad, "bad.spy");
        QVERIFY2(!library.isEmpty(), qPrintable(QStringLiteral("byte %1 flipped, accepted").arg(at)));
        QCOMPARE(header, library);
    }
    // Cut short and extended.
    QCOMPARE(headerRefusal(good.substr(0, good.size() - 5), "bad.spy"), libraryRefusal(good.substr(0, good.size() - 5), "bad.spy"));
    QCOMPARE(headerRefusal(good.substr(0, 30), "bad.spy"), libraryRefusal(good.substr(0, 30), "bad.spy"));
    // Seeded damage with the CRC repaired, so that the encodings' checks are reached.
    std::mt19937 rng(33 + unsigned(index));
    int refused = 0, accepted = 0;
    constexpr int kCopies = 300;
    for (int n = 0; n < kCopies; ++n) {
        std::string bad = good;
        const std::size_t at = 48 + rng() % (good.size() - 56);
        if (n % 2) bad[at] = char(rng() % 256);
        else bad[at] = char(bad[at] + (n % 4 == 0 ? 1 : -1));
        repairCrc(bad);
        const QString library = libraryRefusal(bad, "bad.spy"), header = headerRefusal(bad, "bad.spy");
        QVERIFY2(library == header, qPrintable(QStringLiteral("byte %1 of %2:\n  library: %3\n  header:  %4")
                                                   .arg(at).arg(good.size()).arg(library, header)));
        (library.isEmpty() ? accepted : refused)++;
        if (library.isEmpty()) {
            const Matrix expected = parseContainerMatrix(bad, "bad.spy");
            const sc::Coo got = sc::toCoo(sc::parse(bad, "bad.spy"));
            QCOMPARE(got.rowIndex, std::vector<std::int32_t>(expected.rowIndex.begin(), expected.rowIndex.end()));
            QCOMPARE(got.colIndex, std::vector<std::int32_t>(expected.colIndex.begin(), expected.colIndex.end()));
        }
    }
    qInfo("%s: %d damaged copies with the CRC repaired, %d refused with the library's message, %d accepted by both alike",
          sample.name.c_str(), kCopies, refused, accepted);
}

void TestContainerStandalone::loadReadsFilesAndNamesThem() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = (dir.path() + QStringLiteral("/olm.spy")).toStdString();
    const CooMatrix<double> banded = bandedWithScatter(77, 70, 3);
    writeSegmentedDiaContainer(path, buildSegmentedDia(banded, {16, true}));
    const sc::Container c = sc::load(path);
    QCOMPARE(sc::toCoo(c).values.size(), banded.values.size());
    {
        std::string bytes = readFileBytes(path);
        bytes[bytes.size() / 2] ^= 1;
        std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    }
    try {
        (void)sc::load(path);
        QFAIL("a damaged file was accepted");
    } catch (const sc::FormatError& error) {
        QCOMPARE(QString::fromStdString(error.what()), QString::fromStdString(path + ": byte " + std::to_string(readFileBytes(path).size() - 8) +
                                                                              ": checksum mismatch: the file is damaged"));
    }
    QVERIFY_THROWS_EXCEPTION(std::runtime_error, sc::load(path + ".missing"));
}

// A 240-byte binary hybrid file whose one region is 3 x (2^31 - 1) ones: sound, but toCoo refuses it
// before expanding anything, with the library's message; a lower limit applies to any file.
void TestContainerStandalone::refusesAnAmplifyingFileBeforeExpanding() {
    const auto le = [](std::string& out, std::uint64_t v, int bytes) {
        // Byte by byte: shifting a 64-bit value by 64 (b = 8) would be undefined.
        for (int b = 0; b < bytes; ++b, v >>= 8) out.push_back(char(v & 0xFF));
    };
    Container c;
    c.encoding = ContainerEncoding::HybridBinary;
    c.rows = 3;
    c.cols = INT32_MAX;
    std::string summary, record, zeroRowPtr, residualPtr;
    le(summary, 0, 8);
    le(record, 0, 4);  // rectangle, corner, reserved
    for (std::int64_t v : {0, 3, 0, INT32_MAX, 0, 0}) le(record, std::uint64_t(std::uint32_t(v)), 4);
    le(record, 0, 4);  // no zeros
    le(zeroRowPtr, 0, 16);
    le(residualPtr, 0, 32);
    c.sections = {{container::kHybridSummary, 0, summary},        {container::kHybridRegions, 0, record},
                  {container::kHybridZeroRowPtr, 0, zeroRowPtr},  {container::kHybridZeroOffsets, 0, {}},
                  {container::kHybridResidualRowPtr, 0, residualPtr}, {container::kHybridResidualCols, 0, {}}};
    const std::string bytes = serializeContainer(c);
    QString library;
    try {
        (void)parseContainerMatrix(bytes, "big.spy");
    } catch (const InputError& error) {
        library = QString::fromStdString(error.what());
    }
    QVERIFY(library.contains(QLatin1String("more than the limit")));
    const sc::Container parsed = sc::parse(bytes, "big.spy");
    QCOMPARE(sc::entryCount(parsed), std::int64_t(3) * INT32_MAX);
    try {
        (void)sc::toCoo(parsed);
        QFAIL("expanded");
    } catch (const sc::TooLargeError& error) {
        QCOMPARE(QString::fromStdString(error.what()), library);
    }
    const sc::Container small = sc::parse(samples().front().bytes, "small.spy");
    QVERIFY_THROWS_EXCEPTION(sc::TooLargeError, sc::toCoo(small, 10));
    QCOMPARE(std::int64_t(sc::toCoo(small).values.size()), sc::entryCount(small));
}

QTEST_GUILESS_MAIN(TestContainerStandalone)
#include "tst_container_standalone.moc"
