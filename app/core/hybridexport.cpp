#include "hybridexport.h"

#include "spyglass/atomicfile.h"
#include "spyglass/denseregions.h"
#include "spyglass/matrixmarket.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace spyglass::app {

QByteArray hybridRegionsJson(const HybridBinaryMatrix& hybrid, const QString& sourceFile) {
    QJsonArray regions;
    for (const HybridBlock& block : hybrid.blocks) {
        const DenseRegion& r = block.region;
        QJsonObject o{{"shape", toString(r.shape)}, {"rowBegin", r.rowBegin}, {"rowEnd", r.rowEnd},
                      {"colBegin", r.colBegin}, {"colEnd", r.colEnd}, {"fill", r.fill()},
                      {"zeros", static_cast<double>(block.zeros())}};
        if (r.shape == RegionShape::Triangle) o["corner"] = toString(r.corner);
        if (r.shape == RegionShape::Band) {
            o["bandLow"] = r.bandLow;
            o["bandHigh"] = r.bandHigh;
            o["bandWidth"] = r.bandWidth();
        }
        regions.append(o);
    }
    const QJsonObject doc{{"file", sourceFile}, {"regions", regions}, {"csrFallback", hybrid.csrFallback},
                          {"fallbackReason", QString::fromStdString(hybrid.fallbackReason)}};
    return QJsonDocument(doc).toJson(QJsonDocument::Indented);
}

void writeHybridRegionsJson(const QString& path, const HybridBinaryMatrix& hybrid, const QString& sourceFile) {
    const QByteArray text = hybridRegionsJson(hybrid, sourceFile);
    writeFileAtomically(path.toStdString(), std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
}

void writeHybridResidualMatrixMarket(const QString& path, const HybridBinaryMatrix& hybrid) {
    writeMatrixMarket(path.toStdString(), matrixFromBinaryPattern(hybrid.residual));
}

} // namespace spyglass::app
