#include "appinfo.h"

#include "samples.h"


namespace spyglass::app {

QString applicationVersion() { return QStringLiteral("0.1.0"); }

QString sampleMatrixPath() { return samplePath(sampleMatrices().front().id); }

} // namespace spyglass::app
