// The row blocks of the segmented-DIA remainder pass (core/segdia_remainder_blocks.h), on the CPU: every
// row the pass must write lies in exactly one block, blocks stay within one block's entries and rows,
// assigning blocks hold only rows of segments without diagonals, and the global row starts are the
// format's. The GPU suite (tst_cuda_segdia) checks the products.
#include "segdia_testing.h"

#include "spyglass/segdia_remainder_blocks.h"
#include "spyglass/error.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"

#include <QtTest>

#include <limits>

using namespace spyglass;

using namespace segdia_testing;

namespace {

// Empty when the plan keeps every rule, else the first broken one.
template <typename T>
QString brokenRule(const SegmentedDiaMatrix<T>& m, const RemainderRowBlocks& plan) {
    if (plan.rowStart.size() != std::size_t(m.rows) + 1) return QStringLiteral("row starts: %1").arg(plan.rowStart.size());
    std::vector<char> bare(std::size_t(m.rows), 0);
    for (Index s = 0; s < m.segments(); ++s) {
        const bool has = m.segmentRemainderCount(s) > 0;
        const Index* local = has ? m.remainderRowStart.data() + m.segmentRemainderRowStart[s] : nullptr;
        for (Index i = 0; i < m.segmentRows(s); ++i) {
            const Index r = m.segmentFirstRow[s] + i;
            bare[std::size_t(r)] = m.segmentDiagonals(s) == 0;
            const Index want = has ? m.segmentRemainderStart[s] + local[i] : m.segmentRemainderStart[s];
            if (plan.rowStart[std::size_t(r)] != want) return QStringLiteral("row %1 starts at %2, not %3").arg(r).arg(plan.rowStart[r]).arg(want);
        }
    }
    if (plan.rowStart.back() != Index(m.remainderValues.size())) return QStringLiteral("row starts end short");
    std::vector<int> covered(std::size_t(m.rows), 0);
    Index previousEnd = 0, previousLong = std::numeric_limits<Index>::max();
    bool pastLongRows = false;
    for (const RemainderRowBlock& b : plan.blocks) {
        const Index length = b.entryEnd - b.entryBegin;
        if (b.flags & kRemainderLongRow) {
            if (pastLongRows || length > previousLong) return QStringLiteral("long row %1 out of order").arg(b.firstRow);
            previousLong = length;
        } else {
            pastLongRows = true;
            if (b.rows < 1 || b.firstRow < previousEnd) return QStringLiteral("block at row %1: empty or out of order").arg(b.firstRow);
            previousEnd = b.firstRow + b.rows;
        }
        const Index entries = plan.rowStart[std::size_t(b.firstRow + b.rows)] - plan.rowStart[std::size_t(b.firstRow)];
        if (b.entryBegin != plan.rowStart[std::size_t(b.firstRow)] || b.entryEnd - b.entryBegin != entries)
            return QStringLiteral("block at row %1: entries [%2, %3)").arg(b.firstRow).arg(b.entryBegin).arg(b.entryEnd);
        const bool longRow = (b.flags & kRemainderLongRow) != 0;
        if (longRow != (b.rows == 1 && entries > remainderBlockEntries<T>())) return QStringLiteral("block at row %1: long flag").arg(b.firstRow);
        if (!longRow && (entries > remainderBlockEntries<T>() || b.rows > kRemainderBlockRows))
            return QStringLiteral("block at row %1: %2 entries in %3 rows").arg(b.firstRow).arg(entries).arg(b.rows);
        const bool assigns = (b.flags & kRemainderAssigns) != 0;
        for (Index r = b.firstRow; r < b.firstRow + b.rows; ++r) {
            ++covered[std::size_t(r)];
            if (bool(bare[std::size_t(r)]) != assigns) return QStringLiteral("row %1: assigns %2 in a segment bare %3").arg(r).arg(assigns).arg(bool(bare[r]));
        }
    }
    for (Index r = 0; r < m.rows; ++r) {
        const bool mustWrite = bare[std::size_t(r)] || plan.rowStart[std::size_t(r) + 1] > plan.rowStart[std::size_t(r)];
        if (covered[std::size_t(r)] > 1) return QStringLiteral("row %1 in %2 blocks").arg(r).arg(covered[r]);
        if (mustWrite && covered[std::size_t(r)] == 0) return QStringLiteral("row %1 in no block").arg(r);
    }
    return {};
}

} // namespace

