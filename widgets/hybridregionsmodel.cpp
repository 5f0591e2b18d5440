#include "hybridregionsmodel.h"

namespace spyglass::widgets {

HybridRegionsModel::HybridRegionsModel(QObject* parent) : QAbstractTableModel(parent) {}

QString HybridRegionsModel::regionName(const app::RegionInfo& region) {
    return region.corner.isEmpty() ? region.shape : region.shape + QLatin1Char(' ') + region.corner;
}

void HybridRegionsModel::setRegions(const QVector<app::RegionInfo>& regions, const QList<SpyOverlay>& overlays) {
    Q_ASSERT(regions.size() == overlays.size());
    beginResetModel();
    m_regions = regions;
    m_overlays = overlays;
    endResetModel();
}

void HybridRegionsModel::clear() { setRegions({}, {}); }

int HybridRegionsModel::rowCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : int(m_regions.size()); }
int HybridRegionsModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant HybridRegionsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
    const app::RegionInfo& r = m_regions[index.row()];
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

QVariant HybridRegionsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case Shape: return tr("Shape");
    case Rows: return tr("Rows");
    case Columns: return tr("Columns");
    case BandOffsets: return tr("Band offsets");
    case Fill: return tr("Fill");
    case Zeros: return tr("Zeros stored");
    case Cells: return tr("Cells");
    }
    return {};
}

} // namespace spyglass::widgets
