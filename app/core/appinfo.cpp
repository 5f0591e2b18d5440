#include "appinfo.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace spyglass::app {

QString applicationVersion() { return QStringLiteral("0.1.0"); }

QString sampleMatrixPath() {
    const QString name = QStringLiteral("spyglass_sample.mtx.gz");
    const QStringList candidates = {
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/spyglass/") + name,
        QCoreApplication::applicationDirPath() + QStringLiteral("/") + name,
        QStringLiteral(SPYGLASS_SOURCE_RESOURCES "/matrices/") + name,
    };
    for (const QString& path : candidates)
        if (QFileInfo::exists(path)) return QDir::cleanPath(path);
    return {};
}

} // namespace spyglass::app
