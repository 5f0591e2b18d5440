// The picture as a spy plot, on the binary sample (dense rectangles, triangles, bands and scattered
// ones: the matrix whose region labels used to overlap and whose kept components went undrawn):
// - the regions' labels are placed inside the plot and no two of them intersect;
// - the Detection table and the components picture list every kept component (kept first), the
//   table sorts and hides "too small" rejects, and selecting a row highlights that component's box;
// - the saved PNG has the axes (tick labels left of and above the matrix) and the SVG has the
//   1-based ticks, "nz = N" and the labels;
// - the axes' ticks are 1-based and inside the matrix's extent.
#include "guitesting.h"

#include "core/samples.h"
#include "hybridcomponentsmodel.h"
#include "hybridpanel.h"
#include "spypicturewriter.h"
#include "spyview.h"

#include <QCheckBox>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>

#include <memory>

using namespace spyglass;
using namespace guitesting;

class TestGuiSpyPlot : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    std::unique_ptr<ShownWindow> m_shown;
    widgets::HybridPanel* m_panel = nullptr;

    gui::MainWindow& window() { return m_shown->window; }
    widgets::SpyView& view() { return *window().spyView(); }

private slots:
    void initTestCase() {
        const QString binary = app::samplePath(QStringLiteral("blocks"));
        if (binary.isEmpty()) QSKIP("the binary sample is not installed");
        m_shown = std::make_unique<ShownWindow>(m_dir.filePath(QStringLiteral("s.ini")), QSize(1366, 768));
        QVERIFY(QTest::qWaitForWindowExposed(&window()));
        m_panel = openInPanel<widgets::HybridPanel>(window(), binary);
        QVERIFY(m_panel);
        QVERIFY(runAndWait(m_panel, &widgets::HybridPanel::resultShown, [this] { m_panel->detect(); }, 60000));
        QVERIFY(m_panel->result().regions.size() >= 3);
    }

    void regionLabelsNeverIntersectAndStayInThePlot() {
        m_panel->setLayer(widgets::DetectionLayer::Regions);
        const QList<widgets::SpyOverlay> overlays = view().overlays();
        QCOMPARE(overlays.size(), m_panel->result().regions.size());
        for (double zoom : {1.0, 1.5, 1.0 / 1.5}) {
            view().fitToView();
            if (zoom > 1) view().zoomIn();
            if (zoom < 1) view().zoomOut();
            const QList<widgets::PlacedLabel> labels = view().labelPlacements();
            // Every region of the sample is large enough to carry its label at the fitted view.
            if (zoom == 1.0) QCOMPARE(labels.size(), overlays.size());
            for (int i = 0; i < labels.size(); ++i) {
                QVERIFY(view().viewport().plotRect().contains(labels[i].rect));
                for (int j = i + 1; j < labels.size(); ++j)
                    QVERIFY2(!labels[i].rect.intersects(labels[j].rect),
                             qPrintable(QStringLiteral("\"%1\" and \"%2\" overlap at zoom %3")
                                            .arg(overlays[labels[i].overlay].label, overlays[labels[j].overlay].label)
                                            .arg(zoom)));
            }
        }
        view().fitToView();
        maybeScreenshot(window(), "spyplot-regions-1366.png");
    }

    void everyKeptComponentIsListedAndDrawn() {
        const auto picture = m_panel->result().picture;
        QVERIFY(picture);
        m_panel->setLayer(widgets::DetectionLayer::Components);
        const QList<widgets::SpyOverlay> overlays = view().overlays();
        const double cpp = double(picture->cellsPerPixel);
        int kept = 0;
        for (const ComponentInfo& c : picture->components) {
            if (c.verdict != ComponentVerdict::Kept) continue;
            ++kept;
            const QRectF box(c.x * cpp, c.y * cpp, c.width * cpp, c.height * cpp);
            bool drawn = false;
            for (const widgets::SpyOverlay& o : overlays) drawn |= o.cells() == box && !o.details.isEmpty();
            QVERIFY2(drawn, qPrintable(QStringLiteral("kept component %1 has no box").arg(c.label)));
        }
        QCOMPARE(kept, m_panel->result().regions.size());

        // The table: kept first; "Hide too small" leaves no such row and keeps every kept one.
        auto* table = m_panel->findChild<QTableView*>(QStringLiteral("components"));
        QVERIFY(table);
        const QAbstractItemModel* shown = table->model();
        const QString keptText = QLatin1String(toString(ComponentVerdict::Kept));
        for (int r = 0; r < kept; ++r)
            QCOMPARE(shown->index(r, widgets::HybridComponentsModel::Verdict).data().toString(), keptText);
        auto* hide = m_panel->findChild<QCheckBox*>(QStringLiteral("hideTooSmall"));
        QVERIFY(hide);
        const int before = shown->rowCount();
        hide->setChecked(true);
        int keptShown = 0;
        for (int r = 0; r < shown->rowCount(); ++r) {
            const QString verdict = shown->index(r, widgets::HybridComponentsModel::Verdict).data().toString();
            QVERIFY(verdict != QLatin1String(toString(ComponentVerdict::TooSmall)));
            keptShown += verdict == keptText;
        }
        QCOMPARE(keptShown, kept);
        QVERIFY(shown->rowCount() <= before);
        // Sorted by pixels, largest first, as numbers (not as text: "9" after "10").
        table->sortByColumn(widgets::HybridComponentsModel::Pixels, Qt::DescendingOrder);
        for (int r = 1; r < shown->rowCount(); ++r)
            QVERIFY(shown->index(r - 1, widgets::HybridComponentsModel::Pixels).data().toLongLong() >=
                    shown->index(r, widgets::HybridComponentsModel::Pixels).data().toLongLong());
        // Selecting a sorted row highlights that component's own box.
        const int row = std::min(2, shown->rowCount() - 1);
        table->setCurrentIndex(shown->index(row, 0));
        const int label = shown->index(row, widgets::HybridComponentsModel::Label).data().toInt();
        const int highlighted = view().highlightedOverlay();
        maybeScreenshot(window(), "spyplot-components-1366.png");
        QVERIFY(highlighted >= 0);
        QVERIFY2(view().overlays().at(highlighted).label.startsWith(QString::number(label) + QLatin1Char(' ')),
                 qPrintable(view().overlays().at(highlighted).label));
        hide->setChecked(false);
        m_panel->setLayer(widgets::DetectionLayer::Regions);
    }

    void ticksAreOneBasedWithinTheMatrix() {
        view().fitToView();
        for (bool columns : {true, false}) {
            const QList<widgets::AxisTick> ticks = view().ticks(columns);
            QVERIFY(ticks.size() >= 3);
            const int n = columns ? view().document().cols() : view().document().rows();
            QCOMPARE(ticks.first().value, qint64(1));
            for (const widgets::AxisTick& t : ticks) {
                QVERIFY(t.value >= 1 && t.value <= n);
                // At the centre of cell value - 1.
                const QPointF centre = view().viewport().matrixToWidget(QPointF(t.value - 0.5, t.value - 0.5));
                QCOMPARE(t.pixel, columns ? centre.x() : centre.y());
            }
        }
        QCOMPARE(view().nonzerosText(), QStringLiteral("nz = %1").arg(QLocale(QLocale::English).toString(qint64(view().document().stats().nnz))));
    }

    void savedPngAndSvgHaveTheAxes() {
        m_panel->setLayer(widgets::DetectionLayer::Regions);
        view().fitToView();
        QTest::qWait(200);
        const QString png = m_dir.filePath(QStringLiteral("picture.png")), svg = m_dir.filePath(QStringLiteral("picture.svg"));
        QString error;
        QVERIFY2(view().savePicture(png, &error), qPrintable(error));
        QVERIFY2(view().savePicture(svg, &error), qPrintable(error));
        QVERIFY(!view().savePicture(m_dir.filePath(QStringLiteral("picture.bmp")), &error));

        // PNG: the view's pixels; dark tick-label text left of the matrix and above it.
        const QImage image(png);
        QCOMPARE(image.size(), view().size() * view().devicePixelRatioF());
        const QRectF matrix = view().viewport().matrixRectInWidget();
        auto darkPixels = [&image](const QRectF& area) {
            int dark = 0;
            for (int y = int(area.top()); y < int(area.bottom()); ++y)
                for (int x = int(area.left()); x < int(area.right()); ++x) dark += qGray(image.pixel(x, y)) < 120;
            return dark;
        };
        QVERIFY(darkPixels(QRectF(0, matrix.top(), matrix.left() - 2, matrix.height())) > 50);   // row numbers
        QVERIFY(darkPixels(QRectF(matrix.left(), 0, matrix.width(), matrix.top() - 2)) > 50);    // column numbers

        // SVG: well-formed, with every tick of both axes, nz and the labels.
        QFile file(svg);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QXmlStreamReader xml(&file);
        QStringList columnTicks, rowTicks, texts;
        int labelBoxes = 0;
        while (!xml.atEnd()) {
            if (xml.readNext() != QXmlStreamReader::StartElement) continue;
            const QString cls = xml.attributes().value(QStringLiteral("class")).toString();
            if (xml.name() == QLatin1String("rect") && cls == QLatin1String("label")) ++labelBoxes;
            if (xml.name() != QLatin1String("text")) continue;
            const QString text = xml.readElementText();
            texts << text;
            if (cls == QLatin1String("column-tick")) columnTicks << text;
            if (cls == QLatin1String("row-tick")) rowTicks << text;
        }
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
        auto expected = [](const QList<widgets::AxisTick>& ticks) {
            QStringList out;
            for (const widgets::AxisTick& t : ticks) out << QLocale(QLocale::English).toString(t.value);
            return out;
        };
        QCOMPARE(columnTicks, expected(view().ticks(true)));
        QCOMPARE(rowTicks, expected(view().ticks(false)));
        QVERIFY(columnTicks.contains(QStringLiteral("1")));
        QVERIFY(texts.contains(view().nonzerosText()));
        QCOMPARE(labelBoxes, view().labelPlacements().size());
    }
};

QTEST_MAIN(TestGuiSpyPlot)
#include "tst_gui_spyplot.moc"
