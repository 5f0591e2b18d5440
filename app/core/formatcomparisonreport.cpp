#include "formatcomparisonreport.h"

#include "timingtext.h"

#include <QJsonArray>
#include <QStringList>

namespace spyglass::app {

namespace {

QString fixed(double value, int decimals) { return QString::number(value, 'f', decimals); }

QJsonObject rowToJson(const FormatRow& row) {
    QJsonObject o;
    o[QStringLiteral("format")] = QString::fromLatin1(formatKey(row.format));
    o[QStringLiteral("name")] = QString::fromStdString(row.name);
    o[QStringLiteral("applicable")] = row.applicable;
    o[QStringLiteral("backend")] = QString::fromStdString(row.backend);
    if (!row.applicable) {
        o[QStringLiteral("reason")] = QString::fromStdString(row.reason);
        return o;
    }
    o[QStringLiteral("note")] = QString::fromStdString(row.note);
    o[QStringLiteral("build_ms")] = row.buildMs;
    o[QStringLiteral("upload_ms")] = row.uploadMs;
    o[QStringLiteral("bytes")] = double(row.bytes);
    o[QStringLiteral("padding")] = row.padding;
    o[QStringLiteral("spmv_median_ms")] = row.spmv.medianMs;
    o[QStringLiteral("spmv_min_ms")] = row.spmv.minMs;
    o[QStringLiteral("spmv_max_ms")] = row.spmv.maxMs;
    o[QStringLiteral("repeats")] = row.spmv.repeats;
    // The same timing object as every other report (cold first call, warm-up, clock, L2 flush).
    o[QStringLiteral("spmv_timing")] = timingJson(row.spmv);
    o[QStringLiteral("bytes_moved")] = row.bytesMoved;
    o[QStringLiteral("gb_per_s")] = row.gbPerSecond;
    o[QStringLiteral("copy_fraction")] = row.copyFraction;
    o[QStringLiteral("max_relative_difference")] = row.maxRelativeDifference;
    o[QStringLiteral("error_over_bound")] = row.errorRatio;
    o[QStringLiteral("agrees")] = row.agrees;
    o[QStringLiteral("speedup_over_csr")] = row.speedupOverCsr;
    o[QStringLiteral("bytes_over_csr")] = row.bytesOverCsr;
    return o;
}

} // namespace

QString comparisonTime(const FormatRow& row) { return row.applicable ? fixed(row.spmv.medianMs, 4) + QStringLiteral(" ms") : QString(); }

QString comparisonBytes(std::size_t bytes) {
    const double b = double(bytes);
    if (b >= 1e9) return fixed(b / 1e9, 2) + QStringLiteral(" GB");
    if (b >= 1e6) return fixed(b / 1e6, 1) + QStringLiteral(" MB");
    if (b >= 1e3) return fixed(b / 1e3, 1) + QStringLiteral(" kB");
    return QString::number(bytes) + QStringLiteral(" B");
}

QString comparisonRatio(double ratio) { return ratio > 0 ? fixed(ratio, 2) + QLatin1Char('x') : QStringLiteral("-"); }

QString comparisonAgreement(const FormatRow& row) {
    if (!row.applicable) return QString();
    const QString relative = QString::number(row.maxRelativeDifference, 'g', 2);
    if (row.agrees) return QStringLiteral("ok (rel %1)").arg(relative);
    return QStringLiteral("DIFFERS (rel %1, %2x bound)").arg(relative, QString::number(row.errorRatio, 'g', 3));
}

QJsonObject formatComparisonToJson(const FormatComparison& c, const QString& source) {
    QJsonObject o;
    o[QStringLiteral("file")] = source;
    QJsonObject matrix;
    matrix[QStringLiteral("rows")] = c.rows;
    matrix[QStringLiteral("cols")] = c.cols;
    matrix[QStringLiteral("nonzeros")] = double(c.nonzeros);
    matrix[QStringLiteral("binary")] = c.binary;
    o[QStringLiteral("matrix")] = matrix;
    o[QStringLiteral("precision")] = QString::fromStdString(c.precision);
    o[QStringLiteral("on_gpu")] = c.onGpu;
    o[QStringLiteral("device")] = QString::fromStdString(c.device);
    o[QStringLiteral("copy_bandwidth_gb_per_s")] = c.copyBandwidthGBs;
    QJsonArray rows;
    for (const FormatRow& row : c.results) rows.append(rowToJson(row));
    o[QStringLiteral("formats")] = rows;
    QJsonObject pick;
    if (const FormatRow* best = c.picked()) {
        pick[QStringLiteral("format")] = QString::fromLatin1(formatKey(best->format));
        pick[QStringLiteral("name")] = QString::fromStdString(best->name);
        pick[QStringLiteral("index")] = c.pick;
    }
    pick[QStringLiteral("reason")] = QString::fromStdString(c.pickReason);
    o[QStringLiteral("pick")] = pick;
    return o;
}

QString formatComparisonToMarkdown(const FormatComparison& c, const QString& source) {
    QStringList lines;
    lines << QStringLiteral("# SpMV formats on %1").arg(source) << QString();
    lines << QStringLiteral("%1 x %2, %3 nonzeros%4, %5; %6; copy bandwidth %7 GB/s (read + write, measured in this run)")
                 .arg(c.rows)
                 .arg(c.cols)
                 .arg(c.nonzeros)
                 .arg(c.binary ? QStringLiteral(", binary") : QString())
                 .arg(QString::fromStdString(c.precision))
                 .arg(c.onGpu ? QStringLiteral("GPU: ") + QString::fromStdString(c.device) : QString::fromStdString(c.device))
                 .arg(fixed(c.copyBandwidthGBs, 1));
    lines << QString();
    lines << QStringLiteral("| format | backend | SpMV median | vs CSR | GB/s | of copy | bytes | padding | build | upload | cold 1st | result | note |");
    lines << QStringLiteral("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|");
    for (std::size_t i = 0; i < c.results.size(); ++i) {
        const FormatRow& row = c.results[i];
        const QString name = QString::fromStdString(row.name) + (int(i) == c.pick ? QStringLiteral(" **(pick)**") : QString());
        if (!row.applicable) {
            lines << QStringLiteral("| %1 | %2 | - | - | - | - | - | - | - | - | - | not run | %3 |")
                         .arg(name, QString::fromStdString(row.backend), QString::fromStdString(row.reason).replace(QLatin1Char('|'), QLatin1Char('/')));
            continue;
        }
        lines << QStringLiteral("| %1 | %2 | %3 | %4 | %5 | %6 % | %7 | %8 | %9 ms | %10 ms | %11 | %12 | %13 |")
                     .arg(name, QString::fromStdString(row.backend), comparisonTime(row), comparisonRatio(row.speedupOverCsr),
                          fixed(row.gbPerSecond, 1), fixed(100.0 * row.copyFraction, 0), comparisonBytes(row.bytes),
                          row.padding > 0 ? fixed(row.padding, 3) : QStringLiteral("-"), fixed(row.buildMs, 1),
                          fixed(row.uploadMs, 1), row.spmv.coldMs >= 0 ? millisecondsText(row.spmv.coldMs) + QStringLiteral(" ms") : QStringLiteral("-"),
                          comparisonAgreement(row), QString::fromStdString(row.note).replace(QLatin1Char('|'), QLatin1Char('/')));
    }
    lines << QString() << QStringLiteral("Recommendation: %1").arg(QString::fromStdString(c.pickReason)) << QString();
    return lines.join(QLatin1Char('\n'));
}

} // namespace spyglass::app
