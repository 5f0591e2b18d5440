#include "scalereport.h"

#include "spyglass/error.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>
#include <initializer_list>
#include <utility>

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

template <typename Record, typename Value>
using Fields = std::initializer_list<std::pair<Value Record::*, const char*>>;

// One JSON object's fields into a record, by (member, key) tables: the strings, then the counts, then
// the numbers, so the error names the first bad field in that order.
template <typename Record>
void readFields(const QJsonObject& o, const QString& where, Record& record, Fields<Record, QString> texts,
                Fields<Record, int> counts, Fields<Record, double> numbers) {
    for (const auto& [member, key] : texts) record.*member = text(o, key, where);
    for (const auto& [member, key] : counts) record.*member = count(o, key, where);
    for (const auto& [member, key] : numbers) record.*member = number(o, key, where);
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
    readFields<PowerReport>(
        o, where, r,
        {{&PowerReport::matrix, "matrix"}, {&PowerReport::type, "type"}, {&PowerReport::backend, "backend"}, {&PowerReport::device, "device"}},
        {{&PowerReport::rows, "rows"}, {&PowerReport::ranks, "ranks"}, {&PowerReport::iterations, "iterations"},
         {&PowerReport::timedIterations, "timedIterations"}},
        {{&PowerReport::iterationMs, "iterationMs"}, {&PowerReport::computeMs, "computeMs"},
         {&PowerReport::communicationMs, "communicationMs"}, {&PowerReport::communicationShare, "communicationShare"},
         {&PowerReport::setupMs, "setupMs"}, {&PowerReport::rayleigh, "rayleigh"}});
    const QJsonValue planValue = o.value(QStringLiteral("plan"));
    if (!planValue.isObject()) fail(where, QStringLiteral("\"plan\" is not an object"));
    const QJsonObject plan = planValue.toObject();
    readFields<PowerReport>(plan, where, r, {{&PowerReport::format, "format"}, {&PowerReport::exchange, "exchange"}}, {},
                            {{&PowerReport::exchangeBytes, "exchangeBytes"}, {&PowerReport::imbalance, "imbalance"}});
    const QJsonValue parts = plan.value(QStringLiteral("partitions"));
    if (!parts.isArray() || parts.toArray().isEmpty()) fail(where, QStringLiteral("\"plan.partitions\" is not a non-empty array"));
    Index previousEnd = 0;
    for (const QJsonValue& p : parts.toArray()) {
        if (!p.isObject()) fail(where, QStringLiteral("a partition is not an object"));
        const QJsonObject po = p.toObject();
        PowerReportPartition part;
        readFields<PowerReportPartition>(po, where, part, {},
                                         {{&PowerReportPartition::rowBegin, "rowBegin"}, {&PowerReportPartition::rowEnd, "rowEnd"},
                                          {&PowerReportPartition::xBegin, "xBegin"}, {&PowerReportPartition::xEnd, "xEnd"}},
                                         {{&PowerReportPartition::bytes, "bytes"}});
        // Partitions cover the rows in order, without gaps: what the CLI writes, and what the
        // picture's row bands rely on.
        if (part.rowBegin != previousEnd || part.rowEnd < part.rowBegin || part.rowEnd > r.rows)
            fail(where, QStringLiteral("partition %1 covers rows [%2, %3), expected to start at %4 within %5 rows")
                            .arg(r.partitions.size()).arg(part.rowBegin).arg(part.rowEnd).arg(previousEnd).arg(r.rows));
        previousEnd = part.rowEnd;
        r.partitions.push_back(part);
    }
    if (previousEnd != r.rows) fail(where, QStringLiteral("the partitions end at row %1 of %2").arg(previousEnd).arg(r.rows));
    r.exchangeMs = number(o, "exchangeMs", where, false);
    r.hiddenExchangeMs = number(o, "hiddenExchangeMs", where, false);
    r.fusedStep = o.value(QStringLiteral("fusedStep")).toBool(false);
    r.overlappedExchange = o.value(QStringLiteral("overlappedExchange")).toBool(false);
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
