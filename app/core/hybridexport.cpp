#include "hybridexport.h"

#include "checkedwrite.h"
#include "denseregionjson.h"
#include "matrixexport.h"

#include "spyglass/convert.h"
#include "spyglass/error.h"
#include "spyglass/hybrid_regions.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <cmath>

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

// The JSON file must parse back to the document it was made from.
void writeJson(const QString& path, const QByteArray& text) {
    const QJsonDocument meant = QJsonDocument::fromJson(text);
    writeCheckedBytes(path, "regions JSON", std::string(text.constData(), static_cast<std::size_t>(text.size())),
                      [&meant](const std::string& bytes, const std::string&) {
                          QJsonParseError error;
                          const QJsonDocument back =
                              QJsonDocument::fromJson(QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())), &error);
                          if (error.error != QJsonParseError::NoError) return error.errorString().toStdString();
                          return back == meant ? std::string() : std::string("another document");
                      });
}

bool sameRegion(const DenseRegion& a, const DenseRegion& b) {
    return a.shape == b.shape && (a.shape != RegionShape::Triangle || a.corner == b.corner) && a.rowBegin == b.rowBegin &&
           a.rowEnd == b.rowEnd && a.colBegin == b.colBegin && a.colEnd == b.colEnd && a.bandLow == b.bandLow &&
           a.bandHigh == b.bandHigh && a.ones == b.ones;
}

bool sameValues(const std::vector<double>& a, const std::vector<double>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t k = 0; k < a.size(); ++k)
        if (!(a[k] == b[k] || (std::isnan(a[k]) && std::isnan(b[k])))) return false;
    return true;
}

std::string encodingDifference(const HybridBinaryMatrix& a, const HybridBinaryMatrix& b) {
    if (a.rows != b.rows || a.cols != b.cols || a.csrFallback != b.csrFallback) return "another shape or fallback";
    if (a.blocks.size() != b.blocks.size()) return "another number of regions";
    for (std::size_t i = 0; i < a.blocks.size(); ++i)
        if (!sameRegion(a.blocks[i].region, b.blocks[i].region) || a.blocks[i].zeroRowPtr != b.blocks[i].zeroRowPtr ||
            a.blocks[i].zeroOffsets != b.blocks[i].zeroOffsets)
            return "region " + std::to_string(i) + " differs";
    return a.residual == b.residual ? std::string() : std::string("another residual");
}

std::string encodingDifference(const HybridValuedMatrix<double>& a, const HybridValuedMatrix<double>& b) {
    if (a.rows != b.rows || a.cols != b.cols || a.csrFallback != b.csrFallback) return "another shape or fallback";
    if (a.blocks.size() != b.blocks.size()) return "another number of regions";
    for (std::size_t i = 0; i < a.blocks.size(); ++i)
        if (!sameRegion(a.blocks[i].region, b.blocks[i].region) || !sameValues(a.blocks[i].values, b.blocks[i].values))
            return "region " + std::to_string(i) + " differs";
    const bool sameResidual = a.residual.rows == b.residual.rows && a.residual.cols == b.residual.cols &&
                              a.residual.rowPtr == b.residual.rowPtr && a.residual.colIndex == b.residual.colIndex &&
                              sameValues(a.residual.values, b.residual.values);
    return sameResidual ? std::string() : std::string("another residual");
}

// The container's bytes through the checked writer: they must parse back to `meant`.
template <typename Encoding, typename Parse>
std::size_t writeEncoding(const QString& path, const char* what, const std::string& bytes, const Encoding& meant, Parse parse,
                          const std::atomic<bool>* cancel) {
    writeCheckedBytes(
        path, what, bytes,
        [&](const std::string& written, const std::string& source) { return encodingDifference(meant, parse(written, source)); },
        cancel);
    return bytes.size();
}

} // namespace

std::size_t writeHybridContainerExport(const QString& path, const HybridBinaryMatrix& hybrid, const std::string& note,
                                       const std::atomic<bool>* cancel) {
    return writeEncoding(path, "hybrid container", serializeContainer(hybridToContainer(hybrid, note)), hybrid,
                         [](const std::string& bytes, const std::string& source) { return parseHybridContainer(bytes, source); },
                         cancel);
}

