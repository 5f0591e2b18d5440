// Method B on the CPU: the segmented DIA encoding keeps every nonzero, its statistics are right on hand
// cases, the merge rule's invariant holds, and the reference SpMV of every format matches a dense product.
#include "segdia_testing.h"

#include "spyglass/backend.h"
#include "spyglass/error.h"
#include "spyglass/segdia_generators.h"
#include "spyglass/segdia.h"
#include "spyglass/segdia_spmv.h"

#include <QtTest>

#include <algorithm>
#include <random>
#include <set>

using namespace spyglass;
using namespace segdia_testing;

namespace {

template <typename T>
bool sameCoo(const CooMatrix<T>& a, const CooMatrix<T>& b) {
    return a.rows == b.rows && a.cols == b.cols && a.rowIndex == b.rowIndex && a.colIndex == b.colIndex &&
           a.values == b.values;
}

CooMatrix<double> cooFrom(Index rows, Index cols, std::vector<std::tuple<Index, Index, double>> entries) {
    CooMatrix<double> coo;
    coo.rows = rows;
    coo.cols = cols;
    for (auto [r, c, v] : entries) {
        coo.rowIndex.push_back(r);
        coo.colIndex.push_back(c);
        coo.values.push_back(v);
    }
    return coo;
}

// The oracle: a dense product where the matrix fits comfortably, else the expanded entries summed in
// long double (both independent of the formats under test).
std::vector<double> oracleProduct(const Matrix& matrix, const std::vector<double>& x) {
    std::vector<double> y(static_cast<std::size_t>(matrix.rows), 0.0);
    if (Count(matrix.rows) * matrix.cols <= 4'000'000) {
        const auto a = toDense<double>(matrix);
        for (Index j = 0; j < a.cols; ++j)
            for (Index i = 0; i < a.rows; ++i) y[i] += a(i, j) * x[j];
        return y;
    }
    const auto coo = toCoo<double>(expandSymmetry(matrix));
    std::vector<long double> sum(y.size(), 0.0L);
    for (std::size_t k = 0; k < coo.values.size(); ++k)
        sum[coo.rowIndex[k]] += static_cast<long double>(coo.values[k]) * x[coo.colIndex[k]];
    for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<double>(sum[i]);
    return y;
}

void checkMergeInvariant(const std::vector<Count>& work, const std::vector<std::vector<Index>>& blocks,
                         const std::vector<DiaMergeStep>& steps) {
    std::vector<int> seen(work.size(), 0);
    Count maxWork = 0, minWork = 0;
    Index previousLead = -1;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        QVERIFY(!blocks[b].empty());
        QVERIFY(std::is_sorted(blocks[b].begin(), blocks[b].end()));
        QVERIFY(blocks[b].front() > previousLead);
        previousLead = blocks[b].front();
        Count sum = 0;
        for (Index s : blocks[b]) {
            ++seen[s];
            sum += work[s];
        }
        maxWork = b == 0 ? sum : std::max(maxWork, sum);
        minWork = b == 0 ? sum : std::min(minWork, sum);
    }
    for (int count : seen) QCOMPARE(count, 1);  // every segment in exactly one block
    if (blocks.size() > 1) QVERIFY2(maxWork <= 2 * minWork, qPrintable(QString("max %1 min %2").arg(maxWork).arg(minWork)));
    QCOMPARE(Count(steps.size()), Count(work.size()) - Count(blocks.size()));
    for (const auto& step : steps) {
        QVERIFY(step.absorbedWork <= step.intoWork);
        QVERIFY(step.maxWork > 2 * step.absorbedWork);
        // The seed's branch never grows the largest block.
        if (step.rule == DiaMergeRule::TwoSmallest) QVERIFY(step.absorbedWork + step.intoWork < step.maxWork);
    }
}

constexpr SegmentedDiaRemainder kPolicies[] = {SegmentedDiaRemainder::Off, SegmentedDiaRemainder::Auto,
                                              SegmentedDiaRemainder::All};

// Every nonzero stored exactly once: the remainder's arrays are consistent, its columns ascend within
// a row and never lie on a diagonal the segment keeps as DIA; its values are nonzero.
template <typename T>
void checkStoredOnce(const SegmentedDiaMatrix<T>& m) {
    QCOMPARE(m.segmentRemainderStart.size(), std::size_t(m.segments()) + 1);
    QCOMPARE(m.segmentRemainderRowStart.size(), std::size_t(m.segments()) + 1);
    QCOMPARE(m.remainderColumns.size(), m.remainderValues.size());
    QCOMPARE(Count(m.remainderColumns.size()), m.segmentRemainderStart.back());
    QCOMPARE(Count(m.remainderRowStart.size()), m.segmentRemainderRowStart.back());
    for (Index s = 0; s < m.segments(); ++s) {
        const Count count = m.segmentRemainderCount(s);
        QCOMPARE(m.segmentRemainderRowStart[s + 1] - m.segmentRemainderRowStart[s], count > 0 ? Count(m.segmentRows(s)) + 1 : Count(0));
        if (count == 0) continue;
        const Index* rowStart = m.remainderRowStart.data() + m.segmentRemainderRowStart[s];
        QCOMPARE(rowStart[0], Index(0));
        QCOMPARE(Count(rowStart[m.segmentRows(s)]), count);
        const auto first = m.offsets.begin() + m.segmentOffsetStart[s], last = m.offsets.begin() + m.segmentOffsetStart[s + 1];
        for (Index i = 0; i < m.segmentRows(s); ++i) {
            QVERIFY(rowStart[i] <= rowStart[i + 1]);
            for (Index k = rowStart[i]; k < rowStart[i + 1]; ++k) {
                const Count at = m.segmentRemainderStart[s] + k;
                const Index col = m.remainderColumns[at];
                QVERIFY(col >= 0 && col < m.cols);
                if (k > rowStart[i]) QVERIFY(col > m.remainderColumns[at - 1]);
                QVERIFY(!std::binary_search(first, last, col - (m.segmentFirstRow[s] + i)));
                QVERIFY(m.remainderValues[at] != T(0));
            }
        }
    }
}

