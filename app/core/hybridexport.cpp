#include "hybridexport.h"

#include "denseregionjson.h"

#include "spyglass/atomicfile.h"
#include "spyglass/convert.h"
#include "spyglass/hybrid_regions.h"
#include "spyglass/matrixmarket.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace spyglass::app {

namespace {

QJsonObject regionJson(const DenseRegion& r, Count zeros) {
    QJsonObject o = denseRegionJson(r);
    o["zeros"] = static_cast<double>(zeros);
    return o;
}

QByteArray regionsDocument(const QJsonArray& regions, const QString& sourceFile, bool valued, bool csrFallback,
                           const std::string& reason) {
    const QJsonObject doc{{"file", sourceFile}, {"valued", valued}, {"regions", regions}, {"csrFallback", csrFallback},
                          {"fallbackReason", QString::fromStdString(reason)}};
    return QJsonDocument(doc).toJson(QJsonDocument::Indented);
}

void writeText(const QString& path, const QByteArray& text) {
    writeFileAtomically(path.toStdString(), std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
}

} // namespace

QByteArray hybridRegionsJson(const HybridBinaryMatrix& hybrid, const QString& sourceFile) {
    QJsonArray regions;
    for (const HybridBlock& block : hybrid.blocks) regions.append(regionJson(block.region, block.zeros()));
    return regionsDocument(regions, sourceFile, false, hybrid.csrFallback, hybrid.fallbackReason);
}

QByteArray hybridRegionsJson(const HybridValuedMatrix<double>& hybrid, const QString& sourceFile) {
    QJsonArray regions;
    for (const auto& block : hybrid.blocks) regions.append(regionJson(block.region, block.explicitZeros()));
    return regionsDocument(regions, sourceFile, true, hybrid.csrFallback, hybrid.fallbackReason);
}

void writeHybridRegionsJson(const QString& path, const HybridValuedMatrix<double>& hybrid, const QString& sourceFile) {
    writeText(path, hybridRegionsJson(hybrid, sourceFile));
}

void writeHybridResidualMatrixMarket(const QString& path, const HybridValuedMatrix<double>& hybrid) {
    writeMatrixMarket(path.toStdString(), fromCsr(hybrid.residual));
}

void writeHybridRegionsJson(const QString& path, const HybridBinaryMatrix& hybrid, const QString& sourceFile) {
    const QByteArray text = hybridRegionsJson(hybrid, sourceFile);
    writeFileAtomically(path.toStdString(), std::string_view(text.constData(), static_cast<std::size_t>(text.size())));
}

void writeHybridResidualMatrixMarket(const QString& path, const HybridBinaryMatrix& hybrid) {
    writeMatrixMarket(path.toStdString(), matrixFromBinaryPattern(hybrid.residual));
}

} // namespace spyglass::app
