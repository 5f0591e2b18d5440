#include "bitflagrunsmodel.h"

#include "core/timingtext.h"

#include <QColor>

#include <cmath>

namespace spyglass::widgets {

namespace {
QString ratioText(double ratio) {
    if (!std::isfinite(ratio)) return QStringLiteral("∞");
    return QString::number(ratio, 'g', 2);
}
} // namespace

BitFlagRunsModel::BitFlagRunsModel(QObject* parent)
    : RowTableModel({textColumn(tr("Backend")),
                     textColumn(tr("Result")),
                     {tr("Time, median (min–max)"), tr("GPU: the device work alone, median of the timed runs (cold call, upload, download apart); CPU: one run"), kAlignFigure},
                     figureColumn(tr("Entries")),
                     textColumn(tr("Difference")),
                     textColumn(tr("Checked against"))},
                    parent) {}

void BitFlagRunsModel::setResult(const app::BitFlagOpResult& result) {
    setRows({result.runs.begin(), result.runs.end()}, [&] { m_lu = result.op == app::BitFlagOp::Lu; });
}

QString BitFlagRunsModel::verdict(const app::BitFlagOpRun& run) const {
    if (run.agrees) return tr("agrees");
    if (run.problem.startsWith(QLatin1String("not checked"))) return run.problem;
    if (!run.samePattern) return tr("PATTERN DIFFERS: %1").arg(run.problem);
    return tr("DIFFERS: %1").arg(run.problem);
}

QString BitFlagRunsModel::text(const app::BitFlagOpRun& run, int row, int column) const {
    if (column == Backend) return run.name;
    if (!run.error.isEmpty()) return column == Result ? tr("did not run: %1").arg(run.error) : QString();
    switch (column) {
    case Result: return verdict(run);
    case Time: return app::timingText(run.timing);
    case Entries: return QString::number(run.entries);
    case Difference: {
        QString difference = m_lu ? tr("‖A − LU‖/‖A‖ %1").arg(run.residual, 0, 'g', 3) : tr("%1").arg(run.maxDifference, 0, 'g', 3);
        if (m_lu && row > 0) difference += tr("; factors %1").arg(run.maxDifference, 0, 'g', 3);
        return difference + tr(" (%1 of bound)").arg(ratioText(run.worstBoundRatio));
    }
    case CheckedAgainst: return run.checkedAgainst;
    }
    return {};
}

QVariant BitFlagRunsModel::cell(const app::BitFlagOpRun& run, const QModelIndex& index, int role) const {
    switch (role) {
    case Qt::DisplayRole: return text(run, index.row(), index.column());
    case Qt::TextAlignmentRole:  // the reason a backend did not run is spanned over its figures
        return !run.error.isEmpty() && index.column() > Result ? QVariant(kAlignFigure) : QVariant();
    case Qt::ForegroundRole:
        if (index.column() != Result) return {};
        if (!run.error.isEmpty()) return QColor(150, 40, 30);
        return run.agrees ? QColor(20, 120, 40) : QColor(190, 30, 30);
    case Qt::ToolTipRole:
        if (index.column() == Time && run.error.isEmpty()) return app::timingTooltip(run.timing);
        if (index.column() != Result) return {};
        return run.error.isEmpty() ? run.problem : run.error;
    default: return {};
    }
}

} // namespace spyglass::widgets
