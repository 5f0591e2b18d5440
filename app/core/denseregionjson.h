#pragma once
// A dense region (method D) as JSON, the keys that the region-export file and `spyglass-cli detect
// --json` share: shape, rowBegin, rowEnd, colBegin, colEnd, fill, and corner (triangle) or bandLow,
// bandHigh, bandWidth (band). Each caller adds what is its own (cells and ones; zeros).
#include "spyglass/hybrid_regions.h"

#include <QJsonObject>

namespace spyglass::app {

QJsonObject denseRegionJson(const DenseRegion& region);

} // namespace spyglass::app
