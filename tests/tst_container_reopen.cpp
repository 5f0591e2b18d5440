// Reopening a container (readContainerMatrix: the file mapped, sections decoded in place, the matrix
// built on threads) gives exactly the matrix the container was made from: the oracle is the input
// itself (its CSR through toCsr, no container code), so a decoder both read paths share cannot hide
// a fault. Both paths (mapped file, bytes in memory) give the same entries in the same order as the
// path they replaced (the sections copied out, then the public decoders), and exactly its errors.
// Big cases have millions of entries so that the threaded loops split; the same files read through
// readMatrixFile on 1 to 7 threads (ReadOptions::threads) give the same matrix.
#include "plantedbinary.h"
#include "matrixentries.h"

#include "spyglass/container.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrixfile.h"

#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>

using namespace spyglass;

namespace {

// The 3-D 7-point stencil of an n^3 grid, integer values (6 on the diagonal, -1 or -2 off it).
Matrix stencil(Index n) {
    Matrix m;
    m.rows = m.cols = n * n * n;
    auto at = [n](Index x, Index y, Index z) { return (z * n + y) * n + x; };
    for (Index z = 0; z < n; ++z)
        for (Index y = 0; y < n; ++y)
            for (Index x = 0; x < n; ++x) {
                const Index r = at(x, y, z);
                auto add = [&](Index c, double v) {
                    m.rowIndex.push_back(r);
                    m.colIndex.push_back(c);
                    m.real.push_back(v);
                };
                if (z > 0) add(at(x, y, z - 1), -1);
                if (y > 0) add(at(x, y - 1, z), -2);
                if (x > 0) add(at(x - 1, y, z), -1);
                add(r, 6);
                if (x + 1 < n) add(at(x + 1, y, z), -1);
                if (y + 1 < n) add(at(x, y + 1, z), -2);
                if (z + 1 < n) add(at(x, y, z + 1), -1);
            }
    return m;
}

// A dense 40 x 50 block of values 1..9 (a few zeros) plus a scattered diagonal: a region for hybrid.
CsrMatrix<double> blockAndDiagonal() {
    Matrix m;
    m.rows = 300;
    m.cols = 280;
    for (Index i = 0; i < m.rows; ++i)
        for (Index j = 0; j < m.cols; ++j) {
            const bool inBlock = i >= 10 && i < 50 && j >= 20 && j < 70 && (i * 7 + j) % 13 != 0;
            if (inBlock || (i == j && (i < 10 || i >= 70))) {
                m.rowIndex.push_back(i);
                m.colIndex.push_back(j);
                m.real.push_back(double(1 + (i + 3 * j) % 9));
            }
        }
    return toCsr<double>(m);
}

// 4000 x 20000, 300 entries in every row at scattered columns, integer values 1..9: flags long enough
// (313 words a row, 63 a column) and entries enough that the bit-flag checks and decode split into
// several ranges in either order.
CsrMatrix<double> wideScatter() {
    Matrix m;
    m.rows = 4000;
    m.cols = 20000;
    for (Index i = 0; i < m.rows; ++i) {
        std::vector<Index> columns;
        for (Index k = 0; k < 300; ++k) columns.push_back((i * 7 + 61 * k) % m.cols);  // 61 k < 20000: distinct
        std::sort(columns.begin(), columns.end());
        for (Index j : columns) {
            m.rowIndex.push_back(i);
            m.colIndex.push_back(j);
            m.real.push_back(double(1 + (i + j) % 9));
        }
    }
    return toCsr<double>(m);
}

Matrix fromCooAs(const CooMatrix<double>& coo, Field field) {
    Matrix m = matrixentries::realEntries(coo.rows, coo.cols, coo.rowIndex, coo.colIndex, coo.values);
    m.field = field;
    if (field == Field::Pattern) m.real.clear();
    return m;
}

Matrix fromCsrAs(const CsrMatrix<double>& csr, Field field) {
    Matrix m = fromCsr(csr);
    m.field = field;
    if (field == Field::Pattern) m.real.clear();
    return m;
}

// The decode this change replaced, from copied sections through the public decoders.
Matrix previousDecode(const std::string& bytes, const std::string& source) {
    const Container c = parseKnownContainer(bytes, source);
    Field field = Field::Real;
    switch (c.encoding) {
    case ContainerEncoding::SegmentedDia: {
        const SegmentedDiaMatrix<double> s = segmentedDiaFromContainer(c, source, &field);
        return fromCooAs(segmentedDiaToCoo(s), field);
    }
    case ContainerEncoding::BitFlag: {
        const BitFlagMatrix<double> b = bitFlagFromContainer(c, source, &field);
        return fromCsrAs(decodeBitFlag(b), field);
    }
    case ContainerEncoding::HybridBinary:
        if (isValuedHybridContainer(c)) {
            const HybridValuedMatrix<double> h = hybridValuedFromContainer(c, source, &field);
            return fromCsrAs(decodeHybridValued(h), field);
        }
        return matrixFromBinaryPattern(decodeHybrid(hybridFromContainer(c, source)));
    }
    return {};
}

void writeBytes(const QString& path, const std::string& bytes) {
    std::ofstream out(path.toStdString(), std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
}

// Bitwise, so that signed zeros and NaN payloads count too.
bool sameValues(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

void expectSameMatrix(const Matrix& got, const Matrix& want) {
    QCOMPARE(got.rows, want.rows);
    QCOMPARE(got.cols, want.cols);
    QCOMPARE(int(got.field), int(want.field));
    QCOMPARE(int(got.symmetry), int(want.symmetry));
    QCOMPARE(int(got.layout), int(want.layout));
    QCOMPARE(got.stored(), want.stored());
    QVERIFY(got.rowIndex == want.rowIndex);
    QVERIFY(got.colIndex == want.colIndex);
    QVERIFY(sameValues(got.real, want.real));
    QVERIFY(got.imag.empty() && want.imag.empty());
}

// The message of what `read` throws, or "" when it does not throw.
QString errorOf(const std::function<void()>& read) {
    try {
        read();
    } catch (const std::exception& error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

// What the container must decode to: the entries of the matrix it was made from and the field.
struct Source {
    CsrMatrix<double> entries;  // no explicit zeros (a valued region cannot tell them from absent cells)
    Field field = Field::Real;
};

CsrMatrix<double> withOnes(CsrMatrix<double> csr) {
    csr.values.assign(csr.values.size(), 1.0);
    return csr;
}

} // namespace

Q_DECLARE_METATYPE(Source)

class TestContainerReopen : public QObject {
    Q_OBJECT

private slots:
    void reopenGivesThePreviousMatrix_data() {
        QTest::addColumn<QByteArray>("bytes");
        const Matrix big = stencil(70);  // 343 000 rows, 2.4 M entries
        const CooMatrix<double> bigCoo = toCoo<double>(big);
        const CsrMatrix<double> bigCsr = toCsr<double>(big);
        QTest::addColumn<Source>("source");  // the oracle
        const Matrix small = stencil(9);
        const CsrMatrix<double> smallCsr = toCsr<double>(small);
        auto row = [](const char* name, const Container& c, const CsrMatrix<double>& entries, Field field) {
            const std::string bytes = serializeContainer(c);
            QTest::newRow(name) << QByteArray(bytes.data(), qsizetype(bytes.size())) << Source{entries, field};
        };
        row("segdia f64 big", segmentedDiaToContainer(buildSegmentedDia(bigCoo)), bigCsr, Field::Real);
        row("segdia f32 integer", segmentedDiaToContainer(convertValues<float>(buildSegmentedDia(toCoo<double>(small))), Field::Integer),
            smallCsr, Field::Integer);
        SegmentedDiaOptions remainder;
        remainder.remainder = SegmentedDiaRemainder::All;
        remainder.threshold = 100;
        row("segdia remainder big", segmentedDiaToContainer(buildSegmentedDia(bigCoo, remainder)), bigCsr, Field::Real);
        Matrix ones = small;
        for (double& v : ones.real) v = 1;
        row("segdia pattern", segmentedDiaToContainer(buildSegmentedDia(toCoo<double>(ones)), Field::Pattern), withOnes(smallCsr),
            Field::Pattern);
        row("hybrid valued fallback big", hybridValuedToContainer(encodeHybridValued(bigCsr, {})), bigCsr, Field::Real);
        const CsrMatrix<double> blocky = blockAndDiagonal();
        const DenseRegion block = plantedtesting::region(RegionShape::Rectangle, 10, 50, 20, 70);
        row("hybrid valued regions", hybridValuedToContainer(encodeHybridValued(blocky, {block})), blocky, Field::Real);
        row("hybrid binary regions", hybridToContainer(encodeHybrid(patternOfCsr(blocky), {block})), withOnes(blocky), Field::Pattern);
        row("bitflag row-major", bitFlagToContainer(encodeBitFlag(smallCsr)), smallCsr, Field::Real);
        BitFlagOptions colMajor;
        colMajor.order = BitFlagOrder::ColumnMajor;
        colMajor.prefixCounts = true;
        row("bitflag col-major prefix", bitFlagToContainer(encodeBitFlag(smallCsr, colMajor)), smallCsr, Field::Real);
        row("bitflag pattern", bitFlagToContainer(encodeBitFlag(toCsr<double>(ones)), Field::Pattern), withOnes(smallCsr),
            Field::Pattern);
        const CsrMatrix<double> wide = wideScatter();
        row("bitflag row-major big", bitFlagToContainer(encodeBitFlag(wide), Field::Integer), wide, Field::Integer);
        row("bitflag col-major big", bitFlagToContainer(encodeBitFlag(wide, colMajor)), wide, Field::Real);
        row("bitflag col-major pattern big", bitFlagToContainer(encodeBitFlag(withOnes(wide), colMajor), Field::Pattern), withOnes(wide),
            Field::Pattern);
        // Far more rows than entries: the transpose sorts instead of counting per row.
        Matrix tall;
        tall.rows = 50000;
        tall.cols = 4;
        for (Index k = 0; k < 100; ++k) {
            tall.rowIndex.push_back((k * 7919) % tall.rows);
            tall.colIndex.push_back(k % tall.cols);
            tall.real.push_back(double(k + 1));
        }
        const CsrMatrix<double> tallCsr = toCsr<double>(tall);
        row("bitflag col-major tall sparse", bitFlagToContainer(encodeBitFlag(tallCsr, colMajor)), tallCsr, Field::Real);
        row("hybrid binary fallback big", hybridToContainer(encodeHybrid(patternOfCsr(bigCsr), {})), withOnes(bigCsr), Field::Pattern);
    }

    void reopenGivesThePreviousMatrix() {
        QFETCH(QByteArray, bytes);
        QFETCH(Source, source);
        const std::string file(bytes.constData(), std::size_t(bytes.size()));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("m.spy"));
        writeBytes(path, file);
        const Matrix got = readContainerMatrix(path.toStdString());
        // The independent oracle: the entries the container was made from, bit for bit.
        QCOMPARE(int(got.field), int(source.field));
        QVERIFY(matrixentries::sameCsrBits(toCsr<double>(got), source.entries));
        // The order of the entries (and the header) as the path it replaced gave them.
        const Matrix want = previousDecode(file, path.toStdString());
        expectSameMatrix(got, want);
        expectSameMatrix(parseContainerMatrix(file, path.toStdString()), want);
    }

    // What the window and the CLI open (readDistinctMatrixFile) is the file read as stored, then made
    // distinct: the same entries in the same order, nothing removed. Only a hybrid CSR fallback, whose
    // validation checks every column in range and strictly ascending in its row, skips the distinct
    // pass (orderProvenByReader), on any thread count; the other encodings take it.
    void distinctReadSkipsOnlyWhatTheDecoderProved_data() { reopenGivesThePreviousMatrix_data(); }
    void distinctReadSkipsOnlyWhatTheDecoderProved() {
        QFETCH(QByteArray, bytes);
        const std::string file(bytes.constData(), std::size_t(bytes.size()));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("m.spy"));
        writeBytes(path, file);
        const Container framed = parseKnownContainer(file, "m.spy");
        const ContainerSection* summary = framed.find(container::kHybridSummary);
        std::uint32_t flags = 0;  // the hybrid summary's first field (docs/container-format.md)
        if (framed.encoding == ContainerEncoding::HybridBinary && summary != nullptr && summary->bytes().size() >= 4)
            std::memcpy(&flags, summary->bytes().data(), 4);
        const bool fallback = (flags & container::kHybridFallback) != 0;
        for (unsigned threads : {1u, 2u, 7u}) {
            ReadOptions options;
            options.threads = threads;
            Matrix want = readMatrixFile(path.toStdString(), options);
            QCOMPARE(makeEntriesDistinct(want, threads).removed(), Count(0));
            DistinctEntriesReport report;
            report.duplicatesSummed = -1;  // overwritten
            const Matrix got = readDistinctMatrixFile(path.toStdString(), options, &report);
            expectSameMatrix(got, want);
            QCOMPARE(report.removed(), Count(0));
            QCOMPARE(report.orderProvenByReader, fallback);
        }
    }

    // A Matrix Market file proves nothing: its repeated position is summed, its entries sorted.
    void distinctReadOfTextSumsRepeats() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("repeat.mtx"));
        writeBytes(path, "%%MatrixMarket matrix coordinate real general\n3 3 4\n2 2 1.5\n1 3 2\n2 2 0.25\n3 1 4\n");
        DistinctEntriesReport report;
        const Matrix m = readDistinctMatrixFile(path.toStdString(), {}, &report);
        QVERIFY(!report.orderProvenByReader);
        QCOMPARE(report.duplicatesSummed, Count(1));
        QCOMPARE(m.rowIndex, (std::vector<Index>{0, 1, 2}));
        QCOMPARE(m.colIndex, (std::vector<Index>{2, 1, 0}));
        QCOMPARE(m.real, (std::vector<double>{2, 1.75, 4}));
    }

