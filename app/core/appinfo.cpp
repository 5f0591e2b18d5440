#include "appinfo.h"

#include "gpumemorycap.h"
#include "samples.h"

#include "spyglass/backend.h"
#include "spyglass/multigpu.h"

#include <QCoreApplication>

namespace spyglass::app {

QString applicationVersion() { return QStringLiteral("0.1.0"); }

QString sampleMatrixPath() { return samplePath(sampleMatrices().front().id); }

QString backendSummaryText() { return QString::fromStdString(backendSummary()); }

QString backendStatusText() {
    QString text = backendSummaryText();
    if (const std::size_t cap = deviceMemoryCap())
        text += QCoreApplication::translate("spyglass", " - GPU memory capped at %1").arg(describeGpuMemoryCap(cap));
    return text;
}

int gpuCount() { return cudaDeviceCount(); }

QVector<BackendDescription> backendDescriptions() {
    QVector<BackendDescription> list;
    for (const BackendInfo& backend : availableBackends())
        list.append({QString::fromLatin1(toString(backend.kind)), backend.available, QString::fromStdString(backend.description)});
    return list;
}

QString describeBackend(const QString& chosenBackend) {
    if (chosenBackend == QLatin1String("cpu")) return QStringLiteral("cpu (CPU reference)");
    const DeviceInfo info = cudaDeviceInfo();
    const QString device = info.present ? backendSummaryText()
                                        : QStringLiteral("no CUDA device: %1").arg(QString::fromStdString(info.reason));
    const QString runner = chosenBackend == QLatin1String("cuda")       ? QStringLiteral("Spyglass CUDA kernels")
                           : chosenBackend == QLatin1String("cusparse") ? QStringLiteral("NVIDIA cuSPARSE")
                           : chosenBackend == QLatin1String("cusolver") ? QStringLiteral("NVIDIA cuSOLVER")
                           : chosenBackend == QLatin1String("cublas")   ? QStringLiteral("NVIDIA cuBLAS")
                                                                        : chosenBackend;
    return QStringLiteral("%1 (%2; %3)").arg(chosenBackend, runner, device);
}

bool cudaDevicePresent() { return cudaDeviceInfo().present; }

QString gpusMissing(int wanted) {
    const int available = gpuCount();
    if (wanted <= available) return QString();
    return QStringLiteral("--gpus %1: this machine has %2 GPU%3%4")
        .arg(wanted)
        .arg(available)
        .arg(available == 1 ? QString() : QStringLiteral("s"))
        .arg(available == 0 ? QStringLiteral(" (%1)").arg(QString::fromStdString(cudaDeviceInfo().reason)) : QString());
}

bool hasCudaBuild() { return builtWithCuda(); }

} // namespace spyglass::app
