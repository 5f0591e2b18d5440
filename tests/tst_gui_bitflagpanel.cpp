// The bit-flag tab inside the real main window, as a user drives it: the strip of a chosen row shows
// exactly the row's entries (and a chosen column's in column-major order), clicking a stored cell
// gives its index into M and value, a non-stored element says so, operations run on the CPU
// reference and pass their checks with the time plotted, and LU of a non-square matrix is refused
// with the shape. Set SPYGLASS_SCREENSHOTS=DIR to save pictures of each step.
#include "bitflag_testing.h"
#include "guitesting.h"
#include "windowsuite.h"
#include "testmatrices.h"
#include "bitflagbytesmodel.h"
#include "bitflagchoicesmodel.h"
#include "bitflagpanel.h"
#include "core/bitflagestimate.h"
#include "bitflagpaneltesting.h"
#include "bitflagrunsmodel.h"
#include "bitflagstripview.h"
#include "bitflagvaluesmodel.h"
#include "gui/mainwindow.h"
#include "timingchart.h"

#include "spyglass/convert.h"
#include "spyglass/matrixmarket.h"

#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

using namespace spyglass;
using namespace guitesting;

namespace {
widgets::BitFlagPanel* openPanel(gui::MainWindow& window, const QString& path) {
    return openAndWait(window, path) ? bitflagpaneltesting::showEncoded(window, 30000) : nullptr;
}

// Every table of the panel, checked by QAbstractItemModelTester.
void testModels(const widgets::BitFlagPanel& panel) {
    testModel(panel.bytesModel());
    testModel(panel.choicesModel());
    testModel(panel.valuesModel());
    testModel(panel.runsModel());
}

QVector<Index> columnsOfRow(const CsrMatrix<double>& m, Index i) {
    QVector<Index> cols;
    for (Count k = m.rowPtr[i]; k < m.rowPtr[i + 1]; ++k) cols << m.colIndex[std::size_t(k)];
    return cols;
}
} // namespace

class TestBitFlagPanel : public guitesting::WindowSuite {
    Q_OBJECT

public:
    TestBitFlagPanel() : WindowSuite(QSize(1600, 1000)) {}

private slots:
    void stripShowsTheChosenRowAndClickingGivesTheLookupPath() {
        const QString path = sharedMatrix("west0479.mtx");
        widgets::BitFlagPanel* panel = openPanel(window(), path);
        QVERIFY(panel);
        testModels(*panel);
        const CsrMatrix<double> csr = bitflag_testing::withoutZeros(toCsr<double>(readMatrixMarket(path.toStdString())));
        widgets::BitFlagStripView* strip = panel->strip();

        // The row whose last entry lies furthest right: its lookup counts bits in earlier words.
        Index row = 0;
        for (Index i = 0; i < csr.rows; ++i)
            if (csr.rowPtr[i + 1] > csr.rowPtr[i] + 2 &&
                (csr.rowPtr[row + 1] == csr.rowPtr[row] || csr.colIndex[std::size_t(csr.rowPtr[i + 1] - 1)] > csr.colIndex[std::size_t(csr.rowPtr[row + 1] - 1)]))
                row = i;
        auto* lineSpin = panel->findChild<QSpinBox*>(QStringLiteral("bitFlagLine"));
        QVERIFY(lineSpin);
        lineSpin->setValue(row);
        QCOMPARE(panel->shownLine(), row);
        const QVector<Index> expected = columnsOfRow(csr, row);
        QCOMPARE(strip->setPositions(), expected);
        for (Index j = 0; j < csr.cols; ++j) QCOMPARE(strip->isSetAt(j), expected.contains(j));
        QCOMPARE(strip->wordsShown(), (479 + 63) / 64);
        auto* values = panel->findChild<QTableView*>(QStringLiteral("bitFlagValues"));
        QCOMPARE(values->model(), &panel->valuesModel());
        QCOMPARE(values->model()->rowCount(), expected.size());
        QCOMPARE(values->model()->index(0, 2).data().toString(), QString::number(csr.values[std::size_t(csr.rowPtr[row])], 'g', 8));

        // Click the row's last stored element: index into M = its CSR position (row-major, no zeros).
        const Index j = expected.back();
        QTest::mouseClick(strip, Qt::LeftButton, {}, strip->cellRect(j).center());
        QCOMPARE(strip->selectedPosition(), std::optional<Index>(j));
        const Count k = csr.rowPtr[row + 1] - 1;
        const QString text = panel->lookupText();
        QVERIFY2(text.contains(QStringLiteral("P[%1] = %2").arg(row).arg(csr.rowPtr[row])), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("M[%1] = %2").arg(k).arg(csr.values[std::size_t(k)], 0, 'g', 10)), qPrintable(text));
        QVERIFY2(text.contains(QStringLiteral("popcount of words 0..")), qPrintable(text));
        QCOMPARE(values->currentIndex().row(), expected.size() - 1);
        maybeScreenshot(window(), "bitflag-lookup.png");

