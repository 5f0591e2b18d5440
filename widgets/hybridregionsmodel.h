#pragma once
// The dense regions kept by hybrid detection, one row each: shape (in its colour on the picture),
// rows and columns (1-based), band offsets, fill, zeros stored and cells; the whole row's tooltip is
// the region's description, as on the picture.
#include "core/hybriddetectionjob.h"
#include "spyoverlay.h"

#include <QAbstractTableModel>
#include <QList>
#include <QVector>

namespace spyglass::widgets {

class HybridRegionsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Shape, Rows, Columns, BandOffsets, Fill, Zeros, Cells, ColumnCount };

    explicit HybridRegionsModel(QObject* parent = nullptr);
    // `overlays[i]` is how region i is drawn: its colour and description are the row's.
    void setRegions(const QVector<app::RegionInfo>& regions, const QList<SpyOverlay>& overlays);
    void clear();

    // "rectangle", "triangle lower-left", "band".
    static QString regionName(const app::RegionInfo& region);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVector<app::RegionInfo> m_regions;
    QList<SpyOverlay> m_overlays;
};

} // namespace spyglass::widgets
