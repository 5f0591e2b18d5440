#pragma once
// The row segments of a segmented-DIA layout, one row each: its rows (1-based, coloured by the
// block it was merged into, as its band on the picture), diagonals, operands, block and the first
// offsets. Past kMaxRows segments the table stops: more would be slow to fill and useless to scroll.
#include "core/segdiajob.h"

#include <QAbstractTableModel>
#include <QColor>

namespace spyglass::widgets {

class SegDiaSegmentsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Rows, Diagonals, Operands, Block, Offsets, ColumnCount };
    static constexpr int kMaxRows = 5000;

    explicit SegDiaSegmentsModel(QObject* parent = nullptr);
    void setLayout(const app::SegmentedDiaLayout& layout);
    void clear();

    // The colour of a merged block, shared by the table and the row bands on the picture.
    static QColor blockColor(int block);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const SegmentedDiaMatrix<double>> m_format;
    QVector<int> m_segmentBlock;
};

} // namespace spyglass::widgets
