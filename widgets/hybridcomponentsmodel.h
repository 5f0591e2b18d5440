#pragma once
// The connected components the detector labelled in its thumbnail, one row each: label (in its
// colour on the picture), verdict, why, pixels and the matrix rows × columns its box covers; the
// row's tooltip says it all. Kept first, then by size; only the first kMaxRows are listed (and drawn).
#include "rowtablemodel.h"
#include "core/hybriddetectionjob.h"

#include <memory>

namespace spyglass::widgets {

class HybridComponentsModel : public RowTableModel<ComponentInfo> {
    Q_OBJECT
public:
    enum Column { Label, Verdict, Why, Pixels, Extent, ColumnCount };
    static constexpr int kMaxRows = 2000;
    static constexpr int SortRole = Qt::UserRole;  // what a sorting proxy compares

    explicit HybridComponentsModel(QObject* parent = nullptr);
    void setPicture(std::shared_ptr<const DetectionPicture> picture);  // null: none

private:
    QVariant cell(const ComponentInfo& c, const QModelIndex& index, int role) const override;

    Index m_cellsPerPixel = 1;  // matrix cells per thumbnail pixel, each way
};

} // namespace spyglass::widgets
