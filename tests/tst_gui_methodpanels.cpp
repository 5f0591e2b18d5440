// The method panels inside the real main window, as a user drives them: open a matrix, build the
// segmented-DIA layout (row bands appear on the spy view, one per segment, the arrays of a segment
// are listed), detect dense regions of a binary matrix (overlays appear, the encoding exports to a
// container that reads back to the same pattern), detect and export the valued default sample, and
// the empty states: each tab names its sample, whose button opens it; File > Open Sample lists them. Set SPYGLASS_SCREENSHOTS=DIR to save pictures of each step.
#include "guitesting.h"
#include "testmatrices.h"
#include "gui/mainwindow.h"
#include "bitflagpanel.h"
#include "core/appinfo.h"
#include "core/samples.h"
#include "samplehint.h"
#include "hybridpanel.h"
#include "hybridcomponentsmodel.h"
#include "hybridregionsmodel.h"
#include "hybridspmvrunsmodel.h"
#include "hybridspmvview.h"
#include "maincontext.h"
#include "segdiaarraysmodel.h"
#include "segdiapanel.h"
#include "segdiasegmentsmodel.h"
#include "spyview.h"

#include "spyglass/container.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrixmarket.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QMenu>
#include <QPushButton>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTabWidget>
#include <QLabel>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

using namespace spyglass;
using namespace guitesting;

class TestMethodPanels : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    // The dense-region panel's three models pass the model tester, then a detection runs until its
    // result is shown (false when it is not within 30 s).
    static bool modelsPassAndDetectionShows(widgets::HybridPanel& panel) {
        testModel(panel.regionsModel());
        testModel(panel.componentsModel());
        testModel(panel.spmvView()->runsModel());
        QSignalSpy shown(&panel, &widgets::HybridPanel::resultShown);
        panel.detect();
        return shown.wait(30000);
    }

