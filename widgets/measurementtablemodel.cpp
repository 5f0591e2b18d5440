#include "measurementtablemodel.h"

#include "readonlytable.h"

#include "core/timingtext.h"

#include <QHeaderView>
#include <QTableView>

namespace spyglass::widgets {

MeasurementTableModel::MeasurementTableModel(QObject* parent)
    : RowTableModel({textColumn(tr("Backend")),
                     {tr("Time, median (min–max)"), tr("The compute alone: median of the timed runs after the warm-up"), kAlignFigure},
                     {tr("vs vendor"), tr("The vendor row's median over this row's: above 1 is faster than NVIDIA's library"), kAlignFigure},
                     {tr("Bandwidth"), tr("Bytes the work must move over the median time, as a share of the device's measured copy bandwidth"), kAlignFigure},
                     {tr("Cold 1st ms"), tr("The first call, timed alone: module loading and library start-up land here, not in the median"), kAlignFigure},
                     {tr("Set-up ms"), tr("Buffers, handles, plans, workspaces, pointer arrays: made once, outside the timed runs"), kAlignFigure},
                     {tr("Upload ms"), tr("Host-to-device copies, by CUDA events"), kAlignFigure},
                     {tr("Download ms"), tr("Device-to-host copies, by CUDA events"), kAlignFigure}},
                    parent) {}

// The vendor's fastest path is the one to beat (gesvdj or gesvda, getrf+getri or matinv).
const MeasuredRow* MeasurementTableModel::vendorRow() const {
    const MeasuredRow* best = nullptr;
    for (int r = 0; r < rowCount(); ++r) {
        const MeasuredRow& row = rowAt(r);
        if (row.isVendor && row.timing.measured() && (!best || row.timing.medianMs < best->timing.medianMs)) best = &row;
    }
    return best;
}

double MeasurementTableModel::speedupOfRow(int row) const {
    const MeasuredRow* vendor = vendorRow();
    if (!vendor || row < 0 || row >= rowCount()) return 0;
    return app::speedupOver(vendor->timing, rowAt(row).timing);
}

QVariant MeasurementTableModel::cell(const MeasuredRow& row, const QModelIndex& index, int role) const {
    const Measurement& m = row.timing;
    if (role == Qt::ToolTipRole) return row.note.isEmpty() ? app::timingTooltip(m) : row.note;
    if (role != Qt::DisplayRole) return {};
    if (index.column() == Backend) return row.name;
    if (!m.measured()) return index.column() == Median ? (row.note.isEmpty() ? tr("not run") : tr("failed")) : QVariant();
    switch (index.column()) {
    case Median: return app::timingText(m);
    case Ratio: {
        if (&row == vendorRow()) return tr("1 (fastest vendor)");
        const double speedup = speedupOfRow(index.row());
        // Two decimals, or two significant digits for the CPU reference's small ratios (0.00088×).
        return speedup > 0 ? QStringLiteral("%1×").arg(speedup >= 0.1 ? QString::number(speedup, 'f', 2) : QString::number(speedup, 'g', 2))
                           : QString();
    }
    case Bandwidth: return app::bandwidthText(row.bytesMoved, m).section(QLatin1Char(' '), 0, 1);
    case Cold: return app::millisecondsText(m.coldMs);
    case Setup: return app::millisecondsText(m.setupMs);
    case Upload: return app::millisecondsText(m.uploadMs);
    case Download: return app::millisecondsText(m.downloadMs);
    }
    return {};
}

QTableView* measurementTable(MeasurementTableModel* model) {
    QTableView* view = readOnlyTable(model, QStringLiteral("measurements"), TableTrait::NoRowNumbers);
    view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    view->setWordWrap(false);
    return view;
}

} // namespace spyglass::widgets
