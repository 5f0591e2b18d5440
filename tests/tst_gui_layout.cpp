// The picture beside the work, and windows that fit the screen:
// - the spy view stays visible beside every tab, and shows the drawing of the panel in front;
// - on a matrix with planted rectangles, triangles of each corner and off-centre bands, the Dense
//   regions tab finds every shape, draws it, and selecting its row highlights it and brings it into
//   view; hovering it names the shape, cells, fill and zeros stored;
// - with a long-named, large matrix open, running each panel never makes the main window (or its
//   minimum size) wider than a 1600-pixel screen.
#include "guitesting.h"
#include "plantedbinary.h"
#include "testmatrices.h"

#include "batchedsvdpanel.h"
#include "batchedinversepanel.h"
#include "bitflagpanel.h"
#include "bitflagpaneltesting.h"
#include "gui/mainwindow.h"
#include "gui/methodpanels.h"
#include "hybridpanel.h"
#include "hybridregionsmodel.h"
#include "hybridspmvview.h"
#include "maincontext.h"
#include "segdiapanel.h"
#include "spyview.h"

#include "spyglass/matrixmarket.h"

#include <QLabel>
#include <QSpinBox>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace spyglass;
using namespace guitesting;

namespace {
constexpr int kScreenWidth = 1600;

// The widest widgets by minimum size, to name the culprit when the window is too wide.
QString widest(QWidget& root) {
    QList<QPair<int, QString>> widths;
    for (QWidget* w : root.findChildren<QWidget*>())
        if (w->minimumSizeHint().width() > 400 && !w->inherits("QMenu"))
            widths << qMakePair(w->minimumSizeHint().width(), QString::fromLatin1(w->metaObject()->className()) + QLatin1Char(' ') +
                                                                  w->objectName() + QLatin1Char(' ') +
                                                                  (qobject_cast<QLabel*>(w) ? qobject_cast<QLabel*>(w)->text().left(60) : QString()));
    std::sort(widths.begin(), widths.end(), [](auto& a, auto& b) { return a.first < b.first; });
    QStringList lines;
    for (const auto& [width, name] : widths) lines << QStringLiteral("%1 %2").arg(width).arg(name);
    return lines.join(QLatin1Char('\n'));
}

// The window and its minimum fit, and the panels need no horizontal scrolling on the screen.
bool fitsTheScreen(gui::MainWindow& window) {
    return window.width() <= kScreenWidth && window.minimumSizeHint().width() <= kScreenWidth &&
           window.tabs()->minimumSizeHint().width() <= kScreenWidth - 40;
}

QString widthReport(gui::MainWindow& window) {
    return QStringLiteral("window %1 px, minimum %2 px, panels' minimum %3 px; widest parts:\n%4")
        .arg(window.width())
        .arg(window.minimumSizeHint().width())
        .arg(window.tabs()->minimumSizeHint().width())
        .arg(widest(window));
}

// fitsTheScreen once the layout has settled after a run (a panel may widen only once its result is
// shown); a warning names the run and the widths when it does not fit.
bool fitsAfter(gui::MainWindow& window, const char* run) {
    QCoreApplication::processEvents();
    if (fitsTheScreen(window)) return true;
    qWarning("%s: %s", run, qPrintable(widthReport(window)));
    return false;
}
} // namespace

class TestGuiLayout : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString writePlanted(const QString& name) {
        const QString path = m_dir.filePath(name);
        writeMatrixMarket(path.toStdString(), plantedtesting::plantedBinary().matrix);
        return path;
    }

    // A shown and exposed 1400 x 900 window on the settings file ini with the planted matrix open,
    // written as mtx: where the dense-region tests start; null when it was not exposed or did not load.
    std::unique_ptr<ShownWindow> plantedWindow(const QString& ini, const QString& mtx) {
        auto shown = std::make_unique<ShownWindow>(m_dir.filePath(ini), QSize(1400, 900));
        if (!QTest::qWaitForWindowExposed(&shown->window) || !openAndWait(shown->window, writePlanted(mtx))) return nullptr;
        return shown;
    }