std::size_t writeHybridContainerExport(const QString& path, const HybridValuedMatrix<double>& hybrid, Field field,
                                       const std::string& note, const std::atomic<bool>* cancel) {
    return writeEncoding(path, "valued hybrid container", serializeContainer(hybridValuedToContainer(hybrid, field, note)), hybrid,
                         [](const std::string& bytes, const std::string& source) { return parseHybridValuedContainer(bytes, source); },
                         cancel);
}

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
    writeJson(path, hybridRegionsJson(hybrid, sourceFile));
}

void writeHybridRegionsJson(const QString& path, const HybridBinaryMatrix& hybrid, const QString& sourceFile) {
    writeJson(path, hybridRegionsJson(hybrid, sourceFile));
}

void writeHybridResidualMatrixMarket(const QString& path, const HybridValuedMatrix<double>& hybrid) {
    exportMatrixFile(fromCsr(hybrid.residual), path);
}

void writeHybridResidualMatrixMarket(const QString& path, const HybridBinaryMatrix& hybrid) {
    exportMatrixFile(matrixFromBinaryPattern(hybrid.residual), path);
}

namespace {
// The tab encodes a complex matrix for its CPU SpMV; the files hold real values or a pattern.
void refuseComplex(const HybridDetectionResult& result) {
    if (result.complexValued)
        throw InputError("complex values: the hybrid container and its files hold real values or a binary pattern (docs/container-format.md)");
}
} // namespace

std::size_t writeHybridContainerExport(const QString& path, const HybridDetectionResult& result, const std::string& note,
                                       const std::atomic<bool>* cancel) {
    refuseComplex(result);
    return result.valued ? writeHybridContainerExport(path, *result.valued, result.field, note, cancel)
                         : writeHybridContainerExport(path, *result.hybrid, note, cancel);
}

void writeHybridRegionsJson(const QString& path, const HybridDetectionResult& result, const QString& sourceFile) {
    refuseComplex(result);
    if (result.valued) writeHybridRegionsJson(path, *result.valued, sourceFile);
    else writeHybridRegionsJson(path, *result.hybrid, sourceFile);
}

void writeHybridResidualMatrixMarket(const QString& path, const HybridDetectionResult& result) {
    refuseComplex(result);
    if (result.valued) writeHybridResidualMatrixMarket(path, *result.valued);
    else writeHybridResidualMatrixMarket(path, *result.hybrid);
}

namespace {
// The valued encoding gives back the input less stored zeros inside a region.
bool valuedReproduces(const HybridValuedMatrix<double>& hybrid, const Matrix& input) {
    const CsrMatrix<double> back = decodeHybridValued(hybrid);
    const CsrMatrix<double> matrix = toCsr<double>(input);  // symmetry expanded, duplicates summed
    CsrMatrix<double> expected;
    expected.rows = matrix.rows;
    expected.cols = matrix.cols;
    expected.rowPtr.push_back(0);
    std::vector<ColumnSpan> spans;
    for (Index i = 0; i < matrix.rows; ++i) {
        spans.clear();
        for (const auto& block : hybrid.blocks) spans.push_back(block.region.span(i));
        for (Count k = matrix.rowPtr[i]; k < matrix.rowPtr[i + 1]; ++k) {
            const Index j = matrix.colIndex[k];
            const bool inside = std::any_of(spans.begin(), spans.end(), [j](const ColumnSpan& s) { return j >= s.begin && j < s.end; });
            if (inside && matrix.values[k] == 0.0) continue;
            expected.colIndex.push_back(j);
            expected.values.push_back(matrix.values[k]);
        }
        expected.rowPtr.push_back(Count(expected.colIndex.size()));
    }
    return back.rowPtr == expected.rowPtr && back.colIndex == expected.colIndex && back.values == expected.values;
}
} // namespace

void requireHybridReproduces(const HybridDetectionResult& result, const Matrix& input) {
    refuseComplex(result);
    if (result.valued) {
        if (!valuedReproduces(*result.valued, input)) throw Error("valued hybrid encoding does not reproduce the input (bug)");
        return;
    }
    if (!(decodeHybrid(*result.hybrid) == *result.pattern)) throw Error("hybrid encoding does not reproduce the input (bug)");
}

} // namespace spyglass::app
