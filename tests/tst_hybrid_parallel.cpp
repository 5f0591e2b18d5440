// Method D's host work on several threads gives what one thread gives, bit for bit: thumbnails (both
// binnings), components (every labelling algorithm), regions with their verdicts, and both encodings,
// on generated shapes of every kind, thread counts 1, 2, 3 and 7, and odd sizes (one row, one column,
// a matrix narrower than one thumbnail pixel). Also: detection at the default thumbnail finds shapes
// only a few pixels wide (recall and precision by area), cancelling stops every phase, and the
// break-even arithmetic.
#include "spyglass/error.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/hybrid_spmv.h"
#include "spyglass/hybrid_valued.h"

#include "randompattern.h"

#include <QtTest>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>

using namespace spyglass;

namespace {

const int kThreadCounts[] = {1, 2, 3, 7};

bool sameRegion(const DenseRegion& a, const DenseRegion& b) {
    return a.shape == b.shape && a.corner == b.corner && a.rowBegin == b.rowBegin && a.rowEnd == b.rowEnd &&
           a.colBegin == b.colBegin && a.colEnd == b.colEnd && a.bandLow == b.bandLow && a.bandHigh == b.bandHigh &&
           a.ones == b.ones;
}

bool sameRegions(const std::vector<DenseRegion>& a, const std::vector<DenseRegion>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!sameRegion(a[i], b[i])) return false;
    return true;
}

bool sameDetection(const DetectionResult& a, const DetectionResult& b) {
    if (!sameRegions(a.regions, b.regions) || a.components != b.components || a.faintComponents != b.faintComponents ||
        a.thumbnailWidth != b.thumbnailWidth ||
        a.thumbnailHeight != b.thumbnailHeight || a.cellsPerPixel != b.cellsPerPixel || a.droppedByShape != b.droppedByShape ||
        a.droppedByFill != b.droppedByFill || a.droppedByOverlap != b.droppedByOverlap || a.droppedBySize != b.droppedBySize)
        return false;
    const DetectionPicture &p = a.picture, &q = b.picture;
    if (p.width != q.width || p.height != q.height || p.density != q.density || p.mask != q.mask || p.labels != q.labels ||
        p.components.size() != q.components.size())
        return false;
    for (std::size_t i = 0; i < p.components.size(); ++i) {
        const ComponentInfo &c = p.components[i], &d = q.components[i];
        if (c.label != d.label || c.x != d.x || c.y != d.y || c.width != d.width || c.height != d.height || c.area != d.area ||
            c.verdict != d.verdict || c.reason != d.reason)
            return false;
    }
    return true;
}

bool sameEncoding(const HybridBinaryMatrix& a, const HybridBinaryMatrix& b) {
    if (a.rows != b.rows || a.cols != b.cols || !(a.residual == b.residual) || a.csrFallback != b.csrFallback ||
        a.fallbackReason != b.fallbackReason || a.blocks.size() != b.blocks.size())
        return false;
    for (std::size_t i = 0; i < a.blocks.size(); ++i)
        if (!sameRegion(a.blocks[i].region, b.blocks[i].region) || a.blocks[i].zeroRowPtr != b.blocks[i].zeroRowPtr ||
            a.blocks[i].zeroOffsets != b.blocks[i].zeroOffsets)
            return false;
    return true;
}

template <typename T>
bool sameEncoding(const HybridValuedMatrix<T>& a, const HybridValuedMatrix<T>& b) {
    if (a.rows != b.rows || a.cols != b.cols || a.residual.rowPtr != b.residual.rowPtr ||
        a.residual.colIndex != b.residual.colIndex || a.residual.values != b.residual.values || a.csrFallback != b.csrFallback ||
        a.fallbackReason != b.fallbackReason || a.blocks.size() != b.blocks.size())
        return false;
    for (std::size_t i = 0; i < a.blocks.size(); ++i)
        if (!sameRegion(a.blocks[i].region, b.blocks[i].region) || a.blocks[i].values != b.blocks[i].values) return false;
    return true;
}

// Shapes of every kind, placed by the generator, plus scattered ones.
GeneratedBinary shapes(Index rows, Index cols, Index blockSize, std::uint64_t seed, Count scattered) {
    BlockyMatrixSpec spec;
    spec.rows = rows, spec.cols = cols;
    spec.rectangles = 3, spec.triangles = 4, spec.bands = 2;
    spec.blockSize = blockSize, spec.bandWidth = std::max<Index>(3, blockSize / 8);
    spec.fillMin = 0.55, spec.fillMax = 0.95;
    spec.scattered = scattered;
    spec.seed = seed;
    return generateBlockyBinary(spec);
}

