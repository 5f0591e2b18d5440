#include "partitionmodel.h"

#include "byteformat.h"

#include <QLocale>

namespace spyglass::widgets {

PartitionModel::PartitionModel(QObject* parent) : QAbstractTableModel(parent) {}

void PartitionModel::setPlan(const PartitionPlan& plan) {
    beginResetModel();
    m_plan = plan;
    endResetModel();
}

void PartitionModel::clear() { setPlan({}); }

int PartitionModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_plan.parts.size());
}

int PartitionModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant PartitionModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const RowPartition& p = m_plan.parts[std::size_t(index.row())];
    if (role == Qt::TextAlignmentRole)
        return index.column() == RowRange || index.column() == XSpan ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                                                     : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
    switch (index.column()) {
    case Part: return index.row();
    case Rows: return QLocale().toString(p.rows());
    case RowRange: return QStringLiteral("[%1, %2)").arg(p.rowBegin).arg(p.rowEnd);
    case Megabytes: return formatBytes(double(p.bytes));
    case XSpan: return p.xBegin < p.xEnd ? QStringLiteral("[%1, %2)").arg(p.xBegin).arg(p.xEnd) : tr("none");
    case Receives: return formatBytes(double(m_plan.receivedBytes(index.row())));
    }
    return {};
}

QVariant PartitionModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Part: return tr("Part");
    case Rows: return tr("Rows");
    case RowRange: return tr("Row range");
    case Megabytes: return tr("Bytes");
    case XSpan: return tr("Reads x");
    case Receives: return tr("Receives / iteration");
    }
    return {};
}

} // namespace spyglass::widgets
