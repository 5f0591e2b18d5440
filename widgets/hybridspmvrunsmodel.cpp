#include "hybridspmvrunsmodel.h"

namespace spyglass::widgets {

namespace {
QString milliseconds(double ms) { return ms < 0 ? QStringLiteral("—") : QString::number(ms, 'f', ms < 1 ? 4 : 2); }
} // namespace

HybridSpmvRunsModel::HybridSpmvRunsModel(QObject* parent) : QAbstractTableModel(parent) {}

void HybridSpmvRunsModel::setResult(const app::HybridSpmvResult& result) {
    beginResetModel();
    m_result = result;
    endResetModel();
}

void HybridSpmvRunsModel::clear() { setResult({}); }

int HybridSpmvRunsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_result.runs.size()); }
int HybridSpmvRunsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QString HybridSpmvRunsModel::text(const app::HybridSpmvRun& run, int column) const {
    if (column == Backend) return run.name;
    if (!run.error.isEmpty()) return column == Check ? tr("did not run: %1").arg(run.error) : QString();
    switch (column) {
    case Upload: return milliseconds(run.uploadMs);
    case Median: return milliseconds(run.medianMs);
    case Range: return milliseconds(run.minMs) + QStringLiteral("–") + milliseconds(run.maxMs);
    case Check:
        if (!run.matches) return tr("WRONG: max |error| %1").arg(run.maxAbsError, 0, 'g', 3);
        return m_result.bytes.valued ? tr("within rounding of the reference (%1 of the bound)").arg(run.errorOverBound, 0, 'g', 2)
                                     : tr("equals the reference");
    }
    return {};
}

QVariant HybridSpmvRunsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const app::HybridSpmvRun& run = m_result.runs[index.row()];
    if (role == Qt::DisplayRole) return text(run, index.column());
    if (role == Qt::ToolTipRole && index.column() == Check && !run.error.isEmpty()) return run.error;
    return {};
}

QVariant HybridSpmvRunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Backend: return tr("Backend");
    case Upload: return tr("Upload ms");
    case Median: return tr("SpMV ms (median)");
    case Range: return tr("min–max ms");
    case Check: return tr("Check");
    }
    return {};
}

} // namespace spyglass::widgets