using randompattern::randomPattern;

// A named pattern for the _data rows.
struct Case {
    const char* name;
    BinaryPattern pattern;
    std::vector<DenseRegion> planted;
};

std::vector<Case> makeCases() {
    std::vector<Case> all;
    GeneratedBinary a = shapes(1001, 877, 96, 1, 3000);
    all.push_back({"shapes 1001 x 877", std::move(a.pattern), std::move(a.planted)});
    GeneratedBinary b = shapes(6007, 5003, 480, 2, 40000);  // thumbnail pixels of 16 cells: local pictures
    all.push_back({"shapes 6007 x 5003", std::move(b.pattern), std::move(b.planted)});
    std::mt19937 rng(3);
    all.push_back({"one row", randomPattern(rng, 1, 3001, 0.6), {}});
    all.push_back({"one column", randomPattern(rng, 2999, 1, 0.6), {}});
    all.push_back({"narrower than a pixel", randomPattern(rng, 700, 5, 0.7), {}});
    all.push_back({"dense square", randomPattern(rng, 300, 300, 0.8), {}});
    all.push_back({"empty rows", binaryPatternFromCoordinates(50, 40, {3, 3, 49}, {0, 39, 20}), {}});
    return all;
}

// Built once for the whole suite.
const std::vector<Case>& cases() {
    static const std::vector<Case> all = makeCases();
    return all;
}

void addCaseRows() {
    QTest::addColumn<int>("index");
    const std::vector<Case>& all = cases();
    for (std::size_t i = 0; i < all.size(); ++i) QTest::newRow(all[i].name) << static_cast<int>(i);
}

// Values for the valued encoding: small integers (some zero) so that the check is exact.
CsrMatrix<double> withValues(const BinaryPattern& p) {
    CsrMatrix<double> m;
    m.rows = p.rows, m.cols = p.cols, m.rowPtr = p.rowPtr, m.colIndex = p.colIndex;
    m.values.resize(p.colIndex.size());
    for (std::size_t k = 0; k < m.values.size(); ++k) m.values[k] = static_cast<double>(static_cast<int>(k * 2654435761u % 7) - 1);
    return m;
}

Count sharedCells(const DenseRegion& a, const DenseRegion& b) {
    Count shared = 0;
    for (Index row = std::max(a.rowBegin, b.rowBegin); row < std::min(a.rowEnd, b.rowEnd); ++row) {
        const ColumnSpan sa = a.span(row), sb = b.span(row);
        shared += std::max<Index>(0, std::min(sa.end, sb.end) - std::max(sa.begin, sb.begin));
    }
    return shared;
}

} // namespace

class TestHybridParallel : public QObject {
    Q_OBJECT
private slots:
    void thumbnailIsTheSameOnEveryThreadCountAndBinning_data() { addCaseRows(); }
    void thumbnailIsTheSameOnEveryThreadCountAndBinning() {
        QFETCH(int, index);
        const BinaryPattern& p = cases()[static_cast<std::size_t>(index)].pattern;
        for (Index cpp : {1, 3, 16, 64, 5000}) {
            std::vector<std::uint32_t> expected;
            {
                const PatternThumbnail t = renderPatternThumbnail(p, cpp, nullptr, 1);
                expected.assign(t.counts.size(), 0);
                for (Index i = 0; i < p.rows; ++i)
                    for (Count k = p.rowPtr[i]; k < p.rowPtr[i + 1]; ++k)
                        ++expected[static_cast<std::size_t>(i / cpp) * t.width + p.colIndex[k] / cpp];
                QVERIFY(t.counts == expected);
            }
            for (int threads : kThreadCounts)
                for (ThumbnailBinning binning : {ThumbnailBinning::LineBands, ThumbnailBinning::MergedRanges}) {
                    const PatternThumbnail t = renderPatternThumbnail(p, cpp, nullptr, threads, binning);
                    QVERIFY2(t.counts == expected, qPrintable(QStringLiteral("cpp %1, %2 threads, %3").arg(cpp).arg(threads).arg(toString(binning))));
                }
        }
    }

