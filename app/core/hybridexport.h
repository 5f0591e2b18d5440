#pragma once
// Exports of a hybrid binary encoding (method D) that the GUI and the command-line tool share:
// the container itself (spyglass/container.h), the detected regions as JSON, and the CSR residual
// as Matrix Market. Every file is written atomically; failures throw spyglass::Error.
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"

#include <QByteArray>
#include <QString>

namespace spyglass::app {

// {"file": ..., "regions": [{shape, rowBegin, rowEnd, colBegin, colEnd, fill, zeros, corner?,
//  bandLow?, bandHigh?, bandWidth?}], "csrFallback": bool, "fallbackReason": ...}
QByteArray hybridRegionsJson(const HybridBinaryMatrix& hybrid, const QString& sourceFile);
void writeHybridRegionsJson(const QString& path, const HybridBinaryMatrix& hybrid, const QString& sourceFile);
void writeHybridResidualMatrixMarket(const QString& path, const HybridBinaryMatrix& hybrid);
// The valued form: the same JSON ("zeros": the explicit zeros its dense values hold), the residual
// with its values (real field).
QByteArray hybridRegionsJson(const HybridValuedMatrix<double>& hybrid, const QString& sourceFile);
void writeHybridRegionsJson(const QString& path, const HybridValuedMatrix<double>& hybrid, const QString& sourceFile);
void writeHybridResidualMatrixMarket(const QString& path, const HybridValuedMatrix<double>& hybrid);

} // namespace spyglass::app
