#include "formatcomparisonmodel.h"

#include "core/formatcomparisonreport.h"
#include "core/timingtext.h"

namespace spyglass::widgets {

FormatComparisonModel::FormatComparisonModel(QObject* parent)
    : RowTableModel({{tr("Format")},
                     {tr("Backend")},
                     {tr("SpMV, median (min–max)"), tr("The multiply alone: median of the timed runs after the warm-up (the cold first call apart)"), kAlignFigure},
                     figureColumn(tr("vs CSR")),
                     figureColumn(tr("GB/s")),
                     figureColumn(tr("of copy")),
                     figureColumn(tr("Bytes")),
                     figureColumn(tr("Padding")),
                     figureColumn(tr("Build")),
                     figureColumn(tr("Upload")),
                     {tr("Cold 1st ms"), tr("The first call, timed alone: module loading and library start-up land here, not in the median"), kAlignFigure},
                     {tr("Result")},
                     {tr("Note")}},
                    parent) {}

// The rows are the comparison's results; the whole comparison stays for comparison() and its pick.
void FormatComparisonModel::setComparison(const FormatComparison& comparison) {
    setRows(comparison.results, [&] { m_comparison = comparison; });
}

QString FormatComparisonModel::text(const FormatRow& row, int column) const {
    if (column == Format) return QString::fromStdString(row.name);
    if (column == Backend) return QString::fromStdString(row.backend);
    if (!row.applicable) return column == Note ? tr("not run: %1").arg(QString::fromStdString(row.reason)) : QString();
    switch (column) {
    case Median: return app::timingText(row.spmv);
    case VsCsr: return app::comparisonRatio(row.speedupOverCsr);
    case Bandwidth: return QString::number(row.gbPerSecond, 'f', 1);
    case CopyFraction: return QString::number(100.0 * row.copyFraction, 'f', 0) + QStringLiteral(" %");
    case Bytes: return app::comparisonBytes(row.bytes);
    case Padding: return row.padding > 0 ? QString::number(row.padding, 'f', 3) : QStringLiteral("-");
    case Build: return QString::number(row.buildMs, 'f', 1) + QStringLiteral(" ms");
    case Upload: return QString::number(row.uploadMs, 'f', 1) + QStringLiteral(" ms");
    case Cold: return app::millisecondsText(row.spmv.coldMs);
    case Result: return app::comparisonAgreement(row);
    case Note: return QString::fromStdString(row.note);
    default: return QString();
    }
}

QVariant FormatComparisonModel::cell(const FormatRow& row, const QModelIndex& index, int role) const {
    switch (role) {
    case Qt::DisplayRole: return text(row, index.column());
    case Qt::ToolTipRole:
        // The time's tooltip says how it was measured, as in every other tab's timing table.
        // (the cell's own text first: a narrow column elides it).
        return index.column() == Median && row.applicable ? text(row, Median) + QLatin1Char('\n') + app::timingTooltip(row.spmv)
                                                          : text(row, index.column());
    case Qt::FontRole: return index.row() == m_comparison.pick ? QVariant(boldFont()) : QVariant();
    default: return {};
    }
}

} // namespace spyglass::widgets
