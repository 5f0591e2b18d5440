#pragma once
// The dense regions kept by hybrid detection, one row each: shape (in its colour on the picture),
// rows and columns (1-based), band offsets, fill, zeros stored and cells; the whole row's tooltip is
// the region's description, as on the picture.
#include "core/hybriddetectionjob.h"
#include "rowtablemodel.h"
#include "spyoverlay.h"

#include <QList>
#include <QVector>

namespace spyglass::widgets {

class HybridRegionsModel : public RowTableModel<app::HybridRegion> {
    Q_OBJECT
public:
    enum Column { Shape, Rows, Columns, BandOffsets, Fill, Zeros, Cells, ColumnCount };

    explicit HybridRegionsModel(QObject* parent = nullptr);
    // `overlays[i]` is how region i is drawn: its colour and description are the row's.
    void setRegions(const QVector<app::HybridRegion>& regions, const QList<SpyOverlay>& overlays);

private:
    QVariant cell(const app::HybridRegion& region, const QModelIndex& index, int role) const override;

    QList<SpyOverlay> m_overlays;
};

} // namespace spyglass::widgets
