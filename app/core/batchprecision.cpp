#include "batchprecision.h"

namespace spyglass::app {

const char* toString(BatchPrecision precision) {
    switch (precision) {
    case BatchPrecision::F32: return "f32";
    case BatchPrecision::F64: return "f64";
    case BatchPrecision::C64: return "c64";
    case BatchPrecision::C128: return "c128";
    }
    return "?";
}

BatchPrecision batchPrecisionOf(const QString& text) {
    for (BatchPrecision precision : {BatchPrecision::F64, BatchPrecision::C64, BatchPrecision::C128})
        if (text == QLatin1String(toString(precision))) return precision;
    return BatchPrecision::F32;
}

} // namespace spyglass::app
