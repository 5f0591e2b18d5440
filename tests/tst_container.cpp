// The export container: exact round trip, and every kind of damage rejected with an offset.
#include "spyglass/container.h"
#include "spyglass/hybrid_binary.h"

#include <QTemporaryDir>
#include <QtTest>

#include <random>

using namespace spyglass;

namespace {

HybridBinaryMatrix smallHybrid() {
    BlockyMatrixSpec spec;
    spec.rows = 97, spec.cols = 83, spec.rectangles = 1, spec.triangles = 1, spec.bands = 1;
    spec.blockSize = 20, spec.bandWidth = 5, spec.fillMin = 0.7, spec.fillMax = 0.9, spec.scattered = 60, spec.seed = 4;
    const GeneratedBinary g = generateBlockyBinary(spec);
    HybridEncodeOptions force;
    force.forceRegions = true;
    return encodeHybrid(g.pattern, g.planted, force);
}

void expectSame(const HybridBinaryMatrix& a, const HybridBinaryMatrix& b) {
    QCOMPARE(a.rows, b.rows);
    QCOMPARE(a.cols, b.cols);
    QCOMPARE(a.csrFallback, b.csrFallback);
    QCOMPARE(a.fallbackReason, b.fallbackReason);
    QVERIFY(a.residual == b.residual);
    QCOMPARE(a.blocks.size(), b.blocks.size());
    for (std::size_t k = 0; k < a.blocks.size(); ++k) {
        QCOMPARE(a.blocks[k].region.describe(), b.blocks[k].region.describe());
        QCOMPARE(a.blocks[k].region.ones, b.blocks[k].region.ones);
        QVERIFY(a.blocks[k].zeroRowPtr == b.blocks[k].zeroRowPtr);
        QVERIFY(a.blocks[k].zeroOffsets == b.blocks[k].zeroOffsets);
    }
    QVERIFY(decodeHybrid(a) == decodeHybrid(b));
}

} // namespace

