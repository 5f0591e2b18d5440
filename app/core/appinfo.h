#pragma once
// Names and paths the application and the command-line tool share.
#include <QPair>
#include <QString>
#include <QVector>

namespace spyglass::app {

QString applicationVersion();
// The default sample matrix (the first of samples.h): next to the executable (installed layout) or
// in the source tree.
QString sampleMatrixPath();

// The compute backend in words (spyglass::backendSummary()), for the About box and the CLI.
QString backendSummaryText();
// The same for the status bar, with the simulated GPU memory cap when one is set: a capped GPU's
// "out of memory" must not look like a real one.
QString backendStatusText();
// GPUs the CUDA runtime reports (0 without CUDA). Asks the driver: not on the GUI thread at start-up
// (DeviceInfoCache is for that), fine once the cache has answered.
int gpuCount();
// Each backend this build has: its name ("cpu", "cuda") and what it runs on, for the About box.
QVector<QPair<QString, QString>> backendDescriptions();
// Whether this build has the CUDA backend compiled in (it may still find no device).
bool hasCudaBuild();

} // namespace spyglass::app