// The hand case of the byte rule: 32 x 32, segments of 16 rows.
//   segment 0 (rows 0-15): main diagonal full (16), +5 in rows 0-7 (8), -2 in rows 2-8 (7),
//                          +9 in row 3 (1), -7 in rows 10 and 12 (2)
//   segment 1 (rows 16-31): main diagonal full, one stray entry (20, 3) on offset -17
CooMatrix<double> byteRuleCase() {
    std::vector<std::tuple<Index, Index, double>> entries;
    for (Index r = 0; r < 32; ++r) entries.emplace_back(r, r, r + 1);
    for (Index r = 0; r <= 7; ++r) entries.emplace_back(r, r + 5, 100 + r);
    for (Index r = 2; r <= 8; ++r) entries.emplace_back(r, r - 2, 200 + r);
    entries.emplace_back(3, 12, 300);
    entries.emplace_back(10, 3, 400);
    entries.emplace_back(12, 5, 401);
    entries.emplace_back(20, 3, 500);
    std::sort(entries.begin(), entries.end());  // row order, columns ascending: what a decode gives back
    return cooFrom(32, 32, entries);
}

} // namespace

class TestSegmentedDia : public QObject {
    Q_OBJECT

private slots:
    void encodeDecodeKeepsEveryNonzeroOfRandomBandedMatrices() {
        int cases = 0;
        for (unsigned seed = 1; seed <= 6; ++seed) {
            for (auto [rows, cols] : {std::pair<Index, Index>{1, 1}, {97, 97}, {301, 257}, {64, 333}, {1000, 1000}}) {
                const auto coo = generators::randomBanded(rows, cols, 9, 0.7, 13, seed);
                for (Index threshold : {Index(1), Index(7), Index(64), Index(rows + 5)}) {
                    SegmentedDiaOptions options;
                    options.threshold = threshold;
                    for (auto policy : kPolicies) {
                        options.remainder = policy;
                        for (bool merge : {true, false}) {
                            options.merge = merge;
                            const auto m = buildSegmentedDia(coo, options);
                            QVERIFY(sameCoo(segmentedDiaToCoo(m), coo));
                            QCOMPARE(m.nonzeros, coo.nnz());
                            checkStoredOnce(m);
                            ++cases;
                        }
                    }
                }
                QVERIFY(sameCoo(diaToCoo(buildDia(coo)), coo));
            }
        }
        QVERIFY(cases > 200);
    }

    void encodeDecodeKeepsEveryNonzeroOfSharedMatrices() {
        const QStringList files = realMatrixFiles();
        QVERIFY(files.size() >= 15);
        for (const QString& name : files) {
            const auto matrix = readMatrixMarket(QDir(matricesDir()).filePath(name).toStdString());
            const auto coo = canonicalCoo<double>(matrix);
            for (Index threshold : {Index(1), Index(3), Index(32), Index(512)}) {
                for (auto policy : kPolicies) {
                    const auto m = buildSegmentedDia(coo, {threshold, true, policy});
                    QVERIFY2(sameCoo(segmentedDiaToCoo(m), coo), qPrintable(name + " " + toString(policy)));
                    checkStoredOnce(m);
                }
            }
        }
    }

    void duplicatesAreSummedAndFloatBuildsToo() {
        const auto coo = cooFrom(3, 3, {{0, 0, 1.0}, {2, 1, 2.0}, {0, 0, 3.0}});
        const auto m = buildSegmentedDia(convertValues<float>(coo), {2, true});
        const auto back = segmentedDiaToCoo(m);
        QCOMPARE(back.values, (std::vector<float>{4.0f, 2.0f}));
        QCOMPARE(m.nonzeros, Count(2));
    }