    void componentsAndRegionsAreTheSameOnEveryThreadCount_data() { addCaseRows(); }
    void componentsAndRegionsAreTheSameOnEveryThreadCount() {
        QFETCH(int, index);
        const BinaryPattern& p = cases()[static_cast<std::size_t>(index)].pattern;
        for (int cpp : {0, 1, 4, 16}) {
            // Each labelling algorithm numbers components in its own scan order: each is compared
            // with itself on one thread.
            for (ComponentLabelling labelling : {ComponentLabelling::Spaghetti, ComponentLabelling::Bbdt, ComponentLabelling::Sauf}) {
                DetectionOptions options;
                options.cellsPerPixel = cpp;
                options.maxThumbnailSide = 384;  // the larger cases get pixels of many cells: local pictures run
                options.keepPicture = true;
                options.labelling = labelling;
                options.threads = 1;
                const DetectionResult serial = detectDenseRegions(p, options);
                const PatternThumbnail serialThumb = renderPatternThumbnail(p, serial.cellsPerPixel, nullptr, 1);
                const int labelled = countThumbnailComponents(serialThumb, options.pixelThreshold, labelling, 1);
                QCOMPARE(labelled, serial.components - serial.faintComponents);  // detection adds the faint ones
                for (int threads : kThreadCounts) {
                    options.threads = threads;
                    QVERIFY2(sameDetection(detectDenseRegions(p, options), serial),
                             qPrintable(QStringLiteral("cpp %1, %2 threads, %3").arg(cpp).arg(threads).arg(toString(labelling))));
                    const PatternThumbnail thumb = renderPatternThumbnail(p, serial.cellsPerPixel, nullptr, threads);
                    QCOMPARE(countThumbnailComponents(thumb, options.pixelThreshold, labelling, threads), labelled);
                }
            }
        }
    }

    void encodingsAreTheSameOnEveryThreadCount_data() { addCaseRows(); }
    void encodingsAreTheSameOnEveryThreadCount() {
        QFETCH(int, index);
        const Case& c = cases()[static_cast<std::size_t>(index)];
        DetectionOptions detection;
        detection.maxThumbnailSide = 384;
        std::vector<DenseRegion> regions = detectDenseRegions(c.pattern, detection).regions;
        // The planted shapes too (a different set of regions, some cheaper as CSR), and forced ones.
        for (const std::vector<DenseRegion>& given : {regions, c.planted}) {
            for (bool force : {false, true}) {
                HybridEncodeOptions options;
                options.forceRegions = force;
                options.threads = 1;
                const HybridBinaryMatrix serial = encodeHybrid(c.pattern, given, options);
                QVERIFY(decodeHybrid(serial) == c.pattern);
                validateHybrid(serial);
                HybridValuedOptions valuedOptions;
                valuedOptions.forceRegions = force;
                valuedOptions.threads = 1;
                const CsrMatrix<double> valued = withValues(c.pattern);
                const HybridValuedMatrix<double> serialValued = encodeHybridValued(valued, given, valuedOptions);
                validateHybridValued(serialValued);
                for (int threads : kThreadCounts) {
                    options.threads = threads;
                    QVERIFY2(sameEncoding(encodeHybrid(c.pattern, given, options), serial), qPrintable(QString::number(threads)));
                    valuedOptions.threads = threads;
                    QVERIFY2(sameEncoding(encodeHybridValued(valued, given, valuedOptions), serialValued),
                             qPrintable(QString::number(threads)));
                }
            }
        }
    }

    // The first bad row is the one named, whatever thread finds which.
    void valuedInputErrorNamesTheFirstBadRowOnEveryThreadCount() {
        std::mt19937 rng(9);
        CsrMatrix<double> m = withValues(randomPattern(rng, 4000, 300, 0.2));
        std::swap(m.colIndex[m.rowPtr[1200]], m.colIndex[m.rowPtr[1200] + 1]);
        std::swap(m.colIndex[m.rowPtr[3100]], m.colIndex[m.rowPtr[3100] + 1]);
        for (int threads : kThreadCounts) {
            HybridValuedOptions options;
            options.threads = threads;
            try {
                encodeHybridValued(m, {}, options);
                QFAIL("unsorted columns were accepted");
            } catch (const InputError& error) {
                QVERIFY2(QString(error.what()).contains("in row 1200 "), error.what());
            }
        }
    }

