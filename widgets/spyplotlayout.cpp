#include "spyplotlayout.h"

#include "spyviewport.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace spyglass::widgets {

QList<AxisTick> axisTicks(const SpyViewport& viewport, bool columns, double minSpacing) {
    QList<AxisTick> ticks;
    const double scale = viewport.scale();
    const int cells = columns ? viewport.cols() : viewport.rows();
    if (scale <= 0 || cells <= 0) return ticks;
    const QRectF plot = viewport.plotRect();
    // The smallest step of 1, 2 or 5 x 10^k cells that keeps the ticks minSpacing pixels apart.
    double step = 1;
    for (double decade = 1; step * scale < minSpacing; decade *= 10) {
        for (double m : {1.0, 2.0, 5.0}) {
            step = m * decade;
            if (step * scale >= minSpacing) break;
        }
    }
    const QPointF first = viewport.widgetToMatrix(plot.topLeft()), last = viewport.widgetToMatrix(plot.bottomRight());
    const double lo = std::max(columns ? first.x() : first.y(), 0.0), hi = std::min(columns ? last.x() : last.y(), double(cells));
    // Value v (1-based) is cell v - 1, its tick at the cell's centre; 1 is always a candidate.
    auto add = [&](qint64 value) {
        const double centre = value - 0.5;
        if (centre < lo || centre > hi) return;
        const QPointF at = viewport.matrixToWidget(QPointF(centre, centre));
        ticks.append({columns ? at.x() : at.y(), value});
    };
    if (1 * 1.0 < step) add(1);  // "1" beside the first multiple of the step, when far enough apart
    for (qint64 v = qint64(std::max(std::ceil(lo / step), 1.0) * step); v - 0.5 <= hi; v += qint64(step)) add(v);
    // Drop a "1" that crowds the first multiple of the step.
    if (ticks.size() >= 2 && ticks[0].value == 1 && std::abs(ticks[1].pixel - ticks[0].pixel) < minSpacing) ticks.removeFirst();
    return ticks;
}

QList<PlacedLabel> placeOverlayLabels(const QList<SpyOverlay>& overlays, const SpyViewport& viewport, const QRectF& plot,
                                      const QFontMetricsF& metrics, int maxLabels) {
    QList<PlacedLabel> placed;
    std::vector<int> order;
    std::vector<QRectF> boxes(overlays.size());
    for (int i = 0; i < overlays.size(); ++i) {
        if (overlays[i].label.isEmpty()) continue;
        boxes[i] = viewport.matrixToWidget(overlays[i].cells());
        if (!boxes[i].intersects(plot)) continue;
        order.push_back(i);
    }
    // The largest shapes choose first: their labels are the ones most worth reading.
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return boxes[a].width() * boxes[a].height() > boxes[b].width() * boxes[b].height();
    });
    const double pad = 3, gap = 6;
    auto freeAt = [&](const QRectF& r) {
        if (!plot.contains(r)) return false;
        for (const PlacedLabel& p : placed)
            if (p.rect.intersects(r)) return false;
        return true;
    };
    for (int i : order) {
        if (placed.size() >= maxLabels) break;
        const QSizeF text(metrics.horizontalAdvance(overlays[i].label) + 2 * pad, metrics.height() + 2);
        const QRectF box = boxes[i];
        const QRectF visible = box.intersected(plot);
        // Inside the shape's visible box first (its corners), then beside it: above, below, right, left.
        const QList<QRectF> inside = {
            QRectF(visible.topLeft() + QPointF(2, 2), text),
            QRectF(QPointF(visible.right() - 2 - text.width(), visible.top() + 2), text),
            QRectF(QPointF(visible.left() + 2, visible.bottom() - 2 - text.height()), text),
        };
        bool done = false;
        for (const QRectF& r : inside)
            if (visible.contains(r) && freeAt(r)) {
                placed.append({i, r, true, r.center()});
                done = true;
                break;
            }
        // A shape of a few pixels (a one-pixel component among thousands) is not worth a label
        // beside it: it would bury the picture in them; its tooltip names it.
        if (done || (visible.width() < kMinOutsideLabelPixels && visible.height() < kMinOutsideLabelPixels)) continue;
        struct Candidate {
            QRectF rect;
            QPointF anchor;
        };
        const QList<Candidate> outside = {
            {QRectF(QPointF(visible.left(), visible.top() - gap - text.height()), text), QPointF(visible.left() + 4, visible.top())},
            {QRectF(QPointF(visible.left(), visible.bottom() + gap), text), QPointF(visible.left() + 4, visible.bottom())},
            {QRectF(QPointF(visible.right() + gap, visible.top()), text), QPointF(visible.right(), visible.top() + 4)},
            {QRectF(QPointF(visible.left() - gap - text.width(), visible.top()), text), QPointF(visible.left(), visible.top() + 4)},
            {QRectF(QPointF(visible.right() + gap, visible.top() - gap - text.height()), text), visible.topRight()},
            {QRectF(QPointF(visible.right() + gap, visible.bottom() + gap), text), visible.bottomRight()},
        };
        for (const Candidate& c : outside)
            if (freeAt(c.rect)) {
                placed.append({i, c.rect, false, c.anchor});
                break;
            }
    }
    return placed;
}

} // namespace spyglass::widgets
