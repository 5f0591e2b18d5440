#pragma once
// Exports of a hybrid binary encoding (method D) that the GUI and the command-line tool share:
// the container itself (spyglass/container.h), the detected regions as JSON, and the CSR residual
// as a matrix file. Every file goes through the checked writer (checkedwrite.h): read back from the
// disk and compared with what it was made from before it replaces the target; failures throw
// spyglass::Error and leave the target as it was.
#include "hybriddetectionjob.h"

#include "spyglass/container.h"
#include "spyglass/hybrid_binary.h"
#include "spyglass/hybrid_valued.h"

#include <QByteArray>
#include <QString>

#include <atomic>
#include <string>

namespace spyglass::app {

// The container; it must parse back to the same encoding (regions, zeros or values, residual).
// Returns the bytes written.
std::size_t writeHybridContainerExport(const QString& path, const HybridBinaryMatrix& hybrid, const std::string& note,
                                       const std::atomic<bool>* cancel = nullptr);
std::size_t writeHybridContainerExport(const QString& path, const HybridValuedMatrix<double>& hybrid, Field field,
                                       const std::string& note, const std::atomic<bool>* cancel = nullptr);

// {"file": ..., "regions": [{shape, rowBegin, rowEnd, colBegin, colEnd, fill, zeros, corner?,
//  bandLow?, bandHigh?, bandWidth?}], "csrFallback": bool, "fallbackReason": ...}
QByteArray hybridRegionsJson(const HybridBinaryMatrix& hybrid, const QString& sourceFile);
void writeHybridRegionsJson(const QString& path, const HybridBinaryMatrix& hybrid, const QString& sourceFile);
// The residual as a matrix file (Matrix Market unless the name asks for another format).
void writeHybridResidualMatrixMarket(const QString& path, const HybridBinaryMatrix& hybrid);
// The valued form: the same JSON ("zeros": the explicit zeros its dense values hold), the residual
// with its values (real field).
QByteArray hybridRegionsJson(const HybridValuedMatrix<double>& hybrid, const QString& sourceFile);
void writeHybridRegionsJson(const QString& path, const HybridValuedMatrix<double>& hybrid, const QString& sourceFile);
void writeHybridResidualMatrixMarket(const QString& path, const HybridValuedMatrix<double>& hybrid);

// The same three files for whichever encoding a detection made (its `valued` or its binary `hybrid`):
// what the hybrid tab and spyglass-cli export.
std::size_t writeHybridContainerExport(const QString& path, const HybridDetectionResult& result, const std::string& note,
                                       const std::atomic<bool>* cancel = nullptr);
void writeHybridRegionsJson(const QString& path, const HybridDetectionResult& result, const QString& sourceFile);
void writeHybridResidualMatrixMarket(const QString& path, const HybridDetectionResult& result);

// Refuses (Error) an encoding that does not give back `input`, the matrix it was made from: the
// binary encoding must decode to its pattern; the valued one to its entries, less stored zeros
// inside a region (which a dense block cannot tell from an absent cell).
void requireHybridReproduces(const HybridDetectionResult& result, const Matrix& input);

} // namespace spyglass::app
