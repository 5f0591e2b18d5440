#pragma once
// What `spyglass-cli power --json` (or --out report.json) measured, read back for the GUI's Scale
// tab: the device, the partitions and the exchange, the time per iteration and its communication
// share, the Rayleigh quotient and the check against the CPU reference.
#include "spyglass/matrix.h"

#include <QString>
#include <QVector>

namespace spyglass::app {

struct PowerReportPartition {
    Index rowBegin = 0, rowEnd = 0, xBegin = 0, xEnd = 0;
    double bytes = 0;
};

struct PowerReport {
    QString matrix, type, backend, device, format, exchange;
    int rows = 0, ranks = 0, iterations = 0, timedIterations = 0;
    double iterationMs = 0, computeMs = 0, communicationMs = 0, communicationShare = 0, setupMs = 0;
    double exchangeBytes = 0, imbalance = 1, rayleigh = 0;
    QVector<PowerReportPartition> partitions;
    bool checked = false, agrees = false;
    double checkDifference = 0;
    // Optional (reports written before they existed lack them): how the steps ran, and the exchange.
    bool fusedStep = false, overlappedExchange = false;
    double exchangeMs = 0, hiddenExchangeMs = 0;
};

// Throws InputError naming the file and the first field that is missing or of the wrong kind.
PowerReport readPowerReport(const QString& path);
PowerReport parsePowerReport(const QByteArray& json, const QString& where);

} // namespace spyglass::app