    // The decode split over 1, 2, 3 and 7 threads (more than this machine may have): the same matrix.
    void reopenIsTheSameOnAnyThreadCount_data() { reopenGivesThePreviousMatrix_data(); }
    void reopenIsTheSameOnAnyThreadCount() {
        QFETCH(QByteArray, bytes);
        const std::string file(bytes.constData(), std::size_t(bytes.size()));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("m.spy"));
        writeBytes(path, file);
        const Matrix want = previousDecode(file, path.toStdString());
        for (unsigned threads : {1u, 2u, 3u, 7u}) {
            ReadOptions options;
            options.threads = threads;
            MatrixFileKind kind = MatrixFileKind::MatrixMarket;
            const Matrix got = readMatrixFile(path.toStdString(), options, &kind);
            QCOMPARE(int(kind), int(MatrixFileKind::Container));
            expectSameMatrix(got, want);
        }
    }

    // Cut files and flipped bytes: the same error text as the copying path (same checks, same order).
    void damagedFileGivesThePreviousError_data() { reopenGivesThePreviousMatrix_data(); }
    void damagedFileGivesThePreviousError() {
        QFETCH(QByteArray, bytes);
        const std::string file(bytes.constData(), std::size_t(bytes.size()));
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("cut.spy"));
        const std::string source = path.toStdString();
        std::vector<std::string> damaged;
        for (std::size_t cut : {std::size_t(0), std::size_t(20), std::size_t(47), file.size() / 2, file.size() - 1})
            damaged.push_back(file.substr(0, cut));
        for (std::size_t at : {std::size_t(9), std::size_t(41), std::size_t(60), file.size() / 3, file.size() - 6}) {
            std::string flipped = file;
            flipped[at] = char(flipped[at] ^ 0x10);
            damaged.push_back(flipped);
        }
        for (const std::string& bad : damaged) {
            writeBytes(path, bad);
            const QString want = errorOf([&] { previousDecode(bad, source); });
            QVERIFY2(!want.isEmpty(), "a damaged file must be refused");
            QCOMPARE(errorOf([&] { readContainerMatrix(source); }), want);
        }
    }

    // The row, column and value arrays are sized from the summary's nonzeros while the checksum and
    // the checks run (container_early_arrays.h): a summary that is off by one either way, or that
    // declares more entries than the file stores, is still refused with the error of the path that
    // sized nothing early; the honest file still decodes as before.
    void summaryCountSizesNothingItCannotBackUp() {
        const Container good = segmentedDiaToContainer(buildSegmentedDia(toCoo<double>(stencil(70))));
        const auto withNonzeros = [&](std::int64_t nonzeros) {
            Container c = good;
            for (ContainerSection& s : c.sections)
                if (s.id == container::kSegdiaSummary) std::memcpy(s.payload.data() + 24, &nonzeros, 8);
            return serializeContainer(c);  // the CRC made right, so that the summary check is reached
        };
        std::int64_t nonzeros = 0;
        for (const ContainerSection& s : good.sections)
            if (s.id == container::kSegdiaSummary) std::memcpy(&nonzeros, s.payload.data() + 24, 8);
        QVERIFY(nonzeros > 2000000);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("count.spy"));
        const std::string source = path.toStdString();
        // Sizing beside the checks needs 4 threads or more: 1 sizes nothing early, 7 does (on any host).
        for (unsigned threads : {1u, 7u}) {
            ReadOptions options;
            options.threads = threads;
            for (std::int64_t declared : {nonzeros - 1, nonzeros + 1, std::int64_t(1) << 40}) {
                const std::string bad = withNonzeros(declared);
                writeBytes(path, bad);
                const QString want = errorOf([&] { previousDecode(bad, source); });
                QVERIFY2(!want.isEmpty(), "a summary that miscounts must be refused");
                QCOMPARE(errorOf([&] { readMatrixFile(source, options); }), want);
            }
            writeBytes(path, serializeContainer(good));
            expectSameMatrix(readMatrixFile(source, options), previousDecode(serializeContainer(good), source));
        }
    }

    // A CSR fallback sized early has its columns checked while they are copied (and its rows filled
    // then): a column out of order or out of range far into the file, a row pointer that decreases,
    // each gives the error of the path that checked after copying, on 7 threads as on 1.
    void fallbackColumnsCheckedWhileCopied() {
        const CsrMatrix<double> big = toCsr<double>(stencil(70));
        const Container good = hybridValuedToContainer(encodeHybridValued(big, {}));
        const auto damaged = [&](std::uint32_t id, const std::function<void(std::string&)>& damage) {
            Container c = good;
            for (ContainerSection& s : c.sections)
                if (s.id == id) damage(s.payload);
            return serializeContainer(c);  // the CRC made right, so that the checks are reached
        };
        const std::size_t late = big.colIndex.size() - 1000;  // far into the last piece
        const auto setColumn = [](std::string& p, std::size_t k, std::int32_t j) { std::memcpy(p.data() + 4 * k, &j, 4); };
        const std::vector<std::string> bad = {
            damaged(container::kHybridResidualCols, [&](std::string& p) { setColumn(p, late, big.colIndex[late - 1]); }),
            damaged(container::kHybridResidualCols, [&](std::string& p) { setColumn(p, late, big.cols); }),
            damaged(container::kHybridResidualCols, [&](std::string& p) { setColumn(p, 3, -1); }),
            damaged(container::kHybridResidualRowPtr, [&](std::string& p) {
                const std::int64_t back = 1;
                std::memcpy(p.data() + 8 * 5000, &back, 8);
            }),
        };
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("fallback.spy"));
        const std::string source = path.toStdString();
        for (const std::string& file : bad) {
            writeBytes(path, file);
            const QString want = errorOf([&] { previousDecode(file, source); });
            QVERIFY2(!want.isEmpty(), "a damaged residual must be refused");
            for (unsigned threads : {1u, 7u}) {
                ReadOptions options;
                options.threads = threads;
                QCOMPARE(errorOf([&] { readMatrixFile(source, options); }), want);
            }
        }
    }

    // The binary hybrid's residual is checked on row chunks (or in the copy, when sized early): with a
    // bad column early, another late and a row pointer that decreases after both, the early column is
    // named whatever the threads; with only the pointer, the pointer; with only the columns, the early one.
    void binaryResidualFirstErrorIsNamedWhateverThread() {
        const CsrMatrix<double> big = toCsr<double>(stencil(70));
        const Container good = hybridToContainer(encodeHybrid(patternOfCsr(big), {}));
        const auto damaged = [&](bool columns, bool pointer = true) {
            Container c = good;
            for (ContainerSection& s : c.sections) {
                if (columns && s.id == container::kHybridResidualCols)
                    for (std::size_t k : {std::size_t(100), big.colIndex.size() - 100}) std::memcpy(s.payload.data() + 4 * k, &big.cols, 4);
                if (pointer && s.id == container::kHybridResidualRowPtr) {
                    const std::int64_t zero = 0;
                    std::memcpy(s.payload.data() + 8 * (std::size_t(big.rows) - 10), &zero, 8);
                }
            }
            return serializeContainer(c);
        };
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("binary.spy"));
        // Columns alone: the row pointers are in order, so 2 threads and more check them in the copy.
        for (int damage : {0, 1, 2}) {
            const bool columns = damage != 1;
            writeBytes(path, damaged(columns, damage != 2));
            for (unsigned threads : {1u, 2u, 7u}) {
                ReadOptions options;
                options.threads = threads;
                const QString error = errorOf([&] { readMatrixFile(path.toStdString(), options); });
                const int row = int(std::upper_bound(big.rowPtr.begin(), big.rowPtr.end(), Count(100)) - big.rowPtr.begin()) - 1;
                const QString want = columns ? QStringLiteral("residual column %1 in row %2 ").arg(big.cols).arg(row)
                                             : QStringLiteral("residual row pointers out of order at row %1").arg(big.rows - 11);
                QVERIFY2(error.contains(want), qPrintable(error + " | wanted: " + want));
            }
        }
    }

    // The segment checks run on threads: with two bad slots far apart, the first one is still named.
    void firstBadSlotIsNamedWhateverThread() {
        Container c = segmentedDiaToContainer(buildSegmentedDia(toCoo<double>(stencil(70))), Field::Integer);
        ContainerSection* values = nullptr;
        for (ContainerSection& s : c.sections)
            if (s.id == container::kSegdiaValues) values = &s;
        QVERIFY(values != nullptr);
        const std::size_t slotCount = values->payload.size() / 8;
        const double half = 0.5;
        for (std::size_t slot : {std::size_t(5), slotCount - 5}) std::memcpy(values->payload.data() + 8 * slot, &half, 8);
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("two-bad.spy"));
        writeBytes(path, serializeContainer(c));
        const QString error = errorOf([&] { readContainerMatrix(path.toStdString()); });
        QVERIFY2(error.contains(QStringLiteral("(values): slot 5 ")), qPrintable(error));
    }

    // The bit-flag checks run on line ranges: with two bad line starts P far apart (and with two lines
    // holding bits past their end), the first is named whatever the number of threads.
    void firstBadLineIsNamedWhateverThread() {
        const Container good = bitFlagToContainer(encodeBitFlag(wideScatter()));
        const auto damaged = [&](std::uint32_t id, const std::function<void(std::string&)>& damage) {
            Container c = good;
            for (ContainerSection& s : c.sections)
                if (s.id == id) damage(s.payload);
            return serializeContainer(c);  // the CRC made right, so that the section checks are reached
        };
        // P[1] and P[3999] one too many (lines 0 and 3998 named); flags of lines 2 and 3990 past their end
        // (a row of 20000 elements leaves 32 bits of its last 64-bit word unused).
        const std::string badP = damaged(container::kBitFlagLineStarts, [](std::string& p) {
            for (std::size_t entry : {std::size_t(1), std::size_t(3999)}) ++p[8 * entry];
        });
        const std::string badBits = damaged(container::kBitFlagFlags, [](std::string& f) {
            for (std::size_t line : {std::size_t(2), std::size_t(3990)}) f[8 * (313 * line + 312) + 7] = char(0x80);
        });
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("two-bad.spy"));
        for (unsigned threads : {1u, 2u, 7u}) {
            ReadOptions options;
            options.threads = threads;
            writeBytes(path, badP);
            QString error = errorOf([&] { readMatrixFile(path.toStdString(), options); });
            QVERIFY2(error.contains(QStringLiteral("P[1] is ")), qPrintable(error));
            writeBytes(path, badBits);
            error = errorOf([&] { readMatrixFile(path.toStdString(), options); });
            QVERIFY2(error.contains(QStringLiteral(": line 2 has bits set past")), qPrintable(error));
        }
    }
};

QTEST_GUILESS_MAIN(TestContainerReopen)
#include "tst_container_reopen.moc"
