#pragma once
// Where the spy plot's furniture goes, apart from any painting so that it can be tested: the axis
// ticks (1-based, as the file counts rows and columns, MATLAB spy's convention) and the places of the
// overlays' labels, chosen so that no two labels overlap (a label that does not fit inside its shape
// goes beside it with a leader line; one with no free place is left to the shape's tooltip).
#include "spyoverlay.h"

#include <QFontMetricsF>
#include <QList>
#include <QPointF>
#include <QRectF>
#include <QString>

namespace spyglass::widgets {

class SpyViewport;

struct AxisTick {
    double pixel = 0;  // along the axis, widget pixels (the centre of the cell)
    qint64 value = 0;  // 1-based row or column
};

// Ticks at 1, 2 or 5 times a power of ten, at least minSpacing pixels apart, over the cells of
// [firstCell, endCell) (0-based) shown between pixels [pixelBegin, pixelEnd].
QList<AxisTick> axisTicks(const SpyViewport& viewport, bool columns, double minSpacing);

struct PlacedLabel {
    int overlay = -1;   // index into the overlays
    QRectF rect;        // the label's box, widget pixels
    bool inside = true; // inside its shape's box; otherwise a leader line joins it to the shape
    QPointF anchor;     // where the leader line meets the shape (outside labels)
};

// Shapes smaller than this (both ways, on screen) get no label beside them, only inside.
constexpr double kMinOutsideLabelPixels = 8;

// Places the labels of the overlays whose box is at least partly inside `plot`, largest shapes
// first, none overlapping another or leaving `plot`. At most maxLabels are placed.
QList<PlacedLabel> placeOverlayLabels(const QList<SpyOverlay>& overlays, const SpyViewport& viewport, const QRectF& plot,
                                      const QFontMetricsF& metrics, int maxLabels = 60);

} // namespace spyglass::widgets
