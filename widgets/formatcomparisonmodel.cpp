#include "formatcomparisonmodel.h"

#include "core/formatcomparisonreport.h"

#include <QFont>

namespace spyglass::widgets {

FormatComparisonModel::FormatComparisonModel(QObject* parent) : QAbstractTableModel(parent) {}

void FormatComparisonModel::setComparison(const FormatComparison& comparison) {
    beginResetModel();
    m_comparison = comparison;
    endResetModel();
}

void FormatComparisonModel::clear() { setComparison({}); }

int FormatComparisonModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_comparison.results.size());
}

int FormatComparisonModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString FormatComparisonModel::text(const FormatRow& row, int column) const {
    if (column == Format) return QString::fromStdString(row.name);
    if (column == Backend) return QString::fromStdString(row.backend);
    if (!row.applicable) return column == Note ? tr("not run: %1").arg(QString::fromStdString(row.reason)) : QString();
    switch (column) {
    case Median: return app::comparisonTime(row);
    case VsCsr: return app::comparisonRatio(row.speedupOverCsr);
    case Bandwidth: return QString::number(row.gbPerSecond, 'f', 1);
    case CopyFraction: return QString::number(100.0 * row.copyFraction, 'f', 0) + QStringLiteral(" %");
    case Bytes: return app::comparisonBytes(row.bytes);
    case Padding: return row.padding > 0 ? QString::number(row.padding, 'f', 3) : QStringLiteral("-");
    case Build: return QString::number(row.buildMs, 'f', 1) + QStringLiteral(" ms");
    case Upload: return QString::number(row.uploadMs, 'f', 1) + QStringLiteral(" ms");
    case Result: return app::comparisonAgreement(row);
    case Note: return QString::fromStdString(row.note);
    default: return QString();
    }
}

QVariant FormatComparisonModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount() || index.column() < 0 || index.column() >= ColumnCount)
        return {};
    const FormatRow& row = m_comparison.results[std::size_t(index.row())];
    switch (role) {
    case Qt::DisplayRole:
    case Qt::ToolTipRole: return text(row, index.column());
    case Qt::FontRole:
        if (index.row() == m_comparison.pick) {
            QFont bold;
            bold.setBold(true);
            return bold;
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() >= Median && index.column() <= Upload) return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default: return {};
    }
}

QVariant FormatComparisonModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Format: return tr("Format");
    case Backend: return tr("Backend");
    case Median: return tr("SpMV median");
    case VsCsr: return tr("vs CSR");
    case Bandwidth: return tr("GB/s");
    case CopyFraction: return tr("of copy");
    case Bytes: return tr("Bytes");
    case Padding: return tr("Padding");
    case Build: return tr("Build");
    case Upload: return tr("Upload");
    case Result: return tr("Result");
    case Note: return tr("Note");
    default: return {};
    }
}

} // namespace spyglass::widgets