private slots:
    void thePictureStaysBesideEveryTabAndShowsTheActivePanelsDrawing() {
        const auto fixture = plantedWindow(QStringLiteral("a.ini"), QStringLiteral("planted.mtx"));
        QVERIFY(fixture);
        gui::MainWindow& window = fixture->window;
        for (int i = 0; i < window.tabs()->count(); ++i) {
            window.tabs()->setCurrentIndex(i);
            QCoreApplication::processEvents();
            const QString where = window.tabs()->tabText(i) + QStringLiteral(": picture %1 x %2 px; ").arg(window.spyView()->width()).arg(window.spyView()->height()) +
                                  widthReport(window);
            if (window.panelAt(i)->property(gui::kMakesItsOwnMatrices).toBool()) {
                // The batched tabs make their own matrices: the open one's picture gives them its place.
                QVERIFY2(!window.spyView()->isVisible() && window.tabs()->width() > window.width() * 9 / 10, qPrintable(where));
                continue;
            }
            // Beside the tabs (left of them), and large: at least 450 px each way in a 1400 x 900 window.
            QVERIFY2(window.spyView()->isVisible() && window.spyView()->width() >= 450 && window.spyView()->height() >= 450, qPrintable(where));
            QVERIFY2(window.spyView()->mapTo(&window, QPoint(window.spyView()->width(), 0)).x() <= window.tabs()->mapTo(&window, QPoint(0, 0)).x(),
                     qPrintable(where));
        }
        auto* hybrid = findPanel<widgets::HybridPanel>(window);
        QVERIFY(runAndWait(hybrid, &widgets::HybridPanel::resultShown, [hybrid] { hybrid->detect(); }, 60000));
        const int regions = hybrid->result().regions.size();
        QVERIFY(regions > 0);
        QCOMPARE(window.spyView()->overlays().size(), regions);
        // Another panel in front: its drawing (none yet), not the regions.
        findPanel<widgets::SegmentedDiaPanel>(window);
        QCOMPARE(window.spyView()->overlays().size(), 0);
        findPanel<widgets::HybridPanel>(window);
        QCOMPARE(window.spyView()->overlays().size(), regions);
    }

    void plantedShapesAreFoundDrawnHighlightedAndNamedOnHover() {
        const auto fixture = plantedWindow(QStringLiteral("b.ini"), QStringLiteral("planted-b.mtx"));
        QVERIFY(fixture);
        gui::MainWindow& window = fixture->window;
        auto* panel = findPanel<widgets::HybridPanel>(window);
        testModel(panel->regionsModel());
        QVERIFY(runAndWait(panel, &widgets::HybridPanel::resultShown, [panel] { panel->detect(); }, 60000));
        const app::HybridDetectionResult& result = panel->result();
        QVERIFY(!result.csrFallback);
        const plantedtesting::Planted planted = plantedtesting::plantedBinary();
        for (const DenseRegion& shape : planted.shapes) {
            // Found: a region of the same shape (and corner) holding >= 80 % of the planted cells.
            int found = -1;
            for (int i = 0; i < result.regions.size(); ++i) {
                const DenseRegion& region = result.regions[i].region;
                if (region.shape != shape.shape) continue;
                if (shape.shape == RegionShape::Triangle && region.corner != shape.corner) continue;
                if (plantedtesting::sharedCells(shape, region) >= 0.8 * shape.cells()) found = i;
            }
            QVERIFY2(found >= 0, shape.describe().c_str());

            // Selecting its row highlights it on the picture and brings it into view.
            auto* table = panel->findChild<QTableView*>(QStringLiteral("regions"));
            table->setCurrentIndex(table->model()->index(found, 0));
            QCOMPARE(window.spyView()->highlightedOverlay(), found);
            const widgets::SpyOverlay& overlay = window.spyView()->overlays().at(found);
            const QRectF shown = window.spyView()->viewport().matrixToWidget(overlay.cells());
            QVERIFY(QRectF(window.spyView()->rect()).contains(shown));
            // Hovering a cell of the shape names it (a cell on the box's first row inside the shape).
            const ColumnSpan span = shape.span(shape.rowBegin + shape.height() / 2);
            const QPointF cell = window.spyView()->viewport().matrixToWidget(
                QPointF((span.begin + span.end) / 2 + 0.5, shape.rowBegin + shape.height() / 2 + 0.5));
            const QString tip = window.spyView()->toolTipAt(cell);
            QVERIFY2(tip.contains(QLatin1String(toString(shape.shape))) && tip.contains(QStringLiteral("zeros stored")) &&
                         tip.contains(QStringLiteral("fill")),
                     qPrintable(tip));
        }
        maybeScreenshot(window, "dense-regions-highlight.png");
    }

    void detectionLayersShowWhatTheDetectorSawAndFollowTheParameters() {
        const auto fixture = plantedWindow(QStringLiteral("d.ini"), QStringLiteral("planted-d.mtx"));
        QVERIFY(fixture);
        gui::MainWindow& window = fixture->window;
        auto* panel = findPanel<widgets::HybridPanel>(window);
        QSignalSpy shown(panel, &widgets::HybridPanel::resultShown);
        panel->setParameters(4, 0.5, 0.3);
        panel->detect();
        QVERIFY(shown.wait(60000));
        const auto picture = panel->result().picture;
        QVERIFY(picture);
        QCOMPARE(picture->cellsPerPixel, Index(4));
        QCOMPARE(picture->width, 350);  // 1400 / 4
        QCOMPARE(int(picture->components.size()), panel->result().components);
        int kept = 0;
        for (const ComponentInfo& c : picture->components) {
            kept += c.verdict == ComponentVerdict::Kept;
            QVERIFY(!c.reason.empty());
        }
        QCOMPARE(kept, panel->result().regions.size());  // each kept region came from one component

        for (auto layer : {widgets::DetectionLayer::Density, widgets::DetectionLayer::Mask, widgets::DetectionLayer::Components}) {
            panel->setLayer(layer);
            const QImage backdrop = window.spyView()->backdrop();
            QCOMPARE(backdrop.size(), QSize(picture->width, picture->height));
            // The mask layer is black exactly where the mask is set.
            if (layer == widgets::DetectionLayer::Mask)
                for (int i = 0; i < picture->width * picture->height; i += 97)
                    QCOMPARE(backdrop.pixelColor(i % picture->width, i / picture->width) != QColor(Qt::white), picture->mask[i] == 1);
        }
        QCOMPARE(window.spyView()->overlays().size(), panel->result().components);  // one box per component
        panel->setLayer(widgets::DetectionLayer::Regions);
        QVERIFY(window.spyView()->backdrop().isNull());

        // Changing parameters re-runs detection in the background; a burst of changes gives one
        // result, with the last parameters (the stale run is cancelled or its result dropped).
        shown.clear();
        panel->setParameters(8, 0.5, 0.3);
        panel->setParameters(8, 0.5, 0.45);
        QVERIFY(shown.wait(60000));
        QCOMPARE(panel->result().cellsPerPixel, 8);
        QCOMPARE(panel->result().picture->cellsPerPixel, Index(8));
        QTest::qWait(500);
        QCOMPARE(shown.count(), 1);
    }

    void runningEveryPanelOnALongNamedLargeMatrixKeepsTheWindowWithinTheScreen() {
        ShownWindow fixture(m_dir.filePath(QStringLiteral("c.ini")), QSize(1280, 860));
        gui::MainWindow& window = fixture.window;
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString longName = QStringLiteral("a-very-long-matrix-file-name-that-goes-on-and-on-to-test-wrapping-and-eliding-"
                                                "of-every-label-in-every-panel-bcsstk13-copy.mtx");
        const QString large = m_dir.filePath(longName);
        QVERIFY(QFile::copy(sharedMatrix("bcsstk13.mtx"), large));
        QVERIFY(openAndWait(window, large));
        QVERIFY2(fitsTheScreen(window), qPrintable(widthReport(window)));

        auto* segdia = findPanel<widgets::SegmentedDiaPanel>(window);
        QVERIFY(runAndWait(segdia, &widgets::SegmentedDiaPanel::layoutShown, [segdia] { segdia->runSpmv(); }, 60000));
        QVERIFY(fitsAfter(window, "segmented DIA"));

        // Showing the tab encodes the open matrix; operations wait for that.
        auto* bitflag = bitflagpaneltesting::showEncoded(window, 60000);
        QVERIFY(bitflag);
        QVERIFY(bitflagpaneltesting::runOperation(*bitflag, app::BitFlagOp::Add, 60000));
        QVERIFY(fitsAfter(window, "bit-flag"));

        auto* svd = findPanel<widgets::BatchedSvdPanel>(window);
        QVERIFY(setSpinBoxes(*svd, {{"batch", 50}}));
        QVERIFY(runAndWait(svd, &widgets::BatchedSvdPanel::allRunsFinished, [svd] { svd->run(); }, 60000));
        QVERIFY(fitsAfter(window, "batched SVD"));

        auto* inverse = findPanel<widgets::BatchedInversePanel>(window);
        QVERIFY(setSpinBoxes(*inverse, {{"batch", 200}}));
        QVERIFY(runAndWait(inverse, &widgets::BatchedInversePanel::allRunsFinished, [inverse] { inverse->run(); }, 60000));
        QVERIFY(fitsAfter(window, "batched inverse"));

        // Dense regions need a binary matrix: the planted one under the same long name.
        const QString binary = m_dir.filePath(QStringLiteral("binary-") + longName);
        writeMatrixMarket(binary.toStdString(), plantedtesting::plantedBinary().matrix);
        QVERIFY(openAndWait(window, binary));
        auto* hybrid = findPanel<widgets::HybridPanel>(window);
        QVERIFY(runAndWait(hybrid, &widgets::HybridPanel::resultShown, [hybrid] { hybrid->detect(); }, 60000));
        QVERIFY(runAndWait(hybrid->spmvView(), &widgets::HybridSpmvView::resultShown, [hybrid] { return hybrid->spmvView()->run(); },
                           60000));
        QVERIFY(fitsAfter(window, "dense regions"));
        maybeScreenshot(window, "long-name.png");
    }
};

QTEST_MAIN(TestGuiLayout)
#include "tst_gui_layout.moc"
