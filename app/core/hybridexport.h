#pragma once
// Exports of a hybrid binary encoding (method D) that the GUI and the command-line tool share:
// the container itself (spyglass/container.h), the detected regions as JSON, and the CSR residual
// as Matrix Market. Every file is written atomically; failures throw spyglass::Error.
#include "spyglass/hybridbinary.h"

#include <QByteArray>
#include <QString>

namespace spyglass::app {

// {"file": ..., "regions": [{shape, rowBegin, rowEnd, colBegin, colEnd, fill, zeros, corner?,
//  bandLow?, bandHigh?, bandWidth?}], "csrFallback": bool, "fallbackReason": ...}
QByteArray hybridRegionsJson(const HybridBinaryMatrix& hybrid, const QString& sourceFile);
void writeHybridRegionsJson(const QString& path, const HybridBinaryMatrix& hybrid, const QString& sourceFile);
void writeHybridResidualMatrixMarket(const QString& path, const HybridBinaryMatrix& hybrid);

} // namespace spyglass::app
