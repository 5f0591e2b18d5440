// The window on a 1366 x 768 laptop screen, as a new user goes through it: on each bundled sample,
// each tab's main action (clicked, as a user would) and then:
// - the window stays within 1366 x 768 (and a freshly opened one within the screen it is on);
// - every table header and cell of the tab is shown in full, or elided with its full text as tooltip;
// - the tab bar stays in view and the page does not scroll away from where the user clicked Run;
// - opening another matrix leaves no tab showing the previous matrix's results;
// - the same matrix gives the same bytes in the Segmented DIA, Bit-flag and Compare formats tabs.
// SPYGLASS_SCREENSHOT_DIR: a screenshot of every tab after its run (1366 x 768) for docs/gui.md.
#include "guitesting.h"
#include "bitflagpaneltesting.h"

#include "batchedinversepanel.h"
#include "batchedsvdpanel.h"
#include "bitflagpanel.h"
#include "columnfitter.h"
#include "core/samples.h"
#include "formatcomparisonmodel.h"
#include "formatcomparisonpanel.h"
#include "maincontext.h"
#include "hybridpanel.h"
#include "scalepanel.h"
#include "segdiapanel.h"
#include "segdiasegmentsmodel.h"
#include "spyview.h"

#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QTabBar>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace spyglass;
using namespace guitesting;

namespace {
// SPYGLASS_TEST_SCREEN=1920x1080 runs the same checks (and screenshots) on a larger screen.
QSize testScreen() {
    const QList<QByteArray> wh = qgetenv("SPYGLASS_TEST_SCREEN").split('x');
    if (wh.size() == 2 && wh[0].toInt() > 0 && wh[1].toInt() > 0) return QSize(wh[0].toInt(), wh[1].toInt());
    return QSize(1366, 768);
}
const QSize kScreen = testScreen();

QPushButton* button(QWidget& panel, const QString& text) {
    for (QPushButton* b : panel.findChildren<QPushButton*>())
        if (b->text() == text && b->isVisibleTo(&panel)) return b;
    return nullptr;
}

// Every visible table of the panel: each heading and each cell of the first 200 rows fits its
// column, or the view gives its full text as tooltip. Returns what does not, empty when all do.
QString clippedText(QWidget& panel) {
    QCoreApplication::processEvents();  // the column fitter runs after the model's signals
    QStringList problems;
    for (QTableView* table : panel.findChildren<QTableView*>()) {
        if (!table->isVisible() || !table->model()) continue;
        const QAbstractItemModel* model = table->model();
        for (int c = 0; c < model->columnCount(); ++c) {
            if (table->isColumnHidden(c)) continue;
            const int width = table->columnWidth(c);
            if (widgets::ColumnFitter::neededHeadingWidth(table, c) > width && widgets::ColumnFitter::headingToolTip(table, c).isEmpty())
                problems << QStringLiteral("%1: heading \"%2\" clipped").arg(table->objectName(), model->headerData(c, Qt::Horizontal).toString());
            for (int r = 0; r < std::min(model->rowCount(), 200); ++r) {
                const QModelIndex index = model->index(r, c);
                if (widgets::ColumnFitter::neededWidth(table, index) > width && widgets::ColumnFitter::toolTip(table, index).isEmpty())
                    problems << QStringLiteral("%1: cell (%2, %3) \"%4\" clipped without tooltip")
                                    .arg(table->objectName()).arg(r).arg(c).arg(index.data().toString());
            }
        }
    }
    return problems.join(QLatin1Char('\n'));
}
} // namespace

class TestGuiScreen1366 : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<ShownWindow> m_shown;
    gui::MainWindow& window() { return m_shown->window; }

    QScrollArea* page() { return qobject_cast<QScrollArea*>(window().tabs()->currentWidget()); }

    // Clicks `run` as a user would (it has the focus, the page scrolled to it) and waits for done;
    // then the window is within the screen, the tab bar in view, the page where it was, and every
    // table's text shown or elided with a tooltip.
    template <typename Panel, typename Signal>
    void clickAndCheck(Panel* panel, const QString& text, Signal done, const char* shot) {
        QPushButton* run = button(*panel, text);
        QVERIFY2(run, qPrintable(text));
        QScrollArea* scroll = page();
        QVERIFY(scroll);
        scroll->ensureWidgetVisible(run);
        run->setFocus();
        QCoreApplication::processEvents();
        const int before = scroll->verticalScrollBar()->value();
        QSignalSpy finished(panel, done);
        QTest::mouseClick(run, Qt::LeftButton);
        QVERIFY2(finished.count() > 0 || finished.wait(120000), qPrintable(text));
        QCoreApplication::processEvents();
        // (The offscreen platform adds no real frame; the window's size is what it asked for.)
        QVERIFY2(window().width() <= kScreen.width() && window().height() <= kScreen.height() &&
                     window().minimumSizeHint().width() <= kScreen.width() && window().minimumSizeHint().height() <= kScreen.height(),
                 qPrintable(QStringLiteral("%1: window %2 x %3").arg(text).arg(window().width()).arg(window().height())));
        QCOMPARE(scroll->verticalScrollBar()->value(), before);
        QTabBar* bar = window().tabs()->tabBar();
        QVERIFY(bar->isVisible() && bar->visibleRegion().boundingRect().height() == bar->height());
        const QString clipped = clippedText(*panel);
        QVERIFY2(clipped.isEmpty(), qPrintable(clipped));
        maybeScreenshot(window(), shot);
    }

