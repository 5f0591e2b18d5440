#include "denseregionjson.h"

namespace spyglass::app {

QJsonObject denseRegionJson(const DenseRegion& r) {
    QJsonObject o{{"shape", toString(r.shape)}, {"rowBegin", r.rowBegin}, {"rowEnd", r.rowEnd},
                  {"colBegin", r.colBegin}, {"colEnd", r.colEnd}, {"fill", r.fill()}};
    if (r.shape == RegionShape::Triangle) o["corner"] = toString(r.corner);
    if (r.shape == RegionShape::Band) {
        o["bandLow"] = r.bandLow;
        o["bandHigh"] = r.bandHigh;
        o["bandWidth"] = r.bandWidth();
    }
    return o;
}

} // namespace spyglass::app