    // Shapes a few thumbnail pixels wide (the 400k x 400k mixed case of bench_hybrid at a quarter of
    // its size: 256-cell shapes, 49 cells a pixel at the default 2048 px) are found by area.
    void defaultThumbnailFindsShapesAFewPixelsWide() {
        BlockyMatrixSpec spec;
        spec.rows = spec.cols = 100000;
        spec.rectangles = 24, spec.triangles = 24, spec.bands = 16;
        spec.blockSize = 256, spec.bandWidth = 33, spec.scattered = 250000, spec.seed = 7;
        const GeneratedBinary g = generateBlockyBinary(spec);
        DetectionOptions options;
        options.keepPicture = true;  // the components' verdicts explain a miss
        const DetectionResult result = detectDenseRegions(g.pattern, options);
        Count plantedCells = 0, detectedCells = 0, shared = 0;
        for (const DenseRegion& r : result.regions) detectedCells += r.cells();
        QString missed;
        for (const DenseRegion& p : g.planted) {
            plantedCells += p.cells();
            Count covered = 0;
            for (const DenseRegion& r : result.regions) covered += sharedCells(p, r);
            shared += covered;
            if (covered < p.cells() * 9 / 10) {
                missed += QStringLiteral("\n  planted %1: %2 % covered").arg(QString::fromStdString(p.describe())).arg(100.0 * covered / p.cells(), 0, 'f', 1);
                for (const DenseRegion& r : result.regions)
                    if (sharedCells(p, r) > 0) missed += QStringLiteral("\n    found %1").arg(QString::fromStdString(r.describe()));
                const Index cpp = result.cellsPerPixel;
                for (const ComponentInfo& c : result.picture.components)
                    if (c.x * cpp < p.colEnd && (c.x + c.width) * cpp > p.colBegin && c.y * cpp < p.rowEnd && (c.y + c.height) * cpp > p.rowBegin)
                        missed += QStringLiteral("\n    component %1 at (%2, %3) %4 x %5, %6 pixels: %7 (%8)")
                                      .arg(c.label).arg(c.x).arg(c.y).arg(c.width).arg(c.height).arg(c.area)
                                      .arg(toString(c.verdict)).arg(QString::fromStdString(c.reason));
            }
        }
        if (!missed.isEmpty()) qInfo("%s", qPrintable(missed));
        const double recall = double(shared) / double(plantedCells), precision = double(shared) / double(detectedCells);
        qInfo("%zu planted, %zu regions, %d cells a pixel: recall %.4f, precision %.4f by area", g.planted.size(),
              result.regions.size(), result.cellsPerPixel, recall, precision);
        QVERIFY2(recall >= 0.97, qPrintable(QString::number(recall)));
        QVERIFY2(precision >= 0.97, qPrintable(QString::number(precision)));
    }

    // A cancel raised while the work runs stops it with CancelledError (nothing is returned).
    void cancellingStopsDetectionAndEncoding() {
        BlockyMatrixSpec spec;
        spec.rows = spec.cols = 200000, spec.rectangles = 40, spec.blockSize = 600, spec.scattered = 2000000;
        const GeneratedBinary g = generateBlockyBinary(spec);
        for (int threads : {1, 2}) {
            std::atomic<bool> cancel{false};
            DetectionOptions options;
            options.cancel = &cancel;
            options.threads = threads;
            options.progress = [&](double fraction) {
                if (fraction >= 0.5) cancel = true;  // after the thumbnail
            };
            QVERIFY_THROWS_EXCEPTION(CancelledError, detectDenseRegions(g.pattern, options));
            std::atomic<bool> raised{true};
            HybridEncodeOptions encode;
            encode.cancel = &raised;
            encode.threads = threads;
            QVERIFY_THROWS_EXCEPTION(CancelledError, encodeHybrid(g.pattern, g.planted, encode));
        }
    }

    void breakEvenCountsTheSpmvsUntilTheHybridHasPaid() {
        // 100 ms to prepare against 20 ms of CSR upload, 0.5 ms saved a multiply: 160 SpMVs.
        HybridBreakEven even = hybridBreakEven(100.0, 1.5, 20.0, 2.0);
        QVERIFY(!even.never);
        QCOMPARE(even.spmvs, 160LL);
        QCOMPARE(even.text(), std::string("after 160 SpMVs"));
        even = hybridBreakEven(100.0, 1.5, 20.0, 2.001);  // 159.68...: the 160th SpMV pays
        QCOMPARE(even.spmvs, 160LL);
        even = hybridBreakEven(10.0, 1.0, 20.0, 2.0);  // cheaper to prepare than CSR to upload
        QCOMPARE(even.spmvs, 1LL);
        QCOMPARE(even.text(), std::string("from the first SpMV"));
        even = hybridBreakEven(10.0, 2.0, 20.0, 2.0);  // not faster: never, whatever the preparation
        QVERIFY(even.never);
        QVERIFY(even.text().find("never") == 0);
        QVERIFY(hybridBreakEven(10.0, 3.0, 20.0, 2.0).never);
    }
};

QTEST_GUILESS_MAIN(TestHybridParallel)
#include "tst_hybrid_parallel.moc"
