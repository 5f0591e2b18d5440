#pragma once
// Names and paths the application and the command-line tool share.
#include <QString>

namespace spyglass::app {

QString applicationVersion();
// The default sample matrix (the first of samples.h): next to the executable (installed layout) or
// in the source tree.
QString sampleMatrixPath();

} // namespace spyglass::app
