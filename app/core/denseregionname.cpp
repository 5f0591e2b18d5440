#include "denseregionname.h"

namespace spyglass::app {

QString denseRegionName(const DenseRegion& region) {
    QString name = QString::fromLatin1(toString(region.shape));
    if (region.shape == RegionShape::Triangle) name += QLatin1Char(' ') + QString::fromLatin1(toString(region.corner));
    return name;
}

} // namespace spyglass::app
