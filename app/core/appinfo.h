#pragma once
// Names and paths the application and the command-line tool share.
#include <QString>

namespace spyglass::app {

QString applicationVersion();
// The bundled sample matrix: next to the executable (installed layout) or in the source tree.
QString sampleMatrixPath();

} // namespace spyglass::app