        // A non-stored element of another row, through the spin boxes: the strip follows.
        const Index other = row == 0 ? 1 : 0;
        Index empty = 0;
        while (columnsOfRow(csr, other).contains(empty)) ++empty;
        QVERIFY(setSpinBoxes(*panel, {{"bitFlagLookupRow", other}, {"bitFlagLookupCol", empty}}));
        QTest::mouseClick(panel->findChild<QPushButton*>(QStringLiteral("bitFlagLookupButton")), Qt::LeftButton);
        QCOMPARE(panel->shownLine(), other);
        QVERIFY2(panel->lookupText().contains(QLatin1String("not stored")), qPrintable(panel->lookupText()));
        QVERIFY(!strip->isSetAt(empty));

        // Column-major with prefix counts: the strip of column c holds the rows of its entries.
        QSignalSpy shown(panel, &widgets::BitFlagPanel::layoutShown);
        panel->setOrder(BitFlagOrder::ColumnMajor);
        QVERIFY(shown.wait(30000));
        panel->setPrefixCounts(true);
        QVERIFY(shown.wait(30000));
        QVERIFY(panel->layout().format->order == BitFlagOrder::ColumnMajor);
        QVERIFY(panel->layout().format->withPrefixCounts);
        const Index col = csr.colIndex[std::size_t(csr.rowPtr[row + 1] - 1)];
        lineSpin->setValue(col);
        QVector<Index> rowsOfColumn;
        for (Index i = 0; i < csr.rows; ++i)
            if (columnsOfRow(csr, i).contains(col)) rowsOfColumn << i;
        QCOMPARE(strip->setPositions(), rowsOfColumn);
        QTest::mouseClick(strip, Qt::LeftButton, {}, strip->cellRect(rowsOfColumn.back()).center());
        QVERIFY2(panel->lookupText().contains(QLatin1String("Prefix count of word")), qPrintable(panel->lookupText()));
        maybeScreenshot(window(), "bitflag-colmajor.png");
    }

    void operationsRunOnTheCpuReferenceAndPassTheirChecks() {
        widgets::BitFlagPanel* panel = openPanel(window(), sharedMatrix("bcsstk02.mtx"));
        QVERIFY(panel);
        testModels(*panel);
        // bcsstk02 is 100 % dense: the bit flags beat CSR by a wide margin.
        QVERIFY2(panel->bytesText().contains(QLatin1String("bit-flag form wins")), qPrintable(panel->bytesText()));
        auto* chart = panel->findChild<widgets::TimingChart*>();
        auto* runs = panel->findChild<QTableView*>(QStringLiteral("bitFlagRuns"));
        QVERIFY(chart && runs);
        for (app::BitFlagOp op : {app::BitFlagOp::Add, app::BitFlagOp::Multiply, app::BitFlagOp::Lu}) {
            QVERIFY(bitflagpaneltesting::runOperation(*panel, op, 60000));
            const app::BitFlagOpResult& result = panel->operationResult();
            QVERIFY(result.op == op);
            QVERIFY2(result.allAgree(), qPrintable(result.runs.front().problem + result.runs.front().error));
            QCOMPARE(runs->model()->rowCount(), result.runs.size());
            QCOMPARE(runs->model()->index(0, 1).data().toString(), QStringLiteral("agrees"));
            int ran = 0;
            for (const app::BitFlagOpRun& run : result.runs) ran += run.error.isEmpty() ? 1 : 0;
            QCOMPARE(chart->timings().size(), ran);
            QCOMPARE(chart->timings().front().first, QStringLiteral("CPU reference (bit-flag)"));
        }
        maybeScreenshot(window(), "bitflag-ops.png");
    }

    void openingAnotherMatrixShowsItsLayoutNotTheOldOne() {
        widgets::BitFlagPanel* panel = openPanel(window(), sharedMatrix("west0479.mtx"));
        QVERIFY(panel);
        QCOMPARE(panel->layout().format->rows, 479);
        QSignalSpy loaded(&window().loader(), &app::MatrixLoader::loadFinished);
        QSignalSpy shown(panel, &widgets::BitFlagPanel::layoutShown);
        panel->setOperation(app::BitFlagOp::Multiply);
        panel->runOperation();  // still running when the next file arrives, or just finished: either way
        window().openFile(sharedMatrix("bcsstk02.mtx"));
        QVERIFY(loaded.wait(30000));
        QTRY_VERIFY_WITH_TIMEOUT(panel->layout().format && panel->layout().format->rows == 66, 30000);
        QVERIFY(panel->operationResult().runs.isEmpty());  // the old product is not shown for the new matrix
        QCOMPARE(panel->strip()->wordsShown(), 2);
    }

    void aLongMultiplyIsAnnouncedWithItsEstimateBeforeRun() {
        // bcsstk13: 2003 x 2003, 32 flag words a line: 1.28e8 word steps, seconds on the CPU reference.
        widgets::BitFlagPanel* panel = openPanel(window(), sharedMatrix("bcsstk13.mtx"));
        QVERIFY(panel);
        panel->setOperation(app::BitFlagOp::Add);
        QVERIFY(panel->estimateText().isEmpty());
        panel->setOperation(app::BitFlagOp::Multiply);
        const QString estimate = panel->estimateText();
        const double seconds = app::estimateMultiplySeconds(2003, 2003, 2003);
        QVERIFY(seconds >= app::kLongWorkSeconds);
        QVERIFY2(estimate.contains(QStringLiteral("about %1 s").arg(seconds, 0, 'f', 0)) && estimate.contains(QStringLiteral("Cancel")),
                 qPrintable(estimate));
        // A small matrix's multiply is quick: no warning.
        panel = openPanel(window(), sharedMatrix("bcsstk02.mtx"));
        panel->setOperation(app::BitFlagOp::Multiply);
        QVERIFY(panel->estimateText().isEmpty());
    }

    void luOfANonSquareMatrixIsRefusedWithItsShape() {
        widgets::BitFlagPanel* panel = openPanel(window(), sharedMatrix("lp_afiro.mtx"));
        QVERIFY(panel);
        QSignalSpy failed(panel, &widgets::BitFlagPanel::failureShown);
        panel->setOperation(app::BitFlagOp::Lu);
        panel->runOperation();
        QVERIFY(failed.wait(30000));
        QVERIFY2(panel->statusText().contains(QLatin1String("square")) && panel->statusText().contains(QStringLiteral("27 × 51")),
                 qPrintable(panel->statusText()));
    }
};

QTEST_MAIN(TestBitFlagPanel)
#include "tst_gui_bitflagpanel.moc"
#include "moc_windowsuite.cpp"