class TestSegmentedDiaRemainderBlocks : public QObject {
    Q_OBJECT

private slots:
    void blocksCoverEveryRowThePassWrites() {
        const auto coo = mixedRemainderMatrix();
        for (SegmentedDiaRemainder policy : {SegmentedDiaRemainder::Auto, SegmentedDiaRemainder::All}) {
            const auto m = buildSegmentedDia(coo, {256, true, policy});
            QVERIFY(!m.remainderValues.empty());
            QVERIFY(remainderFitsRowBlocks(m));
            const RemainderRowBlocks plan = planRemainderRowBlocks(m);
            const QString broken = brokenRule(m, plan);
            QVERIFY2(broken.isEmpty(), qPrintable(broken));
            int assigning = 0, adding = 0, longRows = 0;
            for (const RemainderRowBlock& b : plan.blocks) {
                ((b.flags & kRemainderAssigns) ? assigning : adding) += 1;
                longRows += (b.flags & kRemainderLongRow) != 0;
            }
            // Auto keeps the band: both kinds of block; All keeps nothing as DIA: every block assigns.
            if (policy == SegmentedDiaRemainder::Auto) QVERIFY(assigning > 0 && adding > 0);
            else QCOMPARE(adding, 0);
            QCOMPARE(longRows, 3);
        }
    }

    void scatteredRowsShareBlocks() {
        // One remainder entry every 50 rows of a band: blocks reach past the empty rows between them
        // (up to 1024 rows) instead of one block per entry.
        CooMatrix<double> coo;
        coo.rows = coo.cols = 100000;
        for (Index r = 0; r < coo.rows; ++r) {
            coo.rowIndex.push_back(r), coo.colIndex.push_back(r), coo.values.push_back(2.0);
            if (r % 50 == 0) coo.rowIndex.push_back(r), coo.colIndex.push_back((r * 7919) % coo.rows), coo.values.push_back(1.0);
        }
        const auto m = buildSegmentedDia(coo, {1024, true, SegmentedDiaRemainder::Auto, 1.5, 0.0});
        QVERIFY(!m.remainderValues.empty());
        const RemainderRowBlocks plan = planRemainderRowBlocks(m);
        QVERIFY2(brokenRule(m, plan).isEmpty(), qPrintable(brokenRule(m, plan)));
        QVERIFY2(plan.blocks.size() <= 200, qPrintable(QStringLiteral("%1 blocks for 2000 scattered entries").arg(plan.blocks.size())));
    }

    void automaticKernelTakesOwnersOnlyForALightRemainder() {
        // A band with one stray entry in every 50th row: the remainder is a sliver, Owners. The mixed
        // matrix: scattered entries in every row and segments without diagonals, RowBlocks.
        CooMatrix<double> band;
        band.rows = band.cols = 100000;
        for (Index r = 0; r < band.rows; ++r) {
            for (Index c = std::max<Index>(0, r - 2); c <= std::min<Index>(band.rows - 1, r + 2); ++c)
                band.rowIndex.push_back(r), band.colIndex.push_back(c), band.values.push_back(2.0);
            if (r % 50 == 0) band.rowIndex.push_back(r), band.colIndex.push_back((r * 7919) % band.rows), band.values.push_back(1.0);
        }
        const auto light = buildSegmentedDia(band, {1024, true, SegmentedDiaRemainder::Auto, 1.5, 0.0});
        QVERIFY(!light.remainderValues.empty());
        QVERIFY(remainderIsLight(light));
        QVERIFY(!computeSegmentedDiaStats(light).remainderOwnPass);  // what the CLI, the GUI and compare say
        const auto mixed = buildSegmentedDia(mixedRemainderMatrix(), {256, true, SegmentedDiaRemainder::Auto});
        QVERIFY(!remainderIsLight(mixed));
        QVERIFY(computeSegmentedDiaStats(mixed).remainderOwnPass);
        QVERIFY(!computeSegmentedDiaStats(buildSegmentedDia(band, {1024, true, SegmentedDiaRemainder::Off})).remainderOwnPass);
        QVERIFY(!remainderIsLight(buildSegmentedDia(band, {1024, true, SegmentedDiaRemainder::All})));
    }

    void variantsRefuseAWidthTheirKernelDoesNotTake() {
        SegmentedDiaVariant variant;
        variant.remainderWidth = 4;
        QVERIFY_THROWS_EXCEPTION(InputError, validateSegmentedDiaVariant(variant));  // the automatic choice takes no width
        variant.remainder = SegmentedDiaRemainderKernel::RowBlocks;
        QVERIFY_THROWS_EXCEPTION(InputError, validateSegmentedDiaVariant(variant));
        variant.remainder = SegmentedDiaRemainderKernel::Owners;
        QVERIFY_THROWS_EXCEPTION(InputError, validateSegmentedDiaVariant(variant));
        variant.remainder = SegmentedDiaRemainderKernel::SubWarps;
        validateSegmentedDiaVariant(variant);
        variant.remainderWidth = 3;
        QVERIFY_THROWS_EXCEPTION(InputError, validateSegmentedDiaVariant(variant));
        variant.remainderWidth = 0;
        variant.remainder = static_cast<SegmentedDiaRemainderKernel>(7);
        QVERIFY_THROWS_EXCEPTION(InputError, validateSegmentedDiaVariant(variant));
    }
};

QTEST_GUILESS_MAIN(TestSegmentedDiaRemainderBlocks)
#include "tst_segdia_remainderblocks.moc"
