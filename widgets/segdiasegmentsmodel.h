#pragma once
// The row segments of a segmented-DIA layout, one row each: its rows (1-based, coloured by the
// block it was merged into, as its band on the picture), diagonals, operands, block and the first
// offsets. Past kMaxRows segments the table stops: more would be slow to fill and useless to scroll.
#include "core/segdiajob.h"
#include "rowtablemodel.h"

#include <QColor>

namespace spyglass::widgets {

// A row is the index of a segment of the layout's format.
class SegDiaSegmentsModel : public RowTableModel<int> {
    Q_OBJECT
public:
    enum Column { Rows, Diagonals, Operands, Block, Offsets, ColumnCount };
    static constexpr int kMaxRows = 5000;

    explicit SegDiaSegmentsModel(QObject* parent = nullptr);
    void setLayout(const app::SegmentedDiaLayout& layout);

    // The colour of a merged block, shared by the table and the row bands on the picture.
    static QColor blockColor(int block);

private:
    QVariant cell(const int& segment, const QModelIndex& index, int role) const override;

    std::shared_ptr<const SegmentedDiaMatrix<double>> m_format;
    QVector<int> m_segmentBlock;
};

} // namespace spyglass::widgets
