#pragma once
// The connected components the detector labelled in its thumbnail, one row each: label (in its
// colour on the picture), verdict, why, pixels and the matrix rows × columns its box covers; the
// row's tooltip says it all. Only the first kMaxRows are listed (and drawn).
#include "spyglass/hybrid_regions.h"

#include <QAbstractTableModel>

#include <memory>

namespace spyglass::widgets {

class HybridComponentsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Label, Verdict, Why, Pixels, Extent, ColumnCount };
    static constexpr int kMaxRows = 2000;

    explicit HybridComponentsModel(QObject* parent = nullptr);
    void setPicture(std::shared_ptr<const DetectionPicture> picture);  // null: none
    void clear();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const DetectionPicture> m_picture;
};

} // namespace spyglass::widgets
