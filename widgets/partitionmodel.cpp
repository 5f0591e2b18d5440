#include "partitionmodel.h"

#include "byteformat.h"

#include <QLocale>

namespace spyglass::widgets {

PartitionModel::PartitionModel(QObject* parent)
    : RowTableModel({figureColumn(tr("Part")),
                     figureColumn(tr("Rows")),
                     textColumn(tr("Row range")),
                     figureColumn(tr("Bytes")),
                     textColumn(tr("Reads x")),
                     figureColumn(tr("Receives / iteration"))},
                    parent) {}

// The rows are the plan's parts; the whole plan stays for plan() and what each part receives.
void PartitionModel::setPlan(const PartitionPlan& plan) {
    setRows(plan.parts, [&] { m_plan = plan; });
}

QVariant PartitionModel::cell(const RowPartition& p, const QModelIndex& index, int role) const {
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

} // namespace spyglass::widgets