    void statsMatchHandCountedCase() {
        // Threshold 2 cuts 6 rows into 3 segments:
        //   rows 0-1: (0,0) (1,1) (0,1)        offsets {0,1}      2 x 2 = 4 slots, 3 nonzeros
        //   rows 2-3: (2,2) (3,3) (3,0)        offsets {-3,0}     2 x 2 = 4 slots, 3 nonzeros
        //   rows 4-5: (4,4) (5,5) (4,5) (5,1) (4,0)  offsets {-4,0,1}  3 x 2 = 6 slots, 5 nonzeros
        const auto coo = cooFrom(6, 6, {{0, 0, 1}, {1, 1, 2}, {0, 1, 3}, {2, 2, 4}, {3, 3, 5}, {3, 0, 6},
                                        {4, 4, 7}, {5, 5, 8}, {4, 5, 9}, {5, 1, 10}, {4, 0, 11}});
        const auto m = buildSegmentedDia(coo, {2, true, SegmentedDiaRemainder::Off});
        QCOMPARE(m.offsets, (std::vector<Index>{0, 1, -3, 0, -4, 0, 1}));
        QCOMPARE(m.segmentOffsetStart, (std::vector<Count>{0, 2, 4, 7}));
        QCOMPARE(m.segmentValueStart, (std::vector<Count>{0, 4, 8, 14}));
        // Segment 1, diagonal -3 (index 0): row 2 has column -1 (padding), row 3 has (3,0) = 6;
        // segment 2 starts with diagonal -4, which holds (4,0) = 11 and (5,1) = 10.
        QCOMPARE(m.values[4], 0.0);
        QCOMPARE(m.values[5], 6.0);
        QCOMPARE(m.values[8], 11.0);
        QCOMPARE(m.values[9], 10.0);
        const auto stats = computeSegmentedDiaStats(m);
        QCOMPARE(stats.segments, Count(3));
        QCOMPARE(stats.blocks, Count(3));  // works 4, 4, 6: 6 <= 2 x 4, nothing to merge
        QVERIFY(m.mergeSteps.empty());
        QCOMPARE(stats.nonzeros, Count(11));
        QCOMPARE(stats.storedSlots, Count(14));
        QCOMPARE(stats.paddingRatio, 14.0 / 11.0);
        QCOMPARE(stats.maxBlockWork, Count(6));
        QCOMPARE(stats.minBlockWork, Count(4));
        QCOMPARE(stats.maxSegmentDiagonals, Index(3));
        QCOMPARE(stats.totalDiagonals, Count(7));
        // values, offsets, row starts, offset starts, value starts, block starts, block segments, and
        // the two (empty) per-segment remainder starts.
        const std::size_t bytes = 14 * sizeof(double) + 7 * sizeof(Index) + 4 * sizeof(Index) + 4 * sizeof(Count) +
                                  4 * sizeof(Count) + 4 * sizeof(Index) + 3 * sizeof(Index) + 2 * 4 * sizeof(Count);
        QCOMPARE(stats.bytes, bytes);
        QCOMPARE(stats.remainderNonzeros, Count(0));
        QCOMPARE(stats.remainderBytes, 2 * 4 * sizeof(Count));
        // Auto keeps this case pure DIA too: in segment 0, offset 1 holds 1 of 2 rows, as CSR 12 bytes
        // against 16 as DIA, but the 4 bytes saved do not pay for 3 row starts (12 bytes).
        const auto autoBuilt = buildSegmentedDia(coo, {2, true, SegmentedDiaRemainder::Auto});
        QCOMPARE(autoBuilt.offsets, m.offsets);
        QVERIFY(autoBuilt.remainderValues.empty());
    }

    void byteRuleMovesSparseDiagonalsInFloat() {
        // The plain byte count (weight 1).
        const auto m = buildSegmentedDia(convertValues<float>(byteRuleCase()), {16, true, SegmentedDiaRemainder::Auto, 1.0, 0.0});
        // float: a diagonal of 16 rows costs 64 bytes as DIA, f x 8 as CSR; it stays when f >= 8.
        // Segment 0: 0 (16) and +5 (8, the tie) stay; -7 (2), -2 (7), +9 (1) go, saving
        // 48 + 8 + 56 = 112 bytes > 17 row starts x 4 = 68. Segment 1: the stray entry alone would
        // save 64 - 8 = 56 <= 68, so the segment stays pure DIA with offsets {-17, 0}.
        QCOMPARE(m.offsets, (std::vector<Index>{0, 5, -17, 0}));
        QCOMPARE(m.segmentOffsetStart, (std::vector<Count>{0, 2, 4}));
        QCOMPARE(m.segmentValueStart, (std::vector<Count>{0, 32, 64}));
        QCOMPARE(m.segmentRemainderStart, (std::vector<Count>{0, 10, 10}));
        QCOMPARE(m.segmentRemainderRowStart, (std::vector<Count>{0, 17, 17}));
        QCOMPARE(m.remainderRowStart, (std::vector<Index>{0, 0, 0, 1, 3, 4, 5, 6, 7, 8, 8, 9, 9, 10, 10, 10, 10}));
        QCOMPARE(m.remainderColumns, (std::vector<Index>{0, 1, 12, 2, 3, 4, 5, 6, 3, 5}));
        QCOMPARE(m.remainderValues, (std::vector<float>{202, 203, 300, 204, 205, 206, 207, 208, 400, 401}));
        QCOMPARE(m.values[32 + 0 * 16 + 4], 500.0f);  // (20, 3): segment 1, diagonal -17, local row 4
        QCOMPARE(m.nonzeros, Count(51));
        const auto stats = computeSegmentedDiaStats(m);
        QCOMPARE(stats.remainderNonzeros, Count(10));
        QCOMPARE(stats.remainderSegments, Count(1));
        QCOMPARE(stats.diaNonzeros, Count(41));
        QCOMPARE(stats.storedSlots, Count(64));
        QCOMPARE(stats.paddingRatio, 64.0 / 41.0);
        QCOMPARE(stats.remainderBytes, 3 * sizeof(Count) + 3 * sizeof(Count) + 17 * sizeof(Index) + 10 * sizeof(Index) + 10 * sizeof(float));
        QCOMPARE(m.segmentWork(0), Count(32 + 10));
        checkStoredOnce(m);
        QVERIFY(sameCoo(segmentedDiaToCoo(m), convertValues<float>(byteRuleCase())));
    }

