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

QVector<QPair<QString, QString>> backendDescriptions() {
    QVector<QPair<QString, QString>> list;
    for (const BackendInfo& backend : availableBackends())
        list.append({QString::fromLatin1(toString(backend.kind)), QString::fromStdString(backend.description)});
    return list;
}

bool hasCudaBuild() { return builtWithCuda(); }

} // namespace spyglass::app
