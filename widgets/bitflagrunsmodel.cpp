#include "bitflagrunsmodel.h"

#include <QColor>

#include <cmath>

namespace spyglass::widgets {

namespace {
QString ratioText(double ratio) {
    if (!std::isfinite(ratio)) return QStringLiteral("∞");
    return QString::number(ratio, 'g', 2);
}
} // namespace

BitFlagRunsModel::BitFlagRunsModel(QObject* parent) : QAbstractTableModel(parent) {}

void BitFlagRunsModel::setResult(const app::BitFlagOpResult& result) {
    beginResetModel();
    m_result = result;
    endResetModel();
}

void BitFlagRunsModel::clear() { setResult({}); }

int BitFlagRunsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_result.runs.size()); }
int BitFlagRunsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString BitFlagRunsModel::verdict(const app::BitFlagOpRun& run) const {
    if (run.agrees) return tr("agrees");
    if (run.problem.startsWith(QLatin1String("not checked"))) return run.problem;
    if (!run.samePattern) return tr("PATTERN DIFFERS: %1").arg(run.problem);
    return tr("DIFFERS: %1").arg(run.problem);
}

QString BitFlagRunsModel::text(int row, int column) const {
    const app::BitFlagOpRun& run = m_result.runs[row];
    if (column == Backend) return run.name;
    if (!run.error.isEmpty()) return column == Result ? tr("did not run: %1").arg(run.error) : QString();
    const bool lu = m_result.op == app::BitFlagOp::Lu;
    switch (column) {
    case Result: return verdict(run);
    case Time: return QString::number(run.milliseconds, 'f', 3);
    case Entries: return QString::number(run.entries);
    case Difference: {
        QString difference = lu ? tr("‖A − LU‖/‖A‖ %1").arg(run.residual, 0, 'g', 3) : tr("%1").arg(run.maxDifference, 0, 'g', 3);
        if (lu && row > 0) difference += tr("; factors %1").arg(run.maxDifference, 0, 'g', 3);
        return difference + tr(" (%1 of bound)").arg(ratioText(run.worstBoundRatio));
    }
    case CheckedAgainst: return run.checkedAgainst;
    }
    return {};
}

QVariant BitFlagRunsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const app::BitFlagOpRun& run = m_result.runs[index.row()];
    switch (role) {
    case Qt::DisplayRole: return text(index.row(), index.column());
    case Qt::TextAlignmentRole:
        return index.column() == Time || index.column() == Entries || (!run.error.isEmpty() && index.column() > Result)
                   ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (index.column() != Result) return {};
        if (!run.error.isEmpty()) return QColor(150, 40, 30);
        return run.agrees ? QColor(20, 120, 40) : QColor(190, 30, 30);
    case Qt::ToolTipRole:
        if (index.column() != Result) return {};
        return run.error.isEmpty() ? run.problem : run.error;
    default: return {};
    }
}

QVariant BitFlagRunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Backend: return tr("Backend");
    case Result: return tr("Result");
    case Time: return tr("Time (ms)");
    case Entries: return tr("Entries");
    case Difference: return tr("Difference");
    case CheckedAgainst: return tr("Checked against");
    }
    return {};
}

} // namespace spyglass::widgets