    void byteRuleIsStricterInDouble() {
        const auto m = buildSegmentedDia(byteRuleCase(), {16, true, SegmentedDiaRemainder::Auto, 1.0, 0.0});
        // double: 128 bytes as DIA, f x 12 as CSR: a diagonal stays when f >= 11. Segment 0 keeps only
        // the main diagonal (+5's 8 of 16 go too); segment 1's stray entry saves 128 - 12 = 116 > 68
        // bytes of row starts, so it goes to the remainder.
        QCOMPARE(m.offsets, (std::vector<Index>{0, 0}));
        QCOMPARE(m.segmentRemainderStart, (std::vector<Count>{0, 18, 19}));
        QCOMPARE(m.segmentRemainderRowStart, (std::vector<Count>{0, 17, 34}));
        QCOMPARE(m.remainderColumns[18], Index(3));
        QCOMPARE(m.remainderValues[18], 500.0);
        QCOMPARE(std::vector<Index>(m.remainderRowStart.begin() + 17, m.remainderRowStart.end()),
                 (std::vector<Index>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}));
        // Row 3 of segment 0: (3,1) from -2, (3,8) from +5, (3,12) from +9, columns ascending.
        QCOMPARE(std::vector<Index>(m.remainderColumns.begin() + m.remainderRowStart[3], m.remainderColumns.begin() + m.remainderRowStart[4]),
                 (std::vector<Index>{1, 8, 12}));
        checkStoredOnce(m);
        QVERIFY(sameCoo(segmentedDiaToCoo(m), byteRuleCase()));
        // Off is the seed's layout, All leaves no DIA part.
        const auto off = buildSegmentedDia(byteRuleCase(), {16, true, SegmentedDiaRemainder::Off});
        QCOMPARE(off.offsets, (std::vector<Index>{-7, -2, 0, 5, 9, -17, 0}));
        QVERIFY(off.remainderValues.empty());
        const auto all = buildSegmentedDia(byteRuleCase(), {16, true, SegmentedDiaRemainder::All});
        QVERIFY(all.offsets.empty());
        QCOMPARE(all.remainderValues.size(), std::size_t(51));
        QCOMPARE(computeSegmentedDiaStats(all).paddingRatio, 0.0);
        checkStoredOnce(all);
        // Explicit zeros: a diagonal holding only a zero costs nothing as CSR and vanishes under Auto.
        auto withZero = byteRuleCase();
        withZero.rowIndex.push_back(30);
        withZero.colIndex.push_back(1);
        withZero.values.push_back(0.0);
        QCOMPARE(buildSegmentedDia(withZero, {16, true, SegmentedDiaRemainder::Off}).offsets.size(), std::size_t(8));
        QCOMPARE(buildSegmentedDia(withZero, {16, true, SegmentedDiaRemainder::Auto, 1.0, 0.0}).offsets, m.offsets);
    }

    void weightedByteRuleKeepsHalfFullDiagonals() {
        // The default weight 1.5 on CSR bytes (entries and row starts).
        // float: keep when 64 <= 1.5 x 8 f, f >= 6: segment 0 keeps 0, +5 (8) and -2 (7); -7 (2) and
        // +9 (1) would save 64 - 24 + 64 - 12 = 92 <= 1.5 x 68 = 102 bytes of row starts: all stay.
        const auto f = buildSegmentedDia(convertValues<float>(byteRuleCase()), {16, true, SegmentedDiaRemainder::Auto});
        QCOMPARE(f.offsets, (std::vector<Index>{-7, -2, 0, 5, 9, -17, 0}));
        QVERIFY(f.remainderValues.empty());
        // double: keep when 128 <= 1.5 x 12 f, f >= 8: +5 stays, -2 (7), +9 and -7 go (saving
        // 2 + 110 + 92 = 204 > 102); segment 1's stray entry saves 110 > 102 and goes too.
        const auto d = buildSegmentedDia(byteRuleCase(), {16, true, SegmentedDiaRemainder::Auto});
        QCOMPARE(d.offsets, (std::vector<Index>{0, 5, 0}));
        QCOMPARE(d.segmentRemainderStart, (std::vector<Count>{0, 10, 11}));
        QCOMPARE(std::vector<Index>(d.remainderColumns.begin(), d.remainderColumns.begin() + 10),
                 (std::vector<Index>{0, 1, 12, 2, 3, 4, 5, 6, 3, 5}));
        QCOMPARE(d.remainderColumns[10], Index(3));
        checkStoredOnce(d);
        QVERIFY(sameCoo(segmentedDiaToCoo(d), byteRuleCase()));
        SegmentedDiaOptions bad{16, true, SegmentedDiaRemainder::Auto, 0.0};
        QVERIFY_THROWS_EXCEPTION(InputError, buildSegmentedDia(byteRuleCase(), bad));
    }

    void byteRuleLeavesStencilsPureDia() {
        // Full stencil diagonals never go: Auto builds exactly the seed's layout.
        for (const auto& coo : {generators::laplacian2d(300, 70), generators::laplacian3d(21, 19, 17)}) {
            for (Index threshold : {Index(64), Index(1024)}) {
                const auto off = buildSegmentedDia(convertValues<float>(coo), {threshold, true, SegmentedDiaRemainder::Off});
                const auto autoBuilt = buildSegmentedDia(convertValues<float>(coo), {threshold, true, SegmentedDiaRemainder::Auto});
                QCOMPARE(autoBuilt.offsets, off.offsets);
                QCOMPARE(autoBuilt.values, off.values);
                QVERIFY(autoBuilt.remainderValues.empty());
            }
        }
        // The 27-point stencil's far diagonals run off the matrix in the last, short segment (rows
        // 1024-1286 of 1287: offset +157 meets 106 of them): there, and only there, the plain byte
        // rule fires.
        const auto stencil = convertValues<float>(generators::stencil27(13, 11, 9));
        const auto off27 = buildSegmentedDia(stencil, {1024, true, SegmentedDiaRemainder::Off});
        const auto auto27 = buildSegmentedDia(stencil, {1024, true, SegmentedDiaRemainder::Auto, 1.0, 0.0});
        // With the default weight even the last segment stays pure DIA.
        QVERIFY(buildSegmentedDia(stencil, {1024, true, SegmentedDiaRemainder::Auto}).remainderValues.empty());
        QCOMPARE(auto27.segmentDiagonals(0), off27.segmentDiagonals(0));
        QCOMPARE(auto27.segmentRemainderCount(0), Count(0));
        QVERIFY(auto27.segmentRemainderCount(1) > 0);
        QVERIFY(computeSegmentedDiaStats(auto27).bytes < computeSegmentedDiaStats(off27).bytes);
        // The CFD-like case's scattered points would go, and padding fall a little; but the saving is
        // below the matrix-level minimum, so Auto builds the seed's layout.
        const auto cfd = generators::cfdLike(40, 30, 20, 8, 64, 11);
        const auto offBuilt = buildSegmentedDia(cfd, {256, true, SegmentedDiaRemainder::Off});
        const auto off = computeSegmentedDiaStats(offBuilt);
        const auto anySaving = computeSegmentedDiaStats(buildSegmentedDia(cfd, {256, true, SegmentedDiaRemainder::Auto, 1.5, 0.0}));
        QVERIFY(anySaving.remainderNonzeros > 0);
        QVERIFY(anySaving.paddingRatio < off.paddingRatio);
        QVERIFY(anySaving.bytes < off.bytes);
        QVERIFY(anySaving.bytes > 0.9 * off.bytes);
        QCOMPARE(anySaving.nonzeros, off.nonzeros);
        const auto byDefault = buildSegmentedDia(cfd, {256, true, SegmentedDiaRemainder::Auto});
        QVERIFY(byDefault.remainderValues.empty());
        QCOMPARE(byDefault.offsets, offBuilt.offsets);
        QCOMPARE(byDefault.values, offBuilt.values);
        // The two matrices the remainder was made for keep theirs (the GPU suite relies on it).
        for (const char* file : {"watt_2.mtx", "n1024-l1.mtx"}) {
            const auto block = canonicalCoo<double>(readMatrixMarket(QDir(matricesDir()).filePath(file).toStdString()));
            const auto tiled = generators::tiledAlongDiagonal(block, 5);
            for (Index threshold : {Index(1000), Index(1024)}) {
                QVERIFY2(!buildSegmentedDia(convertValues<float>(tiled), {threshold, true}).remainderValues.empty(), file);
                QVERIFY2(!buildSegmentedDia(tiled, {threshold, true}).remainderValues.empty(), file);
            }
        }
        SegmentedDiaOptions bad{16, true, SegmentedDiaRemainder::Auto, 1.5, 1.0};
        QVERIFY_THROWS_EXCEPTION(InputError, buildSegmentedDia(cfd, bad));
    }

    // Pieces of 256 rows whose band changes: 1024-row segments take the union of four pieces'
    // diagonals, 256-row segments store each piece exactly, so the chooser must take 256; on a
    // stencil every length stores the same bytes and the longest (fastest on the H100) stays.
    void segmentLengthIsChosenByModeledBytes() {
        const auto scattered = generators::scatteredBands(16384, 256, 11);
        std::vector<SegmentThresholdTrial> trials;
        const auto chosen = buildSegmentedDiaChoosingThreshold(scattered, {}, &trials);
        QCOMPARE(chosen.threshold, Index(256));
        QCOMPARE(int(trials.size()), 3);
        QCOMPARE(trials.front().threshold, Index(1024));
        QCOMPARE(trials.back().threshold, Index(256));
        QVERIFY(trials.back().modeledBytes < 0.8 * trials.front().modeledBytes);
        QVERIFY(sameCoo(segmentedDiaToCoo(chosen), scattered));
        checkStoredOnce(chosen);
        const auto fixed1024 = computeSegmentedDiaStats(buildSegmentedDia(scattered, {}));
        QVERIFY(computeSegmentedDiaStats(chosen).paddingRatio < fixed1024.paddingRatio);

        const auto laplacian = generators::laplacian2d(256, 256);
        trials.clear();
        const auto stencil = buildSegmentedDiaChoosingThreshold(laplacian, {}, &trials);
        QCOMPARE(stencil.threshold, Index(1024));
        for (const auto& trial : trials) QCOMPARE(trial.chosenSoFar, trial.threshold == 1024);
        QVERIFY(sameCoo(segmentedDiaToCoo(stencil), laplacian));
        // Threshold 0 asks the builder itself to choose (what the GUI's "Auto" and the CLI's
        // --threshold auto pass); HDIA (no merge) chooses the same way.
        QCOMPARE(buildSegmentedDia(scattered, {kChooseSegmentThreshold, true}).threshold, Index(256));
        QCOMPARE(buildHdia(scattered, kChooseSegmentThreshold).threshold, Index(256));
    }

    void mergeFollowsTheSeedOnHandCase() {
        // Works 8 1 1 8 2: the two 1s merge (8 > 2 x 1), then that 2 with the other 2 (8 > 2 x 2),
        // then max 8 <= 2 x 4 stops it.
        std::vector<DiaMergeStep> steps;
        const auto blocks = mergeSegmentsByWork({8, 1, 1, 8, 2}, &steps);
        QCOMPARE(blocks, (std::vector<std::vector<Index>>{{0}, {1, 2, 4}, {3}}));
        QCOMPARE(steps.size(), std::size_t(2));
        QCOMPARE(steps[0].absorbedLead, Index(1));
        QCOMPARE(steps[0].intoLead, Index(2));
        QCOMPARE(steps[0].rule, DiaMergeRule::TwoSmallest);
        QCOMPARE(steps[1].absorbedWork + steps[1].intoWork, Count(4));
        QCOMPARE(steps[1].blocksAfter, Count(3));
        // Only the smallest lags: 10 > 2 x 4 but not > 2 x 6, so it joins the 6 (SmallestIntoNext).
        steps.clear();
        const auto second = mergeSegmentsByWork({10, 4, 6, 9}, &steps);
        QCOMPARE(second, (std::vector<std::vector<Index>>{{0}, {1, 2}, {3}}));
        QCOMPARE(steps.size(), std::size_t(1));
        QCOMPARE(steps[0].rule, DiaMergeRule::SmallestIntoNext);
    }

    void mergeLeavesNoBlockWithMoreThanTwiceTheWorkOfAnother() {
        std::mt19937 rng(99);
        for (int trial = 0; trial < 300; ++trial) {
            const int count = 1 + int(rng() % 200);
            std::vector<Count> work(count);
            const int spread = 1 + int(rng() % 1000);
            for (auto& w : work) w = (rng() % 10 == 0) ? 0 : Count(rng() % spread);
            std::vector<DiaMergeStep> steps;
            const auto blocks = mergeSegmentsByWork(work, &steps);
            checkMergeInvariant(work, blocks, steps);
        }
        QVERIFY(mergeSegmentsByWork({}).empty());
    }

    void builtBlocksCoverEveryRowOnceAndHonourTheInvariant() {
        const auto coo = generators::cfdLike(23, 19, 17, 6, 40, 5);
        const auto m = buildSegmentedDia(coo, {64, true});
        std::vector<Count> work(m.segments());
        for (Index s = 0; s < m.segments(); ++s) work[s] = m.segmentWork(s);
        std::vector<std::vector<Index>> blocks;
        for (Index b = 0; b < m.blocks(); ++b)
            blocks.emplace_back(m.blockSegments.begin() + m.blockStart[b], m.blockSegments.begin() + m.blockStart[b + 1]);
        checkMergeInvariant(work, blocks, m.mergeSteps);
        const auto hdia = buildHdia(coo, 64);
        QCOMPARE(hdia.blocks(), hdia.segments());
        QVERIFY(hdia.mergeSteps.empty());
    }

    void cfdLikeSegmentedPaddingStaysLowWhereDiaPadsHeavily() {
        const auto coo = generators::cfdLike(60, 50, 40, 8, 64, 11);
        const auto stats = computeSegmentedDiaStats(buildSegmentedDia(coo, {256, true}));
        QVERIFY2(stats.paddingRatio <= 1.10, qPrintable(QString::number(stats.paddingRatio)));
        const auto dia = buildDia(coo);
        const double diaPadding = double(dia.storedSlots()) / double(dia.nonzeros);
        QVERIFY2(diaPadding > 4.0, qPrintable(QString::number(diaPadding)));
    }

    void laplacianPaddingMatchesTheMissingBoundaryNeighbours() {
        const Index nx = 37, ny = 29;
        const auto coo = generators::laplacian2d(nx, ny);
        QCOMPARE(coo.nnz(), Count(5) * nx * ny - 2 * nx - 2 * ny);
        const auto dia = buildDia(coo);
        QCOMPARE(dia.offsets, (std::vector<Index>{-nx, -1, 0, 1, nx}));
        const auto seg = buildSegmentedDia(coo, {Index(nx * ny), true});  // one segment = plain DIA
        QCOMPARE(computeSegmentedDiaStats(seg).storedSlots, dia.storedSlots());
    }

    void referenceSpmvOfEveryFormatMatchesDenseProductOnSharedMatrices() {
        for (const QString& name : realMatrixFiles()) {
            const auto matrix = readMatrixMarket(QDir(matricesDir()).filePath(name).toStdString());
            const auto coo = canonicalCoo<double>(matrix);
            const auto csr = toCsr<double>(matrix);
            const auto x = randomVector<double>(static_cast<std::size_t>(coo.cols), 17);
            const auto want = oracleProduct(matrix, x);
            const auto bound = rowErrorBounds(csr, x);
            QVERIFY2(compareRows(spmvReference(csr, x), want, bound).empty(), qPrintable(name + " csr"));
            for (Index threshold : {Index(1), Index(5), Index(128)}) {
                for (auto policy : kPolicies) {
                    const auto seg = buildSegmentedDia(coo, {threshold, true, policy});
                    const std::string problem = compareRows(spmvReference(seg, x), want, bound);
                    QVERIFY2(problem.empty(), qPrintable(name + " segdia " + toString(policy) + ": " + QString::fromStdString(problem)));
                }
            }
            const std::string hdia = compareRows(spmvReference(buildHdia(coo, 16), x), want, bound);
            QVERIFY2(hdia.empty(), qPrintable(name + " hdia: " + QString::fromStdString(hdia)));
            // Plain DIA of a scattered matrix (luxembourg) would need tens of GB: that is its weakness.
            DiaMatrix<double> dia;
            try {
                dia = buildDia(coo, 20'000'000);
            } catch (const OutOfMemoryError&) {
                continue;
            }
            const std::string diaProblem = compareRows(spmvReference(dia, x), want, bound);
            QVERIFY2(diaProblem.empty(), qPrintable(name + " dia: " + QString::fromStdString(diaProblem)));
        }
    }

    void integerStencilSpmvIsExact() {
        const auto coo = generators::stencil27(13, 11, 7);
        const auto seg = buildSegmentedDia(coo, {100, true});
        std::vector<double> x(static_cast<std::size_t>(coo.cols));
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(int(i % 7) - 3);
        std::vector<double> want(static_cast<std::size_t>(coo.rows), 0.0);
        for (std::size_t k = 0; k < coo.values.size(); ++k) want[coo.rowIndex[k]] += coo.values[k] * x[coo.colIndex[k]];
        QCOMPARE(spmvReference(seg, x), want);
        QCOMPARE(spmvReference(buildDia(coo), x), want);
        QCOMPARE(spmvReference(buildSegmentedDia(coo, {100, true, SegmentedDiaRemainder::All}), x), want);
        // The hand case with its remainder, integer x: exact.
        const auto hand = byteRuleCase();
        std::vector<double> xh(32);
        for (std::size_t i = 0; i < xh.size(); ++i) xh[i] = double(int(i % 5) - 2);
        std::vector<double> wantHand(32, 0.0);
        for (std::size_t k = 0; k < hand.values.size(); ++k) wantHand[hand.rowIndex[k]] += hand.values[k] * xh[hand.colIndex[k]];
        for (auto policy : kPolicies) QCOMPARE(spmvReference(buildSegmentedDia(hand, {16, true, policy}), xh), wantHand);
    }

    void tilingARealBandedMatrixKeepsItsDiagonals() {
        const auto block = canonicalCoo<double>(readMatrixMarket(QDir(matricesDir()).filePath("olm1000.mtx").toStdString()));
        const auto tiled = generators::tiledAlongDiagonal(block, 7);
        QCOMPARE(tiled.rows, 7 * block.rows);
        QCOMPARE(tiled.cols, 7 * block.cols);
        QCOMPARE(tiled.values.size(), 7 * block.values.size());
        // Same diagonals as the file (offsets -2..+3), so the whole tiled matrix stays one band.
        const auto dia = buildDia(tiled, 1'000'000);
        QCOMPARE(dia.offsets, buildDia(block, 1'000'000).offsets);
        // Copy c of entry k sits at (r + c*rows, col + c*cols) with its value, in row order.
        const auto csr = cooToCsr(tiled);
        const auto blockCsr = cooToCsr(block);
        for (Index c : {Index(0), Index(3), Index(6)})
            for (Index r : {Index(0), Index(499), Index(999)}) {
                const Index row = r + c * block.rows;
                QCOMPARE(csr.rowPtr[row + 1] - csr.rowPtr[row], blockCsr.rowPtr[r + 1] - blockCsr.rowPtr[r]);
                for (Count k = 0; k < blockCsr.rowPtr[r + 1] - blockCsr.rowPtr[r]; ++k) {
                    QCOMPARE(csr.colIndex[csr.rowPtr[row] + k], blockCsr.colIndex[blockCsr.rowPtr[r] + k] + c * block.cols);
                    QCOMPARE(csr.values[csr.rowPtr[row] + k], blockCsr.values[blockCsr.rowPtr[r] + k]);
                }
            }
        for (std::size_t k = 1; k < tiled.rowIndex.size(); ++k) QVERIFY(tiled.rowIndex[k - 1] <= tiled.rowIndex[k]);
        QVERIFY_THROWS_EXCEPTION(InputError, generators::tiledAlongDiagonal(block, 3'000'000));
        QVERIFY_THROWS_EXCEPTION(InputError, generators::tiledAlongDiagonal(block, -1));
        QCOMPARE(generators::tiledAlongDiagonal(block, 0).values.size(), std::size_t(0));
    }

    void badInputIsRefusedWithItsPlace() {
        const auto outside = cooFrom(3, 3, {{0, 0, 1.0}, {1, 3, 2.0}});
        try {
            buildSegmentedDia(outside);
            QFAIL("no exception");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("entry 1 at (1, 3)"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(InputError, buildSegmentedDia(cooFrom(3, 3, {}), {-1, true}));
        QVERIFY_THROWS_EXCEPTION(InputError, buildSegmentedDia(cooFrom(3, 3, {}), {4, true, SegmentedDiaRemainder(7)}));
        const auto m = buildSegmentedDia(cooFrom(3, 3, {{0, 0, 1.0}}));
        QVERIFY_THROWS_EXCEPTION(InputError, spmvReference(m, std::vector<double>(2)));
        QVERIFY_THROWS_EXCEPTION(OutOfMemoryError, buildDia(generators::randomBanded(500, 500, 40, 0.1, 0, 3), 1000));
    }

    void edgeShapesWork() {
        const auto empty = buildSegmentedDia(cooFrom(0, 5, {}));
        QCOMPARE(empty.segments(), Index(0));
        QVERIFY(spmvReference(empty, std::vector<double>(5)).empty());
        const auto noCols = buildSegmentedDia(cooFrom(4, 0, {}), {3, true});
        QCOMPARE(spmvReference(noCols, std::vector<double>{}), std::vector<double>(4, 0.0));
        const auto emptyRows = buildSegmentedDia(cooFrom(9, 9, {{8, 0, 2.0}}), {2, true});
        std::vector<double> x(9, 1.5);
        std::vector<double> want(9, 0.0);
        want[8] = 3.0;
        QCOMPARE(spmvReference(emptyRows, x), want);
    }

    void gpuPathsReportAMissingDevice() {
        if (cudaDeviceInfo().present) QSKIP("a CUDA device is present");
        const auto coo = generators::laplacian2d(5, 4);
        const std::vector<double> x(20, 1.0);
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, spmv(buildSegmentedDia(coo), x, {SpmvBackend::Cuda}));
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, spmv(buildDia(coo), x, {SpmvBackend::Cuda}));
        QVERIFY_THROWS_EXCEPTION(BackendUnavailableError, spmv(cooToCsr(coo), x, {SpmvBackend::Cusparse}));
    }

    // spmv validates before dispatch, so these hold with or without a GPU.
    void spmvRefusesABackendThatDoesNotTakeTheFormat() {
        const auto coo = generators::laplacian2d(5, 4);
        const std::vector<double> x(20, 1.0);
        QVERIFY_THROWS_EXCEPTION(InputError, spmv(buildSegmentedDia(coo), x, {SpmvBackend::Cusparse}));
        QVERIFY_THROWS_EXCEPTION(InputError, spmv(buildDia(coo), x, {SpmvBackend::Cusparse}));
        QVERIFY_THROWS_EXCEPTION(InputError, spmv(cooToCsr(coo), x, {SpmvBackend::Cuda}));
        QVERIFY_THROWS_EXCEPTION(InputError, spmv(cooToCsr(coo), std::vector<double>(19, 1.0), {SpmvBackend::Cusparse}));
        SpmvOptions badWidth{SpmvBackend::Cuda};
        badWidth.variant.remainderWidth = 3;
        QVERIFY_THROWS_EXCEPTION(InputError, spmv(buildSegmentedDia(coo), x, badWidth));
    }

    void heavySegmentGoesToTheRemainder() {
        // A tridiagonal band over 64 segments of 256 rows, and one dense 256 x 512 block in segment 10:
        // Auto would keep that block's ~770 diagonals as DIA in one segment, a single thread block's
        // work 250x the others'; the builder moves it whole to the remainder and leaves the band as is.
        const Index n = 64 * 256;
        std::vector<std::tuple<Index, Index, double>> entries;
        for (Index r = 0; r < n; ++r)
            for (Index c = std::max<Index>(0, r - 1); c <= std::min<Index>(n - 1, r + 1); ++c) entries.emplace_back(r, c, 1.0 + r % 3);
        for (Index r = 2560; r < 2560 + 256; ++r)
            for (Index c = 4000; c < 4512; ++c) entries.emplace_back(r, c, 0.5);
        const auto coo = cooFrom(n, n, entries);
        const auto m = buildSegmentedDia(coo, {256, true, SegmentedDiaRemainder::Auto});
        QCOMPARE(m.segmentDiagonals(10), Index(0));
        QCOMPARE(m.segmentRemainderCount(10), Count(256 * 512 + 3 * 256));
        for (Index s : {Index(0), Index(9), Index(11), Index(63)}) {
            QCOMPARE(m.segmentDiagonals(s), Index(3));
            QCOMPARE(m.segmentRemainderCount(s), Count(0));
        }
        std::vector<double> x(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(i % 7) - 3.0;
        QCOMPARE(spmvReference(m, x), spmvReference(cooToCsr(coo), x));
        // Off and All are what they say, heavy or not.
        QCOMPARE(buildSegmentedDia(coo, {256, true, SegmentedDiaRemainder::Off}).segmentRemainderCount(10), Count(0));
    }

    void smallDiaPartGoesToTheRemainderToo() {
        // Past 1 M nonzeros, a DIA part that saves under 10 % of one CSR pass's bytes does not pay for
        // its own pass: a full tridiagonal band under ten scattered entries a row goes to the remainder
        // whole; an 11-diagonal band under one scattered entry a row keeps its DIA part.
        const Index n = 100000;
        const auto matrix = [n](Index halfBand, int scattered) {
            std::vector<std::tuple<Index, Index, double>> entries;
            std::mt19937 rng(5);
            std::uniform_int_distribution<Index> column(0, n - 1);
            for (Index r = 0; r < n; ++r) {
                for (Index c = std::max<Index>(0, r - halfBand); c <= std::min<Index>(n - 1, r + halfBand); ++c) entries.emplace_back(r, c, 2.0);
                for (int k = 0; k < scattered; ++k) entries.emplace_back(r, column(rng), 1.0);
            }
            return cooFrom(n, n, entries);
        };
        const auto scatteredMostly = buildSegmentedDia(matrix(1, 10), {1024, true, SegmentedDiaRemainder::Auto});
        QVERIFY(scatteredMostly.nonzeros >= Count(1) << 20);
        QVERIFY(scatteredMostly.values.empty());
        QCOMPARE(Count(scatteredMostly.remainderValues.size()), scatteredMostly.nonzeros);
        const auto bandMostly = buildSegmentedDia(matrix(5, 1), {1024, true, SegmentedDiaRemainder::Auto});
        QVERIFY(bandMostly.nonzeros >= Count(1) << 20);
        QVERIFY(!bandMostly.values.empty());
        QVERIFY(!bandMostly.remainderValues.empty());
    }

    void spmvReferenceBackendIsTheOracle() {
        const auto coo = generators::laplacian2d(7, 5);
        std::vector<double> x(35);
        for (std::size_t i = 0; i < x.size(); ++i) x[i] = double(i % 5) - 2.0;
        const auto seg = buildSegmentedDia(coo, {8, true});
        QCOMPARE(spmv(seg, x), spmvReference(seg, x));
        QCOMPARE(spmv(buildDia(coo), x, {SpmvBackend::Reference}), spmvReference(buildDia(coo), x));
        QCOMPARE(spmv(cooToCsr(coo), x), spmvReference(cooToCsr(coo), x));
    }
};

QTEST_GUILESS_MAIN(TestSegmentedDia)
#include "tst_segdia.moc"