private slots:
    void initTestCase() {
        if (app::samplePath(QStringLiteral("valued")).isEmpty()) QSKIP("the samples are not installed");
        QVERIFY(waitForDeviceInfo());
    }

    void aNewWindowOpensWithinTheScreen() {
        ShownWindow fresh(m_dir.filePath(QStringLiteral("fresh.ini")));  // no size: the window's own choice
        QVERIFY(QTest::qWaitForWindowExposed(&fresh.window));
        const QRect screen = fresh.window.screen()->availableGeometry();
        QVERIFY2(fresh.window.frameGeometry().width() <= screen.width() && fresh.window.frameGeometry().height() <= screen.height(),
                 qPrintable(QStringLiteral("window %1 x %2 on a %3 x %4 screen").arg(fresh.window.width()).arg(fresh.window.height())
                                .arg(screen.width()).arg(screen.height())));
        // Its minimum fits a 1366 x 768 screen too.
        QVERIFY(fresh.window.minimumSizeHint().width() <= kScreen.width() && fresh.window.minimumSizeHint().height() <= kScreen.height());
    }

    void everyTabsMainActionOnEverySample_data() {
        QTest::addColumn<QString>("sample");
        for (const app::SampleMatrix& sample : app::sampleMatrices()) QTest::newRow(qPrintable(sample.id)) << sample.id;
    }

    void everyTabsMainActionOnEverySample() {
        QFETCH(QString, sample);
        m_shown = std::make_unique<ShownWindow>(m_dir.filePath(sample + QStringLiteral(".ini")), kScreen);
        QVERIFY(QTest::qWaitForWindowExposed(&window()));
        QVERIFY(openAndWait(window(), app::samplePath(sample)));
        const QByteArray prefix = sample.toLatin1() + '-' + QByteArray::number(kScreen.width()) + '-';

        QVERIFY(window().spyView()->viewport().isFitted());
        auto* bitflag = bitflagpaneltesting::showEncoded(window(), 60000);
        QVERIFY(bitflag);
        clickAndCheck(bitflag, QStringLiteral("Run"), &widgets::BitFlagPanel::operationShown, prefix + "bitflag.png");
        if (QTest::currentTestFailed()) return;

        auto* segdia = findPanel<widgets::SegmentedDiaPanel>(window());
        clickAndCheck(segdia, QStringLiteral("Run SpMV"), &widgets::SegmentedDiaPanel::layoutShown, prefix + "segdia.png");
        if (QTest::currentTestFailed()) return;
        // Building the layout does not zoom the picture by itself.
        QVERIFY(window().spyView()->viewport().isFitted());

        auto* hybrid = findPanel<widgets::HybridPanel>(window());
        clickAndCheck(hybrid, QStringLiteral("Detect dense regions"), &widgets::HybridPanel::resultShown, prefix + "regions.png");
        if (QTest::currentTestFailed()) return;

        auto* svd = findPanel<widgets::BatchedSvdPanel>(window());
        QVERIFY(setSpinBoxes(*svd, {{"batch", 200}}));
        clickAndCheck(svd, QStringLiteral("Decompose"), &widgets::BatchedSvdPanel::allRunsFinished, prefix + "svd.png");
        if (QTest::currentTestFailed()) return;

        auto* inverse = findPanel<widgets::BatchedInversePanel>(window());
        QVERIFY(setSpinBoxes(*inverse, {{"batch", 2000}}));
        clickAndCheck(inverse, QStringLiteral("Invert"), &widgets::BatchedInversePanel::allRunsFinished, prefix + "inverse.png");
        if (QTest::currentTestFailed()) return;

        auto* compare = findPanel<widgets::FormatComparisonPanel>(window());
        clickAndCheck(compare, QStringLiteral("Compare formats"), &widgets::FormatComparisonPanel::comparisonShown, prefix + "compare.png");
        if (QTest::currentTestFailed()) return;

        auto* scale = findPanel<widgets::ScalePanel>(window());
        auto* partitions = scale->findChild<QTableView*>();
        QVERIFY(partitions);
        QVERIFY(partitions->model()->rowCount() > 0 || QSignalSpy(scale, &widgets::ScalePanel::planShown).wait(30000));
        QVERIFY2(clippedText(*scale).isEmpty(), qPrintable(clippedText(*scale)));
        maybeScreenshot(window(), prefix + "scale.png");
        window().tabs()->setCurrentIndex(0);
        maybeScreenshot(window(), prefix + "statistics.png");

        // Another matrix: no tab keeps the results of this one.
        const QString other = app::samplePath(sample == QLatin1String("stencil") ? QStringLiteral("blocks") : QStringLiteral("stencil"));
        QVERIFY(openAndWait(window(), other));
        QCOMPARE(segdia->layout().format, nullptr);
        QCOMPARE(segdia->findChild<QTableView*>(QStringLiteral("segmentArrays"))->model()->rowCount(), 0);
        for (QLabel* label : segdia->findChildren<QLabel*>()) QVERIFY2(!label->text().startsWith(QStringLiteral("Segment 0")), qPrintable(label->text()));
        QVERIFY(hybrid->result().regions.isEmpty());
        QCOMPARE(compare->model().rowCount(), 0);
        QVERIFY(!bitflag->layout().format || bitflag->layout().format->rows == window().context().document().rows());
        QVERIFY(!scale->report().has_value());
    }

    void aRunKeepsAScrolledTabWhereItWas() {
        // A window short enough that the Batched inverse tab scrolls, scrolled down to Invert: when
        // the button is disabled for the run and hands the focus on, the tab stays where it was.
        m_shown = std::make_unique<ShownWindow>(m_dir.filePath(QStringLiteral("short.ini")), QSize(1000, 360));
        QVERIFY(QTest::qWaitForWindowExposed(&window()));
        auto* inverse = findPanel<widgets::BatchedInversePanel>(window());
        QVERIFY(setSpinBoxes(*inverse, {{"batch", 500}}));
        QPushButton* run = button(*inverse, QStringLiteral("Invert"));
        QVERIFY(run);
        QScrollArea* scroll = page();
        QCoreApplication::processEvents();
        scroll->ensureWidgetVisible(run);
        run->setFocus();
        QCoreApplication::processEvents();
        const int before = scroll->verticalScrollBar()->value();
        QVERIFY2(before > 0, "the tab must be scrolled for this check to mean anything");
        QSignalSpy finished(inverse, &widgets::BatchedInversePanel::allRunsFinished);
        QTest::mouseClick(run, Qt::LeftButton);
        QCOMPARE(scroll->verticalScrollBar()->value(), before);  // while it runs
        QVERIFY(finished.count() > 0 || finished.wait(60000));
        QCoreApplication::processEvents();
        QCOMPARE(scroll->verticalScrollBar()->value(), before);  // and with its result
    }

    void theSameBytesInEveryTab() {
        // The valued sample (real values: every format applies). fp64 values everywhere.
        m_shown = std::make_unique<ShownWindow>(m_dir.filePath(QStringLiteral("bytes.ini")), kScreen);
        QVERIFY(QTest::qWaitForWindowExposed(&window()));
        QVERIFY(openAndWait(window(), app::samplePath(QStringLiteral("valued"))));
        auto* compare = findPanel<widgets::FormatComparisonPanel>(window());
        QCOMPARE(compare->findChild<QComboBox*>(QStringLiteral("precision"))->currentText(), QStringLiteral("fp64"));
        QVERIFY(runAndWait(compare, &widgets::FormatComparisonPanel::comparisonShown, [compare] { return compare->compare(); }, 120000));
        auto bytesOf = [compare](SpmvFormat format) -> qint64 {
            for (const FormatRow& row : compare->model().comparison().results)
                if (row.format == format && row.applicable) return qint64(row.bytes);
            return -1;
        };

        auto* segdia = findPanel<widgets::SegmentedDiaPanel>(window());
        QVERIFY(runAndWait(segdia, &widgets::SegmentedDiaPanel::layoutShown, [segdia] { segdia->build(); }, 60000));
        const SegmentedDiaStats& s = segdia->layout().stats;
        QCOMPARE(qint64(s.bytes), bytesOf(SpmvFormat::SegmentedDia));
        const FormatRow* segRow = nullptr;
        for (const FormatRow& row : compare->model().comparison().results)
            if (row.format == SpmvFormat::SegmentedDia) segRow = &row;
        QVERIFY(segRow);
        QVERIFY2(QString::fromStdString(segRow->note).contains(QStringLiteral("remainder %1 nonzeros").arg(s.remainderNonzeros)),
                 segRow->note.c_str());

        auto* bitflag = bitflagpaneltesting::showEncoded(window(), 60000);
        QVERIFY(bitflag);
        QVERIFY(!bitflag->layout().choices.isEmpty());
        QCOMPARE(qint64(bitflag->layout().choices.first().total()), bytesOf(SpmvFormat::BitFlag));

        // Dense regions, with the tab's default parameters (those Compare formats detects with).
        auto* hybrid = findPanel<widgets::HybridPanel>(window());
        QVERIFY(runAndWait(hybrid, &widgets::HybridPanel::resultShown, [hybrid] { hybrid->detect(); }, 60000));
        QCOMPARE(hybrid->result().hybridBytes, bytesOf(SpmvFormat::HybridValued));
    }
};

QTEST_MAIN(TestGuiScreen1366)
#include "tst_gui_screen1366.moc"
