// The Dense regions tab re-detects as the user changes a parameter: on a 10^7-entry binary matrix a
// change of minimum fill shows its new regions quickly (the time is printed: the target is 400 ms on
// a 2-core machine, 100 ms on the 16-core H100 host; bench_hybrid holds it), a drag never queues
// stale runs, and a run cancelled midway leaves the last complete result on show.
#include "guitesting.h"

#include "hybridpanel.h"
#include "maincontext.h"
#include "spyview.h"

#include "spyglass/hybrid_binary.h"
#include "spyglass/stats.h"

#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <thread>

using namespace spyglass;
using namespace guitesting;

namespace {

// The matrix bench_hybrid's re-detection case uses: rectangles, triangles and bands of 1024 with
// 1.5 M scattered ones, about 1.2 * 10^7 entries.
app::MatrixDocument blockyDocument() {
    BlockyMatrixSpec spec;
    spec.rows = spec.cols = 200000;
    spec.rectangles = 8, spec.triangles = 8, spec.bands = 8, spec.blockSize = 1024, spec.bandWidth = 129;
    spec.scattered = 1500000, spec.seed = 11;
    const GeneratedBinary g = generateBlockyBinary(spec);
    Matrix m;
    m.rows = g.pattern.rows, m.cols = g.pattern.cols, m.field = Field::Pattern;
    m.rowIndex.resize(g.pattern.colIndex.size());
    for (Index i = 0; i < g.pattern.rows; ++i)
        std::fill(m.rowIndex.begin() + g.pattern.rowPtr[i], m.rowIndex.begin() + g.pattern.rowPtr[i + 1], i);
    m.colIndex = g.pattern.colIndex;
    auto shared = std::make_shared<const Matrix>(std::move(m));
    return app::MatrixDocument(QStringLiteral("blocky-1e7.mtx"), shared, computeStats(*shared), nullptr);
}

QVector<QString> regionNames(const app::HybridDetectionResult& result) {
    QVector<QString> names;
    for (const app::HybridRegion& kept : result.regions) {
        const DenseRegion& r = kept.region;
        names << QStringLiteral("%1 %2 %3 %4 %5 %6").arg(toString(r.shape)).arg(r.rowBegin).arg(r.rowEnd).arg(r.colBegin).arg(r.colEnd).arg(r.fill());
    }
    return names;
}

} // namespace

class TestHybridRedetection : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void changingMinimumFillShowsNewRegionsQuicklyAndCancelKeepsTheLastResult() {
        ShownWindow fixture(m_dir.filePath(QStringLiteral("a.ini")), QSize(1500, 950));
        gui::MainWindow& window = fixture.window;
        const app::MatrixDocument document = blockyDocument();
        QVERIFY(document.matrix()->stored() > 10000000);
        window.context().setDocument(document);
        auto* panel = findPanel<widgets::HybridPanel>(window);
        QVERIFY(panel);
        QSignalSpy shown(panel, &widgets::HybridPanel::resultShown);
        panel->detect();
        QVERIFY(shown.wait(120000));  // the first run builds the pattern too
        QVERIFY(!panel->result().regions.isEmpty());

        // Each change of minimum fill: from the edit to the new regions on show (debounce included).
        std::vector<double> ms;
        for (double fill : {0.55, 0.6, 0.65, 0.7, 0.5}) {
            shown.clear();
            QElapsedTimer timer;
            timer.start();
            panel->setParameters(0, fill, 0.3);
            QVERIFY(shown.wait(60000));
            ms.push_back(double(timer.nsecsElapsed()) / 1e6);
            QCOMPARE(shown.count(), 1);  // one result per change: nothing stale was queued
        }
        std::vector<double> sorted = ms;
        std::sort(sorted.begin(), sorted.end());
        qInfo("re-detection after a change of minimum fill, %lld entries, %u threads: median %.0f ms (runs: %.0f %.0f %.0f %.0f %.0f); "
              "target 400 ms on a 2-core machine, 100 ms on the 16-core H100 host",
              static_cast<long long>(document.matrix()->stored()), std::max(1u, std::thread::hardware_concurrency()), sorted[2], ms[0],
              ms[1], ms[2], ms[3], ms[4]);
        QVERIFY2(sorted[2] < 10000, "a re-detection took more than 10 s");

        // A drag: several changes in a row give one result, for the last value.
        shown.clear();
        for (double fill : {0.52, 0.54, 0.56, 0.58}) {
            panel->setParameters(0, fill, 0.3);
            QTest::qWait(20);
        }
        QVERIFY(shown.wait(60000));
        QTest::qWait(500);
        QCOMPARE(shown.count(), 1);

        // Cancelled mid-run: the last complete result stays, and its drawing.
        const QVector<QString> before = regionNames(panel->result());
        const int overlays = window.spyView()->overlays().size();
        shown.clear();
        panel->setParameters(0, 0.75, 0.3);
        QTRY_VERIFY_WITH_TIMEOUT(panel->isDetecting(), 5000);
        panel->cancelDetection();
        QTRY_VERIFY_WITH_TIMEOUT(!panel->isDetecting(), 30000);
        QTest::qWait(300);
        QCOMPARE(shown.count(), 0);
        QVERIFY2(panel->statusText().contains(QStringLiteral("Cancelled")), qPrintable(panel->statusText()));
        QCOMPARE(regionNames(panel->result()), before);
        QCOMPARE(window.spyView()->overlays().size(), overlays);
    }
};

QTEST_MAIN(TestHybridRedetection)
#include "tst_gui_hybrid_redetection.moc"
