// The spy view draws every overlay shape exactly: hand-made matrices holding one shape each (a
// rectangle, a triangle of each of the four corners, square and not, bands with off-centre lower
// and upper offsets) are drawn over a blank picture, and the pixel at the centre of EVERY cell of
// the matrix is tinted exactly when the cell is one of the shape's (so each edge is probed from
// inside and outside), at the fitted zoom and zoomed in about an edge. Membership is written out
// here by hand for each shape, independent of the drawing code; the non-square triangles are
// checked against DenseRegion::span (what the encoder stores). Hovering a cell of the shape
// names its details; a highlighted overlay is drawn stronger; bringIntoView centres a region.
#include "core/matrixdocument.h"
#include "overlaygeometry.h"
#include "spyview.h"

#include "spyglass/hybrid_regions.h"
#include "spyglass/stats.h"

#include <QApplication>
#include <QtTest>

#include <functional>

using namespace spyglass;
using namespace spyglass::widgets;

namespace {
using Membership = std::function<bool(int row, int col)>;

app::MatrixDocument documentWith(int rows, int cols, const Membership& inside) {
    Matrix m;
    m.rows = rows;
    m.cols = cols;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c)
            if (inside(r, c)) {
                m.rowIndex.push_back(r);
                m.colIndex.push_back(c);
                m.real.push_back(1.0);
            }
    auto shared = std::make_shared<const Matrix>(std::move(m));
    return app::MatrixDocument(QStringLiteral("shape.mtx"), shared, computeStats(*shared),
                               std::make_shared<const app::MatrixEntryIndex>(shared));
}

// Blue over white at alpha 45 is (210, 210, 255); white stays white.
bool tinted(const QImage& image, const QPointF& at) {
    const QColor c = image.pixelColor(at.toPoint());
    return c.blue() - c.red() > 20;
}

// Every cell centre visible in the view: tinted exactly when inside. Returns the number probed.
int probeEveryCell(SpyView& view, int rows, int cols, const Membership& inside, QString& failure) {
    const QImage image = view.grab().toImage();
    int probed = 0;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const QPointF centre = view.viewport().matrixToWidget(QPointF(c + 0.5, r + 0.5));
            // Cells under the axes (outside the plot area) are not drawn: the plot is clipped to its area.
            if (!view.viewport().plotRect().adjusted(1, 1, -1, -1).contains(centre)) continue;
            ++probed;
            if (tinted(image, centre) != inside(r, c)) {
                failure = QStringLiteral("cell (row %1, col %2) should be %3").arg(r).arg(c).arg(inside(r, c) ? "inside" : "outside");
                return probed;
            }
        }
    return probed;
}

struct Case {
    SpyOverlay overlay;
    Membership inside;
};
} // namespace

Q_DECLARE_METATYPE(Case)

