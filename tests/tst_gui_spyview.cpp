// SpyView and its viewport geometry: matrix <-> widget mapping is consistent, fit centres the
// matrix with square cells, zooming about a point keeps that point under the cursor, panning moves
// by exactly the dragged pixels, render requests never ask for more bins than cells, and the hover
// text names the 1-based cell and its value.
#include "core/matrixdocument.h"
#include "matrixentries.h"
#include "spyview.h"
#include "spyviewport.h"

#include "spyglass/stats.h"

#include <QApplication>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <random>

using namespace spyglass;
using namespace spyglass::widgets;

namespace {
// Pixel positions are doubles; after a few multiplications relative error is a few ulps.
bool near(const QPointF& a, const QPointF& b, double scale) {
    const double tol = 1e-9 * std::max({1.0, scale, std::abs(a.x()), std::abs(a.y())});
    return std::abs(a.x() - b.x()) <= tol && std::abs(a.y() - b.y()) <= tol;
}

app::MatrixDocument makeDocument(Matrix matrix) {
    auto shared = std::make_shared<const Matrix>(std::move(matrix));
    return app::MatrixDocument(QStringLiteral("memory.mtx"), shared, computeStats(*shared),
                               std::make_shared<const app::MatrixEntryIndex>(shared));
}

// The view at size, shown, exposed and holding m: what the mouse tests start from.
bool showDocument(SpyView& view, QSize size, Matrix m) {
    view.resize(size);
    view.show();
    if (!QTest::qWaitForWindowExposed(&view)) return false;
    view.setDocument(makeDocument(std::move(m)));
    return true;
}

SpyViewport viewport(int rows, int cols, QSizeF view) {
    SpyViewport v;
    v.setViewSize(view);
    v.setMatrixSize(rows, cols);
    return v;
}
} // namespace

class TestSpyView : public QObject {
    Q_OBJECT
private slots:
    void mappingRoundTripsBothWays() {
        std::mt19937 rng(11);
        std::uniform_real_distribution<double> u(-500, 1500);
        SpyViewport v = viewport(1037, 523, QSizeF(811, 617));
        v.zoomAbout(QPointF(300, 200), 3.7);
        for (int i = 0; i < 200; ++i) {
            const QPointF w(u(rng), u(rng));
            QVERIFY(near(v.matrixToWidget(v.widgetToMatrix(w)), w, v.scale()));
            const QPointF m(u(rng), u(rng));
            QVERIFY(near(v.widgetToMatrix(v.matrixToWidget(m)), m, 1.0));
        }
    }

    void fitCentresTheMatrixWithSquareCellsInsideTheMargin_data() {
        QTest::addColumn<int>("rows");
        QTest::addColumn<int>("cols");
        QTest::newRow("square 1138") << 1138 << 1138;
        QTest::newRow("tall 10592x3016") << 10592 << 3016;
        QTest::newRow("wide 27x51") << 27 << 51;
        QTest::newRow("1x1 (scale capped)") << 1 << 1;
        QTest::newRow("3x0") << 3 << 0;
    }
    void fitCentresTheMatrixWithSquareCellsInsideTheMargin() {
        QFETCH(int, rows);
        QFETCH(int, cols);
        const QSizeF view(797, 553);
        SpyViewport v = viewport(rows, cols, view);
        QVERIFY(v.isFitted());
        const QRectF r = v.matrixRectInWidget();
        QVERIFY(near(r.center(), QPointF(view.width() / 2, view.height() / 2), v.scale()));
        const double m = SpyViewport::fitMargin;
        QVERIFY(r.left() >= m - 1e-9 && r.top() >= m - 1e-9);
        QVERIFY(r.right() <= view.width() - m + 1e-9 && r.bottom() <= view.height() - m + 1e-9);
        // One side touches the margin unless the cell size cap stops the growth.
        const bool touches = std::abs(r.left() - m) < 1e-6 || std::abs(r.top() - m) < 1e-6;
        QVERIFY(touches || v.scale() == SpyViewport::maxCellPixels);
    }

    void zoomAboutAPointKeepsThatPointFixed() {
        std::mt19937 rng(5);
        std::uniform_real_distribution<double> px(0, 900), factor(0.3, 4.0);
        SpyViewport v = viewport(4001, 2999, QSizeF(900, 700));
        for (int i = 0; i < 300; ++i) {
            const QPointF at(px(rng), px(rng) * 0.7);
            const QPointF before = v.widgetToMatrix(at);
            v.zoomAbout(at, factor(rng));  // includes clamped steps at both ends
            QVERIFY(near(v.widgetToMatrix(at), before, 1.0));
        }
    }

    void zoomIsClampedBetweenAQuarterOfFitAndTheCellCap() {
        SpyViewport v = viewport(500, 500, QSizeF(600, 600));
        const double fit = v.fitScale();
        v.zoomAbout(QPointF(300, 300), 1e-6);
        QCOMPARE(v.scale(), fit / 4);
        v.zoomAbout(QPointF(300, 300), 1e9);
        QCOMPARE(v.scale(), SpyViewport::maxCellPixels);
    }

    void panMovesByTheDraggedPixelsAndStopsAtTheEdge() {
        SpyViewport v = viewport(1000, 1000, QSizeF(500, 500));
        v.zoomAbout(QPointF(250, 250), 8);
        const QPointF cell = v.widgetToMatrix(QPointF(100, 100));
        v.panBy(QPointF(37, -21));
        QVERIFY(near(v.widgetToMatrix(QPointF(137, 79)), cell, 1.0));
        v.panBy(QPointF(1e7, 1e7));  // far past the top-left corner
        const QPointF centre = v.widgetToMatrix(QPointF(250, 250));
        QVERIFY(near(centre, QPointF(0, 0), 1.0));
    }

