#pragma once
// The format comparison as text: a Markdown table (spyglass-cli compare, --out, the GUI's copy) and a
// JSON object (--json). Both carry every row, its backend, the reasons of the rows that did not run
// and the recommendation.
#include "spyglass/formatcomparison.h"

#include <QJsonObject>
#include <QString>

namespace spyglass::app {

QJsonObject formatComparisonToJson(const FormatComparison& comparison, const QString& source);
QString formatComparisonToMarkdown(const FormatComparison& comparison, const QString& source);

// One cell each, shared by the table model of the GUI and the Markdown table.
QString comparisonTime(const FormatRow& row);        // "0.123 ms" (median of warm runs)
QString comparisonBytes(std::size_t bytes);          // "12.3 MB"
QString comparisonRatio(double ratio);               // "2.31x", "-" for 0
QString comparisonAgreement(const FormatRow& row);   // "ok (rel 1.2e-07)" or "DIFFERS (rel ..., 3.1x bound)"

} // namespace spyglass::app