class TestOverlays : public QObject {
    Q_OBJECT
private slots:
    void everyCellIsDrawnExactlyWhenItIsTheShapes_data() {
        QTest::addColumn<Case>("shape");
        const int r0 = 4, c0 = 6;  // the box starts away from the matrix edge, so outside is probed on every side
        auto box = [&](int h, int w) {
            DenseRegion region;
            region.rowBegin = r0, region.rowEnd = r0 + h, region.colBegin = c0, region.colEnd = c0 + w;
            return region;
        };
        auto inBox = [=](int r, int c, int h, int w) { return r >= r0 && r < r0 + h && c >= c0 && c < c0 + w; };
        const QColor blue(0, 0, 255);
        auto overlay = [&](RegionShape shape, DenseRegion cells) {
            SpyOverlay o;
            o.region = cells;
            o.region.shape = shape;
            o.color = blue;
            o.details = QStringLiteral("details");
            return o;
        };
        {
            SpyOverlay o = overlay(RegionShape::Rectangle, box(9, 13));
            QTest::newRow("rectangle 9x13") << Case{o, [=](int r, int c) { return inBox(r, c, 9, 13); }};
        }
        const int n = 10;
        const struct {
            const char* name;
            TriangleCorner corner;
            std::function<bool(int i, int j)> rule;  // local row i, local col j of a square triangle
        } corners[] = {
            {"lower-left square (lower triangle)", TriangleCorner::LowerLeft, [](int i, int j) { return j <= i; }},
            {"upper-right square (upper triangle)", TriangleCorner::UpperRight, [](int i, int j) { return j >= i; }},
            {"upper-left square (anti-triangle)", TriangleCorner::UpperLeft, [](int i, int j) { return i + j <= n - 1; }},
            {"lower-right square (anti-triangle)", TriangleCorner::LowerRight, [](int i, int j) { return i + j >= n - 1; }},
        };
        for (const auto& t : corners) {
            SpyOverlay o = overlay(RegionShape::Triangle, box(n, n));
            o.region.corner = t.corner;
            auto rule = t.rule;
            QTest::newRow(t.name) << Case{o, [=](int r, int c) { return inBox(r, c, n, n) && rule(r - r0, c - c0); }};
        }
        // Non-square triangles: the encoder's rounding (DenseRegion::span) decides.
        for (int corner = 0; corner < 4; ++corner) {
            SpyOverlay o = overlay(RegionShape::Triangle, box(7, 15));
            o.region.corner = static_cast<TriangleCorner>(corner);
            DenseRegion region;
            region.shape = RegionShape::Triangle;
            region.corner = static_cast<TriangleCorner>(corner);
            region.rowBegin = r0, region.rowEnd = r0 + 7, region.colBegin = c0, region.colEnd = c0 + 15;
            QTest::addRow("%s 7x15", toString(region.corner)) << Case{o, [=](int r, int c) {
                const ColumnSpan s = region.span(r);
                return c >= s.begin && c < s.end;
            }};
        }
        // Bands by their real offsets: (c - c0) - (r - r0) in [low, high], inside the box.
        const struct { int low, high, h, w; } bands[] = {{2, 5, 12, 14}, {-4, -1, 12, 10}, {-3, 1, 11, 11}, {0, 0, 8, 8}};
        for (const auto& b : bands) {
            SpyOverlay o = overlay(RegionShape::Band, box(b.h, b.w));
            o.region.bandLow = b.low;
            o.region.bandHigh = b.high;
            QTest::addRow("band [%d,%d] in %dx%d", b.low, b.high, b.h, b.w) << Case{o, [=](int r, int c) {
                const int d = (c - c0) - (r - r0);
                return inBox(r, c, b.h, b.w) && d >= b.low && d <= b.high;
            }};
        }
    }
    void everyCellIsDrawnExactlyWhenItIsTheShapes() {
        QFETCH(Case, shape);
        const int rows = 22, cols = 26;
        SpyView view;
        view.resize(440, 400);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setDocument(documentWith(rows, cols, shape.inside));  // no renderer: the picture stays blank
        view.setOverlays({shape.overlay});
        QString failure;
        const int all = probeEveryCell(view, rows, cols, shape.inside, failure);
        QVERIFY2(failure.isEmpty(), qPrintable(QStringLiteral("fitted: ") + failure));
        QCOMPARE(all, rows * cols);

        // Zoomed in about the box's lower-right corner (cells ~60 px), then panned partly away.
        view.bringIntoView(QRectF(shape.overlay.cells().bottomRight() - QPointF(3, 3), QSizeF(6, 6)), 1.0);
        QVERIFY(view.viewport().scale() > 50);
        const int probed = probeEveryCell(view, rows, cols, shape.inside, failure);
        QVERIFY2(failure.isEmpty(), qPrintable(QStringLiteral("zoomed: ") + failure));
        QVERIFY(probed >= 16 && probed < rows * cols);

        // The hover tooltip names the shape on its cells only.
        view.fitToView();
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                const QPointF centre = view.viewport().matrixToWidget(QPointF(c + 0.5, r + 0.5));
                QCOMPARE(view.toolTipAt(centre).isEmpty(), !shape.inside(r, c));
            }
    }

    void aHighlightedOverlayIsDrawnStrongerAndBroughtIntoView() {
        const int rows = 400, cols = 400;
        SpyView view;
        view.resize(420, 420);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setDocument(documentWith(rows, cols, [](int, int) { return false; }));
        SpyOverlay small = rectangleOverlay(20, 25, 300, 308);
        small.color = QColor(0, 0, 255);
        view.setOverlays({small});
        const QPointF centre = view.viewport().matrixToWidget(small.cells().center());
        const QColor plain = view.grab().toImage().pixelColor(centre.toPoint());
        view.setHighlightedOverlay(0);
        QCOMPARE(view.highlightedOverlay(), 0);
        const QColor strong = view.grab().toImage().pixelColor(centre.toPoint());
        QVERIFY2(strong.red() < plain.red() - 20, "the highlighted overlay's fill is stronger");
        view.bringIntoView(small.cells());
        const QRectF shown = view.viewport().matrixToWidget(small.cells());
        // In the middle of the plot area (the widget less the axes' margins).
        const QRectF plot = view.viewport().plotRect();
        QVERIFY(plot.contains(shown));
        QVERIFY(std::abs(shown.center().x() - plot.center().x()) < 1 && std::abs(shown.center().y() - plot.center().y()) < 1);
        QVERIFY(shown.width() > 100);  // a 5x8 region is zoomed up to be seen
        view.setHighlightedOverlay(7);  // out of range: none
        QCOMPARE(view.highlightedOverlay(), -1);
    }

    void zoomedOutOutlinesStayWithinAPixelOfTheExactShape() {
        // 20 000 rows at ~0.02 px per cell: rows are grouped per pixel; the grouped outline covers
        // the exact one and exceeds it by less than one group.
        SpyOverlay o = rectangleOverlay(50, 20050, 100, 20100);
        o.region.shape = RegionShape::Triangle;
        o.region.corner = TriangleCorner::UpperLeft;
        const QPainterPath exact = overlayOutline(o, 0, 30000, 1);
        const QPainterPath grouped = overlayOutline(o, 0, 30000, 50);
        QVERIFY(grouped.elementCount() < exact.elementCount() / 40);
        for (int r = 50; r < 20050; r += 997)
            for (int c = 100; c < 20100; c += 991) {
                const QPointF p(c + 0.5, r + 0.5);
                QCOMPARE(exact.contains(p), overlayContains(o, r, c));
                if (exact.contains(p)) QVERIFY(grouped.contains(p));
                // Past the exact edge only within one group: the row 50 above holds the cell
                // (this triangle's rows shrink downwards).
                if (grouped.contains(p) && !exact.contains(p)) QVERIFY(overlayContains(o, std::max(50, r - 50), c));
            }
    }
};

QTEST_MAIN(TestOverlays)
#include "tst_gui_overlays.moc"
