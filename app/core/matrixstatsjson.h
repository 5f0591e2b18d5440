#pragma once
// The structural statistics of a matrix file as one JSON object (`spyglass-cli info --json`): the
// counts, the shape words and the backend that computed them.
#include "spyglass/stats.h"

#include <QJsonObject>
#include <QString>

namespace spyglass::app {

QJsonObject matrixStatsJson(const QString& file, const MatrixStats& stats);

} // namespace spyglass::app