class TestContainer : public QObject {
    Q_OBJECT
private slots:
    void hybridRoundTripsThroughAFileExactly() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/m.sgx").toStdString();
        const HybridBinaryMatrix h = smallHybrid();
        QCOMPARE(h.blocks.size(), std::size_t(3));
        writeHybridContainer(path, h, "producer: tst_container");
        expectSame(h, readHybridContainer(path));
        // A fallback (CSR-only) encoding and an empty matrix round-trip too.
        const BinaryPattern p = decodeHybrid(h);
        const HybridBinaryMatrix plain = encodeHybrid(p, {});
        QVERIFY(plain.csrFallback);
        expectSame(plain, parseHybridContainer(serializeContainer(hybridToContainer(plain))));
        const HybridBinaryMatrix empty = encodeHybrid(binaryPatternFromCoordinates(0, 0, {}, {}), {});
        expectSame(empty, parseHybridContainer(serializeContainer(hybridToContainer(empty))));
    }

    void containerIsNoLargerThanCsrPlusAFewHundredBytes() {
        const HybridBinaryMatrix h = smallHybrid();
        const std::string bytes = serializeContainer(hybridToContainer(h));
        const std::size_t framing = container::kHeaderBytes + container::kTrailerBytes + 6 * container::kSectionHeaderBytes + 8 +
                                    h.fallbackReason.size();
        QCOMPARE(bytes.size(), h.encodedBytes() - 16 + framing);
    }

    void everyTruncationIsRejectedWithAnOffset() {
        const std::string bytes = serializeContainer(hybridToContainer(smallHybrid()));
        for (std::size_t length = 0; length < bytes.size(); ++length) {
            try {
                parseHybridContainer(std::string_view(bytes).substr(0, length), "cut");
                QFAIL(qPrintable(QString("a file cut to %1 of %2 bytes was accepted").arg(length).arg(bytes.size())));
            } catch (const ContainerFormatError& error) {
                QVERIFY(error.offset() <= bytes.size());
            }
        }
    }

    void randomBitFlipsAreRejected() {
        const std::string bytes = serializeContainer(hybridToContainer(smallHybrid()));
        std::mt19937 rng(99);
        for (int trial = 0; trial < 2000; ++trial) {
            std::string damaged = bytes;
            const std::size_t at = rng() % damaged.size();
            damaged[at] = static_cast<char>(damaged[at] ^ (1 << (rng() % 8)));
            QVERIFY_THROWS_EXCEPTION(ContainerFormatError, parseHybridContainer(damaged, "flipped"));
        }
    }

    void checksumMismatchNamesTheTrailerOffset() {
        std::string bytes = serializeContainer(hybridToContainer(smallHybrid()));
        bytes[100] ^= 0x10;
        try {
            parseHybridContainer(bytes, "x.sgx");
            QFAIL("accepted");
        } catch (const ContainerFormatError& error) {
            QCOMPARE(error.offset(), std::uint64_t(bytes.size() - container::kTrailerBytes));
            QVERIFY2(QString(error.what()).contains("checksum"), error.what());
            QVERIFY2(QString(error.what()).startsWith("x.sgx: byte "), error.what());
        }
    }

    void wrongVersionIsRejected() {
        Container c = hybridToContainer(smallHybrid());
        c.version = 2;
        try {
            parseHybridContainer(serializeContainer(c), "v2");
            QFAIL("version 2 accepted");
        } catch (const ContainerFormatError& error) {
            QCOMPARE(error.offset(), std::uint64_t(8));
            QVERIFY2(QString(error.what()).contains("version 2"), error.what());
        }
    }

    void consistentButWrongContentsAreRejected() {
        // Valid framing and checksum, broken meaning: each must still be refused.
        const HybridBinaryMatrix h = smallHybrid();
        auto expectRejected = [](const Container& c, const char* what) {
            try {
                parseHybridContainer(serializeContainer(c), "bad");
                QFAIL(what);
            } catch (const ContainerFormatError&) {
            }
        };
        {
            Container c = hybridToContainer(h);
            c.sections.pop_back();  // residual columns missing
            expectRejected(c, "missing section accepted");
        }
        {
            Container c = hybridToContainer(h);
            c.sections[1].payload[4] = 127;  // region row begin far outside the matrix
            expectRejected(c, "region outside the matrix accepted");
        }
        {
            Container c = hybridToContainer(h);
            c.sections[3].payload.resize(c.sections[3].payload.size() - 2);  // one zero fewer than the records say
            expectRejected(c, "zero count mismatch accepted");
        }
        {
            Container c = hybridToContainer(h);
            std::string& cols = c.sections[5].payload;
            cols[0] = cols[1] = cols[2] = static_cast<char>(0xFF), cols[3] = 0x7F;  // column 2^31-1
            expectRejected(c, "column index out of range accepted");
        }
        {
            Container c = hybridToContainer(h);
            c.sections.push_back({0x0999, 0, "x"});  // unknown and required
            expectRejected(c, "unknown required section accepted");
            c.sections.back().flags = container::kSectionOptional;  // unknown but optional: skipped
            expectSame(h, parseHybridContainer(serializeContainer(c)));
        }
        {
            Container c = hybridToContainer(h);
            c.encoding = ContainerEncoding::BitFlag;
            expectRejected(c, "another encoding read as hybrid");
        }
    }

    void writeIsAtomicAndReadNamesMissingFiles() {
        QTemporaryDir dir;
        const std::string path = (dir.path() + "/out.sgx").toStdString();
        writeHybridContainer(path, smallHybrid());
        const HybridBinaryMatrix first = readHybridContainer(path);
        writeHybridContainer(path, encodeHybrid(decodeHybrid(first), {}));  // replaces the file whole
        QVERIFY(readHybridContainer(path).csrFallback);
        QVERIFY_THROWS_EXCEPTION(InputError, readHybridContainer((dir.path() + "/none.sgx").toStdString()));
    }
};

QTEST_GUILESS_MAIN(TestContainer)
#include "tst_container.moc"
