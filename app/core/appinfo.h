#pragma once
// Names and paths the application and the command-line tool share.
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
// Each backend this build has: its name ("cpu", "cuda"), whether it can run here and what it runs
// on, for the About box and `spyglass-cli backends`.
struct BackendDescription {
    QString name;
    bool available = false;
    QString description;
};
QVector<BackendDescription> backendDescriptions();
// The backend a command runs its work on, in words: "cpu (CPU reference)", or for a GPU choice
// ("cuda", "cusparse", "cusolver", "cublas", "cuda+cusparse") the runner and the device, or why there
// is no device. Only the GPU choices name the device, so that "--backend cpu" on a GPU machine does
// not read as if CUDA ran the work.
QString describeBackend(const QString& chosenBackend);
// Whether a CUDA device is there to run on (asks the driver, as gpuCount does).
bool cudaDevicePresent();
// "--gpus N: this machine has M GPU(s) (why none)" when N is more than the machine has; empty otherwise.
QString gpusMissing(int wanted);
// Whether this build has the CUDA backend compiled in (it may still find no device).
bool hasCudaBuild();

} // namespace spyglass::app
