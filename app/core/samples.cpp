#include "samples.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QObject>

namespace spyglass::app {

const QVector<SampleMatrix>& sampleMatrices() {
    static const QVector<SampleMatrix> samples = {
        {QStringLiteral("valued"), QObject::tr("Valued blocks and stencil (every tab)"), QStringLiteral("spyglass_sample.mtx.gz"),
         QObject::tr("3000 x 3000 real: a 5-point stencil, dense valued blocks (rectangle, triangle, band) and scattered "
                     "entries; every tab has something to show")},
        {QStringLiteral("blocks"), QObject::tr("Binary dense shapes (methods A, D)"), QStringLiteral("spyglass_blocks_binary.mtx.gz"),
         QObject::tr("2000 x 2000 binary: dense rectangles, a triangle of each orientation, off-diagonal bands, scattered "
                     "ones; dense regions by their zeros, bit-flag storage")},
        {QStringLiteral("stencil"), QObject::tr("Banded stencil (method B)"), QStringLiteral("spyglass_stencil.mtx.gz"),
         QObject::tr("4096 x 4096: a 2-D 5-point stencil with three broken diagonals; segmented DIA merges its row "
                     "segments")},
    };
    return samples;
}

SampleMatrix sampleMatrix(const QString& id) {
    for (const SampleMatrix& s : sampleMatrices())
        if (s.id == id) return s;
    return {};
}

QString samplePath(const QString& id) {
    const QString name = sampleMatrix(id).fileName;
    if (name.isEmpty()) return {};
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
