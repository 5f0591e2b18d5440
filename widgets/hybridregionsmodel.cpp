#include "hybridregionsmodel.h"

namespace spyglass::widgets {

HybridRegionsModel::HybridRegionsModel(QObject* parent)
    : RowTableModel({{tr("Shape")}, {tr("Rows")}, {tr("Columns")}, {tr("Band offsets")}, {tr("Fill")}, {tr("Zeros stored")}, {tr("Cells")}},
                    parent) {}

void HybridRegionsModel::setRegions(const QVector<app::HybridRegion>& regions, const QList<SpyOverlay>& overlays) {
    Q_ASSERT(regions.size() == overlays.size());
    setRows({regions.begin(), regions.end()}, [&] { m_overlays = overlays; });
}

QVariant HybridRegionsModel::cell(const app::HybridRegion& kept, const QModelIndex& index, int role) const {
    const DenseRegion& r = kept.region;
    switch (role) {
    case Qt::ToolTipRole: return m_overlays[index.row()].details;
    case Qt::ForegroundRole: return index.column() == Shape ? QVariant(m_overlays[index.row()].color) : QVariant();
    case Qt::DisplayRole:
        switch (index.column()) {
        case Shape: return app::denseRegionName(r);
        case Rows: return QStringLiteral("%1–%2").arg(r.rowBegin + 1).arg(r.rowEnd);
        case Columns: return QStringLiteral("%1–%2").arg(r.colBegin + 1).arg(r.colEnd);
        case BandOffsets:
            return r.shape == RegionShape::Band ? QStringLiteral("%1 to %2 (width %3)").arg(r.bandLow).arg(r.bandHigh).arg(r.bandWidth())
                                                : QString();
        case Fill: return QStringLiteral("%1 %").arg(100.0 * r.fill(), 0, 'f', 1);
        case Zeros: return QString::number(kept.zeros);
        case Cells: return QString::number(static_cast<qint64>(r.cells()));
        }
        return {};
    default: return {};
    }
}

} // namespace spyglass::widgets