    void renderRequestCoversTheViewWithWholeCellsAndNoMoreBinsThanCells() {
        SpyViewport v = viewport(300, 200, QSizeF(640, 480));
        for (double zoom : {1.0, 2.5, 9.0, 40.0}) {
            v.fit();
            v.zoomAbout(QPointF(333, 222), zoom);
            const SpyViewport::RenderRequest request = v.renderRequest(1.0);
            QVERIFY(request.valid);
            const MatrixWindow visible = v.visibleWindow();
            QVERIFY(request.window.colBegin <= visible.colBegin && request.window.colEnd >= visible.colEnd);
            QVERIFY(request.window.rowBegin <= visible.rowBegin && request.window.rowEnd >= visible.rowEnd);
            QCOMPARE(request.window.colBegin, std::floor(request.window.colBegin));
            QCOMPARE(request.window.rowEnd, std::floor(request.window.rowEnd));
            QVERIFY(request.pixels.width() <= request.window.colEnd - request.window.colBegin);
            QVERIFY(request.pixels.height() <= request.window.rowEnd - request.window.rowBegin);
            QVERIFY(request.pixels.width() <= 640 + 1 && request.pixels.height() <= 480 + 1);
        }
    }

    void cellAtFindsTheCellUnderThePointAndNothingOutside() {
        SpyViewport v = viewport(13, 17, QSizeF(400, 300));
        for (int r = 0; r < 13; ++r)
            for (int c = 0; c < 17; ++c) {
                const QPointF centre = v.matrixToWidget(QPointF(c + 0.5, r + 0.5));
                QCOMPARE(v.cellAt(centre), std::optional<QPoint>(QPoint(c, r)));
            }
        QVERIFY(!v.cellAt(v.matrixToWidget(QPointF(-0.5, 3))));
        QVERIFY(!v.cellAt(v.matrixToWidget(QPointF(3, 13.5))));
    }

    void hoverShowsOneBasedCellAndValue() {
        SpyView view;
        QVERIFY(showDocument(view, QSize(500, 400), matrixentries::realEntries(41, 29, {7, 40}, {12, 0}, {6.5, -1.75})));
        QSignalSpy hovered(&view, &SpyView::hoveredCellChanged);

        auto moveTo = [&view](double col, double row) {
            const QPointF at = view.viewport().matrixToWidget(QPointF(col, row));
            QMouseEvent move(QEvent::MouseMove, at, view.mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
            QApplication::sendEvent(&view, &move);
        };
        moveTo(12.5, 7.5);
        QCOMPARE(view.currentHoverText(), QStringLiteral("row 8, col 13: 6.5"));
        QCOMPARE(hovered.last().at(0).toString(), view.currentHoverText());
        moveTo(0.5, 40.5);
        QCOMPARE(view.currentHoverText(), QStringLiteral("row 41, col 1: -1.75"));
        moveTo(3.5, 3.5);
        QCOMPARE(view.currentHoverText(), QStringLiteral("row 4, col 4: 0 (no entry)"));
        moveTo(-3, -3);
        QVERIFY(view.currentHoverText().isEmpty());
    }

    void wheelZoomKeepsTheCellUnderTheCursorAndRequestsARender() {
        SpyView view;
        QVERIFY(showDocument(view, QSize(600, 500), matrixentries::realEntries(2000, 2000, {0, 1999}, {0, 1999}, {1, 2})));
        QSignalSpy requests(&view, &SpyView::renderRequested);
        QVERIFY(requests.wait(2000));  // the picture for the fitted view

        const QPointF at(411.0, 123.0);
        const QPointF before = view.viewport().widgetToMatrix(at);
        QWheelEvent wheel(at, view.mapToGlobal(at), QPoint(), QPoint(0, 240), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        QApplication::sendEvent(&view, &wheel);
        QVERIFY(near(view.viewport().widgetToMatrix(at), before, 1.0));
        QVERIFY(view.viewport().scale() > view.viewport().fitScale() * 1.5);
        QVERIFY(requests.wait(2000));
        const auto window = requests.last().at(0).value<MatrixWindow>();
        QVERIFY(window.colEnd - window.colBegin < 2000);  // zoomed in: only part of the matrix

        QTest::keyClick(&view, Qt::Key_F);
        QVERIFY(view.viewport().isFitted());
    }

    void overlaysAndRowBandsAreKept() {
        SpyView view;
        SpyOverlay band = rectangleOverlay(0, 10, 0, 10);
        band.region.shape = RegionShape::Band;
        band.region.bandLow = -2, band.region.bandHigh = 2;
        band.color = Qt::red;
        band.label = QStringLiteral("band");
        view.setOverlays({band});
        view.setRowBands({RowBand{0, 5, Qt::green, QStringLiteral("segment 1"), {}}});
        QCOMPARE(view.overlays().size(), 1);
        QCOMPARE(view.rowBands().at(0).rowEnd, 5);
        view.resize(300, 300);
        QImage image = view.grab().toImage();  // painting with no document must not crash
        QVERIFY(!image.isNull());
    }
};

Q_DECLARE_METATYPE(spyglass::MatrixWindow)
QTEST_MAIN(TestSpyView)
#include "tst_gui_spyview.moc"
