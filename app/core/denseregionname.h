#pragma once
// The words for a dense region (method D) that the regions table, the picture's labels and tooltips
// share: "rectangle", "triangle lower-left", "band". The region itself is the library's DenseRegion,
// carried by value from detection to the picture; its shape is the library's enum, never a string.
#include "spyglass/hybrid_regions.h"

#include <QString>

namespace spyglass::app {

QString denseRegionName(const DenseRegion& region);

} // namespace spyglass::app
