#include "hybridregionsmodel.h"

namespace spyglass::widgets {

HybridRegionsModel::HybridRegionsModel(QObject* parent)
    : RowTableModel({{tr("Shape")}, {tr("Rows")}, {tr("Columns")}, {tr("Band offsets")}, {tr("Fill")}, {tr("Zeros stored")}, {tr("Cells")}},
                    parent) {}

QString HybridRegionsModel::regionName(const app::RegionInfo& region) {
    return region.corner.isEmpty() ? region.shape : region.shape + QLatin1Char(' ') + region.corner;
}

void HybridRegionsModel::setRegions(const QVector<app::RegionInfo>& regions, const QList<SpyOverlay>& overlays) {
    Q_ASSERT(regions.size() == overlays.size());
    setRows({regions.begin(), regions.end()}, [&] { m_overlays = overlays; });
}

QVariant HybridRegionsModel::cell(const app::RegionInfo& r, const QModelIndex& index, int role) const {
    switch (role) {
    case Qt::ToolTipRole: return m_overlays[index.row()].details;
    case Qt::ForegroundRole: return index.column() == Shape ? QVariant(m_overlays[index.row()].color) : QVariant();
    case Qt::DisplayRole:
        switch (index.column()) {
        case Shape: return regionName(r);
        case Rows: return QStringLiteral("%1–%2").arg(r.rowBegin + 1).arg(r.rowEnd);
        case Columns: return QStringLiteral("%1–%2").arg(r.colBegin + 1).arg(r.colEnd);
        case BandOffsets:
            return r.shape == QLatin1String("band") ? QStringLiteral("%1 to %2 (width %3)").arg(r.bandLow).arg(r.bandHigh).arg(r.bandWidth)
                                                    : QString();
        case Fill: return QStringLiteral("%1 %").arg(100.0 * r.fill, 0, 'f', 1);
        case Zeros: return QString::number(r.zeros);
        case Cells: return QString::number(r.cells);
        }
        return {};
    default: return {};
    }
}

} // namespace spyglass::widgets
