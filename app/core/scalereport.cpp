#include "scalereport.h"

#include "spyglass/error.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

namespace spyglass::app {

namespace {

[[noreturn]] void fail(const QString& where, const QString& what) {
    throw InputError(QStringLiteral("%1: not a spyglass-cli power report: %2").arg(where, what).toStdString());
}

double number(const QJsonObject& o, const char* key, const QString& where, bool required = true) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (v.isUndefined() && !required) return 0;
    if (!v.isDouble() || !std::isfinite(v.toDouble())) fail(where, QStringLiteral("\"%1\" is not a number").arg(QLatin1String(key)));
    return v.toDouble();
}

int count(const QJsonObject& o, const char* key, const QString& where, bool required = true) {
    const double v = number(o, key, where, required);
    if (v < 0 || v > 2147483647.0 || v != std::floor(v)) fail(where, QStringLiteral("\"%1\" is not a count").arg(QLatin1String(key)));
    return static_cast<int>(v);
}

QString text(const QJsonObject& o, const char* key, const QString& where) {
    const QJsonValue v = o.value(QLatin1String(key));
    if (!v.isString()) fail(where, QStringLiteral("\"%1\" is not a string").arg(QLatin1String(key)));
    return v.toString();
}

} // namespace

PowerReport parsePowerReport(const QByteArray& json, const QString& where) {
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (error.error != QJsonParseError::NoError)
        fail(where, QStringLiteral("JSON error at byte %1: %2").arg(error.offset).arg(error.errorString()));
    if (!doc.isObject()) fail(where, QStringLiteral("the document is not one object"));
    const QJsonObject o = doc.object();
    PowerReport r;
    r.matrix = text(o, "matrix", where);
    r.type = text(o, "type", where);
    r.backend = text(o, "backend", where);
    r.device = text(o, "device", where);
    r.rows = count(o, "rows", where);
    r.ranks = count(o, "ranks", where);
    r.iterations = count(o, "iterations", where);
    r.timedIterations = count(o, "timedIterations", where);
    r.iterationMs = number(o, "iterationMs", where);
    r.computeMs = number(o, "computeMs", where);
    r.communicationMs = number(o, "communicationMs", where);
    r.communicationShare = number(o, "communicationShare", where);
    r.setupMs = number(o, "setupMs", where);
    r.rayleigh = number(o, "rayleigh", where);
    const QJsonValue planValue = o.value(QStringLiteral("plan"));
    if (!planValue.isObject()) fail(where, QStringLiteral("\"plan\" is not an object"));
    const QJsonObject plan = planValue.toObject();
    r.format = text(plan, "format", where);
    r.exchange = text(plan, "exchange", where);
    r.exchangeBytes = number(plan, "exchangeBytes", where);
    r.imbalance = number(plan, "imbalance", where);
    const QJsonValue parts = plan.value(QStringLiteral("partitions"));
    if (!parts.isArray() || parts.toArray().isEmpty()) fail(where, QStringLiteral("\"plan.partitions\" is not a non-empty array"));
    Index previousEnd = 0;
    for (const QJsonValue& p : parts.toArray()) {
        if (!p.isObject()) fail(where, QStringLiteral("a partition is not an object"));
        const QJsonObject po = p.toObject();
        PowerReportPartition part;
        part.rowBegin = count(po, "rowBegin", where);
        part.rowEnd = count(po, "rowEnd", where);
        part.xBegin = count(po, "xBegin", where);
        part.xEnd = count(po, "xEnd", where);
        part.bytes = number(po, "bytes", where);
        // Partitions cover the rows in order, without gaps: what the CLI writes, and what the
        // picture's row bands rely on.
        if (part.rowBegin != previousEnd || part.rowEnd < part.rowBegin || part.rowEnd > r.rows)
            fail(where, QStringLiteral("partition %1 covers rows [%2, %3), expected to start at %4 within %5 rows")
                            .arg(r.partitions.size()).arg(part.rowBegin).arg(part.rowEnd).arg(previousEnd).arg(r.rows));
        previousEnd = part.rowEnd;
        r.partitions.push_back(part);
    }
    if (previousEnd != r.rows) fail(where, QStringLiteral("the partitions end at row %1 of %2").arg(previousEnd).arg(r.rows));
    const QJsonValue check = o.value(QStringLiteral("check"));
    if (check.isObject()) {
        r.checked = true;
        r.agrees = check.toObject().value(QStringLiteral("agrees")).toBool();
        r.checkDifference = number(check.toObject(), "relativeDifference", where);
    }
    return r;
}

PowerReport readPowerReport(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        throw InputError(QStringLiteral("%1: cannot open: %2").arg(path, file.errorString()).toStdString());
    // A report is a few kilobytes per partition; refuse anything absurd before reading it whole.
    if (file.size() > (64 << 20)) throw InputError(QStringLiteral("%1: %2 bytes is not a power report").arg(path).arg(file.size()).toStdString());
    return parsePowerReport(file.readAll(), path);
}

} // namespace spyglass::app
