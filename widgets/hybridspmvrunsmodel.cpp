#include "hybridspmvrunsmodel.h"

#include "core/timingtext.h"

namespace spyglass::widgets {


HybridSpmvRunsModel::HybridSpmvRunsModel(QObject* parent)
    : RowTableModel({{tr("Backend")}, {tr("Upload ms")}, {tr("SpMV ms, median (min–max)")}, {tr("Copy bandwidth")}, {tr("Check")}}, parent) {}

void HybridSpmvRunsModel::setResult(const app::HybridSpmvResult& result) {
    setRows({result.runs.begin(), result.runs.end()}, [&] { m_valued = result.bytes.valued; });
}

QString HybridSpmvRunsModel::text(const app::HybridSpmvRun& run, int column) const {
    if (column == Backend) return run.name;
    if (!run.error.isEmpty()) return column == Check ? tr("did not run: %1").arg(run.error) : QString();
    switch (column) {
    case Upload: return app::millisecondsText(run.timing.uploadMs);
    case Median: return app::timingText(run.timing);
    case Bandwidth: return app::bandwidthText(run.bytesMoved, run.timing);
    case Check:
        if (!run.matches) return tr("WRONG: max |error| %1").arg(run.maxAbsError, 0, 'g', 3);
        return m_valued ? tr("within rounding of the reference (%1 of the bound)").arg(run.errorOverBound, 0, 'g', 2)
                                     : tr("equals the reference");
    }
    return {};
}

QVariant HybridSpmvRunsModel::cell(const app::HybridSpmvRun& run, const QModelIndex& index, int role) const {
    if (role == Qt::DisplayRole) return text(run, index.column());
    if (role == Qt::ToolTipRole && index.column() == Check && !run.error.isEmpty()) return run.error;
    if (role == Qt::ToolTipRole && (index.column() == Median || index.column() == Upload)) return app::timingTooltip(run.timing);
    return {};
}

} // namespace spyglass::widgets
