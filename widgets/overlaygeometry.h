#pragma once
// The exact geometry of a spy-view overlay, apart from any painting so that it can be tested: the
// cells a shape covers are those its DenseRegion's span() gives row by row (the encoder's own rule),
// so triangles of every corner and bands by their real lower and upper offsets are drawn as stored.
#include "spyoverlay.h"

#include <QPainterPath>

namespace spyglass::widgets {

// Whether cell (row, col) belongs to the shape.
bool overlayContains(const SpyOverlay& overlay, int row, int col);
// The outline in matrix coordinates (x = column, y = row) of the rows in [firstRow, lastRow)
// (clipped to the box). With rowStep 1 it is the exact staircase of cell edges; with rowStep k each
// group of k rows is drawn as the hull of its spans, which is what a view showing k rows per pixel
// can resolve (zoomed out, a 100 000-row triangle would otherwise be 400 000 points).
QPainterPath overlayOutline(const SpyOverlay& overlay, int firstRow, int lastRow, int rowStep = 1);

} // namespace spyglass::widgets