private slots:
    void segmentedDiaLayoutDrawsOneBandPerSegmentAndListsItsArrays() {
        ShownWindow fixture(m_dir.filePath(QStringLiteral("a.ini")), QSize(1500, 950));
        gui::MainWindow& window = fixture.window;
        auto* panel = openInPanel<widgets::SegmentedDiaPanel>(window, sharedMatrix("watt_2.mtx"));
        QVERIFY(panel);
        testModel(panel->segmentsModel());
        testModel(panel->arraysModel());
        QSignalSpy shown(panel, &widgets::SegmentedDiaPanel::layoutShown);
        panel->runSpmv();  // the CPU reference is ticked by default; GPU ones only with a device
        QVERIFY(shown.wait(30000));
        const app::SegmentedDiaLayout& layout = panel->layout();
        QVERIFY(layout.format);
        // The default segment height is Auto: one of the builder's candidates, and the status says which.
        // 1856 rows in segments of that height: one band per segment, covering every row once.
        const int height = layout.format->threshold;
        QVERIFY(height == 1024 || height == 512 || height == 256);
        const auto* status = panel->findChild<QLabel*>(QStringLiteral("segdiaStatus"));
        QVERIFY(status);
        QVERIFY2(status->text().contains(QStringLiteral("(%1 rows, chosen)").arg(height)), qPrintable(status->text()));
        const int segments = (1856 + height - 1) / height;
        QCOMPARE(layout.stats.segments, segments);
        const QList<widgets::RowBand> bands = window.spyView()->rowBands();
        QCOMPARE(bands.size(), segments);
        QCOMPARE(bands.first().rowBegin, 0);
        QCOMPARE(bands.last().rowEnd, 1856);
        for (int i = 1; i < bands.size(); ++i) QCOMPARE(bands[i - 1].rowEnd, bands[i].rowBegin);
        QVERIFY(layout.stats.paddingRatio >= 1.0);
        QCOMPARE(layout.stats.nonzeros, 11550);
        // watt_2's remainder is a sliver beside its band: the GPU's default sums it in the DIA pass,
        // and the statistics say so.
        const auto* stats = panel->findChild<QLabel*>(QStringLiteral("segdiaStats"));
        QVERIFY(stats);
        QVERIFY(layout.stats.remainderNonzeros > 0);
        QVERIFY(!layout.stats.remainderOwnPass);
        QVERIFY2(stats->text().contains(QStringLiteral("summed on a GPU by each row's thread")), qPrintable(stats->text()));
        QVERIFY(!layout.spmv.isEmpty());
        QVERIFY2(layout.spmv.first().error.isEmpty(), qPrintable(layout.spmv.first().error));
        QVERIFY(layout.spmv.first().maxRelativeError < 1e-12);
        auto* arrays = panel->findChild<QTableView*>(QStringLiteral("segmentArrays"));
        QVERIFY(arrays);
        QCOMPARE(arrays->model(), &panel->arraysModel());
        QCOMPARE(arrays->model()->columnCount(), layout.format->segmentDiagonals(0));
        QCOMPARE(panel->segmentsModel().rowCount(), segments);
        maybeScreenshot(window, "segdia.png");
    }

    void denseRegionsAreDrawnAndTheEncodingExportsAndReadsBack() {
        ShownWindow fixture(m_dir.filePath(QStringLiteral("b.ini")), QSize(1500, 950));
        gui::MainWindow& window = fixture.window;
        const QString path = sharedMatrix("pushpull.mtx");
        auto* panel = openInPanel<widgets::HybridPanel>(window, path);
        QVERIFY(panel);
        QVERIFY(modelsPassAndDetectionShows(*panel));
        const app::HybridDetectionResult& result = panel->result();
        QVERIFY(result.hybrid);
        QCOMPARE(window.spyView()->overlays().size(), result.regions.size());
        QCOMPARE(panel->regionsModel().rowCount(), result.regions.size());
        QVERIFY(panel->exportAction()->isEnabled());
        maybeScreenshot(window, "hybrid.png");
        window.tabs()->setCurrentIndex(0);
        maybeScreenshot(window, "hybrid-overlay.png");

        // Exports run off the GUI thread: one at a time, the outcome by signal.
        QSignalSpy exported(panel, &widgets::HybridPanel::exportFinished);
        QSignalSpy exportFailed(panel, &widgets::HybridPanel::exportFailed);
        const QString container = m_dir.filePath(QStringLiteral("pushpull.spy"));
        QVERIFY(panel->exportContainer(container));
        QVERIFY(panel->isExporting());
        QVERIFY(!panel->exportRegionsJson(m_dir.filePath(QStringLiteral("second.json"))));  // one at a time
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("second.json"))));
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 30000);
        QCOMPARE(exported.first().first().toString(), container);
        const BinaryPattern expected = binaryPatternFromMatrix(readMatrixMarket(path.toStdString()));
        QVERIFY(decodeHybrid(readHybridContainer(container.toStdString())) == expected);

        const QString json = m_dir.filePath(QStringLiteral("pushpull.json"));
        QTRY_VERIFY(!panel->isExporting());
        QVERIFY(panel->exportRegionsJson(json));
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 2, 30000);
        QFile file(json);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QJsonObject doc = QJsonDocument::fromJson(file.readAll()).object();
        QCOMPARE(doc.value(QStringLiteral("regions")).toArray().size(), static_cast<int>(result.hybrid->blocks.size()));

        // A failed export names the path and keeps the panel usable.
        QVERIFY(panel->exportContainer(m_dir.filePath(QStringLiteral("missing-folder/x.spy"))));
        QTRY_COMPARE_WITH_TIMEOUT(exportFailed.count(), 1, 30000);
        QVERIFY(exportFailed.first().at(1).toString().contains(QStringLiteral("missing-folder")));
        QVERIFY(panel->statusText().contains(QStringLiteral("missing-folder")));
        QVERIFY(panel->exportAction()->isEnabled());
        QCOMPARE(exported.count(), 2);
    }

    // A matrix with real values takes the valued hybrid form: detection runs on its pattern, the
    // encoding holds values, and the container reads back to the matrix.
    void denseRegionPanelEncodesAValuedMatrix() {
        ShownWindow fixture(m_dir.filePath(QStringLiteral("c.ini")));
        gui::MainWindow& window = fixture.window;
        auto* panel = openInPanel<widgets::HybridPanel>(window, app::sampleMatrixPath());
        QVERIFY(panel);
        QVERIFY(modelsPassAndDetectionShows(*panel));
        const app::HybridDetectionResult& result = panel->result();
        QVERIFY(result.valued);
        QVERIFY(!result.hybrid);
        QVERIFY(!result.csrFallback);
        QVERIFY(result.regions.size() >= 3);  // the sample's rectangle, triangle and band at least
        QCOMPARE(window.spyView()->overlays().size(), result.regions.size());
        QVERIFY(result.hybridBytes < result.csrBytes);
        QVERIFY(panel->sampleHint()->isHidden());  // the empty state gives way to the result
        QSignalSpy exported(panel, &widgets::HybridPanel::exportFinished);
        const QString container = m_dir.filePath(QStringLiteral("sample.spy"));
        QVERIFY(panel->exportContainer(container));
        QTRY_COMPARE_WITH_TIMEOUT(exported.count(), 1, 30000);
        const Matrix back = readContainerMatrix(container.toStdString());
        const CsrMatrix<double> original = toCsr<double>(readMatrixMarket(app::sampleMatrixPath().toStdString()));
        const CsrMatrix<double> decoded = toCsr<double>(back);
        QCOMPARE(decoded.colIndex, original.colIndex);  // the sample stores no zeros: exactly the same
        QCOMPARE(decoded.values, original.values);

        // The SpMV page runs on the valued encoding too (the CPU here; CUDA and cuSPARSE on a GPU).
        widgets::HybridSpmvView* spmv = panel->spmvView();
        spmv->setBackendChecked(app::HybridSpmvKernel::CpuHybrid, true);
        QVERIFY(runAndWait(spmv, &widgets::HybridSpmvView::resultShown, [spmv] { return spmv->run(); }, 60000));
        QVERIFY(spmv->result().bytes.valued);
        QVERIFY(spmv->result().bytes.denseValues > 0);
        const app::HybridSpmvRun& cpu = spmv->result().runs.first();
        QCOMPARE(cpu.backend, app::HybridSpmvKernel::CpuHybrid);
        QVERIFY2(cpu.matches, qPrintable(QString::number(cpu.errorOverBound)));
        QCOMPARE(spmv->runsModel().rowCount(), spmv->result().runs.size());
        QVERIFY(spmv->runsModel().index(0, widgets::HybridSpmvRunsModel::Check).data().toString().startsWith(QStringLiteral("within rounding")));
        for (QWidget* w = spmv->parentWidget(); w; w = w->parentWidget())
            if (auto* pages = qobject_cast<QTabWidget*>(w); pages && pages->indexOf(spmv) >= 0) pages->setCurrentWidget(spmv);
        maybeScreenshot(window, "dense-regions-valued-spmv.png");
    }

    // Before a run each tab says what it does; where the open matrix does not suit it (none open, not
    // banded) it names the sample that does, and its button opens that sample.
    void emptyStatesNameTheirSampleAndOpenIt() {
        ShownWindow fixture(m_dir.filePath(QStringLiteral("d.ini")));
        gui::MainWindow& window = fixture.window;
        auto* hybrid = findPanel<widgets::HybridPanel>(window);
        auto* segdia = findPanel<widgets::SegmentedDiaPanel>(window);
        auto* bitflag = findPanel<widgets::BitFlagPanel>(window);
        QVERIFY(hybrid && segdia && bitflag);
        QCOMPARE(hybrid->sampleHint()->offeredSample(), QStringLiteral("blocks"));
        QCOMPARE(segdia->sampleHint()->offeredSample(), QStringLiteral("stencil"));
        QCOMPARE(bitflag->sampleHint()->offeredSample(), QStringLiteral("blocks"));
        QVERIFY(hybrid->sampleHint()->text().contains(QStringLiteral("dense regions")));
        QVERIFY(hybrid->sampleHint()->text().contains(app::sampleMatrix(QStringLiteral("blocks")).title));
        QVERIFY(segdia->sampleHint()->text().contains(app::sampleMatrix(QStringLiteral("stencil")).title));
        QVERIFY(bitflag->sampleHint()->text().contains(app::sampleMatrix(QStringLiteral("blocks")).title));

        // The binary sample suits dense regions and bit-flag; it is not banded, so segmented DIA offers
        // the stencil, whose button opens it, after which the offer is gone.
        QVERIFY(openAndWait(window, app::samplePath(QStringLiteral("blocks"))));
        QVERIFY(hybrid->sampleHint()->offeredSample().isEmpty());
        QVERIFY(bitflag->sampleHint()->offeredSample().isEmpty());
        QCOMPARE(segdia->sampleHint()->offeredSample(), QStringLiteral("stencil"));
        QVERIFY(segdia->sampleHint()->text().contains(QStringLiteral("not banded")));
        QSignalSpy changed(&window.context(), &widgets::MainContext::documentChanged);
        segdia->sampleHint()->button()->click();
        QVERIFY(changed.wait(30000));
        QCOMPARE(QFileInfo(window.context().document().path()).fileName(), QStringLiteral("spyglass_stencil.mtx.gz"));
        QVERIFY(segdia->sampleHint()->offeredSample().isEmpty());

        // A run that finds no dense region offers the sample that has them.
        QSignalSpy shown(hybrid, &widgets::HybridPanel::resultShown);
        QVERIFY(openAndWait(window, sharedMatrix("west0479.mtx")));
        hybrid->detect();
        QVERIFY(shown.wait(30000));
        if (hybrid->result().regions.isEmpty()) QCOMPARE(hybrid->sampleHint()->offeredSample(), QStringLiteral("blocks"));
    }

    // File > Open Sample lists every shipped sample with its description, and each one opens.
    void openSampleMenuListsEverySample() {
        ShownWindow fixture(m_dir.filePath(QStringLiteral("e.ini")));
        gui::MainWindow& window = fixture.window;
        auto* menu = window.findChild<QMenu*>(QStringLiteral("openSampleMenu"));
        QVERIFY(menu);
        QCOMPARE(menu->actions().size(), app::sampleMatrices().size());
        for (QAction* action : menu->actions()) {
            const app::SampleMatrix sample = app::sampleMatrix(action->data().toString());
            QVERIFY(!sample.id.isEmpty());
            QCOMPARE(action->toolTip(), sample.description);
            QVERIFY2(!app::samplePath(sample.id).isEmpty(), qPrintable(sample.fileName));
            QSignalSpy changed(&window.context(), &widgets::MainContext::documentChanged);
            action->trigger();
            QVERIFY(changed.wait(30000));
            QCOMPARE(QFileInfo(window.context().document().path()).fileName(), sample.fileName);
        }
    }
};

QTEST_MAIN(TestMethodPanels)
#include "tst_gui_methodpanels.moc"
